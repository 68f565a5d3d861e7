/* walk-roots-*.test: the runtime side. At the safepoint of `many`
 * (managed.c) it walks the stack with the library's cursor over this
 * program's own flat table: each statepoint frame's roots through
 * pcmap_walk_roots (40 of them in `many`'s frame: more than it decodes at
 * once), the hand-written AArch64 frame (odd-frame-aarch64.S: frame record
 * at 8 mod 16, a plain stack map record) through pcmap_walk_decode; then
 * moves every object (each base slot once) and sets each derived pointer
 * from its moved base (derived - base kept). Each managed frame checks
 * after its call that its references were moved exactly once. Prints what
 * it saw. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pcmap.h"

typedef __attribute__((address_space(1))) char *ref;
extern const uint8_t __start_pcmap_stackmaps[];
extern const uint8_t __stop_pcmap_stackmaps[];
void outer(uint64_t base);

/* managed.c's: not a translation, so a derived pointer moved as if it
 * were an object's address comes out wrong. */
#define MOVE(v) ((v) ^ 0x5a5a0000000000ffull)

static pcmap_stackmaps maps;
static int failures;

ref roots_ref(uint64_t v) { return (ref)(uintptr_t)v; }
uint64_t roots_unref(ref r) { return (uint64_t)(uintptr_t)r; }

void roots_check(int frame, int k, uint64_t got, uint64_t want) {
  if (got != want) {
    printf("FAIL: frame %d reference %d: %#" PRIx64 ", expected %#" PRIx64 "\n", frame, k, got, want);
    failures++;
  }
}

/* Slots to move, collected first (a slot may be named twice). */
enum { MAX_SLOTS = 256 };
static uint64_t *slots[MAX_SLOTS];
static int num_slots;

/* The slot a root's value is in (every root here has one). */
static uint64_t *slot_of(const pcmap_value *v) {
  if (!v->has_address) {
    printf("FAIL: a root without a slot\n");
    exit(1);
  }
  return (uint64_t *)(uintptr_t)v->address;
}

static void add_slot(const pcmap_value *v) {
  uint64_t *slot = slot_of(v);
  for (int i = 0; i < num_slots; i++)
    if (slots[i] == slot) return;
  if (num_slots == MAX_SLOTS) exit(2);
  slots[num_slots++] = slot;
}

/* Derived pointers: where each is, where its base is, and how far apart
 * their values were before the move. */
static struct {
  uint64_t *slot, *base;
  uint64_t offset;
} derived[MAX_SLOTS];
static int num_derived;

struct counts {
  int roots, derived;
};

static void collect_root(void *ctx, const pcmap_root *r) {
  struct counts *n = ctx;
  n->roots++;
  add_slot(&r->base);
  uint64_t *slot = slot_of(&r->derived), *base = slot_of(&r->base);
  if (slot == base) return;
  if (num_derived == MAX_SLOTS) exit(2);
  derived[num_derived].slot = slot;
  derived[num_derived].base = base;
  derived[num_derived].offset = *slot - *base;
  num_derived++;
  n->derived++;
}

uint64_t roots_safepoint(pcmap_registers *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5) {
  (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
  pcmap_walk c;
  int frame = 0;
  pcmap_status s = pcmap_walk_init(&c, &maps, regs, 0, 0, 0);
  while (s == PCMAP_OK) {
    if (c.at == PCMAP_WALK_AT_RECORD && c.record.kind == PCMAP_KIND_STATEPOINT) {
      struct counts n = {0, 0};
      if ((s = pcmap_walk_roots(&c, collect_root, &n)) != PCMAP_OK) break;
      printf("frame %d: statepoint, %d roots, %d derived\n", frame, n.roots, n.derived);
    } else if (c.at == PCMAP_WALK_AT_RECORD) {
      /* The hand-written stack map: its one location, decoded with the
       * frame's registers (x29 at 8 mod 16). */
      pcmap_value v;
      uint64_t cfa = 0;
      if ((s = pcmap_walk_decode(&c, 0, &v)) != PCMAP_OK) break;
      pcmap_walk_cfa(&c, &cfa);
#if defined(__aarch64__)
      printf("frame %d: record %" PRIu64 ", frame record (x29) at 8 mod 16: %s, CFA = x29 + %" PRIu64 ", root at x29 + %" PRIu64 "\n",
             frame, c.record.id, c.regs.value[29] % 16 == 8 ? "yes" : "no", cfa - c.regs.value[29],
             v.address - c.regs.value[29]);
#endif
      add_slot(&v);
    }
    s = pcmap_walk_step(&c);
    frame++;
  }
  printf("walk ended: %s\n", pcmap_strerror(s));
  for (int i = 0; i < num_slots; i++) *slots[i] = MOVE(*slots[i]);
  for (int i = 0; i < num_derived; i++) *derived[i].slot = *derived[i].base + derived[i].offset;
  printf("%d slots moved, %d derived pointers set from their bases\n", num_slots, num_derived);
  return 0;
}

int main(void) {
  pcmap_status s = pcmap_open_linked(&maps, __start_pcmap_stackmaps, __stop_pcmap_stackmaps);
  if (s != PCMAP_OK) {
    printf("FAIL: open: %s\n", pcmap_strerror(s));
    return 1;
  }
  outer(0x1000);
  printf("%d failures\n%s\n", failures, failures ? "FAIL" : "ok");
  return failures != 0;
}
