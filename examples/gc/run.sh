#!/usr/bin/env bash
# Builds and runs the collector example for one target: IR -> opt-16
# (statepoints) -> llc-16 -> pcmap emit -> link with the C runtime and
# libpcmap_capi.a -> run (under qemu-user off the host). Exits non-zero
# unless the program printed the right checksum.
#
#   examples/gc/run.sh x86_64|aarch64|ppc64le [--hide-root] [--variant statepoint|stackmap] [--keep DIR]
#
# --variant: statepoint (gc.statepoint via rewrite-statepoints-for-gc; the
#   default on x86_64 and aarch64) or stackmap (roots in allocas reported by
#   llvm.experimental.stackmap after each call; the only one on ppc64le, whose
#   LLVM 16 backend crashes on every gc.statepoint). See README.md.
# --hide-root: build with one root hidden from the collector; the check must fail.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

target=${1:?usage: run.sh TARGET [--hide-root] [--variant statepoint|stackmap] [--keep DIR]}
shift
hide=0 variant= keep=
while [ $# -gt 0 ]; do
  case $1 in
    --hide-root) hide=1 ;;
    --variant) variant=$2; shift ;;
    --keep) keep=$2; shift ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

case $target in
  x86_64)  gnu=x86_64-linux-gnu;      rust=;                              run=() ;;
  aarch64) gnu=aarch64-linux-gnu;     rust=aarch64-unknown-linux-gnu;     run=(qemu-aarch64 -L /usr/$gnu) ;;
  ppc64le) gnu=powerpc64le-linux-gnu; rust=powerpc64le-unknown-linux-gnu; run=(qemu-ppc64le -L /usr/$gnu) ;;
  *) echo "run.sh: unknown target '$target' (x86_64, aarch64, ppc64le)" >&2; exit 2 ;;
esac
[ -n "$variant" ] || { [ "$target" = ppc64le ] && variant=stackmap || variant=statepoint; }
if [ "$target" = ppc64le ] && [ "$variant" = statepoint ]; then
  echo "run.sh: LLVM 16's PowerPC backend crashes on gc.statepoint; use --variant stackmap" >&2
  exit 2
fi

BIN=$(llvm-config-16 --bindir)
PCMAP=$repo/target/release/pcmap
INCLUDE=$repo/target/include
if [ -z "$rust" ]; then
  CAPI=$repo/target/release/libpcmap_capi.a
else
  CAPI=$repo/$("$repo/emitter/capi/build-cross.sh" "$rust")
fi
for f in "$PCMAP" "$INCLUDE/pcmap.h" "$CAPI"; do
  [ -e "$f" ] || { echo "run.sh: $f missing: cargo build --release" >&2; exit 2; }
done

if [ -n "$keep" ]; then out=$keep; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi

# The IR, with or without the hidden root.
src=$here/program.$variant.ll
if [ $hide = 1 ]; then
  sed -e '/; visible-root$/d' -e 's/; hide-root: //' "$src" >"$out/program.ll"
else
  cp "$src" "$out/program.ll"
fi
# Statepoints: every call becomes a gc.statepoint with the relocated pointers
# (rematerialization off, so derived pointers stay live across calls).
if [ "$variant" = statepoint ]; then
  "$BIN/opt" -passes=rewrite-statepoints-for-gc -spp-rematerialization-threshold=0 -S \
    "$out/program.ll" -o "$out/program.opt.ll"
else
  cp "$out/program.ll" "$out/program.opt.ll"
fi
"$BIN/llc" -O2 -mtriple="$gnu" -filetype=obj "$out/program.opt.ll" -o "$out/program.o"
"$PCMAP" emit --ir "$out/program.opt.ll" "$out/program.o" -o "$out/program.flat.o"

"$BIN/clang" --target="$gnu" -fuse-ld=lld -O2 -std=c11 -Wall -Wextra -Werror -I "$INCLUDE" \
  "$here/main.c" "$here/heap.c" "$here/stackwalk.c" "$here/trampoline-$target.S" \
  "$out/program.flat.o" "$CAPI" -lpthread -ldl -lm -o "$out/gc"
"${run[@]}" "$out/gc"
