/* The collector example's driver: runs the managed program (program.*.ll)
 * and checks its checksum against a reference computed here without a heap. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "gc.h"

#if defined(__x86_64__)
#define ARCH_NAME "x86_64"
#elif defined(__aarch64__)
#define ARCH_NAME "aarch64"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define ARCH_NAME "ppc64le"
#else
#error "the collector example supports x86_64, aarch64 and ppc64le"
#endif

/* The managed entry point (program.*.ll). */
uint64_t gc_main(uint64_t rounds);

#define ROUNDS 200
/* Fewer collections would not exercise the collector enough. */
#define MIN_COLLECTIONS 10

/* check_tree of tree(depth, seed), as program.*.ll computes it. */
static uint64_t reference_tree(uint64_t depth, uint64_t seed) {
  uint64_t value = seed * 31 + depth;
  if (depth == 0) return value;
  return 3 * reference_tree(depth - 1, seed << 1) + 5 * reference_tree(depth - 1, (seed << 1) | 1) + value;
}

/* gc_main's checksum: the trees from newest to oldest. */
static uint64_t reference(uint64_t rounds) {
  uint64_t acc = 0, i;
  for (i = rounds; i-- > 0;) acc = acc * 31 + reference_tree(i % 4 + 3, i);
  return acc;
}

int main(void) {
  uint64_t got, want = reference(ROUNDS);
  gc_open_stackmaps();
  got = gc_main(ROUNDS);
  printf("%s: %lu collections, checksum %016" PRIx64 ", expected %016" PRIx64 "\n", ARCH_NAME, gc_collections,
         got, want);
  if (got != want) {
    printf("FAIL: checksum mismatch\n");
    return 1;
  }
  if (gc_collections < MIN_COLLECTIONS) {
    printf("FAIL: only %lu collections\n", gc_collections);
    return 1;
  }
  printf("OK\n");
  return 0;
}
