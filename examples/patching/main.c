/* Ahead-of-time patching (docs/patching.md): at start-up the program finds
 * its patch points in its own flat stack map table (pcmap_find_id, every
 * record of an ID), writes a call of the runtime's handler into each patch
 * region with the target's encoding, flushes the instruction cache, then
 * checks that the patched code calls the handlers and that a handler's
 * return address lies in the patch region it was called from
 * (pcmap_find_patch_region).
 *
 *   patching [--no-patch]     --no-patch: leave the regions as nops; the
 *                             checks must then fail.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pcmap.h"

extern const char __start_pcmap_stackmaps[];
extern const char __stop_pcmap_stackmaps[];

/* The functions of program.ll. */
int64_t compute(int64_t x);
int64_t compute2(int64_t x, _Bool which);

static pcmap_stackmaps table;
/* The ID of the patch region each handler's last call came from (0: none). */
static uint64_t called_from[2];

static uint64_t region_of(void *ret) {
  pcmap_record r;
  if (pcmap_find_patch_region(&table, (uint64_t)(uintptr_t)ret, NULL, &r) != PCMAP_OK)
    return 0;
  return r.id;
}

__attribute__((noinline)) static int64_t double_it(int64_t x) {
  called_from[0] = region_of(__builtin_return_address(0));
  return 2 * x;
}

__attribute__((noinline)) static int64_t square(int64_t x) {
  called_from[1] = region_of(__builtin_return_address(0));
  return x * x;
}

/* --- Encodings: a call of `target` ending where LLVM's own patch point
 * call ends, nops after it. Returns the bytes written, 0 if the region is
 * too small or the target out of reach. --- */

__attribute__((unused)) static void put32(uint8_t *p, uint32_t w) {
  /* Instructions are little-endian on every target built here. */
  p[0] = (uint8_t)w;
  p[1] = (uint8_t)(w >> 8);
  p[2] = (uint8_t)(w >> 16);
  p[3] = (uint8_t)(w >> 24);
}

#if defined(__x86_64__)
#define ARCH "x86_64"
#define FORM "movabs r11 + call r11"
/* The length of the nop at `p` (LLVM pads with the multi-byte forms:
 * 66/2E prefixes, 90 or 0F 1F /0 with ModRM, SIB and displacement), 0 if
 * it is not one. */
static size_t nop_length(const uint8_t *p, size_t left) {
  size_t n = 0;
  while (n < left && (p[n] == 0x66 || p[n] == 0x2E)) n++;
  if (n < left && p[n] == 0x90) return n + 1;
  if (n + 2 >= left || p[n] != 0x0F || p[n + 1] != 0x1F) return 0;
  uint8_t modrm = p[n + 2], mod = modrm >> 6, rm = modrm & 7;
  if ((modrm >> 3 & 7) != 0) return 0;
  n += 3;
  if (mod != 3 && rm == 4) n++;
  n += mod == 1 ? 1 : mod == 2 ? 4 : (mod == 0 && rm == 5) ? 4 : 0;
  return n <= left ? n : 0;
}
static size_t encode(uint8_t *out, uint32_t size, uint64_t target) {
  /* movabs r11, imm64 (10 bytes); call r11 (3): the call ends at 13. */
  if (size < 13) return 0;
  out[0] = 0x49;
  out[1] = 0xBB;
  memcpy(out + 2, &target, 8);
  out[10] = 0x41;
  out[11] = 0xFF;
  out[12] = 0xD3;
  memset(out + 13, 0x90, size - 13);
  return size;
}
#elif defined(__aarch64__)
#define ARCH "aarch64"
#define FORM "movz/movk x16 + blr x16"
static size_t nop_length(const uint8_t *p, size_t left) {
  static const uint8_t nop[] = {0x1F, 0x20, 0x03, 0xD5};
  return left >= 4 && memcmp(p, nop, 4) == 0 ? 4 : 0;
}
static size_t encode(uint8_t *out, uint32_t size, uint64_t target) {
  /* x16 = target (48 bits: movz lsl 32, movk lsl 16, movk); blr x16. The
   * call ends at 16. */
  if (size < 16 || size % 4 || target >> 48) return 0;
  put32(out + 0, 0xD2C00010u | (uint32_t)((target >> 32) & 0xFFFF) << 5);
  put32(out + 4, 0xF2A00010u | (uint32_t)((target >> 16) & 0xFFFF) << 5);
  put32(out + 8, 0xF2800010u | (uint32_t)(target & 0xFFFF) << 5);
  put32(out + 12, 0xD63F0200u);
  for (uint32_t at = 16; at < size; at += 4) put32(out + at, 0xD503201Fu);
  return size;
}
#elif defined(__powerpc64__) && defined(_CALL_ELF) && _CALL_ELF == 2
#define ARCH "ppc64le"
#define FORM "r12 = target, std r2, mtctr + bctrl, ld r2"
static size_t nop_length(const uint8_t *p, size_t left) {
  static const uint8_t nop[] = {0x00, 0x00, 0x00, 0x60};
  return left >= 4 && memcmp(p, nop, 4) == 0 ? 4 : 0;
}
static size_t encode(uint8_t *out, uint32_t size, uint64_t target) {
  /* ELFv2: r12 = target (li; rldic 32,16; oris; ori: 48 bits), the TOC
   * saved to its ABI slot 24(r1), mtctr r12; bctrl (the callee's global
   * entry derives its TOC from r12), the TOC restored. The call ends at
   * 28, the restore at 32. */
  if (size < 32 || size % 4 || target >> 48) return 0;
  put32(out + 0, 0x39800000u | (uint32_t)((target >> 32) & 0xFFFF));
  put32(out + 4, 0x798C040Au);
  put32(out + 8, 0x658C0000u | (uint32_t)((target >> 16) & 0xFFFF));
  put32(out + 12, 0x618C0000u | (uint32_t)(target & 0xFFFF));
  put32(out + 16, 0xF8410018u);
  put32(out + 20, 0x7D8903A6u);
  put32(out + 24, 0x4E800421u);
  put32(out + 28, 0xE8410018u);
  for (uint32_t at = 32; at < size; at += 4) put32(out + at, 0x60000000u);
  return size;
}
#else
#error "examples/patching: x86_64, aarch64 and ppc64le (ELFv2) only"
#endif

