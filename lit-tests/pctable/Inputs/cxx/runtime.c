// The SanitizerBinaryMetadata callbacks for the C++ end-to-end test: each
// table the program's module constructor registers is opened through the
// pcmap C API and counted; at exit, every atomic PC is looked up among the
// covered functions, and so is main; and the program's own stack maps
// (stackmap.ll's sm_twice) are opened from __start_/__stop_pcmap_stackmaps.
// Prints counts for the test to compare with `pcmap dump` of the program.
#include <stdint.h>
#include <stdio.h>

#include "pcmap.h"

enum { MAX_FUNCS = 512, MAX_TABLES = 8 };

static pcmap_pctable_entry funcs[MAX_FUNCS];
static size_t nfuncs;
static pcmap_pctable atomics[MAX_TABLES];
static int natomics;

static int open_table(pcmap_pctable *t, const char *what, uint32_t kind, uint32_t version,
                      const char *start, const char *stop) {
  size_t n = 0;
  pcmap_status s = pcmap_pctable_open_linked(t, kind, version, start, stop);
  if (s == PCMAP_OK)
    s = pcmap_pctable_count(t, &n);
  printf("%s_add: version=%u bytes=%ld entries=%zu%s%s\n", what, version & 0xffff,
         (long)(stop - start), n, s == PCMAP_OK ? "" : " error: ",
         s == PCMAP_OK ? "" : pcmap_strerror(s));
  return s == PCMAP_OK;
}

void __sanitizer_metadata_covered_add(uint32_t version, const char *start, const char *stop) {
  pcmap_pctable t;
  size_t n;
  if (!open_table(&t, "covered", PCMAP_PCTABLE_COVERED, version, start, stop))
    return;
  // Sorted by PC per table; one table per program here (the constructor is
  // itself in a COMDAT group: one copy runs).
  if (pcmap_pctable_index(&t, funcs + nfuncs, MAX_FUNCS - nfuncs, &n) == PCMAP_OK)
    nfuncs += n;
  else
    printf("covered: more than %d functions\n", MAX_FUNCS);
}

void __sanitizer_metadata_atomics_add(uint32_t version, const char *start, const char *stop) {
  if (natomics < MAX_TABLES &&
      open_table(&atomics[natomics], "atomics", PCMAP_PCTABLE_ATOMICS, version, start, stop))
    natomics++;
}

void __sanitizer_metadata_covered_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}
void __sanitizer_metadata_atomics_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}

int main(void);
long sm_twice(long);
extern const unsigned char __start_pcmap_stackmaps[];
extern const unsigned char __stop_pcmap_stackmaps[];

static void report_stackmaps(void) {
  pcmap_stackmaps m;
  pcmap_function f;
  pcmap_record r;
  pcmap_status s = pcmap_open_linked(&m, __start_pcmap_stackmaps, __stop_pcmap_stackmaps);
  if (s == PCMAP_OK)
    s = pcmap_validate(&m);
  if (s != PCMAP_OK) {
    printf("stack maps: %s\n", pcmap_strerror(s));
    return;
  }
  printf("stack maps: %u tables, %u functions, %lu records\n", m.num_tables, m.num_functions,
         (unsigned long)m.num_records);
  for (uint32_t i = 0; i < m.num_functions; i++) {
    if (pcmap_function_at(&m, i, &f) != PCMAP_OK || f.address != (uintptr_t)&sm_twice)
      continue;
    for (uint32_t k = 0; k < f.num_records; k++)
      if (pcmap_record_at(&f, k, &r) == PCMAP_OK)
        printf("sm_twice: record ID %lu, %u locations\n", (unsigned long)r.id, r.num_locations);
  }
}

__attribute__((destructor)) static void report(void) {
  pcmap_pctable_entry e, f;
  size_t total = 0, inside = 0;
  for (int r = 0; r < natomics; r++) {
    uint64_t cursor = 0;
    pcmap_status s;
    while ((s = pcmap_pctable_next(&atomics[r], &cursor, &e)) == PCMAP_OK) {
      total++;
      if (pcmap_pctable_index_find(funcs, nfuncs, e.pc, &f) == PCMAP_OK)
        inside++;
    }
    if (s != PCMAP_NOT_FOUND)
      printf("atomics: %s\n", pcmap_strerror(s));
  }
  printf("atomic PCs in covered functions: %zu of %zu\n", inside, total);
  printf("main covered: %s\n",
         pcmap_pctable_index_find(funcs, nfuncs, (uintptr_t)&main, &f) == PCMAP_OK && f.pc == (uintptr_t)&main
             ? "yes, at its first instruction"
             : "no");
  report_stackmaps();
}
