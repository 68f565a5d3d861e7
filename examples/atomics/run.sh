#!/usr/bin/env bash
# The atomics example end to end on one target: compile counter.c with
# clang-16 (clang-19 with PCMAP_LLVM=19) and that release's pcmap plugin,
# finish the PC tables with `pcmap emit` (LLVM 19 writes them final), link
# with runtime.c (the SanitizerBinaryMetadata callbacks, reading the tables
# through libpcmap.a: emitter/capi/build-lib.sh), run (qemu-user off
# the host), then check what the running program reported:
#   - `pcmap verify --against`: every PC lies in a function, counts vs the IR;
#   - scripts/check-atomic-pcs.py: every atomic PC the runtime printed is an
#     atomic instruction in `llvm-objdump -d` of the program, and (x86_64,
#     AArch64) no tagged IR atomic lost its PC.
#
#   examples/atomics/run.sh x86_64|aarch64|ppc64le [OUTDIR]
#
# AArch64 is built with -mno-outline-atomics: clang's default outlines the
# atomicrmw of record() into a call to __aarch64_ldadd8_relax, and LLVM 16
# drops !pcsections on calls, so its PC would be lost (see docs/pctables.md).
# On PowerPC LLVM 16's instruction selection drops the atomicrmw's PC (it
# warns "loosing !pcsections metadata"), and so does LLVM 19's (silently;
# it tags the barriers around the atomic loads and stores instead): 3 of 4
# IR atomics keep theirs, and the check allows exactly that loss.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
llvm=${PCMAP_LLVM:-16}
BIN=$(llvm-config-"$llvm" --bindir)
PLUGIN=${PCMAP_BUILD_DIR:-$repo/target/release}/libpcmap_plugin-llvm$llvm.so
PCMAP=${PCMAP_BUILD_DIR:-$repo/target/release}/pcmap

name=${1:?usage: run.sh x86_64|aarch64|ppc64le [OUTDIR]}
cflags=(-O2)
no_loss=(--no-loss)
case $name in
  x86_64)  gnu=x86_64-linux-gnu;      rust=;                              run=() ;;
  aarch64) gnu=aarch64-linux-gnu;     rust=aarch64-unknown-linux-gnu;     run=(qemu-aarch64 -L /usr/$gnu); cflags+=(-mno-outline-atomics) ;;
  ppc64le) gnu=powerpc64le-linux-gnu; rust=powerpc64le-unknown-linux-gnu; run=(qemu-ppc64le -L /usr/$gnu); no_loss=() ;;
  *) echo "run.sh: unknown target '$name' (x86_64, aarch64, ppc64le)" >&2; exit 2 ;;
esac
INCLUDE=$repo/target/include
CAPI=$repo/$("$repo/emitter/capi/build-lib.sh" "${rust:-host}")
for f in "$PCMAP" "$PLUGIN" "$INCLUDE/pcmap.h" "$CAPI"; do
  [ -e "$f" ] || { echo "run.sh: $f missing: cargo build --release" >&2; exit 2; }
done
if [ -n "${2:-}" ]; then
  out=$2; mkdir -p "$out"
else
  out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fi
cc=("$BIN/clang" --target="$gnu" "${cflags[@]}")

step() { echo "\$ $*"; }
step "PCMAP_STATS=1 clang-$llvm --target=$gnu ${cflags[*]} -fpass-plugin=$(basename "$PLUGIN") -c counter.c"
PCMAP_STATS=1 "${cc[@]}" -fpass-plugin="$PLUGIN" -c "$here/counter.c" -o "$out/counter.raw.o" 2>"$out/stats"
grep -v '^warning: loosing !pcsections' "$out/stats" | sed 's/^/  /' || true
lost=$(grep -c 'loosing !pcsections' "$out/stats" || true)
[ "$lost" -eq 0 ] || echo "  (LLVM $llvm's backend warned it dropped !pcsections on $lost instructions)"
step "pcmap emit counter.raw.o -o counter.o"
"$PCMAP" emit "$out/counter.raw.o" -o "$out/counter.o"
step "clang-$llvm --target=$gnu -fuse-ld=lld counter.o runtime.o libpcmap.a -o counter"
"${cc[@]}" -std=c11 -Wall -Wextra -Werror -I "$INCLUDE" -c "$here/runtime.c" -o "$out/runtime.o"
"$BIN/clang" --target="$gnu" -fuse-ld=lld "$out/counter.o" "$out/runtime.o" "$CAPI" -o "$out/counter" -lpthread
step "${run[*]:+${run[*]} }./counter"
"${run[@]}" "$out/counter" >"$out/run.log"
sed 's/^/  /' "$out/run.log"
step "pcmap verify counter --against stats"
"$PCMAP" verify "$out/counter" --against "$out/stats" | sed 's/^/  /'
step "llvm-objdump-$llvm -d counter | check-atomic-pcs.py"
"$BIN/llvm-objdump" -d "$out/counter" >"$out/counter.dis"
python3 "$repo/scripts/check-atomic-pcs.py" "$out/counter.dis" "$out/run.log" \
  --ir-stats "$out/stats" "${no_loss[@]}" | sed 's/^/  /'
