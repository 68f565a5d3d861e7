#!/usr/bin/env python3
"""Print a normalized list of the !pcsections attachments of an LLVM IR file.

One line per attachment:

    @function | function | !{!"sanmd_covered2!C", !{i64 1}}
    @function | #3 %a = load atomic i32, ptr %p acquire | !{!"sanmd_atomics2!C"}

Metadata references are resolved to their content, and instruction text is
stripped of metadata attachments and `align` so that the output of different
LLVM releases (which number metadata and infer alignment differently) can be
compared line for line. `#N` is the instruction's ordinal in its function.

Section names are resolved too: where the module carries the plugin's layout
description (`@__pcmap_layout`, docs/pcsections-layout.md), a section it
requested under another name than LLVM 19 uses is printed by the name LLVM
19 gives the same request (`final!options`): the plugin asks for covered
entries in `sanmd_covered` with LLVM 16's i32 feature mask, the request for
which LLVM 16's backend appends the stack-arguments size (`stack-args=` in
the description), and `pcmap emit` writes them as LLVM 19 writes its
`sanmd_covered2!C` request with an i64 mask: ULEB128, the same bytes for
either width. Such a request is printed as LLVM 19's. The description
itself is not printed.

With --structors, also prints what SanitizerBinaryMetadata adds around the
sections: llvm.global_ctors/dtors/used entries, section markers, the
structors' definition lines and their callback calls, and the callbacks'
declarations (attribute group numbers dropped).

Usage: pcsections-attachments.py [--structors] FILE.ll   (FILE "-" = stdin)
"""
import re
import sys

MD_DEF = re.compile(r"^(![0-9]+) = (?:distinct )?(!\{.*\})\s*$")
MD_REF = re.compile(r"![0-9]+")
DEFINE = re.compile(r"^define .*?@([-\w.$]+|\"[^\"]+\")\(")
FN_PCSECTIONS = re.compile(r"!pcsections (![0-9]+)")
INST_PCSECTIONS = re.compile(r", !pcsections (![0-9]+)")
ATTACHMENT = re.compile(r", ![a-z_.]+ ![0-9]+")
ALIGN = re.compile(r", align [0-9]+")
ATTR_GROUP = re.compile(r" #[0-9]+")
FN_ATTACHMENT = re.compile(r" ![a-z_.]+ ![0-9]+")


LAYOUT_GLOBAL = re.compile(r'^@__pcmap_layout = .*?c"((?:[^"\\]|\\.)*)"')


def layout_names(lines):
    """[(requested, LLVM 19's name, whether its mask is LLVM 16's i32)]."""
    names = []
    for line in lines:
        m = LAYOUT_GLOBAL.match(line)
        if not m:
            continue
        text = re.sub(r"\\([0-9A-Fa-f]{2})", lambda e: chr(int(e.group(1), 16)), m.group(1))
        for record_line in text.split("\n"):
            words = record_line.split(" ")
            if words[0] != "section" or len(words) < 4:
                continue
            fields = dict(w.split("=", 1) for w in words[2:] if "=" in w)
            options = fields.get("options", "-")
            llvm19 = fields["final"] + ("" if options == "-" else "!" + options)
            if llvm19 != words[1]:
                names.append((words[1], llvm19, fields.get("stack-args", "-") != "-"))
    return names


def rename(text, names):
    """A resolved attachment with the plugin's requests written as LLVM 19's."""
    for requested, llvm19, i32_mask in names:
        if i32_mask:
            text = text.replace(f'!"{requested}", !{{i32 ', f'!"{llvm19}", !{{i64 ')
        text = text.replace(f'!"{requested}"', f'!"{llvm19}"')
    return text


def resolve(text, defs, depth=0):
    if depth > 32:
        raise SystemExit("metadata nesting too deep")
    return MD_REF.sub(lambda m: resolve(defs[m.group(0)], defs, depth + 1)
                      if m.group(0) in defs else m.group(0), text)


def main(argv):
    structors = "--structors" in argv
    args = [a for a in argv if a != "--structors"]
    if len(args) != 1:
        raise SystemExit(__doc__)
    src = sys.stdin if args[0] == "-" else open(args[0], encoding="utf-8")
    lines = src.read().splitlines()

    names = layout_names(lines)
    defs = {}
    for line in lines:
        m = MD_DEF.match(line)
        if m:
            defs[m.group(1)] = m.group(2)

    out = []
    function = None
    ordinal = 0
    for line in lines:
        m = DEFINE.match(line)
        if m:
            function = "@" + m.group(1)
            ordinal = 0
            fm = FN_PCSECTIONS.search(line)
            if fm:
                out.append(f"{function} | function | {rename(resolve(fm.group(1), defs), names)}")
            if structors and "sanitizer_metadata" in function:
                # Attachments are listed resolved above; their numbers differ.
                text = FN_ATTACHMENT.sub("", ATTR_GROUP.sub("", line.rstrip(" {")))
                out.append("structor " + text)
            continue
        if function is None:
            if structors and re.match(
                    r"^@(llvm\.global_ctors|llvm\.global_dtors|llvm\.used|__start_|__stop_)", line):
                out.append("global " + line)
            elif structors and line.startswith("declare ") and "@__sanitizer_metadata_" in line:
                # The callbacks' declarations: extern_weak or not.
                out.append("declare " + ATTR_GROUP.sub("", line[len("declare "):]))
            continue
        if line == "}":
            function = None
            continue
        body = line.strip()
        if not body or body.startswith(";") or re.match(r"^[-\w.$]+:", body):
            continue  # blank, comment or block label
        ordinal += 1
        if structors and "@__sanitizer_metadata_" in body and body.startswith("call "):
            out.append(f"{function} | callback | {body}")
        im = INST_PCSECTIONS.search(body)
        if im:
            text = ALIGN.sub("", ATTACHMENT.sub("", body))
            out.append(f"{function} | #{ordinal} {text} | {rename(resolve(im.group(1), defs), names)}")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
