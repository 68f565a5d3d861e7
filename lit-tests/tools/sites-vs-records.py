#!/usr/bin/env python3
"""Checks a dumped .pcmap.sites section against LLVM's own records.

usage: sites-vs-records.py SITES DUMP_JSON [--exact]

DUMP_JSON is `pcmap dump --json` of the object: LLVM's .llvm_stackmaps
records, each with the symbol of its function (for a private function, which
has none, the section symbol its relocation names: .text, or .opd on
ELFv1). Every record must have a
site of the same function and ID (a function without a symbol, or an
`__unnamed_N` one without named sites, takes the sites listed without a
name). With --exact, each (function, ID) has exactly as many sites
as records: nothing was dropped or added between the pass and the object.

The section is parsed here on its own, strictly, as a second reading of the
format next to pcmap_reader::sites.
"""
import json
import re
import sys
from collections import Counter

SITE = re.compile(rb"site (stackmap|patchpoint|statepoint) (0|[1-9][0-9]*) (0|[1-9][0-9]*) (.*)", re.S)
POOL = "<no name>"


def unescape(name):
    out = bytearray()
    i = 0
    while i < len(name):
        if name[i] == ord("%"):
            assert re.fullmatch(rb"[0-9A-F]{2}", name[i + 1:i + 3]), name
            out.append(int(name[i + 1:i + 3], 16))
            i += 3
        else:
            assert 0x20 <= name[i] <= 0x7E, name
            out.append(name[i])
            i += 1
    return bytes(out)


def parse_sites(data):
    lines = data.split(b"\n")
    assert lines.pop() == b"", "the section does not end with a newline"
    sites, in_record, records = [], False, 0
    for line in lines:
        if not in_record:
            assert line == b"pcmap-sites 1", line
            in_record = True
        elif line == b"end":
            in_record, records = False, records + 1
        else:
            m = SITE.fullmatch(line)
            assert m, line
            assert int(m.group(2)) < 2**64 and int(m.group(3)) < 2**32, line
            name = unescape(m.group(4))
            sites.append((m.group(1).decode(), int(m.group(2)), int(m.group(3)), name))
    assert not in_record, "a record has no end"
    return sites, records


def main():
    sites_path, dump_path = sys.argv[1], sys.argv[2]
    exact = "--exact" in sys.argv[3:]
    sites, nrecords = parse_sites(open(sites_path, "rb").read())
    dump = json.load(open(dump_path))
    named = Counter()
    for kind, sid, size, name in sites:
        named[(name.decode("utf-8", "surrogateescape") if name else POOL, sid)] += 1
    names = {key[0] for key in named}
    records = Counter()
    for table in dump["stackmaps"]:
        if table["format"] == "flat":
            continue
        # ELFv1 relocates a function through its descriptor in .opd.
        sections = {f["section"] for f in table["functions"]}
        sections |= {".opd" for f in table["functions"] if f.get("opd")}
        for r in table["records"]:
            f = r["function"]
            if f is None or f in sections or (f.startswith("__unnamed_") and f not in names):
                f = POOL
            records[(f, r["id"])] += 1
    problems = [f"record of {f!r} with ID {i}: no site" for (f, i) in records if (f, i) not in named]
    if exact:
        for key in sorted(set(named) | set(records)):
            if named[key] != records[key]:
                problems.append(f"{key[0]!r} ID {key[1]}: {named[key]} sites, {records[key]} records")
    for p in problems:
        print(f"sites-vs-records: {p}")
    if problems:
        sys.exit(1)
    print(f"ok: {sum(records.values())} records, {len(sites)} sites in {nrecords} section records")


main()
