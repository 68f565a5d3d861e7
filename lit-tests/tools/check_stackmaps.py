#!/usr/bin/env python3
"""Check `pcmap` against oracles it did not write, on LLVM's own stack map
tests (lit-tests/stackmap/llvm-corpus/, issue 14).

For every input, every triple the input is meant for, every `llc` variant the
input's header asks for, and the chosen LLVM version (16 or 19):

  compile   llc-N -filetype=obj (a refusal LLVM's own test expects, or one the
            header declares for that version, is checked to happen)
  emit      pcmap emit --ir IN.ll OBJ; pcmap emit OBJ (no IR) refuses its
            records of unknown kind, writing nothing, and pcmap emit --no-walk
            OBJ writes them; pcmap verify names each of them in what that
            wrote, and verify --no-walk none
  readobj   pcmap dump --format=readobj equals llvm-readobj-N --stackmap from
            "LLVM StackMap Version" on (compiled and emitted objects), and so
            does pcmap dump --format=readobj of each emitted object's flat
            table (printed as the v3 table it was made from) against
            llvm-readobj-N on the object it was made from
  flat      the flat table of each emitted object describes exactly the v3
            records (pcmap dump --json): functions, stack sizes, constants,
            record IDs, offsets, locations, live-outs
  sizes     every stated kind and patchable size equals the oracle: the IR's
            stackmap shadow / patchpoint numBytes / statepoint numPatchBytes,
            or for a statepoint that is a call, the length of the call that
            ends at the record per llvm-objdump-N -d
  described the plugin's path gives the same flat table as --ir: opt-N with
            LLVM N's plugin (pcmap<sites>) describes the sites in
            .pcmap.sites, llc-N compiles that, pcmap emit without --ir
            (pcmap dump --json of both flat tables compared, kinds and sizes
            included)
  bytes     each flat table is no larger than the v3 table it was made from
            (the size rule of docs/stackmap-v2.md; `--sizes FILE` appends
            every pair of sizes to FILE, one JSON object per line)
  link      the input compiled as position-independent code, through emit
            --no-walk (.llvm_stackmaps dropped by default), links as a shared
            object with ld.lld-16 and the target's GNU ld, with no dynamic
            relocation into pcmap_stackmaps (llvm-readelf-16 -S -r)

Each step is switched in STEPS below (or with --steps / --stated), so it can
be turned on as the feature it guards lands. `--stated=report` prints wrong
stated kinds and sizes without failing (a bug fixed in parallel); `fail`
makes them failures.

Input header lines (comments at the top of each corpus file):
  ; original-run: ...            LLVM's RUN line: its -mtriple picks the targets
  ; corpus-triples: a b          the targets (checked against original-run)
  ; corpus-llc-args: ...         one llc variant per line (none: one plain run)
  ; corpus-expect: llc-error T   llc must refuse it with message T
  ; corpus-llc19-error: T        llc-19 must refuse it with message T (why: in
  ; corpus-llc16-error: T        the header's `changed:` text)
  ; corpus-llc16-unsupported: R  that LLVM has none of the input's stack maps
                                 (R says why): checked to give no stack map

Known failures of today's code are listed in a file (--known, default
known-failures.txt beside the corpus): `INPUT TARGET LLC STEP REGEX` per line
(`*` for any target or llc). A failure that matches a line is printed as
KNOWN and does not fail the run; a line that matches nothing in a run that
covered its input, target and llc fails it ("fixed: remove the line"), so the
list never hides a fix. --no-known turns the list off.

Exit status 0 when every enabled step passed; each failure is printed with
the input, triple, llc and the exact commands to reproduce it.
"""
import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys

# The steps and their default state. Flip a value here when the feature it
# guards lands; a lit RUN line can override with --steps / --stated.
STEPS = {
    "readobj": "on",
    "flat": "on",
    "sizes": "on",
    "bytes": "on",
    "described": "on",
    "link": "on",
}
# Wrong stated kinds/sizes: "report" (print, do not fail) or "fail".
STATED = "fail"

TARGETS = {
    "x86_64": ("x86_64-unknown-linux-gnu", "x86_64-linux-gnu-ld"),
    "aarch64": ("aarch64-unknown-linux-gnu", "aarch64-linux-gnu-ld"),
    "ppc64le": ("powerpc64le-unknown-linux-gnu", "powerpc64le-linux-gnu-ld"),
    "ppc64": ("powerpc64-unknown-linux-gnu", "powerpc64-linux-gnu-ld"),
}
STATEPOINT_DEFAULT_ID = 0xABCDEF0F  # LLVM's ID for calls with "deopt" bundles
U64 = 1 << 64


class Failure(Exception):
    pass


# ---------------------------------------------------------------- header


