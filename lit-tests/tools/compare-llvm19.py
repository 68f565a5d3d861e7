#!/usr/bin/env python3
"""Compare the PC tables of two linked programs built from the same C source:
one with clang-16 -fpass-plugin + `pcmap emit` (OURS), one with clang-19
-fexperimental-sanitize-metadata (THEIRS). Input: `pcmap dump --json` of each.

    compare-llvm19.py OURS.json THEIRS.json [--known FUNC=REASON ...]

Compared per function, by symbol (addresses differ between the programs):
  covered   the same functions, the same feature masks (constants); function
            sizes when both backends emitted the same code size.
  atomics   the same PC offsets within the function. A function whose
            offsets differ must be named with --known and a reason (e.g.
            LLVM 16 drops the PCs of an AArch64 cmpxchg expansion that LLVM
            19 keeps); for it, OURS must still be a subset of THEIRS when the
            code sizes agree (LLVM 16 only ever loses PCs). A --known
            function that does not differ is an error too, so the list
            cannot go stale.
Exits 1 on any other difference.
"""
import argparse
import json
import sys
from collections import defaultdict

COVERED, ATOMICS = "covered", "atomics"


def table_kind(name):
    """sanmd_covered2 / sanmd_covered65538 / ... -> covered/atomics."""
    for kind in (COVERED, ATOMICS):
        if name.startswith(f"sanmd_{kind}"):
            return kind
    return None


def load(path):
    with open(path, encoding="utf-8") as f:
        dump = json.load(f)
    covered = {}
    atomics = defaultdict(list)
    for section in dump["pc_sections"]:
        kind = table_kind(section["name"])
        if section.get("encoding") != "compact" or kind is None:
            sys.exit(f"compare-llvm19: {path}: {section['name']} is not a compact sanmd table")
        for entry in section["entries"]:
            pc = entry["pc"]
            function = pc.get("function")
            if function is None:
                sys.exit(f"compare-llvm19: {path}: {section['name']} entry at {entry['offset']} is in no function")
            if kind == COVERED:
                covered[function] = (entry["size"], entry["constants"])
            else:
                atomics[function].append(pc["function_offset"])
    return covered, {f: sorted(v) for f, v in atomics.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ours")
    ap.add_argument("theirs")
    ap.add_argument("--known", action="append", default=[], metavar="FUNC=REASON")
    args = ap.parse_args()
    known = dict(k.split("=", 1) for k in args.known)

    our_cov, our_at = load(args.ours)
    their_cov, their_at = load(args.theirs)
    problems = []

    for f in sorted(set(our_cov) | set(their_cov)):
        if f not in our_cov or f not in their_cov:
            problems.append(f"covered: {f} only in {'ours' if f in our_cov else 'theirs'}")
            continue
        (our_size, our_mask), (their_size, their_mask) = our_cov[f], their_cov[f]
        if our_mask != their_mask:
            problems.append(f"covered: {f} features {our_mask} vs {their_mask}")
        size_note = f"size {our_size}" if our_size == their_size else f"size {our_size} vs {their_size} (codegen differs)"
        print(f"covered {f}: features {our_mask} {size_note}")

    same_code = {f for f in our_cov if f in their_cov and our_cov[f][0] == their_cov[f][0]}
    equal = differ = 0
    for f in sorted(set(our_at) | set(their_at) | set(known)):
        ours, theirs = our_at.get(f, []), their_at.get(f, [])
        offsets = f"[{', '.join(map(hex, ours))}] vs [{', '.join(map(hex, theirs))}]"
        if ours == theirs:
            equal += 1
            print(f"atomics {f}: same {offsets}")
            if f in known:
                problems.append(f"atomics: {f} is listed as a known difference but both agree")
            continue
        differ += 1
        if f not in known:
            problems.append(f"atomics: {f} differs {offsets}")
            continue
        if f in same_code and not set(ours) <= set(theirs):
            problems.append(f"atomics: {f} has PCs LLVM 19 does not tag {offsets}")
        print(f"atomics {f}: known difference {offsets}: {known[f]}")

    print(f"{len(our_cov)} covered functions compared; atomics: {equal} functions equal, {differ} known differences")
    for p in problems:
        print(f"FAIL {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
