#!/usr/bin/env python3
"""Checks pcmap's frame records against llvm-dwarfdump-16 --eh-frame.

    check_cfi.py DWARFDUMP_OUTPUT DUMP_JSON

For each function of the flat table: the CFI row dwarfdump prints for the
function's first record must give the same CFA rule (frame base register and
CFA offset) and the same saved registers (slot = CFA + N). Exits 1 on a
difference."""
import json
import re
import sys

X86 = {n: i for i, n in enumerate(
    "RAX RDX RCX RBX RSI RDI RBP RSP R8 R9 R10 R11 R12 R13 R14 R15 RIP".split())}


def regnum(name):
    if name in X86:
        return X86[name]
    if name == "WSP":
        return 31
    m = re.fullmatch(r"[WXR](\d+)", name)
    if m:
        return int(m.group(1))
    if name in ("LR", "LR8"):
        return 65
    raise SystemExit(f"unknown register name {name}")


def fdes(text):
    out = []
    for block in re.split(r"\n(?=[0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} )", text):
        m = re.search(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.\.([0-9a-f]+)", block)
        if not m:
            continue
        rows = []
        for row in re.finditer(r"^\s+0x([0-9a-f]+): CFA=(\w+)([+-]\d+)?(?::\s*(.*))?$", block, re.M):
            saved = {}
            for s in re.finditer(r"(\w+)=\[CFA([+-]\d+)\]", row.group(4) or ""):
                saved[regnum(s.group(1))] = int(s.group(2))
            rows.append((int(row.group(1), 16), regnum(row.group(2)), int(row.group(3) or 0), saved))
        out.append((int(m.group(1), 16), int(m.group(2), 16), rows))
    return out


def main():
    text = open(sys.argv[1]).read()
    dump = json.load(open(sys.argv[2]))
    table = next(t for t in dump["stackmaps"] if t["format"] == "flat")
    checked = 0
    for f in table["functions"]:
        first = min((r["instruction_offset"] for r in table["records"] if r["function"] == f["symbol"]), default=0)
        pc = f["offset"] + first
        fde = next((d for d in fdes(text) if d[0] <= pc < d[1]), None)
        if fde is None:
            continue
        row = [r for r in fde[2] if r[0] <= pc][-1]
        _, base, cfa_off, saved = row
        want = sorted([reg, n] for reg, n in saved.items())
        got = sorted([r["dwarf_reg"], r["offset"]] for r in f["frame_registers"])
        if (base, cfa_off) != (f["frame_base_register"], f["cfa_offset"]) or want != got:
            sys.exit(f"{f['symbol']}: dwarfdump CFA={base}{cfa_off:+} regs {want}; "
                     f"pcmap CFA={f['frame_base_register']}{f['cfa_offset']:+} regs {got}")
        checked += 1
    print(f"{checked} functions agree with llvm-dwarfdump")


if __name__ == "__main__":
    main()
