// LLVM 16 and 19 write PC sections only into ELF objects: their
// AsmPrinter::emitPCSections crashes on Mach-O, COFF and Wasm (LLVM's own
// sanmd-module does the same) and on XCOFF (LLVM 16 aborts). The plugin refuses such a
// module with one error naming the target: clang exits 1 without crashing and
// leaves no object; opt leaves no output either.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: not %clang --target=x86_64-apple-macos -O2 -fpass-plugin=%plugin -c %s -o %t/macho.o 2>&1 | %FileCheck %s --check-prefix=MACHO --implicit-check-not=PLEASE --implicit-check-not='Stack dump' -DLLVM=%llvm-major
// MACHO: error: pcmap: {{.*}}non-elf.c: cannot instrument for target 'x86_64-apple-macosx{{[0-9.]*}}': LLVM [[LLVM]] writes PC sections only into ELF objects, and this target's are Mach-O
// MACHO-NEXT: 1 error generated.
// RUN: not %clang --target=arm64-apple-ios -O0 -fpass-plugin=%plugin -c %s -o %t/ios.o 2>&1 | %FileCheck %s --check-prefix=IOS --implicit-check-not=PLEASE
// IOS: error: pcmap: {{.*}}: cannot instrument for target 'arm64-apple-ios{{[0-9.]*}}': {{.*}} are Mach-O
// RUN: not %clang --target=x86_64-pc-windows-msvc -O2 -fpass-plugin=%plugin -c %s -o %t/coff.o 2>&1 | %FileCheck %s --check-prefix=COFF --implicit-check-not=PLEASE
// COFF: error: pcmap: {{.*}}: cannot instrument for target 'x86_64-pc-windows-msvc{{[0-9.]*}}': {{.*}} are COFF
// RUN: not %clang --target=x86_64-w64-windows-gnu -O2 -fpass-plugin=%plugin -c %s -o %t/mingw.o 2>&1 | %FileCheck %s --check-prefix=MINGW --implicit-check-not=PLEASE
// MINGW: error: pcmap: {{.*}}: cannot instrument for target 'x86_64-w64-windows-gnu': {{.*}} are COFF
// RUN: not %clang --target=wasm32-unknown-unknown -O2 -fpass-plugin=%plugin -c %s -o %t/wasm.o 2>&1 | %FileCheck %s --check-prefix=WASM --implicit-check-not=PLEASE
// WASM: error: pcmap: {{.*}}: cannot instrument for target 'wasm32-unknown-unknown': {{.*}} are Wasm
// RUN: not %clang --target=powerpc64-ibm-aix -O2 -fpass-plugin=%plugin -c %s -o %t/xcoff.o 2>&1 | %FileCheck %s --check-prefix=XCOFF --implicit-check-not='fatal error'
// XCOFF: error: pcmap: {{.*}}: cannot instrument for target 'powerpc64-ibm-aix': {{.*}} are XCOFF
// Also when only IR is written (any later code generation would crash).
// RUN: not %clang --target=x86_64-apple-macos -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o %t/macho.ll 2>&1 | %FileCheck %s --check-prefix=MACHO -DLLVM=%llvm-major
// RUN: not ls %t/macho.o %t/ios.o %t/coff.o %t/mingw.o %t/wasm.o %t/xcoff.o %t/macho.ll
//
// opt: the same error, exit 1, no output file.
// RUN: %clang --target=x86_64-unknown-linux-gnu -O2 -S -emit-llvm %s -o %t/elf.ll
// RUN: not %opt -mtriple=x86_64-apple-macos -load-pass-plugin=%plugin -passes='pcmap<covered;atomics>' %t/elf.ll -o %t/opt.bc 2>&1 | %FileCheck %s --check-prefix=OPT --implicit-check-not=PLEASE -DLLVM=%llvm-major
// OPT: error: pcmap: {{.*}}non-elf.c: cannot instrument for target 'x86_64-apple-macos': LLVM [[LLVM]] writes PC sections only into ELF objects, and this target's are Mach-O
// RUN: not ls %t/opt.bc
//
// ELF targets, including an explicit object format, are instrumented.
// RUN: %clang --target=x86_64-pc-linux-elf -O2 -fpass-plugin=%plugin -c %s -o %t/elf.o
// RUN: %readobj --sections %t/elf.o | %FileCheck %s --check-prefix=ELF
// ELF: Name: sanmd_atomics2
// RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics>' -S %t/elf.ll | %FileCheck %s --check-prefix=ELF-IR
// ELF-IR: !pcsections
//
// REQUIRES: target-x86_64

int counter;
int bump(void) { return __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST); }