def parse_header(path):
    head = {"runs": [], "triples": None, "variants": [],
            "llc_error": {}, "unsupported": {}, "ir_triple": None}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for line in text.splitlines():
        m = re.match(r";\s*(original-run|corpus-triples|corpus-llc-args|corpus-expect"
                     r"|corpus-llc(16|19)-(?:error|unsupported)):\s?(.*)$", line)
        if m:
            key, ver, val = m.group(1), m.group(2), m.group(3).strip()
            if key == "original-run":
                head["runs"].append(val)
            elif key == "corpus-triples":
                head["triples"] = val.split()
            elif key == "corpus-llc-args":
                head["variants"].append(val)
            elif key == "corpus-expect":
                kind, _, msg = val.partition(" ")
                if kind != "llc-error":
                    raise Failure(f"{path}: unknown corpus-expect {kind}")
                head["llc_error"]["16"] = head["llc_error"]["19"] = msg
            elif key.endswith("-unsupported"):
                head["unsupported"][ver] = val
            elif key.startswith("corpus-llc"):
                head["llc_error"][ver] = val
        m = re.match(r'\s*target\s+triple\s*=\s*"([^"]*)"', line)
        if m:
            head["ir_triple"] = m.group(1)
    if not head["variants"]:
        head["variants"] = [""]
    return head, text


def arch_targets(triple):
    t = triple.lower()
    if t.startswith(("x86_64", "amd64")):
        return ["x86_64"]
    if t.startswith(("aarch64", "arm64")):
        return ["aarch64"]
    if t.startswith("powerpc64") or t.startswith("ppc64"):
        return ["ppc64le", "ppc64"]
    raise Failure(f"no target of ours for triple {triple}")


def meant_for(path, head):
    """The targets an input is meant for, from LLVM's RUN lines' -mtriple (or
    the module's triple when they name none); all four for target-independent
    IR. The header's corpus-triples must agree."""
    found = []
    for run in head["runs"]:
        for m in re.finditer(r'-mtriple[= ]"?([\w.\-]+)"?', run):
            found += [t for t in arch_targets(m.group(1)) if t not in found]
    if not found and head["ir_triple"]:
        found = arch_targets(head["ir_triple"])
    if not found:
        found = list(TARGETS)
    if head["triples"] is not None and sorted(head["triples"]) != sorted(found):
        raise Failure(f"{path}: corpus-triples {head['triples']} but its RUN lines say {found}")
    return found


# ---------------------------------------------------------------- IR scan


def split_args(s):
    """Split a call's argument text at top-level commas."""
    out, depth, cur, quote = [], 0, [], False
    for ch in s:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "([{<":
            depth += 1
        elif not quote and ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def closing(text, start):
    """Index of the parenthesis closing the one at text[start]."""
    depth, quote = 0, False
    for i in range(start, len(text)):
        ch = text[i]
        if ch == '"':
            quote = not quote
        elif quote:
            continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    raise Failure("unbalanced parentheses in IR")


def int_arg(arg):
    m = re.match(r"\s*i(\d+)\s+(?:immarg\s+)?(-?\d+)\s*$", arg)
    if not m:
        raise Failure(f"not an integer constant argument: {arg!r}")
    return int(m.group(2))


def strip_comments(line):
    out, quote = [], False
    for ch in line:
        if ch == '"':
            quote = not quote
        if ch == ";" and not quote:
            break
        out.append(ch)
    return "".join(out)


def scan_ir(text):
    """Every stack map site of the module: a list of dicts with function,
    kind, id, size (None for a statepoint call: its call decides) in source
    order. IDs are taken as u64 (they may be written negative)."""
    groups = {}
    for m in re.finditer(r"^attributes\s+#(\d+)\s*=\s*\{(.*)\}\s*$", text, re.M):
        groups[m.group(1)] = m.group(2)
    sites = []
    func, body = None, []

    def flush():
        if func is not None:
            sites.extend(scan_function(func, " ".join(body), groups))

    for raw in text.splitlines():
        line = strip_comments(raw)
        if func is None:
            m = re.match(r'\s*define\b.*?@("(?:[^"\\]|\\.)*"|[-\w$.]+)\s*\(', line)
            if m:
                func, body = m.group(1).strip('"'), [line[m.end() - 1:]]
                if line.rstrip().endswith("}") and "{" in line:
                    flush()
                    func = None
            continue
        if line.strip() == "}":
            flush()
            func = None
            continue
        body.append(line)
    return sites


CALLEE = re.compile(r"@(llvm\.experimental\.(stackmap|patchpoint\.[\w.]+|gc\.statepoint\.[\w.]+)"
                    r"|\"[^\"]*\"|[-\w$.]+)\s*\(")


