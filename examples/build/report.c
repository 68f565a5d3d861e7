// The runtime side of the example: SanitizerBinaryMetadata callbacks (what
// the plugin's module constructors call with each object's PC tables) and a
// check, through the pcmap C API, that the linked program's tables describe
// its own functions: bump() and main() covered at their exact addresses,
// every atomic PC inside a covered function, and (when probe.ll is linked)
// the stack map record of sm_probe() in pcmap_stackmaps.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "build.h"
#include "pcmap.h"

int main(void);

enum { MAX_FUNCS = 64, MAX_TABLES = 16 };

static pcmap_pctable_entry funcs[MAX_FUNCS];
static size_t nfuncs;
static pcmap_pctable atomics[MAX_TABLES];
static int natomics, ncovered, problems;

void __sanitizer_metadata_covered_add(uint32_t version, const char *start, const char *stop) {
  pcmap_pctable t;
  size_t n;
  pcmap_status s = pcmap_pctable_open_linked(&t, PCMAP_PCTABLE_COVERED, version, start, stop);
  if (s == PCMAP_OK)
    s = pcmap_pctable_index(&t, funcs + nfuncs, MAX_FUNCS - nfuncs, &n);
  if (s != PCMAP_OK) {
    printf("covered table: %s\n", pcmap_strerror(s));
    problems++;
    return;
  }
  nfuncs += n;
  ncovered++;
}

void __sanitizer_metadata_atomics_add(uint32_t version, const char *start, const char *stop) {
  pcmap_status s = natomics < MAX_TABLES ? pcmap_pctable_open_linked(&atomics[natomics],
                                                                    PCMAP_PCTABLE_ATOMICS,
                                                                    version, start, stop)
                                         : PCMAP_ERR_ARGUMENT;
  if (s != PCMAP_OK) {
    printf("atomics table: %s\n", pcmap_strerror(s));
    problems++;
    return;
  }
  natomics++;
}

void __sanitizer_metadata_covered_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}
void __sanitizer_metadata_atomics_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}

static int by_pc(const void *a, const void *b) {
  uint64_t x = ((const pcmap_pctable_entry *)a)->pc, y = ((const pcmap_pctable_entry *)b)->pc;
  return (x > y) - (x < y);
}

// Whether `fn` is a covered function, entry at its exact address.
static void expect_covered(const char *name, uint64_t fn) {
  pcmap_pctable_entry e;
  int ok = pcmap_pctable_index_find(funcs, nfuncs, fn, &e) == PCMAP_OK && e.pc == fn;
  printf("covered %s: %s\n", name, ok ? "yes" : "no");
  problems += !ok;
}

// Weak: the CMake build has no IR, so no probe and no stack map section.
extern int sm_probe(int) __attribute__((weak));
extern const uint8_t __start_pcmap_stackmaps[] __attribute__((weak));
extern const uint8_t __stop_pcmap_stackmaps[] __attribute__((weak));

static void check_stackmap(void) {
  pcmap_stackmaps m;
  pcmap_function f;
  pcmap_record r;
  if (!sm_probe) {
    printf("stack maps: none linked\n");
    return;
  }
  pcmap_status s = pcmap_open_linked(&m, __start_pcmap_stackmaps, __stop_pcmap_stackmaps);
  if (s == PCMAP_OK)
    s = pcmap_function_at(&m, 0, &f);
  if (s == PCMAP_OK)
    s = pcmap_record_at(&f, 0, &r);
  if (s != PCMAP_OK) {
    printf("stack maps: %s\n", pcmap_strerror(s));
    problems++;
    return;
  }
  int ok = m.num_functions == 1 && f.address == (uint64_t)(uintptr_t)sm_probe && r.id == 42 &&
           r.kind == PCMAP_KIND_STACKMAP && sm_probe(7) == 7;
  printf("stack maps: %u function, record ID %lu, kind %s, at sm_probe: %s\n", m.num_functions,
         (unsigned long)r.id, r.kind == PCMAP_KIND_STACKMAP ? "stackmap" : "other",
         ok ? "yes" : "no");
  problems += !ok;
}

int report(void) {
  qsort(funcs, nfuncs, sizeof funcs[0], by_pc);
  printf("tables: %d covered, %d atomics\n", ncovered, natomics);
  expect_covered("bump", (uint64_t)(uintptr_t)bump);
  expect_covered("main", (uint64_t)(uintptr_t)main);
  int atomic_pcs = 0;
  for (int i = 0; i < natomics; i++) {
    pcmap_pctable_entry e, f;
    uint64_t cursor = 0;
    while (pcmap_pctable_next(&atomics[i], &cursor, &e) == PCMAP_OK) {
      atomic_pcs++;
      if (pcmap_pctable_index_find(funcs, nfuncs, e.pc, &f) != PCMAP_OK) {
        printf("atomic PC %#lx in no covered function\n", (unsigned long)e.pc);
        problems++;
      }
    }
  }
  // bump.c: one fetch_add, one load; main.c: one load, one store.
  printf("atomic PCs: %d (at least 4)\n", atomic_pcs);
  problems += atomic_pcs < 4;
  check_stackmap();
  return problems;
}
