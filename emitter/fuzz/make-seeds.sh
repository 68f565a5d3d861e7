#!/usr/bin/env bash
# Regenerates the emit target's seed corpus (seeds/objects/, committed):
# seeds/seed.ll through the plugin for x86_64, AArch64, PowerPC64 LE and BE
# (PC tables with .pcmap.layout, stack maps with .pcmap.sites, COMDAT
# groups); lit-tests/emit/Inputs/comdat.cc (C++: groups, exceptions); a
# one-record object without the plugin. Byte 9 of the ELF identification
# (padding) selects emit's options in the target: copies with --absolute
# and --keep-v3 set. *-ir.o: the object llc-16 builds from the IR without
# the plugin (no .pcmap.sites), then the mark and what emit --ir makes of
# that IR: the plugin's description of its sites (.pcmap.sites text).
#   emitter/fuzz/make-seeds.sh [BUILD_DIR]   (default target/release)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-$repo/target/release}
plugin=$build/libpcmap_plugin.so
out=$here/seeds/objects
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out" && mkdir -p "$out"
for t in x86_64 aarch64 powerpc64le powerpc64; do
  opt-16 -mtriple=$t-unknown-linux-gnu -load-pass-plugin="$plugin" \
    -passes='pcmap<covered;atomics;uar>' "$here/seeds/seed.ll" -o "$tmp/$t.bc"
  llc-16 -filetype=obj "$tmp/$t.bc" -o "$out/$t.o" 2>/dev/null
done
clang-16 --target=x86_64-unknown-linux-gnu -std=c++17 -O2 -fpass-plugin="$plugin" \
  -c "$repo/lit-tests/emit/Inputs/comdat.cc" -o "$out/comdat-x86_64.o"
llc-16 -mtriple=x86_64-unknown-linux-gnu -filetype=obj \
  "$repo/lit-tests/emit/Inputs/one-stackmap.ll" -o "$out/one-stackmap.o"
# The options byte.
for o in x86_64 aarch64; do
  cp "$out/$o.o" "$out/$o-absolute-keep-v3.o"
  printf '\x03' | dd of="$out/$o-absolute-keep-v3.o" bs=1 seek=9 conv=notrunc status=none
done
# Objects and the description of their IR, for --ir (the mark: the
# target's IR_MARK).
ir() {
  llc-16 -mtriple="$1" -filetype=obj "$2" -o "$tmp/ir.o"
  opt-16 -mtriple="$1" -load-pass-plugin="$plugin" -passes='pcmap<sites>' "$2" -o "$tmp/sites.bc"
  llc-16 -filetype=obj "$tmp/sites.bc" -o "$tmp/sites.o"
  llvm-objcopy-16 --dump-section .pcmap.sites="$tmp/sites" "$tmp/sites.o"
  { cat "$tmp/ir.o"; printf '\0; pcmap fuzz: --ir\n'; cat "$tmp/sites"; } > "$out/$3"
}
for t in x86_64 aarch64 powerpc64le powerpc64; do
  ir $t-unknown-linux-gnu "$here/seeds/seed.ll" $t-ir.o
done
ir x86_64-unknown-linux-gnu "$repo/lit-tests/emit/Inputs/one-stackmap.ll" one-stackmap-ir.o
ls -l "$out"
