#!/usr/bin/env python3
"""elf-edit: corrupt one field of a 64-bit ELF object on purpose, for tests
that must see a checker fail.

    elf-edit.py IN OUT SECTION FIELD VALUE

SECTION is a section name (the first section of that name) or "#N" (index
N). FIELD is a section header field (sh_name, sh_type, sh_flags, sh_link,
sh_info, sh_entsize) or "word:K" (the K-th 32-bit word of the section's
contents, e.g. a group's member list: word:0 is the flags). VALUE is a
number, "self" (the section's own index) or "#NAME" (the index of the first
section named NAME). Prints what it changed.
"""
import struct
import sys

FIELDS = {  # offset in the 64-byte section header, struct format
    "sh_name": (0, "I"), "sh_type": (4, "I"), "sh_flags": (8, "Q"),
    "sh_link": (40, "I"), "sh_info": (44, "I"), "sh_entsize": (56, "Q"),
}


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    src, dst, which, field, value = sys.argv[1:]
    data = bytearray(open(src, "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit(f"elf-edit: {src}: not a 64-bit ELF file")
    e = ">" if data[5] == 2 else "<"
    shoff, = struct.unpack_from(e + "Q", data, 0x28)
    shnum, shstrndx = struct.unpack_from(e + "HH", data, 0x3C)
    str_off, = struct.unpack_from(e + "Q", data, shoff + 64 * shstrndx + 24)

    def name(i):
        off, = struct.unpack_from(e + "I", data, shoff + 64 * i)
        end = data.index(b"\0", str_off + off)
        return data[str_off + off:end].decode()

    def find(which):
        if which.startswith("#") and which[1:].isdigit():
            return int(which[1:])
        matches = [i for i in range(shnum) if name(i) == which.lstrip("#")]
        if not matches:
            sys.exit(f"elf-edit: {src}: no section named {which}")
        return matches[0]

    index = find(which)
    new = index if value == "self" else find(value) if value.startswith("#") else int(value, 0)
    header = shoff + 64 * index
    if field.startswith("word:"):
        k = int(field[5:])
        offset, = struct.unpack_from(e + "Q", data, header + 24)
        size, = struct.unpack_from(e + "Q", data, header + 32)
        if 4 * k + 4 > size:
            sys.exit(f"elf-edit: {src}: section [{index}] has no word {k}")
        at, fmt = offset + 4 * k, "I"
    elif field in FIELDS:
        rel, fmt = FIELDS[field]
        at = header + rel
    else:
        sys.exit(f"elf-edit: unknown field {field}")
    old, = struct.unpack_from(e + fmt, data, at)
    struct.pack_into(e + fmt, data, at, new)
    open(dst, "wb").write(data)
    print(f"elf-edit: [{index}] {name(index) if field != 'sh_name' else which} {field}: {old} -> {new}")


if __name__ == "__main__":
    main()
