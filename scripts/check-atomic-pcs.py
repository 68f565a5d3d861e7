#!/usr/bin/env python3
"""Check that every atomic PC a program reports is the address of an atomic
instruction, by reading the program's disassembly.

    check-atomic-pcs.py DISASSEMBLY [PCS] [--ir-stats FILE [--no-loss]]

DISASSEMBLY is `llvm-objdump-16 -d PROGRAM` (with or without raw bytes); the
target comes from its "file format" line. PCS is the output of the example
runtime (examples/atomics/runtime.c, stdin if omitted): every line
`atomic 0xPC ...` is a link-time address to check. Each PC must be the start
of an instruction and one of:

  atomic    an instruction atomic in its own right: x86-64 `lock` prefix,
            xchg, mfence; AArch64 load/store-exclusive, load-acquire,
            store-release, LSE (ldadd…, swp…, cas…), dmb; PowerPC l?arx,
            st?cx., sync, lwsync, isync.
  access    a plain load or store. This is how LLVM lowers atomic loads and
            stores of every order on x86-64 and PowerPC (fences around them
            on PowerPC) and relaxed ones on AArch64.
  ll/sc     an instruction inside a load-reserve/store-conditional loop
            (from the exclusive load up to the branch after the store):
            AtomicExpandPass copies !pcsections to every instruction of the
            loop it builds for an atomicrmw/cmpxchg.

Anything else (a call to an outlined atomic, a compare, a function entry, an
address inside an instruction) fails. The PCs of one IR instruction are one
"site": one ll/sc loop is one site, every other PC is its own. With
--ir-stats (what PCMAP_STATS=1 printed at compile time) the script reports
sites against tagged IR atomics; --no-loss fails when there are fewer sites,
i.e. when at least one tagged IR atomic certainly has no PC on its access.
(More sites than IR atomics would mean the backend duplicated an atomic
instruction; the counts then bound, not prove, that none was lost.)

Barriers (x86-64 mfence, AArch64 dmb, PowerPC sync, lwsync, isync) are the
whole lowering of an IR fence, and part of the lowering of an atomic load or
store (LLVM 19 tags PowerPC's `lwsync; stw` and `ld; …; isync`: several PCs
for one IR instruction). When the statistics count the IR fences
(`fences=N`), at most N barrier PCs are sites of their own: the others belong
to accesses, and an atomic access whose only PCs are barriers counts as lost
(a runtime asks at the access).
"""
import argparse
import re
import sys

ADDRESS_LINE = re.compile(r"^\s*([0-9a-f]+):\s?(.*)$")
FUNCTION_LINE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
FILE_FORMAT = re.compile(r"file format (\S+)")
RUNTIME_PC = re.compile(r"^atomic (0x[0-9a-f]+)\b")
STATS_LINE = re.compile(r"^pcmap-stats v1 ")
STATS_COUNT = r"\b{}=(\d+)\b"

ARCH_OF_FORMAT = {
    "elf64-x86-64": "x86_64",
    "elf64-littleaarch64": "aarch64",
    "elf64-bigaarch64": "aarch64",
    "elf64-powerpcle": "powerpc",
    "elf64-powerpc": "powerpc",
}

# Per architecture: (atomic instructions, plain memory accesses, load-reserve,
# store-conditional), as regular expressions over the mnemonic.
AARCH64_LSE = r"(ld|st)(add|clr|eor|set|smax|smin|umax|umin)a?l?[bh]?|swpa?l?[bh]?|casp?a?l?[bh]?"
RULES = {
    "x86_64": dict(
        atomic=r"lock|xchg[bwlq]?|mfence",
        barrier=r"mfence",
        access=None,  # any instruction with a memory operand, see is_access
        reserve=None,
        conditional=None,
    ),
    "aarch64": dict(
        atomic=r"ld[a]?xr[bh]?|ld[a]?xp|st[l]?xr[bh]?|st[l]?xp|ldapu?r[bh]?|ldar[bh]?|ldlar[bh]?"
        r"|stlu?r[bh]?|stllr[bh]?|dmb|dsb|" + AARCH64_LSE,
        barrier=r"dmb|dsb",
        access=r"ld(u?r|r)(s?[bhw])?|st(u?r|r)[bh]?",
        reserve=r"ld[a]?x[rp][bh]?",
        conditional=r"st[l]?x[rp][bh]?",
    ),
    "powerpc": dict(
        atomic=r"l[bhwdq]arx|st[bhwdq]cx\.|sync|hwsync|lwsync|isync|msync|eieio",
        barrier=r"sync|hwsync|lwsync|isync|msync|eieio",
        access=r"(l(bz|hz|ha|wz|wa|d|fs|fd)|st(b|h|w|d|fs|fd))u?x?",
        reserve=r"l[bhwdq]arx",
        conditional=r"st[bhwdq]cx\.",
    ),
}


def full(pattern):
    return re.compile(rf"^(?:{pattern})$") if pattern else None


class Instruction:
    def __init__(self, address, function, text):
        self.address = address
        self.function = function
        self.text = " ".join(text.split())
        self.mnemonic = self.text.split(None, 1)[0] if self.text else ""
        self.operands = self.text[len(self.mnemonic):].split("#", 1)[0].strip()
        self.in_llsc = False


