#!/usr/bin/env bash
# Builds the C API library, libpcmap, for one target and prints the path of
# its static archive:
#
#   target/capi/TRIPLE/libpcmap.a     one relocatable object: pcmap-capi,
#                                     pcmap-reader and the parts of core they
#                                     use, linked from the pcmap_* functions
#                                     with --gc-sections; every other symbol
#                                     made local
#   target/capi/TRIPLE/libpcmap.so.0  the same as a shared library (soname
#   target/capi/TRIPLE/libpcmap.so      libpcmap.so.0; the .so a link to it),
#                                     exporting pcmap_* only (libpcmap.map)
#
# Plain rustc, without the standard library (--cfg pcmap_no_std: core only,
# abort on panic), fat LTO, opt-level=s (with the walker and the registry,
# opt-level 3 gave +102,733 bytes of text on x86_64, over the 100 KB budget;
# the lookup speed figures come from the Rust-built crate in bench-runtime,
# not from this archive): a program gains tens of kilobytes of code, and
# needs nothing of libc but abort and the mem* functions. The host builds
# with the rustup toolchain's core; AArch64 and PowerPC64 LE with Debian's
# (emitter/capi/setup-cross.sh installs it). The header is the same for
# every target: target/include/pcmap.h (cargo build writes it).
# Rebuilds only when a source, this script or the version script changed.
#
# PowerPC's global_asm! (the capture trampoline,
# emitter/reader/src/walk/capture.rs) is behind the asm_experimental_arch
# feature, which RUSTC_BOOTSTRAP allows for the pcmap_reader crate alone;
# the assembly has no operands, so it is text for the assembler as a .S
# file would be. Big-endian PowerPC64 (ELFv1) links
# its shared library with GNU ld (lld does not take ELFv1), and its
# functions are descriptors in .opd (nm: D).
#
#   emitter/capi/build-lib.sh [host|x86_64-unknown-linux-gnu|aarch64-unknown-linux-gnu|powerpc64le-unknown-linux-gnu|powerpc64-unknown-linux-gnu]
set -euo pipefail
cd "$(dirname "$0")/../.."

PATH="$HOME/.cargo/bin:$PATH"
host=$(rustc -vV | sed -n 's/^host: //p')
triple=${1:-host}
[ "$triple" = host ] && triple=$host
if [ "$triple" = "$host" ]; then
  rustc=(rustc)
else
  SYSROOT=${PCMAP_CROSS_SYSROOT:-/opt/pcmap-rust-cross}
  [ -f "$SYSROOT/$triple.version" ] || { echo "build-lib: no Rust core for $triple: run emitter/capi/setup-cross.sh first" >&2; exit 1; }
  rustc=(/usr/bin/rustc --target "$triple" --sysroot "$SYSROOT")
fi
# The GNU triple of the target's binutils and C library.
gnu=${triple/-unknown-/-}
BIN=$(llvm-config-16 --bindir)

out=target/capi/$triple
lib=$out/libpcmap.a
map=emitter/capi/libpcmap.map
if [ -f "$lib" ] && [ -f "$out/libpcmap.so.0" ] &&
   [ -z "$(find emitter/reader/src emitter/capi/src "$0" "$map" -newer "$lib" | head -1)" ]; then
  echo "$lib"
  exit 0
fi

mkdir -p "$out"
work=$(mktemp -d "$out/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
common=(--edition 2021 -C opt-level=s -C panic=abort -C codegen-units=1 --cap-lints allow)
# The reader's features libpcmap uses (Cargo's, as rustc flags): the
# running program's own stack, the capture trampoline.
bootstrap=()
case $triple in powerpc64*) bootstrap=(env RUSTC_BOOTSTRAP=pcmap_reader) ;; esac
"${bootstrap[@]}" "${rustc[@]}" "${common[@]}" --crate-type rlib --crate-name pcmap_reader \
  --cfg 'feature="native"' --cfg 'feature="capture"' emitter/reader/src/lib.rs -o "$work/libpcmap_reader.rlib"
"${rustc[@]}" "${common[@]}" -C lto=fat --cfg pcmap_no_std --crate-type staticlib --crate-name pcmap_capi \
  emitter/capi/src/lib.rs --extern pcmap_reader="$work/libpcmap_reader.rlib" -o "$work/libpcmap_capi.a"

# The C API's functions (and the registry's callbacks, __pcmap_stackmaps_*)
# are the roots of the link; nothing else stays global.
# (GNU nm: llvm-nm-16 cannot read the prebuilt core's bitcode.)
roots=$("$gnu-nm" -g --defined-only "$work/libpcmap_capi.a" 2>/dev/null |
  awk '($2 == "T" || $2 == "D") && $3 ~ /^(__)?pcmap_/ {print $3}' | sort -u)
[ -n "$roots" ] || { echo "build-lib: no pcmap_* function in the $triple build" >&2; exit 1; }
undefined=()
for r in $roots; do undefined+=(-u "$r"); done
"$gnu-ld" -r --gc-sections "${undefined[@]}" --whole-archive "$work/libpcmap_capi.a" -o "$work/pcmap.o"
# Local: everything but pcmap_* and __pcmap_*. Dropped: debug info and the bitcode the
# prebuilt core carries (another LLVM's, which LLVM 16's tools cannot read).
"$BIN/llvm-objcopy" --wildcard --keep-global-symbol='pcmap_*' \
  --keep-global-symbol='__pcmap_*' --strip-debug \
  --remove-section=.llvmbc --remove-section=.llvmcmd "$work/pcmap.o" "$work/libpcmap.o"
"$BIN/llvm-ar" rcs "$work/libpcmap.a" "$work/libpcmap.o"
fuse=-fuse-ld=lld
[ "$triple" = powerpc64-unknown-linux-gnu ] && fuse=-fuse-ld=bfd
"$BIN/clang" --target="$gnu" "$fuse" -shared -o "$work/libpcmap.so.0" "$work/libpcmap.o" \
  -Wl,-soname,libpcmap.so.0 -Wl,--version-script="$map" -Wl,--no-undefined -Wl,-z,noexecstack

# Each file appears complete: renamed into place.
mv -f "$work/libpcmap.so.0" "$out/libpcmap.so.0"
ln -sfn libpcmap.so.0 "$out/libpcmap.so"
mv -f "$work/libpcmap.a" "$lib"
echo "$lib"
