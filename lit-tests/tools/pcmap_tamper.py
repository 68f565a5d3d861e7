#!/usr/bin/env python3
"""A pcmap that lies, to show that check_stackmaps.py catches each lie.

  pcmap_tamper.py WHAT PCMAP [pcmap arguments...]

runs the real PCMAP, then falsifies one fact of its result:
  readobj      `dump --format=readobj`: the first instruction offset + 1
  flat-offset  `emit`: the first flat record's instruction offset + 1
  flat-loc     `emit`: the first field the first flat location stores (its
               size, else its register, else its offset) + 1
  size         `emit`: the first flat record's patchable size + 1 (if it
               states one)
  described    as `size`, but only for an emit of an object carrying the
               plugin's .pcmap.sites (the described path alone lies)
Field offsets and encodings are those of docs/stackmap-v2.md (version 2:
ULEB128/SLEB128 fields are rewritten in place at their length, padded if
need be, which readers accept); the object is patched with elfpatch.py (real
bytes, read back by the real `pcmap dump`).
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def section_bytes(obj, name):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sec")
        subprocess.run(["llvm-objcopy-16", "--dump-section", f"{name}={out}", obj, os.devnull],
                       check=True)
        return open(out, "rb").read()


def patch(obj, offset, width, value):
    tmp = obj + ".tamper"
    subprocess.run([sys.executable, os.path.join(HERE, "elfpatch.py"), obj, tmp, "bytes",
                    "pcmap_stackmaps", str(offset), str(width), str(value)], check=True)
    os.replace(tmp, obj)


def leb(data, at, signed=False):
    """The (S/U)LEB128 at `at`: (value, length)."""
    value, shift, n = 0, 0, 0
    while True:
        b = data[at + n]
        value |= (b & 0x7f) << shift
        shift += 7
        n += 1
        if b & 0x80 == 0:
            break
    if signed and b & 0x40:
        value -= 1 << shift
    return value, n


def leb_bytes(value, n, signed=False):
    """`value` as (S/U)LEB128 in exactly `n` bytes (padded)."""
    out = []
    for i in range(n):
        byte = value & 0x7f
        value >>= 7
        out.append(byte | (0x80 if i < n - 1 else 0))
    if value not in ((0, -1) if signed else (0,)):
        sys.exit(f"pcmap_tamper: value does not fit in {n} bytes")
    return bytes(out)


def first_site(sec, end):
    """Offset of the first record's Site in the table, and the Data area's."""
    header, functions, records, constants = struct.unpack_from(end + "H", sec, 6)[0], \
        *struct.unpack_from(end + "III", sec, 12)
    flags = sec[5]
    entries = struct.unpack_from(end + "I", sec, 24)[0] if flags & 8 else 0
    records_at = header + 16 * functions
    data = records_at + 8 * records + (8 * functions if flags & 1 else 0) + 8 * constants + 4 * entries
    return records_at, data + struct.unpack_from(end + "I", sec, records_at + 4)[0]


def patch_leb(obj, sec, at, delta, signed=False):
    value, n = leb(sec, at, signed)
    new = leb_bytes(value + delta, n, signed)
    for i, b in enumerate(new):
        patch(obj, at + i, 1, b)


def main():
    what, pcmap, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    p = subprocess.run([pcmap] + args, capture_output=True, text=True)
    out = p.stdout
    if p.returncode == 0 and what == "readobj" and "--format=readobj" in args:
        out = re.sub(r"(instruction offset: )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1),
                     out, count=1)
    if what == "described":
        src = args[-3] if len(args) >= 3 else ""
        has_sites = subprocess.run(["llvm-readelf-16", "-S", src], capture_output=True,
                                   text=True).stdout.find(".pcmap.sites") >= 0
        what = "size" if has_sites else "none"
    if p.returncode == 0 and args and args[0] == "emit" and what not in ("readobj", "none"):
        obj = args[args.index("-o") + 1]
        sec = section_bytes(obj, "pcmap_stackmaps")
        end = ">" if sec[5] & 2 else "<"
        records, site = first_site(sec, end)
        # Site: ULEB ID, head, [ULEB patchable size], [ULEB frame state], ULEB N, locations.
        _, n = leb(sec, site)
        head_at = site + n
        head = sec[head_at]
        at = head_at + 1
        if what == "flat-offset":
            patch(obj, records, 4, struct.unpack_from(end + "I", sec, records)[0] + 1)
        elif what == "size":
            # Only a stated size can be falsified in place (emit without
            # --ir states none for unknown kinds: nothing to lie about).
            if head & 4:
                patch_leb(obj, sec, at, 1)
        elif what == "flat-loc":
            for bit in (4, 16):
                if head & bit:
                    at += leb(sec, at)[1]
            at += leb(sec, at)[1]
            loc = sec[at]
            at += 1
            # The first field stored: size (bit 3), register (bit 4), offset (bit 5).
            if loc & 8:
                patch_leb(obj, sec, at, 1)
            elif loc & 16:
                patch_leb(obj, sec, at, 1)
            elif loc & 32:
                patch_leb(obj, sec, at, 1, signed=True)
            else:
                sys.exit("pcmap_tamper: the first location stores no field")
        else:
            sys.exit(f"pcmap_tamper: unknown lie {what}")
    sys.stdout.write(out)
    sys.stderr.write(p.stderr)
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
