// A tiny SanitizerBinaryMetadata runtime: the callbacks LLVM 19's module
// constructors call (version 2; `| 1<<16` when PCs are pointer-sized), and a
// dump of every atomic PC with its function. The tables are read through the
// pcmap C API (pcmap.h, libpcmap.a: docs/runtime.md), which also picks
// the PC width: 8 bytes on PowerPC64, where LLVM 16 and 19 pass version 2
// without the flag (docs/pctables.md, "Linked programs").
//
// Addresses are printed as link-time addresses (run-time address minus the
// program's load bias), so they can be looked up in `llvm-objdump -d` and
// `pcmap dump` of the linked program (scripts/check-atomic-pcs.py does).
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pcmap.h"

enum { VERSION_BASE = 2, MAX_FUNCS = 256, MAX_RANGES = 16 };

// Every covered function, sorted by PC once all tables are in: what a
// sanitizer consults on each access (pcmap_pctable_index_find, O(log n)).
static pcmap_pctable_entry funcs[MAX_FUNCS];
static size_t nfuncs;
static int funcs_sorted;

// The main program's load bias: 0 without PIE.
static int first_object_bias(struct dl_phdr_info *info, size_t size, void *bias) {
  (void)size;
  *(uintptr_t *)bias = info->dlpi_addr;
  return 1;
}

static uintptr_t load_bias(void) {
  static uintptr_t bias;
  static int known;
  if (!known) {
    dl_iterate_phdr(first_object_bias, &bias);
    known = 1;
  }
  return bias;
}

static int open_table(pcmap_pctable *t, const char *what, uint32_t kind, uint32_t version,
                      const char *start, const char *stop) {
  pcmap_status s;
  if ((version & 0xffff) != VERSION_BASE) {
    printf("%s: unexpected version %u\n", what, version);
    return 0;
  }
  printf("%s_add version=%u bytes=%ld\n", what, version, (long)(stop - start));
  s = pcmap_pctable_open_linked(t, kind, version, start, stop);
  if (s != PCMAP_OK)
    printf("%s: %s\n", what, pcmap_strerror(s));
  return s == PCMAP_OK;
}

void __sanitizer_metadata_covered_add(uint32_t version, const char *start, const char *stop) {
  pcmap_pctable t;
  pcmap_pctable_entry e;
  pcmap_status s;
  uint64_t cursor = 0;
  size_t n;
  if (!open_table(&t, "covered", PCMAP_PCTABLE_COVERED, version, start, stop))
    return;
  while ((s = pcmap_pctable_next(&t, &cursor, &e)) == PCMAP_OK) {
    printf("covered %#lx size=%lu features=%lu", (unsigned long)(e.pc - load_bias()),
           (unsigned long)e.size, (unsigned long)e.features);
    // UAR functions whose stack arguments a checker must keep (LLVM 19's
    // "has size" bit; LLVM 16's native entries carry it with the UAR bit).
    if (e.has_stack_args)
      printf(" stack_args=%lu", (unsigned long)e.stack_args);
    printf("\n");
  }
  if (s != PCMAP_NOT_FOUND)
    printf("covered: %s\n", pcmap_strerror(s));
  // Append this table's entries; sorted when first looked up.
  if (pcmap_pctable_index(&t, funcs + nfuncs, MAX_FUNCS - nfuncs, &n) == PCMAP_OK)
    nfuncs += n, funcs_sorted = 0;
  else
    printf("covered: more than %d functions\n", MAX_FUNCS);
}

// Constructors run in any order: keep the atomics tables and resolve them
// against the covered functions at exit.
static pcmap_pctable ranges[MAX_RANGES];
static int nranges;

void __sanitizer_metadata_atomics_add(uint32_t version, const char *start, const char *stop) {
  pcmap_pctable t;
  if (open_table(&t, "atomics", PCMAP_PCTABLE_ATOMICS, version, start, stop) &&
      nranges < MAX_RANGES)
    ranges[nranges++] = t;
}

static int by_pc(const void *a, const void *b) {
  uint64_t x = ((const pcmap_pctable_entry *)a)->pc, y = ((const pcmap_pctable_entry *)b)->pc;
  return (x > y) - (x < y);
}

__attribute__((destructor)) static void report(void) {
  if (!funcs_sorted) {
    // Each table's entries are sorted; several tables need a merge.
    qsort(funcs, nfuncs, sizeof funcs[0], by_pc);
    funcs_sorted = 1;
  }
  for (int r = 0; r < nranges; r++) {
    pcmap_pctable_entry e, f;
    pcmap_status s;
    uint64_t cursor = 0;
    while ((s = pcmap_pctable_next(&ranges[r], &cursor, &e)) == PCMAP_OK) {
      uintptr_t pc = e.pc - load_bias();
      if (pcmap_pctable_index_find(funcs, nfuncs, e.pc, &f) != PCMAP_OK)
        printf("atomic %#lx in no covered function\n", (unsigned long)pc);
      else
        printf("atomic %#lx in function %#lx+%#lx\n", (unsigned long)pc,
               (unsigned long)(f.pc - load_bias()), (unsigned long)(e.pc - f.pc));
    }
    if (s != PCMAP_NOT_FOUND)
      printf("atomics: %s\n", pcmap_strerror(s));
  }
}

void __sanitizer_metadata_covered_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}
void __sanitizer_metadata_atomics_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}
