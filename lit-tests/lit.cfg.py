# lit configuration for pcmap: drives one LLVM release (pinned by version,
# never by PATH order), its pcmap plugin and the pcmap command for every
# supported target.
#
# The release under test is the lit parameter `llvm` (`--param llvm=19`;
# default 16): %opt, %llc, %clang, %cc-NAME, … and %plugin are that
# release's, and the feature `plugin-llvmN` says which it is, so a test of
# one release's own behaviour says `REQUIRES: plugin-llvm16`. Each release
# writes its outputs under its own directory (Output, Output-llvm19), so both
# runs can share the tree. %opt19, %llc19, … are LLVM 19 whatever the release
# under test: the oracles.
import glob
import os
import shutil
import subprocess

import lit.formats
import lit.util

config.name = "pcmap"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".test"]
# tools/ holds the helper scripts RUN lines call (not tests).
config.excludes = ["Inputs", "golden", "tools"]
config.test_source_root = os.path.dirname(__file__)

# The release under test (see above).
try:
    llvm = int(lit_config.params.get("llvm", "16"))
except ValueError:
    lit_config.fatal(f"--param llvm={lit_config.params.get('llvm')}: expected a release number")
config.test_exec_root = os.path.join(config.test_source_root,
                                     "Output" if llvm == 16 else f"Output-llvm{llvm}")
# Another release's outputs are no tests (lit skips only directories named
# Output).
config.excludes += [d for d in os.listdir(config.test_source_root) if d.startswith("Output-")]

repo = os.path.dirname(config.test_source_root)
build_dir = os.environ.get("PCMAP_BUILD_DIR", os.path.join(repo, "target", "release"))


def llvm_bindir(version):
    tool = shutil.which(f"llvm-config-{version}")
    if not tool:
        return None
    return subprocess.check_output([tool, "--bindir"], text=True).strip()


bin16 = llvm_bindir(16)
if bin16 is None:
    lit_config.fatal("llvm-config-16 not found: run scripts/setup")
bin19 = llvm_bindir(19)
# The release under test.
binllvm = llvm_bindir(llvm)
if binllvm is None:
    lit_config.fatal(f"llvm-config-{llvm} not found: run scripts/setup")
config.available_features.add(f"plugin-llvm{llvm}")

# The toolchain under test.
tools = {
    "opt": "opt", "llc": "llc", "clang": "clang", "FileCheck": "FileCheck",
    "readobj": "llvm-readobj", "readelf": "llvm-readelf", "objdump": "llvm-objdump",
    "dwarfdump": "llvm-dwarfdump", "objcopy": "llvm-objcopy", "nm": "llvm-nm",
    "lld": "ld.lld", "llvm-mc": "llvm-mc", "not": "not", "count": "count",
}
# Longest names first, so that %opt19 is not read as %opt followed by "19".
subs = []
if bin19:
    for key in ("opt", "llc", "clang", "readobj", "objdump"):
        subs.append((f"%{key}19", os.path.join(bin19, tools[key])))
    config.available_features.add("llvm19")
# The release under test, for what a test says of it (%llvm-major) and
# for helpers that take a bin directory.
subs.append(("%llvm-bindir", binllvm))
subs.append(("%llvm-major", str(llvm)))
# The plugin's requests under the release under test (docs/plugin.md): in
# LLVM 16, compact covered entries are requested in `sanmd_covered` with an
# i32 mask (its backend then appends the stack-arguments size; emit renames
# the section), and `native` is LLVM 16's own pass; in LLVM 19 the requests
# are LLVM 19's own and `native` is the compact encoding too, so a test's
# native run meets its compact expectations (%native-checks).
subs.append(("%compact-covered", "sanmd_covered" if llvm == 16 else "sanmd_covered2!C"))
subs.append(("%compact-mask", "i32" if llvm == 16 else "i64"))
subs.append(("%native-checks", "NATIVE" if llvm == 16 else "COMPACT"))
for key, tool in sorted(tools.items(), key=lambda kv: -len(kv[0])):
    path = os.path.join(binllvm, tool)
    if not os.path.exists(path):
        lit_config.fatal(f"LLVM {llvm} tool missing: {path}")
    subs.append((f"%{key}", path))

