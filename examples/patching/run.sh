#!/usr/bin/env bash
# Builds and runs the ahead-of-time patching example for one target:
# program.ll (patch points with a null target) -> llc-16 -> pcmap emit ->
# linked with main.c and libpcmap.a -> run (under qemu-user off the host).
# main.c patches every patch point at start-up from the flat table and
# checks the patched behaviour; exits non-zero unless it printed OK.
#
#   examples/patching/run.sh x86_64|aarch64|ppc64le [--no-patch] [--keep DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

target=${1:?usage: run.sh TARGET [--no-patch] [--keep DIR]}
shift
args=() keep=
while [ $# -gt 0 ]; do
  case $1 in
    --no-patch) args+=(--no-patch) ;;
    --keep) keep=$2; shift ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

case $target in
  x86_64)  gnu=x86_64-linux-gnu;      rust=;                              run=();                          pie=() ;;
  aarch64) gnu=aarch64-linux-gnu;     rust=aarch64-unknown-linux-gnu;     run=(qemu-aarch64 -L /usr/$gnu); pie=() ;;
  # As examples/gc: calls from C into the llc-16 object need a
  # position-dependent executable on PowerPC64 LE.
  ppc64le) gnu=powerpc64le-linux-gnu; rust=powerpc64le-unknown-linux-gnu; run=(qemu-ppc64le -L /usr/$gnu); pie=(-no-pie) ;;
  *) echo "run.sh: unknown target '$target' (x86_64, aarch64, ppc64le)" >&2; exit 2 ;;
esac

BIN=$(llvm-config-16 --bindir)
PCMAP=$repo/target/release/pcmap
INCLUDE=$repo/target/include
CAPI=$repo/$("$repo/emitter/capi/build-lib.sh" "${rust:-host}")
for f in "$PCMAP" "$INCLUDE/pcmap.h" "$CAPI"; do
  [ -e "$f" ] || { echo "run.sh: $f missing: cargo build --release" >&2; exit 2; }
done

if [ -n "$keep" ]; then out=$keep; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi

cp "$here/program.ll" "$out/program.ll"
"$BIN/llc" -O2 -mtriple="$gnu" -relocation-model=pic -filetype=obj "$out/program.ll" -o "$out/program.o"
"$PCMAP" emit --ir "$out/program.ll" "$out/program.o" -o "$out/program.flat.o"
"$BIN/clang" --target="$gnu" -fuse-ld=lld "${pie[@]}" -O2 -std=c11 -Wall -Wextra -Werror -I "$INCLUDE" \
  "$here/main.c" "$out/program.flat.o" "$CAPI" -o "$out/patching"
"${run[@]}" "$out/patching" "${args[@]}"
