"""Compares the COMDAT groups of an object before and after pcmap emit
(`llvm-readelf -g`): the same groups, by signature, with the same member
names in the same order (a PC section's name!C becomes name, the plugin's
sanmd_covered becomes sanmd_covered2); indices may change, but each must
name a section of that name in the output.

usage: groups.py READELF BEFORE.o AFTER.o"""
import re
import subprocess
import sys

# What emit renames besides dropping !C: the covered entries the plugin
# requests as `sanmd_covered` (docs/pcsections-layout.md).
EMITTED = {"sanmd_covered": "sanmd_covered2", ".relasanmd_covered": ".relasanmd_covered2"}


def groups(readelf, path):
    text = subprocess.run([readelf, "-g", path], check=True, capture_output=True, text=True).stdout
    out, current = [], None
    for line in text.splitlines():
        m = re.match(r"COMDAT group section \[\s*\d+\] `[^']*' \[(.*)\] contains", line)
        if m:
            current = (m.group(1), [])
            out.append(current)
            continue
        m = re.match(r"\s+\[\s*(\d+)\]\s+(\S+)", line)
        if m and current:
            current[1].append(EMITTED.get(m.group(2), m.group(2).replace("!C", "")))
    return out


readelf, before_path, after_path = sys.argv[1:4]
before, after = groups(readelf, before_path), groups(readelf, after_path)
if not before:
    sys.exit(f"{before_path}: no COMDAT groups")
if before != after:
    sys.exit(f"{after_path}: groups differ from {before_path}:\n before: {before}\n after:  {after}")
print(f"{after_path}: {len(after)} groups kept")