# The plugin of the release under test (scripts/build-plugins); LLVM 16's
# is also the workspace's libpcmap_plugin.so.
plugin = os.path.join(build_dir, "libpcmap_plugin.so" if llvm == 16 else f"libpcmap_plugin-llvm{llvm}.so")
pcmap = os.path.join(build_dir, "pcmap")
# examples/jit: LLVM 16's ORC JIT on the host (x86_64).
pcmap_jit = os.path.join(build_dir, "pcmap-jit")
for path in (plugin, pcmap, pcmap_jit):
    if not os.path.exists(path):
        lit_config.fatal(f"{path} not built: run scripts/setup")
# Every release's plugin, whatever the release under test (the version
# guard's tests load each into the other's tools); %plugin19 first, since
# substitutions are patterns.
subs.append(("%plugin19", os.path.join(build_dir, "libpcmap_plugin-llvm19.so")))
subs.append(("%plugin16", os.path.join(build_dir, "libpcmap_plugin-llvm16.so")))
subs.append(("%plugin", plugin))
subs.append(("%pcmap-jit", pcmap_jit))
subs.append(("%pcmap", pcmap))
subs.append(("%python", "python3"))
# tools/: every helper script of the suite, one substitution each. Those that
# read pcmap's output read `pcmap dump --json` (docs/dump-json.md), never the
# text dump.
tools_dir = os.path.join(config.test_source_root, "tools")
for name, script, extra in [
    ("golden", "golden.py", ""),  # compare with / regenerate a golden file
    ("elfpatch", "elfpatch.py", ""),  # patch one ELF field of a copy
    ("pc-entries", "pc-entries.py", ""),  # one PC section's entries, sorted
    ("compare-llvm19", "compare-llvm19.py", ""),  # covered tables vs clang-19's
    ("attachments", "pcsections-attachments.py", ""),  # IR !pcsections listing
    ("functions", "plugin-functions.py", ""),  # per-function disassembly
    ("groups", "groups.py", ""),  # COMDAT groups before/after emit
    ("interrupt", "interrupt.py", ""),  # signals during emit
    ("check-cfi", "check-cfi.py", ""),  # frame states vs llvm-dwarfdump
    ("sites-vs-records", "sites-vs-records.py", ""),  # .pcmap.sites vs records
    ("both-paths", "both-paths.py",  # plugin-described vs --ir
     " " + " ".join([os.path.join(binllvm, "opt"), os.path.join(binllvm, "llc"), pcmap, plugin,
                     os.path.join(binllvm, "llvm-readelf"), os.path.join(binllvm, "llvm-objcopy")])),
    ("capi-lib", "capi-lib.py", ""),  # libpcmap's text and symbols
    ("exit-status", "exit-status.py", ""),  # prints a command's exit status
    ("corrupt-cfa", "corrupt-cfa.py", ""),  # one flat frame state's CFA moved
]:
    subs.append((f"%{name}", f"python3 {os.path.join(tools_dir, script)}{extra}"))
# Every object `pcmap emit` writes goes through this: llvm-readobj --all
# without a warning, the gABI rules readobj does not check, ld.lld -r and the
# target's GNU ld -r (and -shared where the object allows), target taken from
# the ELF header. See tools/check-object.py.
subs.append(("%check-object", f"python3 {os.path.join(tools_dir, 'check-object.py')} --llvm-bindir {binllvm}"))
# Issue 14's oracle corpus: LLVM's own stack map tests checked against
# llvm-readobj, llvm-objdump and the IR (lit-tests/tools/check_stackmaps.py).
if bin19:
    subs.append(("%check-stackmaps",
                 f"python3 {os.path.join(tools_dir, 'check_stackmaps.py')} --bin16 {bin16} "
                 f"--bin19 {bin19} --pcmap {pcmap} "
                 f"--plugin16 {os.path.join(build_dir, 'libpcmap_plugin.so')} "
                 f"--plugin19 {os.path.join(build_dir, 'libpcmap_plugin-llvm19.so')}"))

