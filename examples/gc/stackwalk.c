/* Finding the roots: the library's stack walker (pcmap_walk_*) from the
 * registers the capture trampoline handed to gc_alloc_slow, over the flat
 * stack map alone. Nothing here knows an architecture's frame layout. */
#include <stdio.h>
#include <stdlib.h>

#include "gc.h"

/* The linker defines these around the section `pcmap emit` added. */
extern const uint8_t __start_pcmap_stackmaps[];
extern const uint8_t __stop_pcmap_stackmaps[];

static pcmap_stackmaps stackmaps;

static void die(const char *what, int status) {
  fprintf(stderr, "gc: %s: %s\n", what, pcmap_strerror(status));
  exit(3);
}

void gc_open_stackmaps(void) {
  int s = pcmap_open_linked(&stackmaps, __start_pcmap_stackmaps, __stop_pcmap_stackmaps);
  if (s != PCMAP_OK) die("open pcmap_stackmaps", s);
  s = pcmap_validate(&stackmaps);
  if (s != PCMAP_OK) die("validate pcmap_stackmaps", s);
}

/* Where a root is stored: a spill slot, a register's save slot (Indirect,
 * Register), or an alloca (Direct: its address is the value). */
static uint64_t *slot(const pcmap_value *v, uint8_t kind) {
  if (kind == PCMAP_LOCATION_DIRECT) return (uint64_t *)(uintptr_t)v->value;
  if (v->has_address) return (uint64_t *)(uintptr_t)v->address;
  fprintf(stderr, "gc: a root whose location has no slot (kind %u)\n", (unsigned)kind);
  exit(3);
}

typedef struct visiting {
  const pcmap_walk *cursor;
  void (*visit)(root r, void *ctx);
  void *ctx;
} visiting;

static uint8_t kind_of(const pcmap_walk *c, uint16_t index) {
  pcmap_location loc;
  int s = pcmap_location_at(&c->record, index, &loc);
  if (s != PCMAP_OK) die("location", s);
  return loc.kind;
}

/* A root of a statepoint (base, derived) or of a stack map (each location;
 * program.stackmap.ll lists its allocas in (base, derived) pairs). */
static void visit_root(void *ctx, const pcmap_root *r) {
  visiting *v = (visiting *)ctx;
  uint8_t bk = kind_of(v->cursor, r->base_index), dk = kind_of(v->cursor, r->derived_index);
  root out;
  /* A constant (null) needs no relocation. */
  if (bk == PCMAP_LOCATION_CONSTANT || bk == PCMAP_LOCATION_CONSTANT_INDEX) return;
  out.base = slot(&r->base, bk);
  out.derived = slot(&r->derived, dk);
  v->visit(out, v->ctx);
}

/* Stack maps: every location is a root by itself; pair them up. */
typedef struct pairing {
  visiting *v;
  int have;
  pcmap_root first;
} pairing;

static void pair_up(void *ctx, const pcmap_root *r) {
  pairing *p = (pairing *)ctx;
  if (!p->have) {
    p->first = *r;
    p->have = 1;
    return;
  }
  p->have = 0;
  {
    pcmap_root pair = p->first;
    pair.derived = r->derived;
    pair.derived_index = r->derived_index;
    visit_root(p->v, &pair);
  }
}

size_t gc_find_roots(const pcmap_registers *regs, void (*visit)(root r, void *ctx), void *ctx) {
  size_t frames = 0;
  pcmap_walk c;
  visiting v = {&c, visit, ctx};
  int s = pcmap_walk_init(&c, &stackmaps, regs, 0, 0, 0);
  if (s != PCMAP_OK) die("walk", s);
  for (;;) {
    if (c.at == PCMAP_WALK_AT_RECORD) {
      if (c.record.kind == PCMAP_KIND_STATEPOINT) {
        s = pcmap_walk_roots(&c, visit_root, &v);
      } else {
        pairing p = {&v, 0, {0}};
        s = pcmap_walk_roots(&c, pair_up, &p);
        if (p.have) die("stack map with an odd number of root locations", PCMAP_ERR_CORRUPT);
      }
      if (s != PCMAP_OK) die("roots", s);
#ifdef GC_TRACE
      fprintf(stderr, "gc: frame %zu: pc 0x%llx record %llu\n", frames, (unsigned long long)c.regs.pc,
              (unsigned long long)c.record.id);
#endif
      frames++;
    }
    s = pcmap_walk_step(&c);
    /* The managed stack ends at the C caller of gc_main. */
    if (s == PCMAP_STOP_UNMANAGED) break;
    if (s != PCMAP_OK) die("walk", s);
  }
  return frames;
}
