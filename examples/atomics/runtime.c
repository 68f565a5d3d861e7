// A tiny SanitizerBinaryMetadata runtime: the callbacks LLVM 19's module
// constructors call (version 2; `| 1<<16` when PCs are pointer-sized), a
// decoder of the compact tables (docs/pctables.md), and a dump of every
// atomic PC with its function. The C API (emitter/capi) has no PC-table
// functions yet, so the decode is written here from the seed's encoding:
// entry + *entry is the PC; function size and feature mask are ULEB128.
//
// Addresses are printed as link-time addresses (run-time address minus the
// program's load bias), so they can be looked up in `llvm-objdump -d` and
// `pcmap dump` of the linked program (scripts/check-atomic-pcs.py does).
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { VERSION_BASE = 2, PTR_SIZE_REL = 1 << 16, UAR_HAS_SIZE = 1 << 2, MAX_FUNCS = 256 };

static struct { uintptr_t start; uint64_t size; uint64_t features; } funcs[MAX_FUNCS];
static int nfuncs;

static uint64_t uleb128(const unsigned char **p) {
  uint64_t v = 0;
  unsigned shift = 0;
  unsigned char b;
  do {
    b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  return v;
}

static uintptr_t pc_at(const unsigned char **p, int ptr_sized) {
  uintptr_t base = (uintptr_t)*p;
  intptr_t delta;
  if (ptr_sized) {
    int64_t d;
    memcpy(&d, *p, 8);
    delta = (intptr_t)d;
    *p += 8;
  } else {
    int32_t d;
    memcpy(&d, *p, 4);
    delta = d;
    *p += 4;
  }
  return base + delta;
}

// PCs are pointer-sized when the version says so (medium/large code model
// with a `Code Model` module flag) and, without the flag, on PowerPC64:
// LLVM's default code model there is medium, and LLVM 16 and 19 still pass
// version 2 (docs/pctables.md, "Linked programs").
static int pc_is_pointer_sized(uint32_t version) {
#if defined(__powerpc64__)
  (void)version;
  return 1;
#else
  return (version & PTR_SIZE_REL) != 0;
#endif
}

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

static int check_version(const char *what, uint32_t version) {
  if ((version & 0xffff) != VERSION_BASE) {
    printf("%s: unexpected version %u\n", what, version);
    return 0;
  }
  return 1;
}

void __sanitizer_metadata_covered_add(uint32_t version, const char *start, const char *stop) {
  if (!check_version("covered", version))
    return;
  printf("covered_add version=%u bytes=%ld\n", version, (long)(stop - start));
  for (const unsigned char *p = (const void *)start; p < (const unsigned char *)stop;) {
    uintptr_t pc = pc_at(&p, pc_is_pointer_sized(version)) - load_bias();
    uint64_t size = uleb128(&p), features = uleb128(&p);
    if (features & UAR_HAS_SIZE)
      (void)uleb128(&p);
    if (nfuncs < MAX_FUNCS)
      funcs[nfuncs++] = (typeof(funcs[0])){pc, size, features};
    printf("covered %#lx size=%lu features=%lu\n", (unsigned long)pc, (unsigned long)size,
           (unsigned long)features);
  }
}

// Constructors run in any order: keep the atomics ranges and resolve them
// against the covered functions at exit.
static struct { uint32_t version; const char *start, *stop; } ranges[16];
static int nranges;

void __sanitizer_metadata_atomics_add(uint32_t version, const char *start, const char *stop) {
  if (!check_version("atomics", version))
    return;
  printf("atomics_add version=%u bytes=%ld\n", version, (long)(stop - start));
  if (nranges < 16)
    ranges[nranges++] = (typeof(ranges[0])){version, start, stop};
}

__attribute__((destructor)) static void report(void) {
  for (int r = 0; r < nranges; r++) {
    int ptr_sized = pc_is_pointer_sized(ranges[r].version);
    for (const unsigned char *p = (const void *)ranges[r].start;
         p < (const unsigned char *)ranges[r].stop;) {
      uintptr_t pc = pc_at(&p, ptr_sized) - load_bias();
      int f = -1;
      for (int i = 0; i < nfuncs; i++)
        if (funcs[i].start <= pc && pc < funcs[i].start + funcs[i].size)
          f = i;
      if (f < 0)
        printf("atomic %#lx in no covered function\n", (unsigned long)pc);
      else
        printf("atomic %#lx in function %#lx+%#lx\n", (unsigned long)pc,
               (unsigned long)funcs[f].start, (unsigned long)(pc - funcs[f].start));
    }
  }
}

void __sanitizer_metadata_covered_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}
void __sanitizer_metadata_atomics_del(uint32_t version, const char *start, const char *stop) {
  (void)version, (void)start, (void)stop;
}
