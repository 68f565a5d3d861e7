// Under clang the pass reads PCMAP_*: features, encoding, ignorelist, stats.
//
// Default: all features, compact encoding (requested as the release's
// plugin requests it: %compact-covered, %compact-mask).
// RUN: %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=COMPACT -DCOVERED=%compact-covered -DMASK=%compact-mask
// COMPACT: define {{.*}}i32 @bump() {{.*}}!pcsections ![[FN:[0-9]+]]
// COMPACT: atomicrmw add ptr @counter, i32 1 seq_cst, align 4, !pcsections ![[AT:[0-9]+]]
// COMPACT: define {{.*}}i32 @skipped_fn() {{.*}}!pcsections
// COMPACT: ![[FN]] = !{!"[[COVERED]]", ![[M:[0-9]+]]}
// COMPACT: ![[M]] = !{[[MASK]] 1}
// COMPACT: ![[AT]] = !{!"sanmd_atomics2!C"}
//
// Native: LLVM 16's sections; in LLVM 19, LLVM 19's (its native encoding
// is the compact one).
// RUN: env PCMAP_ENCODING=native PCMAP_FEATURES=atomics %clang --target=%triple-x86_64 -O1 -fpass-plugin=%plugin -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=NATIVE%llvm-major
// NATIVE16: atomicrmw add ptr @counter, i32 1 seq_cst, align 4, !pcsections ![[AT:[0-9]+]]
// NATIVE16: ![[AT]] = !{!"sanmd_atomics"}
// NATIVE16-NOT: sanmd_covered2
// NATIVE19: atomicrmw add ptr @counter, i32 1 seq_cst, align 4, !pcsections ![[AT:[0-9]+]]
// NATIVE19: ![[AT]] = !{!"sanmd_atomics2!C"}
//
// Ignorelist: fun: globs drop functions, src: globs whole files.
// RUN: printf '# ours\nfun:skipped_*\n' > %t.fun
// RUN: env PCMAP_IGNORELIST=%t.fun %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=FUN
// FUN: define {{.*}}i32 @bump() {{.*}}!pcsections
// FUN: define {{.*}}i32 @skipped_fn() {{[^!]*}}{
// FUN-NEXT: load atomic i32, ptr @counter seq_cst, align 4{{$}}
// RUN: printf '[metadata]\nsrc:*clang-env.c\n' > %t.src
// RUN: env PCMAP_IGNORELIST=%t.src PCMAP_STATS=1 %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o %t.src.ll 2> %t.src.stats
// RUN: %FileCheck %s --check-prefix=SRC --input-file=%t.src.ll
// SRC-NOT: pcsections
// RUN: %FileCheck %s --check-prefix=SRCSTATS --input-file=%t.src.stats
// SRCSTATS: pcmap-stats v1 encoding=compact covered=0 atomics=0 uar=0 recorded=0 fences=0 module={{.*}}clang-env.c
//
// Several ignorelists combine, as clang-19 combines several
// -fexperimental-sanitize-metadata-ignorelist= (a second list used to
// replace the first): the same functions lose their metadata.
// RUN: printf 'fun:escapes\n' > %t.second
// RUN: env PCMAP_IGNORELIST=%t.fun,%t.second %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - | grep '^define' | sed 's/ .*@\([a-z_]*\)(.*pcsections.*/ \1 instrumented/; s/ .*@\([a-z_]*\)(.*/ \1 plain/' | grep -v sanitizer_metadata > %t.two
// RUN: %FileCheck %s --check-prefix=TWO --input-file=%t.two
// TWO: define bump instrumented
// TWO-NEXT: define skipped_fn plain
// TWO-NEXT: define escapes plain
// RUN: %clang19 --target=%triple-x86_64 -O2 -fexperimental-sanitize-metadata=all -fexperimental-sanitize-metadata-ignorelist=%t.fun -fexperimental-sanitize-metadata-ignorelist=%t.second -S -emit-llvm %s -o - | grep '^define' | sed 's/ .*@\([a-z_]*\)(.*pcsections.*/ \1 instrumented/; s/ .*@\([a-z_]*\)(.*/ \1 plain/' | grep -v sanitizer_metadata | diff %t.two -
// RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<all;ignorelist=%t.fun;ignorelist=%t.second>' -S %S/Inputs/parity.ll -o /dev/null
//
// Stats: one machine-readable line per module, at every -O level.
// RUN: env PCMAP_STATS=1 %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=STATS
// STATS: pcmap-stats v1 encoding=compact covered=3 atomics=2 uar=1 recorded=0 fences=0 module={{.*}}clang-env.c
// RUN: env PCMAP_STATS=1 PCMAP_ENCODING=native %clang --target=%triple-x86_64 -O0 -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=STATS0 -DNATIVE=%if plugin-llvm16 %{native%} %else %{compact%}
// STATS0: pcmap-stats v1 encoding=[[NATIVE]] covered=3 atomics=2 uar=1 recorded=0 fences=0 module={{.*}}clang-env.c
// RUN: env PCMAP_STATS=0 %clang --target=%triple-x86_64 -O2 -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | %count 0

#include <stdatomic.h>

_Atomic int counter;
void consume(int *);

int bump(void) { return atomic_fetch_add(&counter, 1); }
int skipped_fn(void) { return atomic_load(&counter); }
int escapes(void) {
  int local = 0;
  consume(&local);
  return local;
}
