#!/usr/bin/env python3
"""Prints the decoded entries of one PC section from `pcmap dump --json`
(schema in docs/dump-json.md), one line per entry, sorted so `comm` and `diff`
compare sets:

    pc-entries.py covered2|atomics2|NAME DUMP.json

Each line is `FUNCTION+0xOFFSET [size N] constants [C, ...] [stack_args N]`.
"""
import json
import sys


def point(pc):
    if pc.get("function") is not None:
        return f"{pc['function']}+{pc['function_offset']:#x}"
    if "section_offset" in pc:
        return f"{pc['section']}+{pc['section_offset']:#x}"
    return f"{pc['address']:#x}"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: pc-entries.py SECTION DUMP.json")
    name, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        dump = json.load(f)
    wanted = {name, "sanmd_" + name}
    lines = []
    for section in dump["pc_sections"]:
        if section["name"] not in wanted:
            continue
        for entry in section["entries"]:
            line = point(entry["pc"])
            if "size" in entry:
                line += f" size {entry['size']}"
            line += " constants [" + ", ".join(map(str, entry["constants"])) + "]"
            if "stack_args" in entry:
                line += f" stack_args {entry['stack_args']}"
            lines.append(line)
    if not lines:
        sys.exit(f"pc-entries.py: no {' or '.join(sorted(wanted))} entries in {path}")
    print("\n".join(sorted(lines)))


if __name__ == "__main__":
    main()