def scan_function(func, body, groups):
    sites = []
    # Each call or invoke instruction: find the callee and its argument list.
    for m in re.finditer(r"\b(call|invoke)\b", body):
        cm = CALLEE.search(body, m.end())
        if not cm:
            continue
        # The callee must belong to this instruction (before the next one).
        nxt = re.search(r"\b(call|invoke)\b", body[m.end():cm.start()])
        if nxt:
            continue
        open_paren = cm.end() - 1
        close = closing(body, open_paren)
        args = split_args(body[open_paren + 1:close])
        callee = cm.group(1)
        rest = body[close + 1:]
        rest = rest[:re.search(r"\b(call|invoke)\b|$", rest).start()]
        if callee == "llvm.experimental.stackmap":
            sites.append(dict(function=func, kind="stackmap", id=int_arg(args[0]) % U64,
                              size=int_arg(args[1])))
        elif callee.startswith("llvm.experimental.patchpoint."):
            sites.append(dict(function=func, kind="patchpoint", id=int_arg(args[0]) % U64,
                              size=int_arg(args[1])))
        elif callee.startswith("llvm.experimental.gc.statepoint."):
            n = int_arg(args[1])
            sites.append(dict(function=func, kind="statepoint", id=int_arg(args[0]) % U64,
                              size=n if n > 0 else None))
        elif callee.startswith("llvm.") and callee != "llvm.experimental.deoptimize" \
                and not callee.startswith("llvm.experimental.deoptimize."):
            continue
        else:
            # A call with a "deopt" bundle is lowered as a statepoint; its ID and
            # patch bytes come from call-site attributes.
            # Call-site attributes come before the operand bundles.
            bundle = re.search(r"\[\s*\"[^\"]+\"\s*\(.*\]", rest, re.S)
            if not bundle or not re.search(r'"deopt"\s*\(', bundle.group(0)):
                continue
            attrs = rest
            for g in re.findall(r"#(\d+)", rest):
                attrs += " " + groups.get(g, "")
            sid = re.search(r'"statepoint-id"\s*=\s*"(-?\d+)"', attrs)
            npb = re.search(r'"statepoint-num-patch-bytes"\s*=\s*"(\d+)"', attrs)
            n = int(npb.group(1)) if npb else 0
            sites.append(dict(function=func, kind="statepoint",
                              id=(int(sid.group(1)) if sid else STATEPOINT_DEFAULT_ID) % U64,
                              size=n if n > 0 else None))
    return sites


# ---------------------------------------------------------------- tools


class Runner:
    def __init__(self, args, log):
        self.args = args
        self.log = log
        self.commands = []

    def run(self, cmd, check=True, **kw):
        line = " ".join(shlex.quote(c) for c in cmd)
        self.commands.append(line)
        self.log.write("$ " + line + "\n")
        p = subprocess.run(cmd, capture_output=True, text=True, **kw)
        if p.stderr:
            self.log.write(p.stderr)
        if check and p.returncode != 0:
            raise Failure(f"`{line}` exited {p.returncode}: {p.stderr.strip()[:2000]}")
        return p


def tool(args, version, name):
    return os.path.join(args.bin16 if version == "16" else args.bin19, name)


# ---------------------------------------------------------------- checks


def readobj_text(run, args, version, obj):
    out = run.run([tool(args, version, "llvm-readobj"), "--stackmap", obj]).stdout
    lines = out.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("LLVM StackMap Version"):
            return "".join(lines[i:])
    return ""


def check_readobj(run, args, version, obj, label, flat_of=None):
    """pcmap dump --format=readobj of OBJ, or with FLAT_OF of that object's
    flat table (--section=pcmap_stackmaps), equals llvm-readobj --stackmap
    of OBJ."""
    want = readobj_text(run, args, version, obj)
    if not want:
        raise Failure(f"{label}: llvm-readobj-{version} printed no stack map")
    dump = ["dump", "--format=readobj"]
    if flat_of:
        dump += ["--section=pcmap_stackmaps", flat_of]
    else:
        dump += [obj]
    got = run.run(shlex.split(args.pcmap) + dump).stdout
    if got != want:
        import difflib
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            f"llvm-readobj-{version}", "pcmap", n=2))
        raise Failure(f"{label}: pcmap dump --format=readobj differs from llvm-readobj-{version} "
                      f"--stackmap:\n{diff[:6000]}")


def dump_json(run, args, obj):
    return json.loads(run.run(shlex.split(args.pcmap) + ["dump", "--json", obj]).stdout)


LOC_FIELDS = ("kind", "size", "dwarf_reg", "offset", "value", "index")


def loc_key(loc):
    return tuple(loc.get(k) for k in LOC_FIELDS)


def record_key(rec):
    return (rec["id"], rec["function"], rec["instruction_offset"],
            [loc_key(l) for l in rec["locations"]],
            [(o["dwarf_reg"], o["size"]) for o in rec["live_outs"]])