/* Writes `len` bytes of code at `at`: the pages writable for the write
 * only, then the instruction cache made coherent (a no-op on x86; on
 * AArch64 and PowerPC it cleans the data cache and invalidates the
 * instruction cache for the range, with the barriers). The pages stay
 * executable during the write: in a linked program they may hold this
 * very function (a JIT, with code pages of its own, can drop execute). */
static int write_code(uint8_t *at, const uint8_t *bytes, size_t len) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t start = (uintptr_t)at & ~(page - 1);
  uintptr_t end = ((uintptr_t)at + len + page - 1) & ~(page - 1);
  if (mprotect((void *)start, end - start, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return -1;
  memcpy(at, bytes, len);
  if (mprotect((void *)start, end - start, PROT_READ | PROT_EXEC) != 0) return -1;
  __builtin___clear_cache((char *)at, (char *)at + len);
  return 0;
}

/* Patches every record with `id` to call `target`; how many. */
static int patch_all(uint64_t id, uint64_t target, const char *name) {
  int n = 0;
  for (uint32_t k = 0;; k++) {
    pcmap_function f;
    pcmap_record r;
    pcmap_status s = pcmap_find_id(&table, NULL, id, k, &f, &r);
    if (s == PCMAP_NOT_FOUND) break;
    if (s != PCMAP_OK) {
      printf("pcmap_find_id(%llu): status %d\n", (unsigned long long)id, (int)s);
      return -1;
    }
    if (r.kind != PCMAP_KIND_PATCHPOINT || !(r.flags & PCMAP_RECORD_PATCHABLE_SIZE_KNOWN)) {
      printf("record ID %llu is not a patch point of known size\n", (unsigned long long)id);
      return -1;
    }
    uint8_t *at = (uint8_t *)(uintptr_t)r.address;
    /* What LLVM put there for a null target: nops only. */
    for (uint32_t i = 0, len; i < r.patchable_size; i += len)
      if ((len = (uint32_t)nop_length(at + i, r.patchable_size - i)) == 0) {
        printf("ID %llu: byte %u of the region is not a nop\n", (unsigned long long)id, i);
        return -1;
      }
    uint8_t code[256];
    if (r.patchable_size > sizeof code || encode(code, r.patchable_size, target) == 0) {
      printf("ID %llu: %u bytes cannot hold the call\n", (unsigned long long)id, r.patchable_size);
      return -1;
    }
    if (write_code(at, code, r.patchable_size) != 0) {
      perror("mprotect");
      return -1;
    }
    printf("patched ID %llu at +%#x of a %u-byte function (%u bytes): %s -> %s\n",
           (unsigned long long)id, r.instruction_offset, f.size, r.patchable_size, FORM, name);
    n++;
  }
  return n;
}

int main(int argc, char **argv) {
  int patch = !(argc > 1 && strcmp(argv[1], "--no-patch") == 0);
  setvbuf(stdout, NULL, _IONBF, 0);
  pcmap_status s = pcmap_open_linked(&table, __start_pcmap_stackmaps, __stop_pcmap_stackmaps);
  if (s != PCMAP_OK || pcmap_validate(&table) != PCMAP_OK) {
    printf("%s: the flat table does not open (status %d)\n", ARCH, (int)s);
    return 1;
  }
  printf("%s: %u functions, %llu records\n", ARCH, (unsigned)table.num_functions,
         (unsigned long long)table.num_records);
  if (patch) {
    int a = patch_all(100, (uint64_t)(uintptr_t)&double_it, "double_it");
    int b = patch_all(101, (uint64_t)(uintptr_t)&square, "square");
    if (a != 1 || b != 2) {
      printf("FAIL: patched %d and %d sites, expected 1 and 2\n", a, b);
      return 1;
    }
  }
  int ok = 1;
  int64_t c = compute(20);
  printf("compute(20) = %lld (patch point 100 -> double_it, +1), called from region ID %llu\n",
         (long long)c, (unsigned long long)called_from[0]);
  ok &= c == 41 && called_from[0] == 100;
  int64_t d = compute2(7, 1), e = compute2(7, 0);
  printf("compute2(7) = %lld and %lld (both sites of patch point 101 -> square), called from "
         "region ID %llu\n",
         (long long)d, (long long)e, (unsigned long long)called_from[1]);
  ok &= d == 49 && e == 63 && called_from[1] == 101;
  puts(ok ? "OK" : "FAIL: the patched code did not do what was patched in");
  return ok ? 0 : 1;
}
