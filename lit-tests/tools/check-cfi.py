#!/usr/bin/env python3
"""Checks pcmap's per-record frame states against llvm-dwarfdump-16 --eh-frame
and llvm-objdump-16 -d.

    check_cfi.py DWARFDUMP_OUTPUT OBJDUMP_OUTPUT DUMP_JSON

For each record of the flat table: the CFI row dwarfdump prints for the
record's address must give the record's frame state, its CFA rule (register
and offset) and saved registers (slot = CFA + N), where the record's address
is the instruction that ends at the record when objdump shows a call ending
there (a return address: the row at pc - 1, as an unwinder looks it up),
else the record's own. A record no FDE covers must have no frame state.
Prints how many records were checked, how many at pc - 1, and how many
distinct states there were; exits 1 on a difference."""
import json
import re
import sys

X86 = {n: i for i, n in enumerate(
    "RAX RDX RCX RBX RSI RDI RBP RSP R8 R9 R10 R11 R12 R13 R14 R15 RIP".split())}
CALLS = {"call", "callq", "bl", "blr", "bctrl", "bla", "blrl"}


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
        for row in re.finditer(r"^\s+0x([0-9a-f]+): CFA=([^:\n]*)(?::\s*(.*))?$", block, re.M):
            saved = {}
            for s in re.finditer(r"(\w+)=\[CFA([+-]\d+)\]", row.group(3) or ""):
                saved[regnum(s.group(1))] = int(s.group(2))
            # A register and an offset, or a DWARF expression (no rule).
            rule = re.fullmatch(r"(\w+)([+-]\d+)?", row.group(2).strip())
            cfa = None
            if rule and not rule.group(1).startswith("DW_OP"):
                cfa = {"register": regnum(rule.group(1)), "offset": int(rule.group(2) or 0)}
            rows.append((int(row.group(1), 16), cfa, saved))
        out.append((int(m.group(1), 16), int(m.group(2), 16), rows))
    return out


def instructions(text):
    """(offset, mnemonic) of every instruction of .text, in order."""
    insns = []
    section = None
    for line in text.splitlines():
        m = re.match(r"Disassembly of section (\S+):", line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
        if m and section == ".text":
            insns.append((int(m.group(1), 16), m.group(2)))
    return insns


def call_ends_at(insns, at):
    """Whether the instruction before offset `at` (the last one starting
    below it) is a call, which then ends at `at`."""
    before = [m for (o, m) in insns if o < at]
    return bool(before) and before[-1] in CALLS


def main():
    cfi = fdes(open(sys.argv[1]).read())
    insns = instructions(open(sys.argv[2]).read())
    dump = json.load(open(sys.argv[3]))
    table = next(t for t in dump["stackmaps"] if t["format"] == "flat")
    offsets = {f["symbol"]: f["offset"] for f in table["functions"]}
    checked = before = expressions = 0
    states = set()
    for r in table["records"]:
        at = offsets[r["function"]] + r["instruction_offset"]
        pc = at - 1 if call_ends_at(insns, at) else at
        before += pc != at
        fde = next((d for d in cfi if d[0] <= pc < d[1]), None)
        where = f"{r['function']} ID {r['id']} at +{r['instruction_offset']}"
        if fde is None:
            if r["frame_state"] is not None:
                sys.exit(f"{where}: no FDE covers it, pcmap says {r['frame_state']}")
            continue
        _, cfa, saved = [x for x in fde[2] if x[0] <= pc][-1]
        want = {"cfa": cfa, "saved_registers": sorted(([reg, n] for reg, n in saved.items()))}
        expressions += cfa is None
        fs = r["frame_state"]
        got = fs and {"cfa": fs["cfa"],
                      "saved_registers": sorted([s["dwarf_reg"], s["offset"]] for s in fs["saved_registers"])}
        if got != want:
            sys.exit(f"{where} (row at {pc:#x}): dwarfdump {want}; pcmap {got}")
        states.add(json.dumps(fs, sort_keys=True))
        checked += 1
    print(f"{checked} records agree with llvm-dwarfdump ({before} at a call's return address, "
          f"looked up at pc - 1; {expressions} with a CFA expression); {len(states)} distinct frame states")


if __name__ == "__main__":
    main()