def check_flat(v3_tables, flat_tables, label):
    """The flat tables describe exactly the v3 records."""
    problems = []
    if len(v3_tables) != len(flat_tables):
        raise Failure(f"{label}: {len(v3_tables)} v3 tables but {len(flat_tables)} flat tables")
    for t, (v3, flat) in enumerate(zip(v3_tables, flat_tables)):
        where = f"{label} table {t}"
        if v3["constants"] != flat["constants"]:
            problems.append(f"{where}: constants {v3['constants']} != {flat['constants']}")
        vf, ff = v3["functions"], flat["functions"]
        if len(vf) != len(ff):
            problems.append(f"{where}: {len(vf)} v3 functions but {len(ff)} flat")
        for a, b in zip(vf, ff):
            for k in ("symbol", "section", "offset", "address", "stack_size", "record_count"):
                if a.get(k) != b.get(k):
                    problems.append(f"{where}: function {a.get('symbol')}: {k} v3 {a.get(k)!r} "
                                    f"flat {b.get(k)!r}")
        # v3 lists records in LLVM's order; the flat table sorts each
        # function's records by offset, ties in LLVM's order.
        order, by_func = [], {}
        for i, r in enumerate(v3["records"]):
            if r["function"] not in by_func:
                order.append(r["function"])
            by_func.setdefault(r["function"], []).append((r["instruction_offset"], i, r))
        want = [r for fn in order for _, _, r in sorted(by_func[fn], key=lambda x: x[:2])]
        got = flat["records"]
        if len(want) != len(got):
            problems.append(f"{where}: {len(want)} v3 records but {len(got)} flat")
        for n, (a, b) in enumerate(zip(want, got)):
            ka, kb = record_key(a), record_key(b)
            if ka != kb:
                what = [f"{name} v3 {x!r} flat {y!r}" for name, x, y in
                        zip(("id", "function", "offset"), ka[:3], kb[:3]) if x != y]
                if len(ka[3]) != len(kb[3]):
                    what.append(f"{len(ka[3])} v3 locations, {len(kb[3])} flat")
                what += [f"location {i}: v3 {dict(zip(LOC_FIELDS, x))} flat {dict(zip(LOC_FIELDS, y))}"
                         for i, (x, y) in enumerate(zip(ka[3], kb[3])) if x != y]
                if ka[4] != kb[4]:
                    what.append(f"live-outs v3 {ka[4]} flat {kb[4]}")
                problems.append(f"{where}: record {n} (function {a['function']}, ID {a['id']} at "
                                f"+{a['instruction_offset']}): " + "; ".join(what))
            if b.get("live_outs") and not b.get("has_live_out_info"):
                problems.append(f"{where}: record {n}: live-outs listed but has_live_out_info false")
            if b.get("kind") == "patchpoint" and not b.get("has_live_out_info"):
                problems.append(f"{where}: record {n}: a patchpoint without has_live_out_info")
    if problems:
        raise Failure("\n".join(problems[:40]))


# `  addr: <bytes, in pairs or in words>\t<mnemonic>\t<operands>`
OBJDUMP_LINE = re.compile(r"^\s*([0-9a-f]+):[ \t]+([0-9a-f][0-9a-f ]*?)[ ]*\t(.*)$")


def check_bytes(v3_tables, flat_tables, label, sizes, what):
    """Each flat table is no larger than its v3 table."""
    problems = []
    for t, (v3, flat) in enumerate(zip(v3_tables, flat_tables)):
        if sizes:
            with open(sizes, "a") as f:
                f.write(json.dumps(dict(what, table=t, v3=v3["table_size"], flat=flat["table_size"],
                                        records=len(v3["records"]), functions=len(v3["functions"])))
                        + "\n")
        if flat["table_size"] > v3["table_size"]:
            problems.append(f"{label}: table {t}: flat {flat['table_size']} bytes > v3 {v3['table_size']} bytes")
    if problems:
        raise Failure("\n".join(problems))


def call_lengths(run, args, version, obj, target):
    """{(section, end offset): (length, text)} for every instruction."""
    out = run.run([tool(args, version, "llvm-objdump"), "-d", obj]).stdout
    ends, section = {}, None
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (.*):$", line)
        if m:
            section = m.group(1)
            continue
        m = OBJDUMP_LINE.match(line)
        if m and section:
            start = int(m.group(1), 16)
            n = len(m.group(2).replace(" ", "")) // 2
            ends[(section, start + n)] = (n, (m.group(3) or "").strip())
    return ends


CALL_MNEMONICS = {
    "x86_64": re.compile(r"^(callq?|call\w*)\b"),
    "aarch64": re.compile(r"^(bl|blr|blraa\w*|blrab\w*)\b"),
    "ppc64le": re.compile(r"^(bl|bla|bctrl|bcctrl|bclrl|blrl)\b"),
    "ppc64": re.compile(r"^(bl|bla|bctrl|bcctrl|bclrl|blrl)\b"),
}


