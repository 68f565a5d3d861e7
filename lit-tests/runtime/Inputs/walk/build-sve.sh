#!/usr/bin/env bash
# Builds sve.ll (an AArch64 frame whose CFA is a DWARF expression) and
# sve.c (the walk from its safepoint) into DIR/sve: rewrite-statepoints-for-gc,
# llc-16, pcmap emit --ir, linked with libpcmap.a for AArch64.
#   build-sve.sh DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
out=${1:?usage: build-sve.sh DIR}
# The LLVM release under test (lit.cfg.py sets PCMAP_LLVM), 16 by default.
BIN=$(llvm-config-"${PCMAP_LLVM:-16}" --bindir)
CAPI=$repo/$("$repo/emitter/capi/build-lib.sh" aarch64-unknown-linux-gnu)
mkdir -p "$out"
"$BIN/opt" -passes=rewrite-statepoints-for-gc -S "$here/sve.ll" -o "$out/sve.sp.ll"
"$BIN/llc" -O2 -relocation-model=static -filetype=obj "$out/sve.sp.ll" -o "$out/sve.o"
"$repo/target/release/pcmap" emit --ir "$out/sve.sp.ll" "$out/sve.o" -o "$out/sve.flat.o"
"$BIN/clang" --target=aarch64-linux-gnu -O2 -fno-pic -no-pie -fuse-ld=lld -Wall -Wextra -Werror \
  -I "$repo/target/include" "$here/sve.c" "$out/sve.flat.o" "$CAPI" -o "$out/sve"
