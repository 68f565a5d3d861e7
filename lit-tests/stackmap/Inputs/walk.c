/* Walks the pcmap_stackmaps tables (layout version 2) of the running
   program from __start_/__stop_, resolves each frame record's self-relative
   32-bit function address and checks it is the code of one of sm.ll's
   functions. Decodes the bytes itself, not through pcmap's reader. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern const unsigned char __start_pcmap_stackmaps[];
extern const unsigned char __stop_pcmap_stackmaps[];

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
  for (const unsigned char *t = __start_pcmap_stackmaps; t < __stop_pcmap_stackmaps;) {
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
    while (t < __stop_pcmap_stackmaps && ((uintptr_t)t % 8 != 0 || *t == 0)) t++;
    tables++;
  }
  printf("%u tables, %u functions resolved\n", tables, found);
  return found == n ? 0 : 1;
}
