#!/usr/bin/env python3
"""Changes one CFA offset in a linked program's flat stack map tables
(section pcmap_stackmaps, layout version 2, docs/stackmap-v2.md): the frame
state that the most records of the first table use gets its CFA offset
moved by 16 bytes (same encoded length; 2 units where the frame state is
SCALED: offsets stored divided by 8), so every walk through one of those
records must disagree with libgcc.

    corrupt-cfa.py IN OUT       prints what it changed
"""
import shutil
import struct
import sys
from collections import Counter


def section(data, name):
    """(offset, size) of section `name` in the ELF64 `data`."""
    big = data[5] == 2
    e = ">" if big else "<"
    shoff, = struct.unpack_from(e + "Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from(e + "IIQQQQIIQQ", data, shoff + i * shentsize)
    strtab = header(shstrndx)
    for i in range(shnum):
        h = header(i)
        start = strtab[4] + h[0]
        if data[start:data.index(b"\0", start)].decode() == name:
            return h[4], h[5]
    sys.exit(f"corrupt-cfa: no section {name}")


def uleb(b, at):
    v = shift = 0
    while True:
        byte = b[at]
        at += 1
        v |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return v, at


def sleb(b, at):
    start = at
    v, at = uleb(b, at)
    bits = 7 * (at - start)
    if v >> (bits - 1) & 1:
        v -= 1 << bits
    return v, at


def sleb_bytes(v, length):
    """`v` as SLEB128 in exactly `length` bytes, or None."""
    out = []
    for i in range(length):
        byte = v & 0x7F
        v >>= 7
        last = i == length - 1
        if last:
            if not ((v == 0 and not byte & 0x40) or (v == -1 and byte & 0x40)):
                return None
            out.append(byte)
        else:
            out.append(byte | 0x80)
    return bytes(out)


def main():
    src, dst = sys.argv[1:3]
    data = bytearray(open(src, "rb").read())
    off, size = section(data, "pcmap_stackmaps")
    t = off
    while data[t] == 0:
        t += 1
    if data[t:t + 4] != b"\x7fSMF" or data[t + 4] != 2:
        sys.exit("corrupt-cfa: not a version 2 flat table")
    flags = data[t + 5]
    e = ">" if flags & 2 else "<"
    header_size, = struct.unpack_from(e + "H", data, t + 6)
    table_size, nf, nr, nc = struct.unpack_from(e + "IIII", data, t + 8)
    m = struct.unpack_from(e + "I", data, t + 24)[0] if header_size >= 32 else 0
    at = header_size + 16 * nf
    records = [struct.unpack_from(e + "II", data, t + at + 8 * i) for i in range(nr)]
    at += 8 * nr
    align8 = lambda x: (x + 7) & ~7
    if flags & 1:
        at = align8(at) + 8 * nf
    at = align8(at) + 8 * nc + 4 * m
    base = t + at
    states = Counter()
    for _, site in records:
        p = base + site
        _, p = uleb(data, p)
        head = data[p]
        p += 1
        if head & 4:
            _, p = uleb(data, p)
        if head & 16:
            fs, p = uleb(data, p)
            states[fs] += 1
    for fs, uses in states.most_common():
        p = base + fs
        flags = data[p]
        if not flags & 1:
            continue
        shift = 3 if flags & 4 else 0
        reg, p = uleb(data, p + 1)
        stored, end = sleb(data, p)
        value = stored << shift
        for delta in (16, -16):
            new = sleb_bytes(stored + (delta >> shift), end - p)
            if new is not None:
                data[p:end] = new
                shutil.copy(src, dst)
                open(dst, "r+b").write(data)
                print(f"corrupt-cfa: frame state at Data+{fs} ({uses} records): "
                      f"CFA register {reg} offset {value} -> {value + delta}")
                return
    sys.exit("corrupt-cfa: no frame state with a CFA rule to change")


if __name__ == "__main__":
    main()