# Targets. For each: the LLVM triple, the GNU triple whose cross gcc provides
# libc and a linker, how to run a linked program, and the lit feature name.
TARGETS = [
    ("x86_64", "x86_64-unknown-linux-gnu", "x86_64-linux-gnu", ""),
    ("aarch64", "aarch64-unknown-linux-gnu", "aarch64-linux-gnu",
     "qemu-aarch64 -L /usr/aarch64-linux-gnu"),
    ("ppc64le", "powerpc64le-unknown-linux-gnu", "powerpc64le-linux-gnu",
     "qemu-ppc64le -L /usr/powerpc64le-linux-gnu"),
    ("ppc64", "powerpc64-unknown-linux-gnu", "powerpc64-linux-gnu",
     "qemu-ppc64 -L /usr/powerpc64-linux-gnu"),
]
targets_built = subprocess.check_output([os.path.join(binllvm, "llc"), "--version"], text=True)
LLC_TARGET = {"x86_64": "x86-64", "aarch64": "aarch64", "ppc64le": "ppc64le", "ppc64": "ppc64"}
for name, triple, gnu, runner in TARGETS:
    # Every target is part of the contract: a missing one is a setup error, not
    # a reason to skip tests silently.
    if f" {LLC_TARGET[name]} " not in targets_built:
        lit_config.fatal(f"llc-{llvm} lacks target {LLC_TARGET[name]}")
    config.available_features.add(f"target-{name}")
    subs.append((f"%triple-{name}", triple))
    # Linking and running need the target's C library and, off the host, qemu.
    gnu_libc = "/" if name == "x86_64" else f"/usr/{gnu}"
    runner_ok = (not runner) or shutil.which(runner.split()[0])
    if not (os.path.isdir(os.path.join(gnu_libc, "lib")) and runner_ok):
        lit_config.fatal(f"cannot link and run {name} programs: run scripts/setup")
    config.available_features.add(f"run-{name}")
    # C++ programs (x86_64, AArch64, PowerPC64 LE) also need the target's
    # libstdc++: the host's, or Debian's libstdc++-12-dev-*-cross.
    if name != "ppc64":
        gcc_dir = "/usr/lib/gcc" if name == "x86_64" else "/usr/lib/gcc-cross"
        if not glob.glob(os.path.join(gcc_dir, gnu, "*", "libstdc++.so")):
            lit_config.fatal(f"no libstdc++ for {name} in {gcc_dir}/{gnu}: run scripts/setup")
        config.available_features.add(f"cxx-{name}")
    # %cc-NAME links with lld; %gcc-ld-NAME with the target's GNU ld. ELFv1
    # (big-endian PowerPC) links with GNU ld only: lld rejects it.
    clang = os.path.join(binllvm, "clang")
    fuse = "" if name == "ppc64" else " -fuse-ld=lld"
    subs.append((f"%cc-{name}", f"{clang} --target={gnu}{fuse}"))
    subs.append((f"%gnu-ld-cc-{name}", f"{clang} --target={gnu} -fuse-ld=bfd"))
    # The same for C++ (clang++ links the target's libstdc++).
    clangxx = os.path.join(binllvm, "clang++")
    subs.append((f"%cxx-{name}", f"{clangxx} --target={gnu}{fuse}"))
    subs.append((f"%gnu-ld-cxx-{name}", f"{clangxx} --target={gnu} -fuse-ld=bfd"))
    subs.append((f"%run-{name}", runner if runner else "env"))

config.substitutions.extend(subs)

# The examples' scripts and the runtime tests' build scripts use the tools of
# release $PCMAP_LLVM (examples/target.sh).
config.environment["PCMAP_LLVM"] = str(llvm)

# pcmap cc loads the plugin of the compiler's release by itself
# (docs/build.md): no PCMAP_PLUGIN here.
if llvm != 16:
    # Golden files of another release's output: golden/llvmN/ (tools/golden.py).
    config.environment["PCMAP_GOLDEN_SUBDIR"] = f"llvm{llvm}"

# Keep the environment small and deterministic, but let golden regeneration and
# the plugin's own variables through.
for var in ("PCMAP_UPDATE_GOLDEN", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
