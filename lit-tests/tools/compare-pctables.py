#!/usr/bin/env python3
"""compare-pctables: the PC tables of a program linked from `pcmap emit`
output, against the same program linked from LLVM's objects before emit,
and against what the running program's callbacks saw.

    compare-pctables.py PROGRAM.json REFERENCE.json [--runtime LOG]
                        [--object OBJ.json ...] [--merged NAME ...]

PROGRAM.json and REFERENCE.json are `pcmap dump --json` of the two linked
programs (the reference keeps LLVM 16's raw sections, `sanmd_covered` and
`sanmd_atomics2!C`, which the linker merges the same way: COMDAT copies
discarded with their tables). The covered entries (function, offset, size,
feature mask, stack-arguments size) and the atomics entries (function,
offset) must be the same multisets, and no two covered entries of the
program may start at the same address. The reference's covered entries are
LLVM 16's (a stack-arguments size after every UAR entry, zero included) and
are compared as LLVM 19 writes them (the has-size bit and the size when it
is not zero), which is what `pcmap emit` must have made of them.

--runtime LOG: the output of the program's runtime (Inputs/cxx/runtime.c):
its "covered_add:" and "atomics_add:" lines must give the program's section
sizes and entry counts, and every atomic PC must lie in a covered function.

--merged NAME (with --object, `pcmap dump --json` of each object before
emit): NAME is covered in every object and exactly once in the program.

Prints a summary; on any difference, "FAIL" lines and exit status 1.
"""
import argparse
import collections
import json
import re
import sys


def tables(path):
    """{'covered'|'atomics': (bytes, [entries])} of a dump: every section of
    the kind (an object has one per function section, a program one)."""
    with open(path, encoding="utf-8") as f:
        dump = json.load(f)
    out = {}
    for sec in dump.get("pc_sections", []):
        m = re.match(r"sanmd_(covered|atomics)2?(!C)?$", sec["name"])
        if not m:
            continue
        size, entries = out.get(m.group(1), (0, []))
        llvm16 = m.group(1) == "covered" and not m.group(0).startswith("sanmd_covered2")
        new = [llvm19_form(e) if llvm16 else e for e in sec["entries"]]
        out[m.group(1)] = (size + sec["size"], entries + new)
    return out


def llvm19_form(e):
    """A covered entry of LLVM 16's `sanmd_covered` as LLVM 19 writes it."""
    e = dict(e)
    args = e.pop("stack_args", None)
    if args:
        e["constants"] = [e["constants"][0] | 4] + e["constants"][1:]
        e["stack_args"] = args
    return e


def key(kind, e):
    pc = e["pc"]
    k = (pc.get("function"), pc.get("function_offset"))
    if kind == "covered":
        k += (e.get("size"), tuple(e.get("constants", [])), e.get("stack_args"))
    return k


def show(k):
    s = f"{k[0]}+{k[1]:#x}"
    if len(k) > 2:
        s += f" size {k[2]} constants {list(k[3])}"
        if k[4] is not None:
            s += f" stack-args {k[4]}"
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("program")
    ap.add_argument("reference")
    ap.add_argument("--runtime")
    ap.add_argument("--object", action="append", default=[])
    ap.add_argument("--merged", action="append", default=[])
    args = ap.parse_args()

    fails = []
    prog, ref = tables(args.program), tables(args.reference)
    for kind in ("covered", "atomics"):
        if kind not in prog or kind not in ref:
            fails.append(f"FAIL {kind}: no table in {'the program' if kind not in prog else 'the reference'}")
            continue
        got = collections.Counter(key(kind, e) for e in prog[kind][1])
        want = collections.Counter(key(kind, e) for e in ref[kind][1])
        for k in sorted(set(got) | set(want), key=str):
            if got[k] != want[k]:
                fails.append(f"FAIL {kind}: {show(k)}: {got[k]} in the program, {want[k]} in the reference")
        print(f"{kind}: {len(prog[kind][1])} entries, reference {len(ref[kind][1])}")
    if "covered" in prog:
        starts = collections.Counter(e["pc"].get("address") for e in prog["covered"][1])
        for address, n in sorted(starts.items(), key=lambda kv: str(kv[0])):
            if n > 1 or address is None:
                fails.append(f"FAIL covered: {n} entries at address {address}")

    if args.merged:
        objs = [tables(o) for o in args.object]
        if not objs:
            sys.exit("compare-pctables: --merged needs --object")
        for name in args.merged:
            per_object = [sum(e["pc"].get("function") == name for e in o.get("covered", (0, []))[1])
                          for o in objs]
            in_prog = sum(e["pc"].get("function") == name for e in prog.get("covered", (0, []))[1])
            line = f"merged {name}: covered in {per_object} of the objects, {in_prog} in the program"
            print(line)
            if 0 in per_object or in_prog != 1:
                fails.append(f"FAIL {line}")

    if args.runtime:
        with open(args.runtime, encoding="utf-8", errors="replace") as f:
            log = f.read()
        for kind in ("covered", "atomics"):
            lines = re.findall(rf"^{kind}_add: version=(\d+) bytes=(\d+) entries=(\d+)(.*)$", log, re.M)
            if len(lines) != 1:
                fails.append(f"FAIL run time: {len(lines)} {kind}_add lines, expected 1")
                continue
            version, size, n, rest = lines[0]
            want_size, entries = prog.get(kind, (None, []))
            print(f"run time {kind}: version {version}, {size} bytes, {n} entries{rest}")
            if rest or int(size) != want_size or int(n) != len(entries):
                fails.append(f"FAIL run time {kind}: {size} bytes, {n} entries{rest}; "
                             f"the program has {want_size} bytes, {len(entries)} entries")
        m = re.search(r"^atomic PCs in covered functions: (\d+) of (\d+)$", log, re.M)
        n_atomics = len(prog.get("atomics", (0, []))[1])
        if not m or m.group(1) != m.group(2) or int(m.group(2)) != n_atomics:
            fails.append(f"FAIL run time: atomic PCs in covered functions: "
                         f"{m.group(0) if m else 'no report'} (the program has {n_atomics})")

    for f in fails:
        print(f)
    if fails:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
