#!/usr/bin/env python3
"""Prints the decoded entries of one PC section from `pcmap dump` text, sorted
(so `comm` and `diff` compare sets).

    entries.py covered2|atomics2 DUMP.txt
"""
import sys

section, dump = "sanmd_" + sys.argv[1] + ":", sys.argv[2]
entries, inside = [], False
with open(dump, encoding="utf-8") as f:
    for line in f:
        if not line.startswith(" "):
            inside = line.startswith(section)
            continue
        if inside:
            entries.append(line.strip())
if not entries:
    sys.exit(f"entries.py: no {section} entries in {dump}")
print("\n".join(sorted(entries)))
