// A SanitizerBinaryMetadata runtime for the LTO tests: prints each callback
// and every entry of the table it receives, decoded by the pcmap C API
// (either version: 1 is LLVM 16's native table, 2 the compact one).
// Addresses are link-time addresses (minus the load bias), to compare with
// llvm-objdump -d of the program.
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>

#include "pcmap.h"

static int first_object_bias(struct dl_phdr_info *info, size_t size, void *bias) {
  (void)size;
  *(uintptr_t *)bias = info->dlpi_addr;
  return 1;
}

static unsigned long link_address(uint64_t pc) {
  uintptr_t bias = 0;
  dl_iterate_phdr(first_object_bias, &bias);
  return (unsigned long)(pc - bias);
}

static void dump(const char *what, uint32_t kind, uint32_t version, const char *start,
                 const char *stop) {
  pcmap_pctable t;
  pcmap_pctable_entry e;
  pcmap_status s;
  uint64_t cursor = 0;
  printf("%s_add version=%u bytes=%ld\n", what, version, (long)(stop - start));
  s = pcmap_pctable_open_linked(&t, kind, version, start, stop);
  if (s != PCMAP_OK) {
    printf("%s: %s\n", what, pcmap_strerror(s));
    return;
  }
  while ((s = pcmap_pctable_next(&t, &cursor, &e)) == PCMAP_OK) {
    if (kind == PCMAP_PCTABLE_COVERED)
      printf("covered %#lx size=%lu features=%lu\n", link_address(e.pc),
             (unsigned long)e.size, (unsigned long)e.features);
    else
      printf("atomic %#lx\n", link_address(e.pc));
  }
  if (s != PCMAP_NOT_FOUND)
    printf("%s: %s\n", what, pcmap_strerror(s));
}

void __sanitizer_metadata_covered_add(uint32_t version, const char *start, const char *stop) {
  dump("covered", PCMAP_PCTABLE_COVERED, version, start, stop);
}

void __sanitizer_metadata_atomics_add(uint32_t version, const char *start, const char *stop) {
  dump("atomics", PCMAP_PCTABLE_ATOMICS, version, start, stop);
}

void __sanitizer_metadata_covered_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}

void __sanitizer_metadata_atomics_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}
