#!/usr/bin/env bash
# Builds libpcmap_capi.a for a non-host target with the toolchain that
# setup-cross.sh installed, and prints its path. pcmap-capi and pcmap-reader
# need no other crate, so plain rustc does it, without the standard library
# (--cfg pcmap_no_std: only core, abort on panic). The header is the host
# build's (target/include/pcmap.h), the same for every target.
#
#   emitter/capi/build-cross.sh aarch64-unknown-linux-gnu|powerpc64le-unknown-linux-gnu
set -euo pipefail
cd "$(dirname "$0")/../.."

triple=${1:?usage: build-cross.sh RUST-TRIPLE}
SYSROOT=${PCMAP_CROSS_SYSROOT:-/opt/pcmap-rust-cross}
RUSTC=/usr/bin/rustc
[ -f "$SYSROOT/$triple.version" ] || { echo "build-cross: run emitter/capi/setup-cross.sh first" >&2; exit 1; }

out=target/capi-cross/$triple
mkdir -p "$out"
lib=$out/libpcmap_capi.a
if [ ! -f "$lib" ] || [ -n "$(find emitter/reader/src emitter/capi/src -name '*.rs' -newer "$lib" | head -1)" ]; then
  common=(--edition 2021 -C opt-level=2 -C panic=abort --target "$triple" --sysroot "$SYSROOT" --cap-lints allow)
  "$RUSTC" "${common[@]}" --crate-type rlib --crate-name pcmap_reader emitter/reader/src/lib.rs -o "$out/libpcmap_reader.rlib"
  "$RUSTC" "${common[@]}" --cfg pcmap_no_std --crate-type staticlib --crate-name pcmap_capi emitter/capi/src/lib.rs \
    --extern pcmap_reader="$out/libpcmap_reader.rlib" -o "$lib"
fi
echo "$lib"
