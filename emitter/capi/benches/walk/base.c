/* scripts/bench-walk: the walk before the change, in the same process.
 * Compiled against the base commit's pcmap.h, with every function of its
 * libpcmap renamed base_pcmap_* (-include base-names.h, made by
 * bench-walk, which renames the archive's symbols the same way): the
 * collect, slots, cached and cursor routes as bench.c runs them, visiting
 * the roots the same way, over the same table and the same stack. */
#include <stdlib.h>

#include "pcmap.h"

extern const uint8_t __start_pcmap_stackmaps[];
extern const uint8_t __stop_pcmap_stackmaps[];

enum { BASE_SLOTS = 256, BASE_CACHE = 256 };

static pcmap_stackmaps maps;
static pcmap_walk_cache collect_cache, slots_cache, cache;
static uint64_t collect_memory[BASE_CACHE * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
static uint64_t slots_memory[BASE_CACHE * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
static uint64_t cache_memory[BASE_CACHE * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
static pcmap_root_slot slots[BASE_SLOTS];

typedef struct frame_sum {
  uint64_t sum;
  int frames;
} frame_sum;

/* As bench.c's visit_frame and visit_root. */
static void visit_frame(void *ctx, const pcmap_walk_frame *f) {
  frame_sum *s = (frame_sum *)ctx;
  uint32_t i;
  s->frames++;
  for (i = 0; i < f->num_roots; i++) {
    const pcmap_root *r = &f->roots[i];
    s->sum += r->base.has_address ? *(const uint64_t *)(uintptr_t)r->base.address : r->base.value;
    if (r->derived_index != r->base_index)
      s->sum += r->derived.has_address ? *(const uint64_t *)(uintptr_t)r->derived.address : r->derived.value;
  }
}
static pcmap_frame_fn volatile frame_callback = visit_frame;

static void visit_root(void *ctx, const pcmap_root *r) {
  uint64_t *sum = (uint64_t *)ctx;
  *sum += r->base.has_address ? *(const uint64_t *)(uintptr_t)r->base.address : r->base.value;
  if (r->derived_index != r->base_index)
    *sum += r->derived.has_address ? *(const uint64_t *)(uintptr_t)r->derived.address : r->derived.value;
}

/* The registers bench.c's capture gave: the same layout in both. */
unsigned long base_registers_size(void) { return sizeof(pcmap_registers); }

int base_open(void) {
  if (pcmap_open_linked(&maps, __start_pcmap_stackmaps, __stop_pcmap_stackmaps) != PCMAP_OK) return 0;
  return pcmap_walk_cache_init(&collect_cache, collect_memory, sizeof collect_memory) == PCMAP_OK &&
         pcmap_walk_cache_init(&slots_cache, slots_memory, sizeof slots_memory) == PCMAP_OK &&
         pcmap_walk_cache_init(&cache, cache_memory, sizeof cache_memory) == PCMAP_OK;
}

__attribute__((noinline)) int base_walk_collect(const void *regs, uint64_t *sum) {
  frame_sum s = {0, 0};
  if (pcmap_walk_collect(&collect_cache, &maps, regs, 0, 0, 0, frame_callback, &s) != PCMAP_STOP_UNMANAGED) abort();
  *sum = s.sum;
  return s.frames;
}

__attribute__((noinline)) int base_walk_slots(const void *regs, uint64_t *sum) {
  pcmap_slot_buffer b = {slots, BASE_SLOTS, 0, 0, NULL, NULL};
  uint32_t i;
  if (pcmap_walk_collect_slots(&slots_cache, &maps, regs, 0, 0, 0, &b) != PCMAP_STOP_UNMANAGED) abort();
  for (i = 0; i < b.count; i++)
    *sum += *(const uint64_t *)(uintptr_t)slots[i].base + *(const uint64_t *)(uintptr_t)slots[i].derived;
  return (int)b.frames;
}

static int walk_cursor(const void *regs, uint64_t *sum, pcmap_walk_cache *with) {
  pcmap_walk c;
  int frames = 0, s;
  if (pcmap_walk_init_cached(&c, &maps, regs, 0, 0, 0, with) != PCMAP_OK) abort();
  do {
    if (c.at != PCMAP_WALK_AT_RECORD || pcmap_walk_roots(&c, visit_root, sum) != PCMAP_OK) abort();
    frames++;
  } while ((s = pcmap_walk_step(&c)) == PCMAP_OK && c.at == PCMAP_WALK_AT_RECORD);
  return frames;
}

__attribute__((noinline)) int base_walk_cached(const void *regs, uint64_t *sum) {
  return walk_cursor(regs, sum, &cache);
}
__attribute__((noinline)) int base_walk_uncached(const void *regs, uint64_t *sum) {
  return walk_cursor(regs, sum, NULL);
}
