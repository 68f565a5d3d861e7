#!/usr/bin/env python3
"""A pcmap that lies, to show that check_stackmaps.py catches each lie.

  pcmap_tamper.py WHAT PCMAP [pcmap arguments...]

runs the real PCMAP, then falsifies one fact of its result:
  readobj      `dump --format=readobj`: the first instruction offset + 1
  flat-offset  `emit`: the first flat record's instruction offset + 1
  flat-loc     `emit`: the first flat location's size + 1
  size         `emit`: the first flat record's patchable size + 1 (and the
               PATCHABLE_SIZE_KNOWN flag set)
  described    as `size`, but only for an emit of an object carrying the
               plugin's .pcmap.sites (the described path alone lies)
Field offsets are those of docs/stackmap-v2.md; the object is patched with
elfpatch.py (real bytes, read back by the real `pcmap dump`).
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
        records, locations = struct.unpack_from(end + "II", sec, 16)
        if what == "flat-offset":
            patch(obj, records + 8, 4, struct.unpack_from(end + "I", sec, records + 8)[0] + 1)
        elif what == "size":
            patch(obj, records + 12, 4, struct.unpack_from(end + "I", sec, records + 12)[0] + 1)
            patch(obj, records + 28, 1, sec[records + 28] | 2)
        elif what == "flat-loc":
            patch(obj, locations + 1, 1, sec[locations + 1] + 1)
        else:
            sys.exit(f"pcmap_tamper: unknown lie {what}")
    sys.stdout.write(out)
    sys.stderr.write(p.stderr)
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
