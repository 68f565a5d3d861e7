#!/usr/bin/env bash
# Makes libpcmap buildable for AArch64 and PowerPC64 LE, so that C
# runtimes for those targets (examples/gc) can link it. rustup's toolchain
# here has only the host's standard library, and no other may be downloaded;
# Debian ships Rust standard libraries for every architecture. This installs
# Debian's rustc-web and unpacks its arm64 and ppc64el standard libraries
# (same version) into a private sysroot; build-lib.sh then compiles with it.
# Debian has no big-endian PowerPC64 (ELFv1) Rust standard library in its
# main archive: for powerpc64-unknown-linux-gnu this builds `core` from the
# same version's source (rust-web-src) with that rustc, and an empty
# `compiler_builtins` (memcpy and the like come from the C library the
# program links).
# Idempotent: a second run does nothing.
#
#   emitter/capi/setup-cross.sh
set -euo pipefail

SYSROOT=${PCMAP_CROSS_SYSROOT:-/opt/pcmap-rust-cross}
TRIPLES=(aarch64-unknown-linux-gnu powerpc64le-unknown-linux-gnu)
DEB_ARCHS=(arm64 ppc64el)

have_all() {
  [ -x /usr/bin/rustc ] || return 1
  local want; want=$(/usr/bin/rustc --version)
  for t in "${TRIPLES[@]}"; do
    [ -f "$SYSROOT/$t.version" ] && [ "$(cat "$SYSROOT/$t.version")" = "$want" ] || return 1
  done
}
# core for big-endian PowerPC64 from rust-web-src, once the host's rustc-web
# is there.
build_ppc64_core() {
  local t=powerpc64-unknown-linux-gnu want
  want=$(/usr/bin/rustc --version)
  [ -f "$SYSROOT/$t.version" ] && [ "$(cat "$SYSROOT/$t.version")" = "$want" ] && return 0
  local version
  version=$(dpkg-query -W -f='${Version}' rustc-web)
  if ! dpkg-query -W -f='${Status}' rust-web-src 2>/dev/null | grep -q "install ok installed" ||
     [ "$(dpkg-query -W -f='${Version}' rust-web-src)" != "$version" ]; then
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
      --allow-downgrades "rust-web-src=$version" >/dev/null
  fi
  local src
  src=$(dpkg -L rust-web-src | awk '/^\/usr\/src\/rustc-[^\/]*\/library\/core\/src\/lib\.rs$/ && !f { print; f = 1 }')
  local lib=$SYSROOT/lib/rustlib/$t/lib work
  work=$(mktemp -d)
  printf '#![feature(compiler_builtins)]\n#![compiler_builtins]\n#![no_std]\n' >"$work/cb.rs"
  local common=(--edition 2021 -C opt-level=2 -C panic=abort --target "$t" --cap-lints allow)
  # The standard library's own crates use unstable features.
  RUSTC_BOOTSTRAP=1 /usr/bin/rustc "${common[@]}" --crate-type rlib --crate-name core "$src" -o "$work/libcore.rlib"
  RUSTC_BOOTSTRAP=1 /usr/bin/rustc "${common[@]}" --sysroot "$work/none" --extern core="$work/libcore.rlib" \
    --crate-type rlib --crate-name compiler_builtins "$work/cb.rs" -o "$work/libcompiler_builtins.rlib"
  "${sudo[@]}" mkdir -p "$lib"
  "${sudo[@]}" cp "$work/libcore.rlib" "$work/libcompiler_builtins.rlib" "$lib/"
  rm -rf "$work"
  echo "$want" | "${sudo[@]}" tee "$SYSROOT/$t.version" >/dev/null
  echo "setup-cross: $want core for $t in $SYSROOT"
}

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
if have_all; then
  build_ppc64_core
  exit 0
fi

added=()
cleanup() {
  for a in "${added[@]}"; do "${sudo[@]}" dpkg --remove-architecture "$a" || true; done
  [ ${#added[@]} -eq 0 ] || "${sudo[@]}" apt-get update -qq || true
}
trap cleanup EXIT
# apt-get download of another architecture's package needs that architecture
# known to dpkg; it is removed again at the end (nothing of it is installed).
for a in "${DEB_ARCHS[@]}"; do
  if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
    "${sudo[@]}" dpkg --add-architecture "$a"
    added+=("$a")
  fi
done
# A mirror in sync for one architecture may lag for another: tolerate it and
# pick a version every architecture has.
"${sudo[@]}" apt-get update -qq || true
versions() { apt-cache madison "libstd-rust-web-dev:$1" | awk '{print $3}'; }
common=$(versions amd64)
for a in "${DEB_ARCHS[@]}"; do common=$(grep -Fxf <(versions "$a") <<<"$common" || true); done
version=$(sort -V <<<"$common" | tail -1)
[ -n "$version" ] || { echo "setup-cross: no libstd-rust-web-dev version for amd64 ${DEB_ARCHS[*]}" >&2; exit 1; }
std_pkg=$(apt-cache show "libstd-rust-web-dev=$version" | awk '/^Depends:/ {print $2; exit}')

DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends --allow-downgrades \
  "rustc-web=$version" "libstd-rust-web-dev=$version" "$std_pkg=$version" >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"; cleanup' EXIT
(cd "$work" && for a in "${DEB_ARCHS[@]}"; do apt-get download -q "libstd-rust-web-dev:$a=$version" 2>/dev/null; done)
"${sudo[@]}" mkdir -p "$SYSROOT/lib/rustlib"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
rust_version=$(/usr/bin/rustc --version)
for t in "${TRIPLES[@]}"; do
  "${sudo[@]}" rm -rf "$SYSROOT/lib/rustlib/$t"
  "${sudo[@]}" cp -r "$work/root/usr/lib/rustlib/$t" "$SYSROOT/lib/rustlib/"
  echo "$rust_version" | "${sudo[@]}" tee "$SYSROOT/$t.version" >/dev/null
done
echo "setup-cross: $rust_version standard libraries for ${TRIPLES[*]} in $SYSROOT"
build_ppc64_core
