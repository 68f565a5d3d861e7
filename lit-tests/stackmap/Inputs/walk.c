/* Walks the pcmap_stackmaps tables (layout version 2) of the running
   program, resolves each frame record's self-relative 32-bit function
   address and checks it is the code of one of sm.ll's functions. Decodes the
   bytes itself, not through pcmap's reader. The tables are found from
   __start_/__stop_, or with -DTABLE_FROM_SECTION_HEADERS from the program's
   own section headers and load bias: no reference to the markers, which
   would keep the section through --gc-sections whatever its flags. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef TABLE_FROM_SECTION_HEADERS
#include <elf.h>
#include <link.h>
#include <stdlib.h>

static const unsigned char *table_start, *table_stop;

static int main_program(struct dl_phdr_info *info, size_t size, void *bias) {
  (void)size;
  *(uintptr_t *)bias = info->dlpi_addr;
  return 1; /* the first object is the program */
}

/* pcmap_stackmaps's address and size from /proc/self/exe (in the target's
   byte order: the program runs on its target, natively or under qemu). */
static int find_table(void) {
  FILE *f = fopen("/proc/self/exe", "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0) return 0;
  long n = ftell(f);
  unsigned char *file = malloc((size_t)n);
  rewind(f);
  if (!file || fread(file, 1, (size_t)n, f) != (size_t)n) return 0;
  fclose(f);
  Elf64_Ehdr eh;
  memcpy(&eh, file, sizeof eh);
  Elf64_Shdr names;
  memcpy(&names, file + eh.e_shoff + (size_t)eh.e_shstrndx * eh.e_shentsize, sizeof names);
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh;
    memcpy(&sh, file + eh.e_shoff + (size_t)i * eh.e_shentsize, sizeof sh);
    if (strcmp((const char *)file + names.sh_offset + sh.sh_name, "pcmap_stackmaps") != 0) continue;
    uintptr_t bias = 0;
    dl_iterate_phdr(main_program, &bias);
    table_start = (const unsigned char *)(bias + sh.sh_addr);
    table_stop = table_start + sh.sh_size;
    return 1;
  }
  return 0;
}
#else
extern const unsigned char __start_pcmap_stackmaps[];
extern const unsigned char __stop_pcmap_stackmaps[];
#define table_start __start_pcmap_stackmaps
#define table_stop __stop_pcmap_stackmaps
#endif

void constants(void);
void registers_and_spills(void);
void allocas(void);
void patchpoints(void);
void dynamic_frame(void);
void realigned(void);
void repeated(void);
void use(void *p) { (void)p; }

static uintptr_t code_of(void (*f)(void)) {
#if defined(__powerpc64__) && (!defined(_CALL_ELF) || _CALL_ELF == 1)
  return *(const uintptr_t *)(const void *)f; /* ELFv1 descriptor */
#else
  return (uintptr_t)f;
#endif
}

static uint32_t u32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static uint16_t u16(const unsigned char *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}

int main(void) {
  void (*fns[])(void) = {constants,   registers_and_spills, allocas, patchpoints,
                         dynamic_frame, realigned,          repeated};
  const unsigned n = sizeof fns / sizeof fns[0];
  unsigned found = 0, tables = 0;
#ifdef TABLE_FROM_SECTION_HEADERS
  if (!find_table()) {
    printf("no pcmap_stackmaps section in the program\n");
    return 1;
  }
#endif
  for (const unsigned char *t = table_start; t < table_stop;) {
    if (memcmp(t, "\x7fSMF\x02", 5) != 0) {
      printf("bad magic or version at table %u\n", tables);
      return 1;
    }
    /* Frame records (16 bytes each) follow the header. */
    uint32_t size = u32(t + 8), header = u16(t + 6), functions = u32(t + 12);
    for (uint32_t i = 0; i < functions; i++) {
      const unsigned char *field = t + header + 16 * i;
      int32_t rel;
      memcpy(&rel, field, 4);
      uintptr_t addr = (uintptr_t)field + (uintptr_t)(intptr_t)rel;
      int ok = 0;
      for (unsigned k = 0; k < n; k++)
        ok |= addr == code_of(fns[k]);
      if (!ok) {
        printf("frame record %u: address %#lx is no function\n", i, (unsigned long)addr);
        return 1;
      }
      found++;
    }
    /* The next table starts 8-aligned after this one; skip the padding. */
    t += size;
    while (t < table_stop && ((uintptr_t)t % 8 != 0 || *t == 0)) t++;
    tables++;
  }
  printf("%u tables, %u functions resolved\n", tables, found);
  return found == n ? 0 : 1;
}
