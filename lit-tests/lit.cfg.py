# lit configuration for pcmap: drives LLVM 16 (pinned by version, never by PATH
# order), the pcmap plugin and the pcmap command for every supported target.
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
config.test_exec_root = os.path.join(config.test_source_root, "Output")

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

# LLVM 16, the toolchain under test.
tools16 = {
    "opt": "opt", "llc": "llc", "clang": "clang", "FileCheck": "FileCheck",
    "readobj": "llvm-readobj", "readelf": "llvm-readelf", "objdump": "llvm-objdump",
    "dwarfdump": "llvm-dwarfdump", "objcopy": "llvm-objcopy", "nm": "llvm-nm",
    "lld": "ld.lld", "llvm-mc": "llvm-mc", "not": "not", "count": "count",
}
# Longest names first, so that %opt19 is not read as %opt followed by "19".
subs = []
if bin19:
    for key in ("opt", "llc", "clang", "readobj", "objdump"):
        subs.append((f"%{key}19", os.path.join(bin19, tools16[key])))
    config.available_features.add("llvm19")
for key, tool in sorted(tools16.items(), key=lambda kv: -len(kv[0])):
    path = os.path.join(bin16, tool)
    if not os.path.exists(path):
        lit_config.fatal(f"LLVM 16 tool missing: {path}")
    subs.append((f"%{key}", path))

plugin = os.path.join(build_dir, "libpcmap_plugin.so")
pcmap = os.path.join(build_dir, "pcmap")
# examples/jit: LLVM 16's ORC JIT on the host (x86_64).
pcmap_jit = os.path.join(build_dir, "pcmap-jit")
for path in (plugin, pcmap, pcmap_jit):
    if not os.path.exists(path):
        lit_config.fatal(f"{path} not built: run scripts/setup")
subs.append(("%plugin", plugin))
subs.append(("%pcmap-jit", pcmap_jit))
subs.append(("%pcmap", pcmap))
subs.append(("%python", "python3"))
# tools/: every helper script of the suite, one substitution each. Those that
# read pcmap's output read `pcmap dump --json` (docs/dump-json.md), never the
# text dump.
tools = os.path.join(config.test_source_root, "tools")
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
     " " + " ".join([os.path.join(bin16, "opt"), os.path.join(bin16, "llc"), pcmap, plugin,
                     os.path.join(bin16, "llvm-readelf"), os.path.join(bin16, "llvm-objcopy")])),
    ("capi-lib", "capi-lib.py", ""),  # libpcmap's text and symbols
    ("exit-status", "exit-status.py", ""),  # prints a command's exit status
    ("corrupt-cfa", "corrupt-cfa.py", ""),  # one flat frame state's CFA moved
]:
    subs.append((f"%{name}", f"python3 {os.path.join(tools, script)}{extra}"))
# Every object `pcmap emit` writes goes through this: llvm-readobj --all
# without a warning, the gABI rules readobj does not check, ld.lld -r and the
# target's GNU ld -r (and -shared where the object allows), target taken from
# the ELF header. See tools/check-object.py.
subs.append(("%check-object", f"python3 {os.path.join(tools, 'check-object.py')} --llvm-bindir {bin16}"))
# Issue 14's oracle corpus: LLVM's own stack map tests checked against
# llvm-readobj, llvm-objdump and the IR (lit-tests/tools/check_stackmaps.py).
if bin19:
    subs.append(("%check-stackmaps",
                 f"python3 {os.path.join(tools, 'check_stackmaps.py')} --bin16 {bin16} "
                 f"--bin19 {bin19} --pcmap {pcmap} --plugin {plugin}"))

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
targets_built = subprocess.check_output([os.path.join(bin16, "llc"), "--version"], text=True)
LLC_TARGET = {"x86_64": "x86-64", "aarch64": "aarch64", "ppc64le": "ppc64le", "ppc64": "ppc64"}
for name, triple, gnu, runner in TARGETS:
    # Every target is part of the contract: a missing one is a setup error, not
    # a reason to skip tests silently.
    if f" {LLC_TARGET[name]} " not in targets_built:
        lit_config.fatal(f"llc-16 lacks target {LLC_TARGET[name]}")
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
    clang = os.path.join(bin16, "clang")
    fuse = "" if name == "ppc64" else " -fuse-ld=lld"
    subs.append((f"%cc-{name}", f"{clang} --target={gnu}{fuse}"))
    subs.append((f"%gnu-ld-cc-{name}", f"{clang} --target={gnu} -fuse-ld=bfd"))
    # The same for C++ (clang++ links the target's libstdc++).
    clangxx = os.path.join(bin16, "clang++")
    subs.append((f"%cxx-{name}", f"{clangxx} --target={gnu}{fuse}"))
    subs.append((f"%gnu-ld-cxx-{name}", f"{clangxx} --target={gnu} -fuse-ld=bfd"))
    subs.append((f"%run-{name}", runner if runner else "env"))

config.substitutions.extend(subs)

# Keep the environment small and deterministic, but let golden regeneration and
# the plugin's own variables through.
for var in ("PCMAP_UPDATE_GOLDEN", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