def check_sizes(sites, flat_tables, ends_fn, target, label, mode_ir):
    """Every stated kind and size equals the oracle. Returns (wrong, info).

    Records are matched to IR sites by function and ID. Where several sites
    share both, a record may be any of them: block layout, not IR order,
    decides which comes first (no corpus input has such sites that differ in
    kind or size)."""
    wrong, info = [], []
    by_key = {}
    for s in sites:
        by_key.setdefault((s["function"], s["id"]), []).append(s)
    stated = unstated = 0
    groups = {}
    for t in flat_tables:
        for r in t["records"]:
            groups.setdefault((r["function"], r["id"]), []).append((t, r))
    for key, recs in groups.items():
        cands = by_key.get(key, [])
        where = f"{label}: function {key[0]}, ID {key[1]}"
        if not cands:
            info.append(f"{where}: no stackmap, patchpoint or statepoint in the IR has this ID "
                        f"({len(recs)} records)")
        elif len(cands) != len(recs):
            info.append(f"{where}: {len(cands)} IR sites, {len(recs)} records "
                        "(code generation duplicated or dropped sites)")
        # The oracle of each record: every candidate that could be it; exact
        # when the candidates agree.
        for t, r in recs:
            fn = next((f for f in t["functions"] if f["symbol"] == r["function"]), None)
            oracles = set()
            for s in cands:
                size = s["size"]
                if s["kind"] == "statepoint" and size is None:
                    end = None
                    if fn is not None and fn.get("offset") is not None:
                        end = ends_fn().get((fn["section"], fn["offset"] + r["instruction_offset"]))
                    if end is None:
                        size = "no instruction ends at the record"
                    elif not CALL_MNEMONICS[target].match(end[1]):
                        size = f"not a call: {end[1]}"
                    else:
                        size = end[0]
                oracles.add((s["kind"], size))
            kind, psize = r.get("kind", "unknown"), r.get("patchable_size")
            rec = f"{where} at +{r['instruction_offset']}"
            if kind == "unknown" and psize is None:
                unstated += 1
                continue
            stated += 1
            if not oracles:
                wrong.append(f"{rec}: states {kind}, size {psize}; the IR has no such site")
                continue
            if kind != "unknown" and kind not in {k for k, _ in oracles}:
                wrong.append(f"{rec}: states kind {kind}, the IR says "
                             f"{' or '.join(sorted({k for k, _ in oracles}))}")
            if psize is not None:
                fitting = {sz for k, sz in oracles if kind in ("unknown", k)}
                if psize not in fitting:
                    wrong.append(f"{rec}: states {kind} patchable size {psize}, the oracle says "
                                 f"{' or '.join(str(x) for x in sorted(fitting, key=str)) or 'another kind'}")
    info.append(f"{label}: {stated} records stated, {unstated} unstated")
    if mode_ir and unstated:
        info.append(f"{label}: with --ir, {unstated} records still unstated")
    return wrong, info


def section_range(run, args, so, name):
    out = run.run([tool(args, "16", "llvm-readelf"), "-S", "-W", so]).stdout
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and m.group(1) == name:
            return int(m.group(2), 16), int(m.group(3), 16)
    return None


def check_link(run, args, version, target, variant, path, work, tag, label):
    """Position-independent code (a shared object needs it, whatever the
    table does) through emit, linked as a shared object with lld and GNU ld:
    no dynamic relocation may point into pcmap_stackmaps."""
    pic = os.path.join(work, tag + ".pic.o")
    p = run.run([tool(args, version, "llc"), "-mtriple=" + TARGETS[target][0], "-filetype=obj",
                 "-relocation-model=pic"] + shlex.split(variant) + [path, "-o", pic], check=False)
    if p.returncode != 0:
        raise Failure(f"{label}: `{run.commands[-1]}` failed: {p.stderr.strip()[:1500]}")
    obj = os.path.join(work, tag + ".pic.flat.o")
    # --no-walk: the kinds, which no description gives here, do not change
    # the relocations this step checks.
    p = run.run(shlex.split(args.pcmap) + ["emit", "--no-walk"] + shlex.split(args.emit_args) +
                [pic, "-o", obj], check=False)
    if p.returncode != 0:
        raise Failure(f"{label}: `{run.commands[-1]}` failed: {p.stderr.strip()[:1500]}")
    problems = []
    # -z notext: LLVM's x86 patchpoints materialize a symbolic target with an
    # absolute movabs even in PIC code (R_X86_64_64 in .text); only the
    # table's own relocations are what this step checks.
    linkers = [("ld.lld-16", [tool(args, "16", "ld.lld"), "-shared", "-z", "notext"])]
    if target == "ppc64":
        linkers = []  # lld rejects ELFv1
    linkers.append((TARGETS[target][1], [TARGETS[target][1], "-shared"]))
    for name, cmd in linkers:
        so = os.path.join(work, os.path.basename(obj) + "." + name + ".so")
        p = run.run(cmd + [obj, "-o", so], check=False)
        if p.returncode != 0:
            problems.append(f"{label}: {name} -shared failed: {p.stderr.strip()[:1000]}")
            continue
        rng = section_range(run, args, so, "pcmap_stackmaps")
        if rng is None:
            problems.append(f"{label}: {name}: no pcmap_stackmaps in the shared object")
            continue
        relocs = run.run([tool(args, "16", "llvm-readelf"), "-r", "-W", so]).stdout
        lo, size = rng
        for line in relocs.splitlines():
            m = re.match(r"^([0-9a-f]{8,16})\s+[0-9a-f]+\s+(\S+)", line)
            if m and lo <= int(m.group(1), 16) < lo + size:
                problems.append(f"{label}: {name}: dynamic relocation into pcmap_stackmaps: {line.strip()}")
    if problems:
        raise Failure("\n".join(problems))


# ---------------------------------------------------------------- driver


