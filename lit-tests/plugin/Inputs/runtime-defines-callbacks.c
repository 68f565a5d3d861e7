// A translation unit that is its own SanitizerBinaryMetadata runtime, as
// compiler-rt's metadata tests are: it defines the callbacks the pass's
// structors call, and has covered functions and atomics of its own.
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static int added[2];
static long bytes[2];

static void record(int kind, uint32_t version, const char *start, const char *end) {
  added[kind]++;
  bytes[kind] += end - start;
  printf("%s_add version=%u bytes=%ld\n", kind ? "atomics" : "covered", version, (long)(end - start));
}

void __sanitizer_metadata_covered_add(uint32_t version, const char *start, const char *end) {
  record(0, version, start, end);
}
void __sanitizer_metadata_covered_del(uint32_t version, const char *start, const char *end) {}
void __sanitizer_metadata_atomics_add(uint32_t version, const char *start, const char *end) {
  record(1, version, start, end);
}
void __sanitizer_metadata_atomics_del(uint32_t version, const char *start, const char *end) {}

_Atomic int flag;

int main(void) {
  atomic_store_explicit(&flag, 1, memory_order_release);
  printf("own callbacks: covered %d, atomics %d\n", added[0], added[1]);
  // Each structor ran once and saw a non-empty table.
  return added[0] == 1 && added[1] == 1 && bytes[0] > 0 && bytes[1] > 0 ? 0 : 1;
}
