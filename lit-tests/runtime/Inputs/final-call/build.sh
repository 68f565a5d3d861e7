#!/usr/bin/env bash
# Builds final-call-*.test's program for one target into DIR: the managed
# functions (program.statepoint.ll; PowerPC64: program.stackmap.ll) through
# llc-16 and pcmap emit --ir, linked with driver.c and libpcmap.a.
#
#   build.sh x86_64|aarch64|ppc64le|ppc64 DIR
#
# PowerPC64: LLVM ends every function with a 12-byte traceback table
# (`.long 0`, `.quad 0`), so a return address is never the next function's
# first byte in what llc writes. Code from elsewhere (hand-written
# assembly, a JIT) has no such table: the assembly llc writes is assembled
# without it, so that the case is tested on PowerPC64 too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
target=${1:?usage: build.sh TARGET DIR}
out=${2:?}
case $target in
  x86_64)  gnu=x86_64-linux-gnu;      rust= ;;
  aarch64) gnu=aarch64-linux-gnu;     rust=aarch64-unknown-linux-gnu ;;
  ppc64le) gnu=powerpc64le-linux-gnu; rust=powerpc64le-unknown-linux-gnu ;;
  ppc64)   gnu=powerpc64-linux-gnu;   rust=powerpc64-unknown-linux-gnu ;;
  *) echo "build.sh: unknown target $target" >&2; exit 2 ;;
esac
BIN=$(llvm-config-16 --bindir)
CAPI=$repo/$("$repo/emitter/capi/build-lib.sh" "${rust:-host}")
fuse=(-fuse-ld=lld)
[ "$target" = ppc64 ] && fuse=()
mkdir -p "$out"
defines=()
case $target in
  x86_64|aarch64)
    "$BIN/opt" -passes=rewrite-statepoints-for-gc -S "$here/program.statepoint.ll" -o "$out/program.ll"
    "$BIN/llc" -O2 -mtriple="$gnu" -relocation-model=static -filetype=obj "$out/program.ll" -o "$out/program.o" ;;
  *)
    cp "$here/program.stackmap.ll" "$out/program.ll"
    "$BIN/llc" -O2 -mtriple="$gnu" -relocation-model=static "$out/program.ll" -o "$out/program.s"
    python3 - "$out/program.s" <<'PY'
import sys
path = sys.argv[1]
lines = open(path).read().split("\n")
out, dropped = [], 0
for i, line in enumerate(lines):
    # The traceback table: `.long 0`, `.quad 0`, right before .Lfunc_endN.
    if line.strip() == ".long\t0" and i + 2 < len(lines) and lines[i + 1].strip() == ".quad\t0" \
            and lines[i + 2].startswith(".Lfunc_end"):
        dropped += 1
        continue
    if line.strip() == ".quad\t0" and out and i + 1 < len(lines) and lines[i + 1].startswith(".Lfunc_end") \
            and lines[i - 1].strip() == ".long\t0":
        continue
    out.append(line)
if dropped < 6:
    sys.exit(f"build.sh: {dropped} traceback tables found in {path}, expected one per function")
open(path, "w").write("\n".join(out))
PY
    "$BIN/clang" --target="$gnu" -c "$out/program.s" -o "$out/program.o"
    defines=(-DSTACKMAPS) ;;
esac
"$repo/target/release/pcmap" emit --ir "$out/program.ll" "$out/program.o" -o "$out/program.flat.o"
"$BIN/clang" --target="$gnu" "${fuse[@]}" -no-pie -O2 -std=c11 -Wall -Wextra -Werror "${defines[@]}" \
  -I "$repo/target/include" "$here/driver.c" "$out/program.flat.o" "$CAPI" -o "$out/walk"