def check_one(args, path, head, text, target, variant, results):
    version = args.llc
    triple = TARGETS[target][0]
    base = os.path.basename(path)[:-3]
    tag = f"{target}.llc{version}" + (f".v{head['variants'].index(variant)}" if variant else "")
    work = os.path.join(args.work, base)
    os.makedirs(work, exist_ok=True)
    label = f"{base}.ll [{target}, llc-{version}{', ' + variant if variant else ''}]"
    log = open(os.path.join(work, tag + ".log"), "w")
    run = Runner(args, log)
    steps = dict(args.step_state)
    status = {}
    failures, reports, infos = [], [], []

    def fail(step, msg):
        failures.append((step, msg))
        status[step] = "FAIL"

    obj = os.path.join(work, tag + ".o")
    cmd = [tool(args, version, "llc"), "-mtriple=" + triple, "-filetype=obj"] + \
        shlex.split(variant) + [path, "-o", obj]
    p = run.run(cmd, check=False)
    refusal = head["llc_error"].get(version)
    if refusal is not None:
        if p.returncode == 0:
            fail("compile", f"{label}: llc-{version} compiled it, but the header says it refuses it "
                            f"({refusal}): drop the marker")
        elif refusal and refusal not in p.stderr:
            fail("compile", f"{label}: llc-{version} failed, but not with `{refusal}`: {p.stderr.strip()[:1000]}")
        else:
            status["compile"] = "refused as expected"
        return finish(results, label, status, failures, reports, infos, run, log)
    if p.returncode != 0:
        fail("compile", f"{label}: `{run.commands[-1]}` failed: {p.stderr.strip()[:1500]}")
        return finish(results, label, status, failures, reports, infos, run, log)
    status["compile"] = "ok"
    why = head["unsupported"].get(version)
    if why is not None:
        if readobj_text(run, args, version, obj):
            fail("compile", f"{label}: llc-{version} wrote stack maps, but the header says it has "
                            f"none ({why}): drop the marker")
        else:
            status["compile"] = f"no stack maps, as the header says ({why})"
        return finish(results, label, status, failures, reports, infos, run, log)

    if steps["readobj"] == "on":
        try:
            check_readobj(run, args, version, obj, label + " (llc output)")
            status["readobj"] = "ok"
        except Failure as e:
            fail("readobj", str(e))

    sites = scan_ir(text)
    emitted = {}
    # Without a description every record's kind is unknown: emit refuses
    # by default (a walker cannot use such tables) and writes them with
    # --no-walk, which "noir" checks.
    refused = os.path.join(work, f"{tag}.refused.o")
    p = run.run(shlex.split(args.pcmap) + ["emit"] + shlex.split(args.emit_args) + [obj, "-o", refused],
                check=False)
    refusal = (run.commands[-1], p.returncode, p.stderr.strip())
    for mode in ("ir", "noir"):
        out = os.path.join(work, f"{tag}.{mode}.o")
        ecmd = shlex.split(args.pcmap) + ["emit"] + shlex.split(args.emit_args) + \
            (["--llvm", version, "--ir", path] if mode == "ir" else ["--no-walk"]) + [obj, "-o", out]
        p = run.run(ecmd, check=False)
        infos.append(f"{label}: emit command: {run.commands[-1]}")
        if p.returncode != 0:
            fail("emit", f"{label}: `{run.commands[-1]}` failed: {p.stderr.strip()[:1500]}")
            continue
        emitted[mode] = out
    if emitted:
        status["emit"] = "ok"
    if not emitted:
        return finish(results, label, status, failures, reports, infos, run, log)

    try:
        raw = dump_json(run, args, obj)
        v3 = [t for t in raw["stackmaps"] if t["format"] in ("v1", "v2", "v3")]
    except Failure as e:
        fail("flat", str(e))
        return finish(results, label, status, failures, reports, infos, run, log)
    records = sum(len(t["records"]) for t in v3)
    cmd, code, err = refusal
    if records and (code == 0 or f"{records} of {records} stack map records have no known kind" not in err
                    or os.path.exists(refused)):
        fail("emit", f"{label}: `{cmd}` without a description must refuse the {records} records "
                     f"of unknown kind and write nothing; exit {code}: {err[:1500]}")
    elif not records and code != 0:
        fail("emit", f"{label}: `{cmd}` failed: {err[:1500]}")
    # verify names each record of unknown kind, and with --no-walk none.
    if "noir" in emitted:
        for flags, want in (([], records), (["--no-walk"], 0)):
            p = run.run(shlex.split(args.pcmap) + ["verify"] + flags + [emitted["noir"]], check=False)
            named = p.stdout.count("no known kind, which a stack walker needs")
            if named != want or (want and p.returncode == 0):
                fail("emit", f"{label}: `{run.commands[-1]}` names {named} records of unknown kind, "
                             f"expected {want} (exit {p.returncode})")

    ends_cache = {}

    def ends():
        if "e" not in ends_cache:
            ends_cache["e"] = call_lengths(run, args, version, obj, target)
        return ends_cache["e"]

    for mode, out in emitted.items():
        ml = f"{label} (emit{' --ir' if mode == 'ir' else ''})"
        try:
            d = dump_json(run, args, out)
        except Failure as e:
            fail("flat", str(e))
            continue
        flat = [t for t in d["stackmaps"] if t["format"] == "flat"]
        kept_v3 = [t for t in d["stackmaps"] if t["format"] in ("v1", "v2", "v3")]
        if steps["readobj"] == "on" and kept_v3:
            try:
                check_readobj(run, args, version, out, ml)
            except Failure as e:
                fail("readobj", str(e))
        # The flat table, printed as llvm-readobj prints the v3 table it was
        # made from, is what llvm-readobj prints for that table.
        if steps["readobj"] == "on":
            try:
                check_readobj(run, args, version, obj, ml + " (flat table)", flat_of=out)
            except Failure as e:
                fail("readobj", str(e))
        if steps["flat"] == "on":
            try:
                check_flat(v3, flat, ml)
                status.setdefault("flat", "ok")
            except Failure as e:
                fail("flat", str(e))
        if steps["bytes"] == "on":
            try:
                check_bytes(v3, flat, ml, args.sizes, dict(input=base, target=target, llc=version,
                                                           variant=variant, mode=mode))
                status.setdefault("bytes", "ok")
            except Failure as e:
                fail("bytes", str(e))
        if steps["sizes"] == "on":
            try:
                wrong, info = check_sizes(sites, flat, ends, target, ml, mode == "ir")
            except Failure as e:
                fail("sizes", str(e))
                continue
            infos.extend(info)
            if wrong and args.stated == "fail":
                fail("sizes", "\n".join(wrong))
            elif wrong:
                reports.extend(wrong)
                status["sizes"] = status.get("sizes", "ok") if status.get("sizes") == "FAIL" \
                    else f"{len(wrong)} wrong stated (reported)"
            else:
                status.setdefault("sizes", "ok")
        # The plugin of the release compiling: none for a release that
        # compiles the input without stack maps.
        described = plugin_of(args, version) and head["unsupported"].get(version) is None
        if steps["described"] == "on" and mode == "ir" and described:
            try:
                check_described(run, args, version, triple, variant, path, work, tag, flat, ml)
                status["described"] = "ok"
            except Failure as e:
                fail("described", str(e))
        if steps["link"] == "on" and mode == "noir":
            try:
                check_link(run, args, version, target, variant, path, work, tag, ml)
                status["link"] = "ok"
            except Failure as e:
                fail("link", str(e))
    return finish(results, label, status, failures, reports, infos, run, log)