def parse_disassembly(text):
    arch = None
    function = None
    instructions = []
    for line in text.splitlines():
        m = FILE_FORMAT.search(line)
        if m and arch is None:
            arch = ARCH_OF_FORMAT.get(m.group(1))
            if arch is None:
                sys.exit(f"check-atomic-pcs: unknown file format {m.group(1)}")
            continue
        m = FUNCTION_LINE.match(line)
        if m:
            function = (int(m.group(1), 16), m.group(2))
            continue
        m = ADDRESS_LINE.match(line)
        if not m or function is None:
            continue
        rest = m.group(2)
        # With raw bytes the instruction follows a tab; without, it follows blanks.
        text = rest.split("\t", 1)[1] if "\t" in rest else rest
        if text.strip() and text.strip() != "...":
            instructions.append(Instruction(int(m.group(1), 16), function, text))
    if arch is None:
        sys.exit("check-atomic-pcs: no 'file format' line: not llvm-objdump -d output")
    return arch, instructions


def mark_llsc_loops(instructions, rules):
    """Marks every instruction from a load-reserve through the branch after
    its store-conditional, within one function; returns the loops as
    (first, last) index pairs."""
    reserve, conditional = full(rules["reserve"]), full(rules["conditional"])
    loops = []
    if reserve is None:
        return loops

    def same_function(i, j):
        return j < len(instructions) and instructions[j].function == instructions[i].function

    i = 0
    while i < len(instructions):
        if not reserve.match(instructions[i].mnemonic):
            i += 1
            continue
        j = i + 1
        while same_function(i, j) and not conditional.match(instructions[j].mnemonic):
            j += 1
        if not same_function(i, j):
            i += 1
            continue
        # The loop's back branch follows the store-conditional.
        last = j + 1 if same_function(i, j + 1) else j
        for k in range(i, last + 1):
            instructions[k].in_llsc = True
        loops.append((i, last))
        i = last + 1
    return loops


def is_access(arch, rules, insn):
    if arch == "x86_64":
        return "(" in insn.operands and not insn.mnemonic.startswith(("lea", "nop", "prefetch"))
    return bool(full(rules["access"]).match(insn.mnemonic))


def classify(arch, rules, insn):
    if full(rules["atomic"]).match(insn.mnemonic):
        return "atomic"
    if insn.in_llsc:
        return "ll/sc"
    if is_access(arch, rules, insn):
        return "access"
    return None


def ir_counts(path):
    """(tagged IR atomics, IR fences among them or None if a line does not
    say) over every statistics line of `path`."""
    atomics, fences = 0, 0
    lines = 0
    with open(path, encoding="utf-8") as f:
        for line in filter(STATS_LINE.match, f):
            m = re.search(STATS_COUNT.format("atomics"), line)
            if not m:
                continue
            lines += 1
            atomics += int(m.group(1))
            n = re.search(STATS_COUNT.format("fences"), line)
            fences = None if fences is None or not n else fences + int(n.group(1))
    if not lines:
        sys.exit(f"check-atomic-pcs: no 'pcmap-stats v1 … atomics=N' line in {path}")
    return atomics, fences


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("disassembly")
    ap.add_argument("pcs", nargs="?", help="runtime output (default: stdin)")
    ap.add_argument("--ir-stats", help="PCMAP_STATS output of the compile")
    ap.add_argument("--no-loss", action="store_true", help="fail when sites < tagged IR atomics")
    args = ap.parse_args()
    if args.no_loss and not args.ir_stats:
        ap.error("--no-loss needs --ir-stats")

    with open(args.disassembly, encoding="utf-8") as f:
        arch, instructions = parse_disassembly(f.read())
    rules = RULES[arch]
    loops = mark_llsc_loops(instructions, rules)
    index_at = {insn.address: i for i, insn in enumerate(instructions)}
    loop_of = {k: n for n, (a, b) in enumerate(loops) for k in range(a, b + 1)}

    with open(args.pcs, encoding="utf-8") if args.pcs else sys.stdin as f:
        pcs = [int(m.group(1), 16) for m in map(RUNTIME_PC.match, f) if m]
    if not pcs:
        sys.exit("check-atomic-pcs: no 'atomic 0x…' line in the runtime's output")

    failures = 0
    kinds = {"atomic": 0, "access": 0, "ll/sc": 0}
    sites = set()
    barriers = set()
    barrier = full(rules["barrier"])
    for pc in sorted(set(pcs)):
        i = index_at.get(pc)
        if i is None:
            print(f"FAIL {pc:#x}: not the address of an instruction")
            failures += 1
            continue
        insn = instructions[i]
        where = f"{insn.function[1]}+{pc - insn.function[0]:#x}"
        kind = classify(arch, rules, insn)
        if kind is None:
            print(f"FAIL {pc:#x} {where}: '{insn.text}' is not an atomic instruction")
            failures += 1
            continue
        kinds[kind] += 1
        if i in loop_of:
            sites.add(("loop", loop_of[i]))
        elif barrier.match(insn.mnemonic):
            barriers.add(pc)
        else:
            sites.add(("pc", pc))
        print(f"ok   {pc:#x} {where}: {kind:6} {insn.text}")
    print(
        f"{arch}: {len(set(pcs))} atomic PCs: {kinds['atomic']} atomic instructions, "
        f"{kinds['access']} plain accesses, {kinds['ll/sc']} in ll/sc loops; "
        f"{failures} not atomic; {len(sites) + len(barriers)} sites"
        + (f" ({len(barriers)} of them barriers)" if barriers else "")
    )
    if args.ir_stats:
        tagged, fences = ir_counts(args.ir_stats)
        # Barrier PCs beyond the IR fences belong to accesses.
        n = len(sites) + (len(barriers) if fences is None else min(len(barriers), fences))
        why = ""
        if barriers and fences is not None:
            why = f" ({len(barriers)} barrier PCs, {fences} IR fences)"
        lost = tagged - n
        if lost > 0:
            print(f"{n} sites for {tagged} tagged IR atomics{why}: at least {lost} lost its PC")
        else:
            print(f"{n} sites for {tagged} tagged IR atomics{why}: none lost")
        if lost > 0 and args.no_loss:
            failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
