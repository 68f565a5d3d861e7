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

# shellcheck source=../target.sh
source "$repo/examples/target.sh"

cp "$here/program.ll" "$out/program.ll"
"$BIN/llc" -O2 -mtriple="$gnu" -relocation-model=pic -filetype=obj "$out/program.ll" -o "$out/program.o"
"$PCMAP" emit --llvm "$llvm" --ir "$out/program.ll" "$out/program.o" -o "$out/program.flat.o"
"$BIN/clang" --target="$gnu" -fuse-ld=lld -O2 -std=c11 -Wall -Wextra -Werror -I "$INCLUDE" \
  "$here/main.c" "$out/program.flat.o" "$CAPI" -o "$out/patching"
"${run[@]}" "$out/patching" "${args[@]}"