def plugin_of(args, version):
    """The plugin of LLVM `version` (--plugin16, --plugin19), or None."""
    return getattr(args, f"plugin{version}")


def check_described(run, args, version, triple, variant, path, work, tag, ir_flat, label):
    """The plugin's path: the sites it describes give emit, without --ir, the
    flat table that --ir gives."""
    # llc -mtriple replaces the module's triple and data layout; so must the
    # plugin's run, whose function names follow the data layout's mangling.
    retargeted = os.path.join(work, tag + ".retargeted.ll")
    with open(path, encoding="utf-8") as f, open(retargeted, "w", encoding="utf-8") as out:
        for line in f:
            if not line.startswith(("target datalayout", "target triple")):
                out.write(line)
    bc = os.path.join(work, tag + ".sites.bc")
    p = run.run([tool(args, version, "opt"), "-mtriple=" + triple,
                 "-load-pass-plugin=" + plugin_of(args, version),
                 "-passes=pcmap<sites>", retargeted, "-o", bc], check=False)
    if p.returncode != 0:
        raise Failure(f"{label}: `{run.commands[-1]}` failed: {p.stderr.strip()[:1500]}")
    obj = os.path.join(work, tag + ".sites.o")
    p = run.run([tool(args, version, "llc"), "-mtriple=" + triple, "-filetype=obj"] +
                shlex.split(variant) + [bc, "-o", obj], check=False)
    if p.returncode != 0:
        raise Failure(f"{label}: `{run.commands[-1]}` failed: {p.stderr.strip()[:1500]}")
    out = os.path.join(work, tag + ".sites.flat.o")
    p = run.run(shlex.split(args.pcmap) + ["emit"] + shlex.split(args.emit_args) + [obj, "-o", out],
                check=False)
    if p.returncode != 0:
        raise Failure(f"{label}: `{run.commands[-1]}` failed: {p.stderr.strip()[:1500]}")
    if "warning" in p.stderr:
        raise Failure(f"{label}: the plugin's sites left records undescribed: {p.stderr.strip()}")
    described = [t for t in dump_json(run, args, out)["stackmaps"] if t["format"] == "flat"]
    if described != ir_flat:
        raise Failure(f"{label}: the plugin's path gives another flat table than --ir:\n"
                      f"  --ir:   {json.dumps(ir_flat)[:1500]}\n  plugin: {json.dumps(described)[:1500]}")


def finish(results, label, status, failures, reports, infos, run, log):
    """Record one run's outcome (label: `INPUT.ll [TARGET, llc-N...]`)."""
    log.close()
    results.append(dict(label=label, status=status, failures=failures, reports=reports,
                        infos=infos, commands=run.commands, known=[]))


def load_known(path):
    known = []
    if not os.path.exists(path):
        return known
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 4)
            if len(parts) != 5:
                raise SystemExit(f"{path}:{n}: want INPUT TARGET LLC STEP REGEX")
            known.append(dict(where=f"{os.path.basename(path)}:{n}", line=line, input=parts[0],
                              target=parts[1], llc=parts[2], step=parts[3],
                              regex=re.compile(parts[4], re.S), covered=False, matched=False))
    return known


