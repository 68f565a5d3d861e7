#!/usr/bin/env python3
"""Compare a tool's output with a checked-in golden file.

    golden.py EXPECTED ACTUAL

Exits 1 with a unified diff when they differ. With PCMAP_UPDATE_GOLDEN=1 in the
environment (set by scripts/update-golden) it writes ACTUAL over EXPECTED
instead, so goldens only ever change on purpose.

Goldens are per LLVM release: with PCMAP_GOLDEN_SUBDIR=DIR in the
environment (lit.cfg.py sets `llvm19` when LLVM 19 is under test), EXPECTED
is read from (and written to) DIR beside it: golden/x.json becomes
golden/llvm19/x.json. One test, one golden file per release.
"""
import difflib
import os
import shutil
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: golden.py EXPECTED ACTUAL")
    expected, actual = sys.argv[1], sys.argv[2]
    subdir = os.environ.get("PCMAP_GOLDEN_SUBDIR")
    if subdir:
        expected = os.path.join(os.path.dirname(expected), subdir, os.path.basename(expected))
    with open(actual, encoding="utf-8") as f:
        got = f.read()
    if os.environ.get("PCMAP_UPDATE_GOLDEN") == "1":
        os.makedirs(os.path.dirname(expected) or ".", exist_ok=True)
        shutil.copyfile(actual, expected)
        print(f"golden: updated {expected}")
        return
    if not os.path.exists(expected):
        sys.exit(f"golden: {expected} does not exist; run scripts/update-golden")
    with open(expected, encoding="utf-8") as f:
        want = f.read()
    if got != want:
        sys.stdout.writelines(
            difflib.unified_diff(
                want.splitlines(True), got.splitlines(True), expected, actual
            )
        )
        sys.exit(f"golden: {actual} differs from {expected}")


if __name__ == "__main__":
    main()
