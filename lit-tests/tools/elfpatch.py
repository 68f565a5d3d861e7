#!/usr/bin/env python3
"""Make a corrupt copy of an ELF64 object, one field at a time, for tests of
what pcmap does with bad input. Sections are named; `NAME#N` is the N-th
(from 1) section of that name.

  elfpatch.py IN OUT shdr SECTION FIELD VALUE
      FIELD: sh_type sh_flags sh_addr sh_offset sh_size sh_link sh_info
             sh_addralign sh_entsize
  elfpatch.py IN OUT bytes SECTION OFFSET WIDTH VALUE
      an integer of WIDTH bytes at OFFSET in the section's contents
  elfpatch.py IN OUT replace SECTION OLD NEW
      the first OLD in the section's contents by NEW, of the same length
      (both text with Python escapes: \\x00 is a NUL)
  elfpatch.py IN OUT sym INDEX FIELD VALUE
      FIELD of symbol INDEX of .symtab: name info other shndx value size
  elfpatch.py IN OUT rela SECTION INDEX FIELD VALUE
      FIELD of relocation INDEX (from 0) of a SHT_RELA section:
      offset type sym addend

Values are Python integer literals (0x.. allowed, negative for addends),
or `@SECTION`: that section's index (e.g. a relocation section's sh_info
made to name itself, or a group member replaced by another section), or
`name:SECTION`: that section's sh_name (another section given its name).
The object's byte order is used throughout.
"""
import codecs
import struct
import sys

SHDR_FIELDS = ["sh_name", "sh_type", "sh_flags", "sh_addr", "sh_offset",
               "sh_size", "sh_link", "sh_info", "sh_addralign", "sh_entsize"]
SHDR_FORMAT = "IIQQQQIIQQ"


def fail(msg):
    sys.exit(f"elfpatch: {msg}")


def main(argv):
    if len(argv) < 5:
        fail(__doc__)
    src, dst, what = argv[1], argv[2], argv[3]
    data = bytearray(open(src, "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2:
        fail(f"{src}: not an ELF64 file")
    end = "<" if data[5] == 1 else ">"
    shoff, = struct.unpack_from(end + "Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)

    def header(i):
        return list(struct.unpack_from(end + SHDR_FORMAT, data, shoff + i * shentsize))

    names = header(shstrndx)

    def name_of(i):
        at = names[4] + header(i)[0]
        return bytes(data[at:data.index(b"\0", at)]).decode()

    def find(spec):
        name, _, nth = spec.partition("#")
        nth = int(nth or 1)
        for i in range(1, shnum):
            if name_of(i) == name:
                nth -= 1
                if nth == 0:
                    return i
        fail(f"{src}: no section {spec}")

    def number(text):
        if text.startswith("name:"):
            return header(find(text[5:]))[0]
        return find(text[1:]) if text.startswith("@") else int(text, 0)

    if what == "shdr":
        i = find(argv[4])
        h = header(i)
        h[SHDR_FIELDS.index(argv[5])] = number(argv[6])
        struct.pack_into(end + SHDR_FORMAT, data, shoff + i * shentsize, *h)
    elif what == "bytes":
        h = header(find(argv[4]))
        offset, width, new = int(argv[5], 0), int(argv[6]), number(argv[7])
        if offset + width > h[5]:
            fail(f"offset {offset} + {width} is past the section's end")
        fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[width]
        struct.pack_into(end + fmt, data, h[4] + offset, new & ((1 << (8 * width)) - 1))
    elif what == "replace":
        h = header(find(argv[4]))
        old, new = (codecs.escape_decode(a.encode())[0] for a in argv[5:7])
        if len(old) != len(new):
            fail("OLD and NEW differ in length")
        at = bytes(data[h[4]:h[4] + h[5]]).find(old)
        if at < 0:
            fail(f"{argv[5]!r} is not in {argv[4]}")
        data[h[4] + at:h[4] + at + len(new)] = new
    elif what == "sym":
        h = header(find(".symtab"))
        index, field = int(argv[4]), argv[5]
        fields = ["name", "info", "other", "shndx", "value", "size"]
        at = h[4] + 24 * index
        sym = list(struct.unpack_from(end + "IBBHQQ", data, at))
        sym[fields.index(field)] = number(argv[6])
        struct.pack_into(end + "IBBHQQ", data, at, *sym)
    elif what == "rela":
        h = header(find(argv[4]))
        index, field, value = int(argv[5]), argv[6], int(argv[7], 0)
        at = h[4] + 24 * index
        if 24 * (index + 1) > h[5]:
            fail(f"no relocation {index}")
        r_offset, r_info, r_addend = struct.unpack_from(end + "QQq", data, at)
        sym, typ = r_info >> 32, r_info & 0xFFFFFFFF
        if field == "offset":
            r_offset = value
        elif field == "type":
            typ = value
        elif field == "sym":
            sym = value
        elif field == "addend":
            r_addend = value
        else:
            fail(f"unknown relocation field {field}")
        struct.pack_into(end + "QQq", data, at, r_offset, (sym << 32) | typ, r_addend)
    else:
        fail(f"unknown command {what}")
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main(sys.argv)
