/* The heap: two semispaces and a Cheney copying collector. Every allocation
 * is a safepoint; when the current space is full, the collector finds the
 * roots on the stack (stackwalk.c), copies what they reach and rewrites them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc.h"

#ifndef GC_SEMISPACE_BYTES
#define GC_SEMISPACE_BYTES (1u << 20)
#endif
#define SEMISPACE_WORDS (GC_SEMISPACE_BYTES / sizeof(uint64_t))
/* Most (base, derived) pairs one collection can hold. */
#define MAX_ROOTS 4096

static uint64_t space[2][SEMISPACE_WORDS];
static int current;   /* the space objects are allocated in */
static size_t top;    /* next free word in it */
unsigned long gc_collections;

static int in_space(int s, uint64_t p) {
  return p >= (uint64_t)(uintptr_t)space[s] && p < (uint64_t)(uintptr_t)(space[s] + SEMISPACE_WORDS);
}

/* The new address of the object at `old`, copying it on first sight. */
static uint64_t forward(uint64_t old, uint64_t **free) {
  uint64_t *obj = (uint64_t *)(uintptr_t)old, *copy;
  header_t h;
  if (!in_space(current, old)) return old; /* null, or not a heap object */
  h = obj[0];
  if (h & FORWARDED) return h & ~FORWARDED;
  copy = *free;
  memcpy(copy, obj, OBJECT_WORDS(h) * sizeof(uint64_t));
  *free += OBJECT_WORDS(h);
  obj[0] = (uint64_t)(uintptr_t)copy | FORWARDED;
  return (uint64_t)(uintptr_t)copy;
}

typedef struct pending {
  root roots[MAX_ROOTS];
  uint64_t base[MAX_ROOTS];   /* the base object's old address */
  uint64_t offset[MAX_ROOTS]; /* derived - base, before anything moves */
  size_t count;
} pending;

/* Reads every root before any is rewritten: slots may be shared. */
static void remember(root r, void *ctx) {
  pending *p = (pending *)ctx;
  if (p->count == MAX_ROOTS) {
    fprintf(stderr, "gc: more than %d roots\n", MAX_ROOTS);
    exit(3);
  }
  p->roots[p->count] = r;
  p->base[p->count] = *r.base;
  p->offset[p->count] = *r.derived - *r.base;
  p->count++;
}

static void collect(const pcmap_registers *regs) {
  static pending p;
  int to = 1 - current;
  uint64_t *free = space[to], *scan = space[to];
  size_t i;
  p.count = 0;
  gc_find_roots(regs, remember, &p);
  for (i = 0; i < p.count; i++) {
    if (p.base[i] == 0) continue;
    *p.roots[i].derived = forward(p.base[i], &free) + p.offset[i];
  }
  while (scan < free) { /* Cheney: the copied objects are the queue */
    header_t h = scan[0];
    uint64_t n;
    for (n = 0; n < HEADER_POINTERS(h); n++) scan[1 + n] = forward(scan[1 + n], &free);
    scan += OBJECT_WORDS(h);
  }
  /* Poison the old space: a root left stale now reads zeros, not the data. */
  memset(space[current], 0, sizeof space[current]);
  current = to;
  top = (size_t)(free - space[to]);
  gc_collections++;
}

void *gc_result;

void *gc_alloc_slow(pcmap_registers *regs, uint64_t num_pointers, uint64_t num_scalars) {
  size_t words = 1 + num_pointers + num_scalars;
  uint64_t *obj;
  if (top + words > SEMISPACE_WORDS) {
    collect(regs);
    if (top + words > SEMISPACE_WORDS) {
      fprintf(stderr, "gc: out of memory (%zu live words)\n", top);
      exit(3);
    }
  }
  obj = space[current] + top;
  top += words;
  memset(obj, 0, words * sizeof(uint64_t));
  obj[0] = HEADER(num_pointers, num_scalars);
  gc_result = obj;
  return obj;
}