def apply_known(known, results, llc):
    for r in results:
        m = re.match(r"(\S+) \[(\w+), llc-(\d+)", r["label"])
        name, target = m.group(1), m.group(2)
        for k in known:
            if k["input"] == name and k["target"] in ("*", target) and k["llc"] in ("*", llc):
                k["covered"] = True
        kept = []
        for step, msg in r["failures"]:
            hit = next((k for k in known if k["input"] == name and k["target"] in ("*", target)
                        and k["llc"] in ("*", llc) and k["step"] == step
                        and k["regex"].search(msg)), None)
            if hit:
                hit["matched"] = True
                r["known"].append((step, msg, hit["where"]))
            else:
                kept.append((step, msg))
        r["failures"] = kept


def unmatched_known(known):
    return [(k["where"], k["line"]) for k in known if k["covered"] and not k["matched"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin16", required=True)
    ap.add_argument("--bin19", required=True)
    ap.add_argument("--pcmap", required=True, help="the pcmap command (split like a shell)")
    ap.add_argument("--plugin16", help="LLVM 16's plugin, for the described step")
    ap.add_argument("--plugin19", help="LLVM 19's plugin, for the described step")
    ap.add_argument("--llc", choices=["16", "19"], required=True)
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--targets", default=",".join(TARGETS),
                    help="limit to these targets (comma-separated)")
    ap.add_argument("--steps", default="",
                    help="override STEPS, e.g. link=on,sizes=off")
    ap.add_argument("--stated", choices=["report", "fail"], default=STATED)
    ap.add_argument("--known", help="known failures (default: known-failures.txt beside the "
                    "first input)")
    ap.add_argument("--no-known", action="store_true", help="every failure counts")
    ap.add_argument("--emit-args", default="",
                    help="more options for every pcmap emit, e.g. --absolute")
    ap.add_argument("--summary", help="also write the results as JSON here")
    ap.add_argument("--sizes", help="append every (v3, flat) table size pair here (bytes step)")
    ap.add_argument("--verbose", action="store_true", help="print the info lines too")
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()
    args.step_state = dict(STEPS)
    for item in filter(None, args.steps.split(",")):
        k, _, v = item.partition("=")
        if k not in STEPS or v not in ("on", "off"):
            ap.error(f"bad --steps item {item}")
        args.step_state[k] = v
    os.makedirs(args.work, exist_ok=True)
    wanted = args.targets.split(",")
    inputs = []
    for pattern in args.inputs:
        inputs += sorted(glob.glob(pattern)) or [pattern]
    results, errors = [], []
    for path in inputs:
        try:
            head, text = parse_header(path)
            targets = meant_for(path, head)
        except (OSError, Failure) as e:
            errors.append(str(e))
            continue
        for target in targets:
            if target not in wanted:
                continue
            for variant in head["variants"]:
                try:
                    check_one(args, path, head, text, target, variant, results)
                except Failure as e:
                    errors.append(f"{path} [{target}]: {e}")
    known = [] if args.no_known else load_known(
        args.known or os.path.join(os.path.dirname(inputs[0]) if inputs else ".",
                                   "known-failures.txt"))
    apply_known(known, results, args.llc)
    print(f"steps: {', '.join(f'{k}={v}' for k, v in args.step_state.items())}, "
          f"stated={args.stated}, llc-{args.llc}")
    nfail = 0
    for r in results:
        st = "; ".join(f"{k} {v}" for k, v in r["status"].items())
        mark = "FAIL" if r["failures"] else "KNWN" if r["known"] else "ok  "
        print(f"{mark} {r['label']}: {st}")
    for r in results:
        for step, msg in r["failures"]:
            nfail += 1
            print(f"\n=== FAIL [{step}] {r['label']}\n{msg}\ncommands:\n  " + "\n  ".join(r["commands"]))
    for r in results:
        for step, msg, where in r["known"]:
            print(f"\n--- KNOWN [{step}] {r['label']} ({where})\n{msg}")
    for where, line in unmatched_known(known):
        nfail += 1
        print(f"\n=== FAIL [known] {where}: `{line}` matched no failure: fixed? remove the line")
    for r in results:
        for msg in r["reports"]:
            print(f"REPORT wrong stated: {msg}")
    if args.verbose:
        for r in results:
            for msg in r["infos"]:
                print(f"info: {msg}")
    for e in errors:
        print(f"ERROR: {e}")
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(results, f, indent=1)
    passed = sum(1 for r in results if not r["failures"] and not r["known"])
    print(f"\ncheck_stackmaps: {passed} of {len(results)} input/target/variant runs passed, "
          f"{nfail} failures, {sum(len(r['known']) for r in results)} known failures, "
          f"{sum(len(r['reports']) for r in results)} wrong stated reported, "
          f"{len(errors)} errors")
    return 1 if nfail or errors else 0


if __name__ == "__main__":
    sys.exit(main())
