#!/usr/bin/env python3
"""check-object: is one relocatable object (as `pcmap emit` writes it) sound?

    check-object.py [--llvm-bindir DIR] [--no-pic] OBJECT

The target comes from the object's ELF header (machine, byte order), never
from the command line. Steps, each an oracle we did not write except (2):

 1. `llvm-readobj-16 --all`: exit 0 and nothing at all on stderr (a warning
    is a failure).
 2. The gABI rules llvm-readobj does not check (it prints a relocation
    section whose sh_info names itself without a word): every SHT_REL/RELA
    section relocates an existing, relocatable section other than itself,
    through the one symbol table, is named after it (".rela" + name), and is
    in the same COMDAT group; at most one relocation section per section;
    relocation offsets lie inside the relocated section and symbol indices
    inside the symbol table; group members exist, carry SHF_GROUP and belong
    to one group, and every SHF_GROUP section belongs to one; SHF_LINK_ORDER
    sections link to an existing section of their own group; defined symbols
    lie in sections that can hold symbols (linkers' -r outputs also give
    groups section symbols); locals precede globals; section
    contents lie inside the file and do not overlap.
 3. `ld.lld-16 -r` and the target's GNU ld `-r` (ld.bfd): exit 0, nothing on
    stderr; each output again through llvm-readobj --all and step 2.
 4. If the object carries no relocated `.llvm_stackmaps` (LLVM's section
    holds absolute addresses in a read-only section: text relocations no
    linker accepts in a shared object without -z notext, which another issue
    deals with): `-shared -Bsymbolic` with both linkers (-Bsymbolic: a PIE
    object's direct references to its own default-visibility symbols are
    fine in a program but not preemptible in a .so), then llvm-readobj
    --all on each. Not with lld on big-endian PowerPC64 (ELFv1): lld reads
    such an object (e_flags 0) as ELFv2 and writes an ELFv2 .so, which says
    nothing about the object; its `-r` still checks the object's structure.
    Not at all with --no-pic: the code itself is position-dependent (llc's
    default static relocation model), which no shared object accepts.

Prints one line per failure, "check-object: error: OBJECT: STEP: what",
and exits 1; on success one line listing what was checked.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

# ELF constants (gABI).
ET_REL = 1
EM_PPC64, EM_X86_64, EM_AARCH64 = 21, 62, 183
SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA = 0, 1, 2, 3, 4
SHT_NOBITS, SHT_REL, SHT_GROUP, SHT_SYMTAB_SHNDX = 8, 9, 17, 18
SHF_LINK_ORDER, SHF_GROUP = 0x80, 0x200
SHN_LORESERVE, SHN_ABS, SHN_COMMON, SHN_XINDEX = 0xFF00, 0xFFF1, 0xFFF2, 0xFFFF
STB_LOCAL = 0
STT_SECTION = 3
GRP_COMDAT = 1
# Sections that relocations, symbols and link-order links never designate.
NOT_A_TARGET = {SHT_NULL, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_REL, SHT_GROUP, SHT_SYMTAB_SHNDX}

# machine, big endian -> (name, GNU ld)
GNU_LD = {
    (EM_X86_64, False): ("x86_64", "x86_64-linux-gnu-ld.bfd"),
    (EM_AARCH64, False): ("aarch64", "aarch64-linux-gnu-ld.bfd"),
    (EM_PPC64, False): ("ppc64le", "powerpc64le-linux-gnu-ld.bfd"),
    (EM_PPC64, True): ("ppc64", "powerpc64-linux-gnu-ld.bfd"),
}


class Elf:
    """The section headers, symbols and groups of a 64-bit ELF file."""

    def __init__(self, data):
        self.data = data
        if data[:4] != b"\x7fELF":
            raise ValueError("not an ELF file")
        if data[4] != 2:
            raise ValueError(f"ELF class {data[4]}: only 64-bit objects are supported")
        if data[5] not in (1, 2):
            raise ValueError(f"unknown ELF data encoding {data[5]}")
        self.big = data[5] == 2
        self.e = ">" if self.big else "<"
        (self.type, self.machine, _, _, _, shoff, self.flags, _, _, _, shentsize, shnum,
         shstrndx) = self.unpack("HHIQQQIHHHHHH", 16)
        if shoff == 0:
            raise ValueError("no section header table")
        if shentsize != 64:
            raise ValueError(f"e_shentsize {shentsize}, expected 64")
        if shoff + 64 > len(data):
            raise ValueError(f"section header table at {shoff:#x} beyond the end of the file")
        first = self.section_header(shoff)
        # Extended numbering: the real counts live in section 0.
        if shnum == 0:
            shnum = first["size"]
        if shstrndx == SHN_XINDEX:
            shstrndx = first["link"]
        if shoff + 64 * shnum > len(data):
            raise ValueError(f"{shnum} section headers at {shoff:#x} run past the end of the file")
        self.shoff, self.shnum = shoff, shnum
        self.sections = [self.section_header(shoff + 64 * i) for i in range(shnum)]
        if not 0 < shstrndx < shnum:
            raise ValueError(f"e_shstrndx {shstrndx} out of range")
        names = self.sections[shstrndx]
        for s in self.sections:
            s["name"] = self.cstring(names, s["name_off"])

    def unpack(self, fmt, off):
        return struct.unpack_from(self.e + fmt, self.data, off)

    def section_header(self, off):
        name, typ, flags, addr, offset, size, link, info, align, entsize = self.unpack("IIQQQQIIQQ", off)
        return dict(name_off=name, type=typ, flags=flags, offset=offset, size=size, link=link,
                    info=info, align=align, entsize=entsize)

    def contents(self, s):
        if s["type"] == SHT_NOBITS:
            return b""
        return self.data[s["offset"]:s["offset"] + s["size"]]

    def cstring(self, strtab, off):
        if strtab["type"] != SHT_STRTAB or off >= strtab["size"]:
            return f"<bad name offset {off:#x}>"
        blob = self.contents(strtab)
        end = blob.find(b"\0", off)
        return blob[off:end if end >= 0 else len(blob)].decode("utf-8", "replace")

    def label(self, i):
        if 0 <= i < self.shnum:
            return f"[{i}] {self.sections[i]['name']}"
        return f"[{i}]"


def structure(elf):
    """The gABI rules of step 2: a list of problems (empty: sound)."""
    bad = []
    secs, n = elf.sections, elf.shnum
    size = len(elf.data)

    # Contents inside the file and not overlapping each other or the headers.
    extents = [(elf.shoff, elf.shoff + 64 * n, "the section header table"), (0, 64, "the ELF header")]
    for i, s in enumerate(secs):
        if i == 0 or s["type"] in (SHT_NOBITS, SHT_NULL) or s["size"] == 0:
            continue
        if s["offset"] + s["size"] > size:
            bad.append(f"section {elf.label(i)}: contents [{s['offset']:#x}, +{s['size']:#x}) run past the end of the file ({size:#x} bytes)")
            continue
        extents.append((s["offset"], s["offset"] + s["size"], f"section {elf.label(i)}"))
    extents.sort()
    for (a0, a1, an), (b0, b1, bn) in zip(extents, extents[1:]):
        if b0 < a1:
            bad.append(f"{bn} [{b0:#x}, {b1:#x}) overlaps {an} [{a0:#x}, {a1:#x})")

    # The symbol table.
    symtabs = [i for i, s in enumerate(secs) if s["type"] == SHT_SYMTAB]
    syms = []
    if len(symtabs) != 1:
        bad.append(f"{len(symtabs)} SHT_SYMTAB sections, expected 1")
    else:
        st = symtabs[0]
        s = secs[st]
        if s["entsize"] != 24 or s["size"] % 24:
            bad.append(f"symbol table {elf.label(st)}: entsize {s['entsize']}, size {s['size']}: not 24-byte entries")
        elif not 0 < s["link"] < n or secs[s["link"]]["type"] != SHT_STRTAB:
            bad.append(f"symbol table {elf.label(st)}: sh_link {s['link']} is not a string table")
        else:
            blob = elf.contents(s)
            for k in range(s["size"] // 24):
                name, info, _, shndx, value, ssize = struct.unpack_from(elf.e + "IBBHQQ", blob, 24 * k)
                syms.append(dict(name=elf.cstring(secs[s["link"]], name), bind=info >> 4,
                                 type=info & 15, shndx=shndx, value=value, size=ssize))
            locals_end = s["info"]
            if not 0 < locals_end <= len(syms):
                bad.append(f"symbol table {elf.label(st)}: sh_info {locals_end} (first non-local symbol) out of range [1, {len(syms)}]")
            else:
                for k, sym in enumerate(syms):
                    if (sym["bind"] == STB_LOCAL) != (k < locals_end):
                        where = "after" if k >= locals_end else "before"
                        bad.append(f"symbol {k} '{sym['name']}' (binding {sym['bind']}) {where} sh_info {locals_end}, the first non-local")
            has_xindex = any(x["type"] == SHT_SYMTAB_SHNDX for x in secs)
            for k, sym in enumerate(syms):
                j = sym["shndx"]
                if j == 0 or j in (SHN_ABS, SHN_COMMON) or (j == SHN_XINDEX and has_xindex):
                    continue
                if j >= SHN_LORESERVE or j >= n:
                    bad.append(f"symbol {k} '{sym['name']}': section index {j} out of range ({n} sections)")
                elif secs[j]["type"] in NOT_A_TARGET and not (sym["type"] == STT_SECTION and secs[j]["type"] == SHT_GROUP):
                    bad.append(f"symbol {k} '{sym['name']}' is defined in {elf.label(j)}, a section of type {secs[j]['type']} that holds no code or data")

    # Groups: members exist, carry SHF_GROUP, belong to one group.
    group_of = {}
    for i, s in enumerate(secs):
        if s["type"] != SHT_GROUP:
            continue
        if s["entsize"] != 4 or s["size"] % 4 or s["size"] < 4:
            bad.append(f"group {elf.label(i)}: entsize {s['entsize']}, size {s['size']}: not 4-byte words")
            continue
        if symtabs and s["link"] != symtabs[0]:
            bad.append(f"group {elf.label(i)}: sh_link {s['link']} is not the symbol table")
        if syms and not 0 < s["info"] < len(syms):
            bad.append(f"group {elf.label(i)}: signature symbol {s['info']} out of range")
        words = struct.unpack_from(elf.e + f"{s['size'] // 4}I", elf.contents(s))
        if words[0] & ~GRP_COMDAT:
            bad.append(f"group {elf.label(i)}: unknown flags {words[0]:#x}")
        for m in words[1:]:
            if not 0 < m < n or m == i:
                bad.append(f"group {elf.label(i)}: member {m} out of range or the group itself")
                continue
            if m in group_of:
                bad.append(f"group {elf.label(i)}: member {elf.label(m)} already belongs to group {elf.label(group_of[m])}")
                continue
            group_of[m] = i
            if not secs[m]["flags"] & SHF_GROUP:
                bad.append(f"group {elf.label(i)}: member {elf.label(m)} lacks SHF_GROUP")
            if secs[m]["type"] == SHT_GROUP:
                bad.append(f"group {elf.label(i)}: member {elf.label(m)} is a group")
    for i, s in enumerate(secs):
        if s["flags"] & SHF_GROUP and i not in group_of:
            bad.append(f"section {elf.label(i)} has SHF_GROUP but is in no group")

    def group_name(i):
        g = group_of.get(i)
        return "no group" if g is None else f"group {elf.label(g)}"

    # Relocation sections.
    relocated = {}
    for i, s in enumerate(secs):
        if s["type"] not in (SHT_REL, SHT_RELA):
            continue
        rela = s["type"] == SHT_RELA
        esize = 24 if rela else 16
        what = f"relocation section {elf.label(i)}"
        t = s["info"]
        if not 0 < t < n:
            bad.append(f"{what}: sh_info {t} is not a section index ({n} sections)")
            continue
        if t == i:
            bad.append(f"{what}: sh_info {t} names the relocation section itself")
            continue
        target = secs[t]
        if target["type"] in NOT_A_TARGET or target["type"] == SHT_NOBITS:
            bad.append(f"{what}: sh_info names {elf.label(t)}, a section of type {target['type']} that cannot be relocated")
            continue
        if t in relocated:
            bad.append(f"{what}: {elf.label(t)} already has relocation section {elf.label(relocated[t])}")
        relocated[t] = i
        expect = (".rela" if rela else ".rel") + target["name"]
        if s["name"] != expect:
            bad.append(f"{what} relocates {elf.label(t)}: its name should be '{expect}'")
        if symtabs and s["link"] != symtabs[0]:
            bad.append(f"{what}: sh_link {s['link']} is not the symbol table [{symtabs[0]}]")
        if group_of.get(i) != group_of.get(t):
            bad.append(f"{what} is in {group_name(i)}, the section it relocates {elf.label(t)} in {group_name(t)}")
        if s["entsize"] != esize or s["size"] % esize:
            bad.append(f"{what}: entsize {s['entsize']}, size {s['size']}: not {esize}-byte entries")
            continue
        blob = elf.contents(s)
        for k in range(s["size"] // esize):
            off, info = struct.unpack_from(elf.e + "QQ", blob, esize * k)
            sym = info >> 32
            if off >= target["size"]:
                bad.append(f"{what}: relocation {k} at offset {off:#x} outside {elf.label(t)} ({target['size']:#x} bytes)")
                break
            if syms and sym >= len(syms):
                bad.append(f"{what}: relocation {k} names symbol {sym}, beyond the {len(syms)} symbols")
                break

    # SHF_LINK_ORDER: the linked section exists and shares the group.
    for i, s in enumerate(secs):
        if not s["flags"] & SHF_LINK_ORDER:
            continue
        j = s["link"]
        if not 0 < j < n or j == i or secs[j]["type"] in NOT_A_TARGET:
            bad.append(f"section {elf.label(i)} (SHF_LINK_ORDER): sh_link {j} is not a section it can follow")
        elif group_of.get(i) != group_of.get(j):
            bad.append(f"section {elf.label(i)} (SHF_LINK_ORDER) is in {group_name(i)}, its linked section {elf.label(j)} in {group_name(j)}")
    return bad


def run(cmd):
    """(exit status, stderr) of a command; stdout is discarded."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError as e:
        return 127, f"cannot run {cmd[0]}: {e}"
    return p.returncode, p.stderr.decode("utf-8", "replace").strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llvm-bindir", help="LLVM 16's bin directory (default: llvm-config-16 --bindir)")
    ap.add_argument("--no-pic", action="store_true",
                    help="the code is position-dependent: no -shared link")
    ap.add_argument("object")
    args = ap.parse_args()
    obj = args.object
    bindir = args.llvm_bindir or subprocess.check_output(["llvm-config-16", "--bindir"], text=True).strip()
    readobj, lld = os.path.join(bindir, "llvm-readobj"), os.path.join(bindir, "ld.lld")

    failures, done = [], []

    def fail(step, msg):
        for line in msg.splitlines() or [""]:
            failures.append(f"check-object: error: {obj}: {step}: {line}")

    def finish():
        if failures:
            print("\n".join(failures))
            sys.exit(1)
        print(f"check-object: {obj}: ok ({'; '.join(done)})")
        sys.exit(0)

    try:
        with open(obj, "rb") as f:
            elf = Elf(f.read())
    except (OSError, ValueError, struct.error) as e:
        fail("ELF header", str(e))
        finish()
    if elf.type != ET_REL:
        fail("ELF header", f"e_type {elf.type}, not a relocatable object (ET_REL)")
        finish()
    target = GNU_LD.get((elf.machine, elf.big))
    if target is None:
        fail("ELF header", f"machine {elf.machine} ({'big' if elf.big else 'little'} endian) is none of x86_64, aarch64, ppc64le, ppc64")
        finish()
    name, gnu_ld = target
    gnu_ld_path = shutil.which(gnu_ld)
    if gnu_ld_path is None:
        fail("setup", f"{gnu_ld} not found: run scripts/setup")
        finish()
    done.append(name)

    def readobj_clean(path, step):
        status, err = run([readobj, "--all", path])
        if status != 0 or err:
            fail(step, f"llvm-readobj --all exited {status}" + (f": {err}" if err else ""))
            return False
        return True

    def structure_clean(path, step, e=None):
        try:
            if e is None:
                with open(path, "rb") as f:
                    e = Elf(f.read())
            problems = structure(e)
        except (OSError, ValueError, struct.error) as err:
            problems = [str(err)]
        for p in problems:
            fail(step, p)
        return not problems

    readobj_clean(obj, "llvm-readobj")
    structure_clean(obj, "structure", elf)
    done.append("llvm-readobj --all, structure")

    stackmaps_relocated = any(
        s["type"] in (SHT_REL, SHT_RELA) and 0 < s["info"] < elf.shnum
        and elf.sections[s["info"]]["name"] == ".llvm_stackmaps" and s["size"] > 0
        for s in elf.sections)
    elfv1 = elf.machine == EM_PPC64 and elf.big

    with tempfile.TemporaryDirectory(prefix="check-object.") as tmp:
        links = [("ld.lld -r", [lld, "-r"], "r.lld.o"), (f"{gnu_ld} -r", [gnu_ld_path, "-r"], "r.gnu.o")]
        if not stackmaps_relocated and not args.no_pic:
            if not elfv1:
                links.append(("ld.lld -shared", [lld, "-shared", "-Bsymbolic"], "lld.so"))
            links.append((f"{gnu_ld} -shared", [gnu_ld_path, "-shared", "-Bsymbolic"], "gnu.so"))
        for step, cmd, out in links:
            out = os.path.join(tmp, out)
            status, err = run(cmd + [obj, "-o", out])
            if status != 0 or err:
                fail(step, f"exited {status}" + (f": {err}" if err else " with output on stderr"))
                continue
            ok = readobj_clean(out, f"{step}, then llvm-readobj")
            if ok and "-r" in cmd:
                ok = structure_clean(out, f"{step}, then structure")
            if ok:
                done.append(step)
    if stackmaps_relocated:
        done.append("no -shared: .llvm_stackmaps has absolute relocations")
    elif args.no_pic:
        done.append("no -shared: position-dependent code (--no-pic)")
    elif elfv1:
        done.append("no ld.lld -shared: ELFv1")
    finish()


if __name__ == "__main__":
    main()
