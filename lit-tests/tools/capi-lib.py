# Checks one target's libpcmap (emitter/capi/build-lib.sh) and prints what
# it found, for FileCheck:
#   - libpcmap.a defines global symbols for exactly the functions pcmap.h
#     declares (pcmap_*, and the registry callbacks __pcmap_*), libpcmap.so
#     exports exactly those;
#   - what the archive needs from the C library;
#   - the code a program gains by linking every function of the C API:
#     Berkeley `size` text of a program that takes the address of each
#     function pcmap.h declares, minus that of the same program without
#     them; "under 128 KiB" or "OVER 128 KiB".
#
#   capi-lib.py BINDIR GNU-TRIPLE INCLUDE-DIR LIB-DIR WORK-DIR
import os
import re
import subprocess
import sys

bindir, gnu, include, libdir, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def symbols(*args):
    out = run(os.path.join(bindir, "llvm-nm"), "-j", *args)
    return sorted({s for s in out.split() if not s.endswith(":")})


header = open(os.path.join(include, "pcmap.h")).read()
functions = sorted(set(re.findall(r"\b((?:__)?pcmap_\w+)\(", header)))
archive = os.path.join(libdir, "libpcmap.a")
shared = os.path.join(libdir, "libpcmap.so")

defined = symbols("-g", "--defined-only", archive)
others = [s for s in defined if not s.startswith(("pcmap_", "__pcmap_"))]
print(f"archive: {len(defined)} global symbols, {len(others)} not (__)pcmap_*"
      + (f" ({' '.join(others[:5])} ...)" if others else ""))
print("archive: exactly the functions of pcmap.h" if defined == functions
      else f"archive: differs from pcmap.h's {len(functions)} functions")
dynamic = symbols("-D", "--defined-only", shared)
print(f"shared: {len(dynamic)} dynamic symbols, "
      + ("exactly the functions of pcmap.h" if dynamic == functions else "NOT pcmap.h's functions"))
needed = [s for s in symbols("-u", archive) if s != ".TOC."]
print(f"needs: {' '.join(needed)}")

# The program: main and, with USE_PCMAP, every function's address.
refs = ",\n  ".join(f"(void (*)(void)){f}" for f in functions)
source = os.path.join(work, "probe.c")
with open(source, "w") as f:
    f.write(f"""#include <stdio.h>
#include "pcmap.h"
#ifdef USE_PCMAP
static void (*const api[])(void) = {{
  {refs}
}};
#endif
int main(int argc, char **argv) {{
  (void)argv;
#ifdef USE_PCMAP
  printf("%p\\n", (void *)api[(unsigned)argc % (sizeof api / sizeof api[0])]);
#else
  printf("%d\\n", argc);
#endif
  return 0;
}}
""")


def text(name, *extra):
    exe = os.path.join(work, name)
    run(os.path.join(bindir, "clang"), f"--target={gnu}", "-fuse-ld=lld", "-O2",
        "-I", include, source, *extra, "-o", exe)
    return int(run(os.path.join(bindir, "llvm-size"), exe).splitlines()[1].split()[0])


base = text("without")
full = text("with", "-DUSE_PCMAP", archive)
gain = full - base
print(f"text: {base} bytes without the C API, {full} with all {len(functions)} functions: "
      f"+{gain} bytes, {'under' if gain < 128 * 1024 else 'OVER'} 128 KiB")
