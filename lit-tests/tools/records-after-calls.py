#!/usr/bin/env python3
"""Checks that every stack map record of an object sits at a call's return
address, where a stack walker takes a frame's record (docs/runtime.md, "What
a runtime must do at a safepoint entry").

usage: records-after-calls.py DUMP_JSON DISASSEMBLY

DUMP_JSON is `pcmap dump --json OBJECT` (its flat tables); DISASSEMBLY is
`llvm-objdump -d --no-show-raw-insn OBJECT`. A record is after a call when
the instruction that ends at its offset is a call or, on PowerPC64, a TOC
restore (`nop`, ELFv2 `ld 2, 24(1)`, ELFv1 `ld 2, 40(1)`) that directly
follows a call. A statepoint's record always is; a stack map's is only if
nothing was placed between the call and the intrinsic (a register reload,
a copy of the result), which is what this checks, for every record and not
only the ones a run happens to collect at.

Prints one line per record and a count; exits 1 if any record is not after
a call. Reads objects (section offsets) only.
"""
import bisect
import json
import re
import sys

# Call mnemonics by llvm-objdump's "file format".
CALLS = {
    "elf64-x86-64": re.compile(r"call"),
    "elf64-littleaarch64": re.compile(r"blr?$|blra"),
    "elf64-powerpcle": re.compile(r"bla?$|bctrl$|blrl$"),
    "elf64-powerpc": re.compile(r"bla?$|bctrl$|blrl$"),
}
TOC_RESTORES = {"nop", "ld 2, 24(1)", "ld 2, 40(1)"}


def disassembly(path):
    """(file format, {section: [(offset, instruction text)] by offset})."""
    fmt, section, code = None, None, {}
    for line in open(path):
        m = re.search(r"file format (\S+)", line)
        if m:
            fmt = m.group(1)
            continue
        m = re.match(r"Disassembly of section (\S+):", line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r"\s*([0-9a-f]+):\s+(.*\S)", line)
        if m and section:
            code.setdefault(section, []).append((int(m.group(1), 16), " ".join(m.group(2).split())))
    if fmt not in CALLS:
        sys.exit(f"records-after-calls: {path}: unsupported file format {fmt}")
    for insns in code.values():
        insns.sort()
    return fmt, code


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    dump = json.load(open(sys.argv[1]))
    fmt, code = disassembly(sys.argv[2])
    is_call = CALLS[fmt]
    toc_restores = TOC_RESTORES if fmt.startswith("elf64-powerpc") else set()

    def before(section, at):
        """The instructions that end at `at`, nearest first (each ends
        where the next one starts)."""
        insns = code.get(section, [])
        i = bisect.bisect_left(insns, (at,))
        return [text for _, text in reversed(insns[max(0, i - 2):i])]

    def call(text):
        return is_call.match(text.split(" ")[0]) is not None

    total = bad = 0
    for table in dump["stackmaps"]:
        if table["format"] != "flat":
            sys.exit(f"records-after-calls: {sys.argv[1]}: table in {table['section']} is not flat")
        functions = {f["symbol"]: f for f in table["functions"]}
        for r in table["records"]:
            f = functions[r["function"]]
            prev = before(f["section"], f["offset"] + r["instruction_offset"]) + ["", ""]
            if call(prev[0]):
                how = "after the call"
            elif prev[0] in toc_restores and call(prev[1]):
                how = f"after the call and `{prev[0]}`"
            else:
                how = f"NOT AFTER A CALL: after `{prev[0]}`"
                bad += 1
            total += 1
            print(f"{r['function']} ID {r['id']} +{r['instruction_offset']:#x}: {how}")
    print(f"{total - bad} of {total} records after a call")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
