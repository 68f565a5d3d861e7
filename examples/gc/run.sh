#!/usr/bin/env bash
# Builds and runs the collector example for one target: IR -> opt-16
# (statepoints) -> llc-16 -> pcmap emit -> link with the C runtime and
# libpcmap.a -> run (under qemu-user off the host); LLVM 19's tools with
# PCMAP_LLVM=19 (examples/target.sh). Exits non-zero unless the program
# printed the right checksum.
#
#   examples/gc/run.sh x86_64|aarch64|ppc64le [--hide-root] [--rust] [--keep DIR]
#
# x86_64 and aarch64 use program.statepoint.ll (gc.statepoint via
# rewrite-statepoints-for-gc); ppc64le uses program.stackmap.ll (roots in
# allocas reported by llvm.experimental.stackmap after each call), because
# the PowerPC backends of LLVM 16 and 19 crash on every gc.statepoint. See
# README.md.
# --hide-root: build with one root hidden from the collector; the check must fail.
# --rust: link the Rust runtime (runtime.rs, over pcmap-reader alone)
#   instead of the C one (main.c, heap.c, stackwalk.c over libpcmap).
# --keep DIR: build in DIR and keep the intermediate files.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

target=${1:?usage: run.sh TARGET [--hide-root] [--keep DIR]}
shift
hide=0 keep= runtime=c
while [ $# -gt 0 ]; do
  case $1 in
    --hide-root) hide=1 ;;
    --rust) runtime=rust ;;
    --keep) keep=$2; shift ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# shellcheck source=../target.sh
source "$repo/examples/target.sh"
# Statepoints where LLVM compiles them; PowerPC64 LE's backend crashes
# on every gc.statepoint: stack maps there.
variant=statepoint
[ "$target" = ppc64le ] && variant=stackmap

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
# PIC, like the C code clang compiles for the (PIE) program.
# Frame pointers on: frames the library's walker follows by their CFA rule
# (RBP / x29 / r31 + offset), whatever the rule is.
"$BIN/llc" -O2 -mtriple="$gnu" -relocation-model=pic -frame-pointer=all -filetype=obj "$out/program.opt.ll" -o "$out/program.o"
"$PCMAP" emit --llvm "$llvm" --ir "$out/program.opt.ll" "$out/program.o" -o "$out/program.flat.o"

if [ $runtime = c ]; then
  "$BIN/clang" --target="$gnu" -fuse-ld=lld -O2 -std=c11 -Wall -Wextra -Werror -I "$INCLUDE" \
    "$here/main.c" "$here/heap.c" "$here/stackwalk.c" \
    "$out/program.flat.o" "$CAPI" -o "$out/gc"
else
  # The host's rustup toolchain, or Debian's rustc with the target's
  # standard library (emitter/capi/setup-cross.sh), as build-lib.sh does;
  # PowerPC's capture trampoline needs RUSTC_BOOTSTRAP for pcmap_reader.
  PATH="$HOME/.cargo/bin:$PATH"
  if [ -z "$rust" ]; then
    rustc=(rustc)
  else
    rustc=(/usr/bin/rustc --target "$rust" --sysroot "${PCMAP_CROSS_SYSROOT:-/opt/pcmap-rust-cross}")
  fi
  bootstrap=()
  [ "$target" = ppc64le ] && bootstrap=(env RUSTC_BOOTSTRAP=pcmap_reader)
  common=(--edition 2021 -C opt-level=2 -D warnings)
  "${bootstrap[@]}" "${rustc[@]}" "${common[@]}" --crate-type rlib --crate-name pcmap_reader \
    --cfg 'feature="native"' --cfg 'feature="capture"' --cap-lints allow \
    "$repo/emitter/reader/src/lib.rs" -o "$out/libpcmap_reader.rlib"
  link=(-C linker="$BIN/clang" -C link-arg=--target="$gnu" -C link-arg=-fuse-ld=lld)
  "${rustc[@]}" "${common[@]}" "${link[@]}" --extern pcmap_reader="$out/libpcmap_reader.rlib" \
    -C link-arg="$out/program.flat.o" "$here/runtime.rs" -o "$out/gc"
fi
"${run[@]}" "$out/gc"
