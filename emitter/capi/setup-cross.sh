#!/usr/bin/env bash
# Makes libpcmap buildable for AArch64 and PowerPC64 LE, so that C
# runtimes for those targets (examples/gc) can link it. rustup's toolchain
# here has only the host's standard library, and no other may be downloaded;
# Debian ships Rust standard libraries for every architecture. This installs
# Debian's rustc-web and unpacks its arm64 and ppc64el standard libraries
# (same version) into a private sysroot; build-lib.sh then compiles with it.
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
have_all && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
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
