# Sourced by the examples' run.sh scripts (with $repo and $target set, and
# $keep empty or a directory): what building and running for one target
# takes. Sets gnu (the GNU triple), rust (the Rust triple, empty for the
# host), run (the command prefix that runs a program: qemu-user off the
# host), pie (link flags), BIN (the LLVM tools: release $PCMAP_LLVM, 16
# by default), PLUGIN (that release's pass plugin), PCMAP, INCLUDE (pcmap.h),
# CAPI (libpcmap.a for the target) and out (the build directory: $keep, or
# a temporary one removed on exit).
case $target in
  x86_64)  gnu=x86_64-linux-gnu;      rust=;                              run=();                          pie=() ;;
  aarch64) gnu=aarch64-linux-gnu;     rust=aarch64-unknown-linux-gnu;     run=(qemu-aarch64 -L /usr/$gnu); pie=() ;;
  # A PIE links, but its calls from C into an llc-16 object go through PLT
  # entries without a symbol and fail at run time ("undefined symbol: ");
  # a position-dependent executable runs. See README.md.
  ppc64le) gnu=powerpc64le-linux-gnu; rust=powerpc64le-unknown-linux-gnu; run=(qemu-ppc64le -L /usr/$gnu); pie=(-no-pie) ;;
  *) echo "run.sh: unknown target '$target' (x86_64, aarch64, ppc64le)" >&2; exit 2 ;;
esac

# The LLVM release: 16 (the default) or 19 (PCMAP_LLVM=19, scripts/demo --llvm 19).
llvm=${PCMAP_LLVM:-16}
BIN=$(llvm-config-"$llvm" --bindir)
PLUGIN=$repo/target/release/libpcmap_plugin-llvm$llvm.so
PCMAP=$repo/target/release/pcmap
INCLUDE=$repo/target/include
CAPI=$repo/$("$repo/emitter/capi/build-lib.sh" "${rust:-host}")
for f in "$PCMAP" "$PLUGIN" "$INCLUDE/pcmap.h" "$CAPI"; do
  [ -e "$f" ] || { echo "run.sh: $f missing: cargo build --release" >&2; exit 2; }
done

if [ -n "$keep" ]; then out=$keep; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
