#!/usr/bin/env python3
"""Split `llvm-objdump -d` output into one normalized block per function.

Used to show that the pcmap plugin leaves code generation alone: the blocks
of an object built with the plugin must equal those built without it, except
for the structors the plugin adds (`__sanitizer_metadata_*`), which are left
out with --skip-structors.

Each block is `<function>:` followed by its instructions (bytes and text),
without addresses, so that sections placed differently still compare.

Usage: pcmap-plugin-functions.py [--skip-structors] OBJDUMP.txt  ("-" = stdin)
"""
import re
import sys

FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSN = re.compile(r"^\s*[0-9a-f]+:\s+(.*)$")
STRUCTOR_PREFIX = "__sanitizer_metadata_"


def is_structor(name):
    # ELFv1 objects name code by section: .text.<function>.
    return name.removeprefix(".text.").startswith(STRUCTOR_PREFIX)


def main(argv):
    skip = "--skip-structors" in argv
    args = [a for a in argv if a != "--skip-structors"]
    if len(args) != 1:
        raise SystemExit(__doc__)
    src = sys.stdin if args[0] == "-" else open(args[0], encoding="utf-8")
    name = None
    out = []
    for line in src:
        line = line.rstrip()
        m = FUNCTION.match(line)
        if m:
            name = m.group(1)
            if not (skip and is_structor(name)):
                out.append(f"{name}:")
            continue
        m = INSN.match(line)
        if m and name and not (skip and is_structor(name)):
            out.append("  " + re.sub(r"\s+", " ", m.group(1)))
    if not out:
        raise SystemExit("no functions found in the disassembly")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
