#!/usr/bin/env bash
# Builds the stack walk corpus test for one target into DIR: gen.py writes
# the managed C, clang-16 compiles it to IR, gen.py --fix makes its stack
# maps intrinsics and gives each function its frame shape, llc-16 and
# pcmap emit --ir make the object with the flat tables, and the driver is
# linked with libpcmap.a and libgcc's unwinder (libgcc_s).
#
#   build.sh x86_64|aarch64|ppc64le|ppc64 SEED DIR
# Prints the command that runs DIR/walk.
set -euo pipefail
rm -f "${3:-/nonexistent}/walk"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
target=${1:?usage: build.sh TARGET SEED DIR}
seed=${2:?}
out=${3:?}
case $target in
  x86_64)  gnu=x86_64-linux-gnu;      rust=;                              run=() ;;
  aarch64) gnu=aarch64-linux-gnu;     rust=aarch64-unknown-linux-gnu;     run=(qemu-aarch64 -L /usr/$gnu) ;;
  ppc64le) gnu=powerpc64le-linux-gnu; rust=powerpc64le-unknown-linux-gnu; run=(qemu-ppc64le -L /usr/$gnu) ;;
  ppc64)   gnu=powerpc64-linux-gnu;   rust=powerpc64-unknown-linux-gnu;   run=(qemu-ppc64 -L /usr/$gnu) ;;
  *) echo "build.sh: unknown target $target" >&2; exit 2 ;;
esac
# The LLVM release under test (lit.cfg.py sets PCMAP_LLVM), 16 by default.
BIN=$(llvm-config-"${PCMAP_LLVM:-16}" --bindir)
CAPI=$repo/$("$repo/emitter/capi/build-lib.sh" "${rust:-host}")
# ELFv1 links with GNU ld only; the others with lld.
fuse=(-fuse-ld=lld)
[ "$target" = ppc64 ] && fuse=()
mkdir -p "$out"
python3 "$here/gen.py" --seed "$seed" --target "$target" -o "$out/corpus.c"
# No sibling calls: every call of a chain keeps its frame.
cflags=(--target="$gnu" -O2 -fno-pic -funwind-tables -fno-optimize-sibling-calls -I "$repo/target/include" -I "$here")
# SimplifyCFG would sink the stack maps of a switch's cases into one call
# whose ID is a phi (not a constant): keep them apart.
"$BIN/clang" "${cflags[@]}" -mllvm -simplifycfg-sink-common=false -mllvm -simplifycfg-hoist-common=false \
  -S -emit-llvm "$out/corpus.c" -o "$out/corpus.ll"
python3 "$here/gen.py" --seed "$seed" --target "$target" --fix "$out/corpus.ll" -o "$out/corpus.fixed.ll"
ir=$out/corpus.fixed.ll
case $target in
  x86_64|aarch64)
    # Every call becomes a gc.statepoint listing the live references.
    "$BIN/opt" -passes=rewrite-statepoints-for-gc -S "$ir" -o "$out/corpus.statepoint.ll"
    ir=$out/corpus.statepoint.ll ;;
esac
# References in callee-saved registers across statepoints too (LLVM 16
# spills every one to a stack slot by default): roots a walk finds in a
# register restored from a callee's save slot, or in the trampoline's.
"$BIN/llc" -O2 -relocation-model=static -max-registers-for-gc-values=1000 -fixup-allow-gcptr-in-csr -filetype=obj "$ir" -o "$out/corpus.o"
"$repo/target/release/pcmap" emit --ir "$ir" "$out/corpus.o" -o "$out/corpus.flat.o"
"$BIN/clang" "${cflags[@]}" "${fuse[@]}" -no-pie -Wall -Wextra -Werror "$here/driver.c" "$out/corpus.flat.o" "$CAPI" \
  -lgcc_s -lpthread -o "$out/walk"
echo "${run[*]} $out/walk"
