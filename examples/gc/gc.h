/* The collector example's runtime: a semispace heap with a Cheney copying
 * collector whose roots come from the flat stack map (pcmap_stackmaps). */
#ifndef GC_H
#define GC_H

#include <stddef.h>
#include <stdint.h>

/* Every object: a header word, then `num_pointers` pointer fields, then
 * `num_scalars` 8-byte scalars. Once copied, the old copy's header is the new
 * address with FORWARDED set (addresses are 8-aligned). */
typedef uint64_t header_t;
#define FORWARDED ((header_t)1)
#define HEADER(num_pointers, num_scalars) (((header_t)(num_pointers) << 33) | ((header_t)(num_scalars) << 1))
#define HEADER_POINTERS(h) ((h) >> 33)
#define HEADER_SCALARS(h) (((h) >> 1) & 0xffffffffu)
#define OBJECT_WORDS(h) (1 + HEADER_POINTERS(h) + HEADER_SCALARS(h))

#include "pcmap.h"

/* Called by the managed code through pcmap_capture_call (the library's
 * capture trampoline) with the managed caller's registers at the safepoint,
 * where a collection stops. Returns the new object; the stack map program
 * (PowerPC) reads it from gc_result. */
void *gc_alloc_slow(pcmap_registers *regs, uint64_t num_pointers, uint64_t num_scalars);
extern void *gc_result;

/* A root: a stack slot holding a pointer derived from the object whose
 * address is in `base` (for a plain root, base == derived). */
typedef struct root {
  uint64_t *base;
  uint64_t *derived;
} root;

/* Calls `visit` on every root of every managed frame, from the safepoint
 * whose registers are `regs` up to the first frame that is not managed.
 * Returns the number of managed frames. */
size_t gc_find_roots(const pcmap_registers *regs, void (*visit)(root r, void *ctx), void *ctx);

/* Opens this program's own stack map section; exits on error. */
void gc_open_stackmaps(void);

/* Collections so far. */
extern unsigned long gc_collections;

#endif
