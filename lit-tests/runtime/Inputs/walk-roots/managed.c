/* The managed side of walk-roots-*.test (rewrite-statepoints-for-gc makes
 * every call of these functions a statepoint listing the references live
 * across it): `many` holds MANY references across its safepoint, more than
 * pcmap_walk_roots decodes at once (32); `outer` holds three across its
 * call of the next frame (on AArch64 the hand-written odd_frame, whose
 * frame record is at 8 mod 16, in odd-frame-aarch64.S) and a pointer into
 * the middle of the first, a derived pointer (build.sh keeps it one: no
 * rematerialisation). After its call each function checks that every
 * reference was moved exactly once, and the derived pointer with its base
 * (the collector's move is not a translation: moving the derived pointer
 * as if it were an object gives another address). */
#include <stdint.h>

#include "pcmap.h"

typedef __attribute__((address_space(1))) char *ref;
ref roots_ref(uint64_t v);
uint64_t roots_unref(ref r);
void roots_check(int frame, int k, uint64_t got, uint64_t want);
uint64_t roots_safepoint(pcmap_registers *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);
uint64_t odd_frame(void (*next)(uint64_t), uint64_t value);

/* What the collector does to an object's address (driver.c's). */
#define MOVE(v) ((v) ^ 0x5a5a0000000000ffull)
/* How far into `a` outer's derived pointer points. */
#define INTERIOR 0x40

/* m(0) ... m(39), with literal numbers (names r0 ... r39). */
#define R10(m, t) m(t##0) m(t##1) m(t##2) m(t##3) m(t##4) m(t##5) m(t##6) m(t##7) m(t##8) m(t##9)
#define R40(m) R10(m, ) R10(m, 1) R10(m, 2) R10(m, 3)
#define DECLARE(i) ref r##i = roots_ref(base + i);
#define CHECK(i) roots_check(0, i, roots_unref(r##i), MOVE(base + i));

__attribute__((noinline)) void many(uint64_t base) {
  R40(DECLARE)
  pcmap_capture_call(roots_safepoint, 0, 0, 0, 0, 0);
  R40(CHECK)
}

__attribute__((noinline)) void outer(uint64_t base) {
  ref a = roots_ref(base), b = roots_ref(base + 1), c = roots_ref(base + 2);
  ref d = a + INTERIOR;
#if defined(__aarch64__)
  uint64_t slot = odd_frame(many, base + 100);
  roots_check(1, 0, slot, MOVE(base + 100));
#else
  many(base + 100);
#endif
  roots_check(2, 0, roots_unref(a), MOVE(base));
  roots_check(2, 1, roots_unref(b), MOVE(base + 1));
  roots_check(2, 2, roots_unref(c), MOVE(base + 2));
  roots_check(2, 3, roots_unref(d), MOVE(base) + INTERIOR);
}
