#!/usr/bin/env bash
# Builds walk-roots-*.test's program for x86_64 or aarch64 into DIR:
# managed.c to IR (clang-16), its functions made statepoint GC functions
# (rewrite-statepoints-for-gc), llc-16 (some references in callee-saved
# registers), on AArch64 the hand-written odd_frame (odd-frame-aarch64.S),
# pcmap emit --ir, linked with driver.c and libpcmap.a.
#
#   build.sh x86_64|aarch64 DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
target=${1:?usage: build.sh TARGET DIR}
out=${2:?}
case $target in
  x86_64)  gnu=x86_64-linux-gnu;  rust= ;;
  aarch64) gnu=aarch64-linux-gnu; rust=aarch64-unknown-linux-gnu ;;
  *) echo "build.sh: unknown target $target" >&2; exit 2 ;;
esac
# The LLVM release under test (lit.cfg.py sets PCMAP_LLVM), 16 by default.
BIN=$(llvm-config-"${PCMAP_LLVM:-16}" --bindir)
CAPI=$repo/$("$repo/emitter/capi/build-lib.sh" "${rust:-host}")
mkdir -p "$out"
cflags=(--target="$gnu" -O2 -fno-pic -funwind-tables -fno-optimize-sibling-calls -I "$repo/target/include")
"$BIN/clang" "${cflags[@]}" -S -emit-llvm "$here/managed.c" -o "$out/managed.ll"
sed -E 's/^(define dso_local void @(many|outer)\(.*\) .*)\{$/\1gc "statepoint-example" {/' "$out/managed.ll" > "$out/managed.gc.ll"
[ "$(grep -c 'gc "statepoint-example"' "$out/managed.gc.ll")" = 2 ]
# Threshold 0: derived pointers stay relocated pairs (base, derived), not
# recomputed from their relocated base after the call.
"$BIN/opt" -passes=rewrite-statepoints-for-gc -spp-rematerialization-threshold=0 -S "$out/managed.gc.ll" -o "$out/managed.sp.ll"
"$BIN/llc" -O2 -relocation-model=static -max-registers-for-gc-values=1000 -fixup-allow-gcptr-in-csr \
  -filetype=obj "$out/managed.sp.ll" -o "$out/managed.o"
"$repo/target/release/pcmap" emit --ir "$out/managed.sp.ll" "$out/managed.o" -o "$out/managed.flat.o"
objs=("$out/managed.flat.o")
if [ "$target" = aarch64 ]; then
  "$BIN/clang" --target="$gnu" -c "$here/odd-frame-aarch64.S" -o "$out/odd.o"
  "$repo/target/release/pcmap" emit "$out/odd.o" -o "$out/odd.flat.o"
  objs+=("$out/odd.flat.o")
fi
"$BIN/clang" "${cflags[@]}" -fuse-ld=lld -no-pie -Wall -Wextra -Werror "$here/driver.c" "${objs[@]}" "$CAPI" -o "$out/roots"
