/* scripts/bench-walk: walk a 64-frame managed stack and visit every root,
 * with the flat table of 1,000,000 records (this program's own
 * pcmap_stackmaps), every way at once:
 *
 *   collect one call, pcmap_walk_collect, with its own cache of decoded frames,
 *           warm: one callback per frame with all its roots;
 *   slots   one call, pcmap_walk_collect_slots, with its own cache, warm:
 *           the address of every root's base and derived slot, into a
 *           buffer of 256 (each value read and summed after the walk, as
 *           a moving collector reads its roots);
 *   cached  the cursor with a cache of decoded frames (pcmap_walk_init_cached),
 *           warm: filled by the first walk, hits afterwards;
 *   cursor  pcmap_walk_init / pcmap_walk_roots / pcmap_walk_step;
 *   libgcc  _Unwind_Backtrace, each return address looked up in a hash table
 *           built beforehand from every record (what runtimes that parse
 *           LLVM's stack maps into a hash table do), roots decoded with
 *           _Unwind_GetCFA (the frame's SP) and _Unwind_GetGR and passed,
 *           frame by frame, to the callback pcmap_walk_collect calls;
 *   chain   the bare frame pointer chain, no lookup, no root (the floor);
 *   base    with -DPCMAP_BENCH_BASE (base.c): collect, slots, cached and
 *           cursor by the libpcmap of the commit before the change;
 *   framehop with -DPCMAP_BENCH_FRAMEHOP (x86-64, framehop/): framehop's
 *           unwinder over this program's .eh_frame, its cache warm and
 *           never allocating; return addresses only, no root.
 *
 * Prints ns per frame for each (the median of BATCHES batches, each
 * batch running every route in turn, in thread CPU time), the ratios and
 * PASS/FAIL against the goals, and checks every route visits the same
 * roots (the same sum) and the chain and framehop read the cursor's
 * return addresses. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unwind.h>

#include "pcmap.h"

extern const uint8_t __start_pcmap_stackmaps[];
extern const uint8_t __stop_pcmap_stackmaps[];
void bench_f0(uint64_t depth, uint64_t a);

/* -DREPEAT=... -DBATCHES=... for a profiler. */
#ifndef REPEAT
#define REPEAT 2000
#endif
#ifndef BATCHES
#define BATCHES 15
#endif
enum { FRAMES = 64, MAX_ROOTS = 32 };

typedef __attribute__((address_space(1))) char *ref;
ref bench_ref(uint64_t v) { return (ref)(uintptr_t)v; }
uint64_t bench_unref(ref r) { return (uint64_t)(uintptr_t)r; }
volatile uint64_t bench_sink;
void bench_use(uint64_t v) { bench_sink += v; }
/* Called by the filler (scripts/gen-stackmap-bench). */
void sink(uint64_t v) { bench_sink += v; }

static pcmap_stackmaps maps;

/* The hash table: return address -> the record's roots, decoded once. */
typedef struct site {
  uint64_t pc;
  uint16_t num_roots;
  struct {
    uint8_t kind;
    uint16_t reg;
    int32_t offset;
  } roots[MAX_ROOTS];
} site;
static site *table;
static uint64_t mask;

static uint64_t hash(uint64_t pc) { return (pc * 0x9e3779b97f4a7c15ull) >> 20; }

static void build_table(void) {
  uint64_t n = maps.num_records, cap = 1, i;
  uint32_t f;
  while (cap < 2 * n) cap <<= 1;
  table = calloc(cap, sizeof *table);
  mask = cap - 1;
  for (f = 0; f < maps.num_functions; f++) {
    pcmap_function fn;
    if (pcmap_function_at(&maps, f, &fn) != PCMAP_OK) abort();
    for (i = 0; i < fn.num_records; i++) {
      pcmap_record rec;
      site *s;
      uint32_t l, first = 0;
      if (pcmap_record_at(&fn, (uint32_t)i, &rec) != PCMAP_OK) abort();
      for (s = &table[hash(rec.address) & mask]; s->pc; s = &table[(uint64_t)(s - table + 1) & mask]) {
      }
      s->pc = rec.address;
      if (rec.kind == PCMAP_KIND_STATEPOINT) {
        pcmap_location deopt;
        if (pcmap_location_at(&rec, 2, &deopt) != PCMAP_OK) abort();
        first = 3 + (uint32_t)deopt.offset;
      }
      for (l = first; l < rec.num_locations && s->num_roots < MAX_ROOTS; l++) {
        pcmap_location loc;
        if (pcmap_location_at(&rec, l, &loc) != PCMAP_OK) abort();
        s->roots[s->num_roots].kind = loc.kind;
        s->roots[s->num_roots].reg = loc.dwarf_reg;
        s->roots[s->num_roots].offset = loc.offset;
        s->num_roots++;
      }
    }
  }
}

static const site *lookup(uint64_t pc) {
  const site *s;
  for (s = &table[hash(pc) & mask]; s->pc; s = &table[(uint64_t)(s - table + 1) & mask])
    if (s->pc == pc) return s;
  return NULL;
}

/* What the per-frame callback of the collect and libgcc routes sums. */
typedef struct frame_sum {
  uint64_t sum;
  int frames;
} frame_sum;

/* The roots of a frame, passed through a pointer (never inlined): the
 * collect and libgcc routes visit roots the same way. */
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

/* libgcc's route. */
typedef struct unwind_state {
  int started;
  frame_sum s;
} unwind_state;

#if defined(__x86_64__)
#define SP_DWARF 7
#elif defined(__aarch64__)
#define SP_DWARF 31
#else
#define SP_DWARF 1
#endif

static _Unwind_Reason_Code unwind_frame(struct _Unwind_Context *ctx, void *arg) {
  unwind_state *u = (unwind_state *)arg;
  const site *s = lookup(_Unwind_GetIP(ctx));
  pcmap_root roots[MAX_ROOTS];
  pcmap_walk_frame f;
  uint16_t i;
  if (!s) return u->started ? _URC_END_OF_STACK : _URC_NO_REASON;
  u->started = 1;
  for (i = 0; i < s->num_roots; i++) {
    /* libgcc's CFA here is the frame's SP (the CFA of the frame below). */
    uint64_t base = s->roots[i].reg == SP_DWARF ? _Unwind_GetCFA(ctx) : _Unwind_GetGR(ctx, s->roots[i].reg);
    pcmap_root *r = &roots[i];
    r->base.has_address = s->roots[i].kind == PCMAP_LOCATION_INDIRECT;
    r->base.address = r->base.has_address ? base + (uint64_t)(int64_t)s->roots[i].offset : 0;
    r->base.has_value = s->roots[i].kind == PCMAP_LOCATION_REGISTER;
    r->base.value = r->base.has_value ? base : 0;
    r->derived = r->base;
    r->base_index = r->derived_index = i;
  }
  f.regs = NULL;
  f.roots = roots;
  f.num_roots = s->num_roots;
  f.depth = (uint32_t)u->s.frames;
  frame_callback(&u->s, &f);
  return _URC_NO_REASON;
}

static void visit_root(void *ctx, const pcmap_root *r) {
  uint64_t *sum = (uint64_t *)ctx;
  *sum += r->base.has_address ? *(const uint64_t *)(uintptr_t)r->base.address : r->base.value;
  if (r->derived_index != r->base_index)
    *sum += r->derived.has_address ? *(const uint64_t *)(uintptr_t)r->derived.address : r->derived.value;
}

/* The caches of decoded frames: 256 entries of caller memory each. */
static pcmap_walk_cache cache, collect_cache, slots_cache;
static uint64_t cache_memory[256 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
static uint64_t collect_cache_memory[256 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
static uint64_t slots_cache_memory[256 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
static pcmap_root_slot slots[256];

static int walk_cursor(const pcmap_registers *regs, uint64_t *sum, pcmap_walk_cache *with) {
  pcmap_walk c;
  int frames = 0, s;
  if (pcmap_walk_init_cached(&c, &maps, regs, 0, 0, 0, with) != PCMAP_OK) abort();
  do {
    if (c.at != PCMAP_WALK_AT_RECORD || pcmap_walk_roots(&c, visit_root, sum) != PCMAP_OK) abort();
    frames++;
  } while ((s = pcmap_walk_step(&c)) == PCMAP_OK && c.at == PCMAP_WALK_AT_RECORD);
  return frames;
}

/* Each route in a function of its own, out of line: callgrind counts each
 * (scripts/bench-walk with PCMAP_BENCH_CALLGRIND=1). */
__attribute__((noinline)) static int walk_cached(const pcmap_registers *regs, uint64_t *sum) {
  return walk_cursor(regs, sum, &cache);
}
__attribute__((noinline)) static int walk_uncached(const pcmap_registers *regs, uint64_t *sum) {
  return walk_cursor(regs, sum, NULL);
}
__attribute__((noinline)) static int walk_libgcc(uint64_t *sum) {
  unwind_state u = {0, {0, 0}};
  _Unwind_Backtrace(unwind_frame, &u);
  *sum = u.s.sum;
  return u.s.frames;
}
/* The walk ends at main's frame, not managed: PCMAP_STOP_UNMANAGED. */
__attribute__((noinline)) static int walk_collect(const pcmap_registers *regs, uint64_t *sum) {
  frame_sum s = {0, 0};
  if (pcmap_walk_collect(&collect_cache, &maps, regs, 0, 0, 0, frame_callback, &s) != PCMAP_STOP_UNMANAGED) abort();
  *sum = s.sum;
  return s.frames;
}

/* The slots of every root, then their values summed: a statepoint's
 * roots are (base, derived) pairs of distinct locations, each of which the
 * other routes sum (by index), so both slots of every pair are read. */
__attribute__((noinline)) static int walk_slots(const pcmap_registers *regs, uint64_t *sum) {
  pcmap_slot_buffer b = {slots, 256, 0, 0, NULL, NULL};
  uint32_t i;
  if (pcmap_walk_collect_slots(&slots_cache, &maps, regs, 0, 0, 0, &b) != PCMAP_STOP_UNMANAGED) abort();
  for (i = 0; i < b.count; i++)
    *sum += *(const uint64_t *)(uintptr_t)slots[i].base + *(const uint64_t *)(uintptr_t)slots[i].derived;
  return (int)b.frames;
}

/* The frame pointer chain: frame record {caller's FP, return address} at
 * FP (x86-64 RBP, AArch64 x29); PowerPC's back chain at r1. Out of line
 * and called once per walk like the others (nothing hoisted out of the
 * timing loop); bench_safepoint checks it reads the return addresses of
 * the same 64 frames the cursor walks. */
__attribute__((noinline)) static int walk_chain(const pcmap_registers *regs, uint64_t *sum) {
  int frames;
#if defined(__powerpc64__)
  const uint64_t *fp = (const uint64_t *)(uintptr_t)regs->value[1];
#elif defined(__aarch64__)
  const uint64_t *fp = (const uint64_t *)(uintptr_t)regs->value[29];
#else
  const uint64_t *fp = (const uint64_t *)(uintptr_t)regs->value[6];
#endif
  for (frames = 0; frames < FRAMES; frames++) {
    *sum += fp[1];
    fp = (const uint64_t *)(uintptr_t)fp[0];
  }
  return frames;
}

/* The thread's CPU time: on a machine shared with other work, time the
 * thread spent preempted is not the walk's (cache misses it causes are). */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#ifdef PCMAP_BENCH_BASE
/* base.c: the same routes by the base commit's libpcmap. */
unsigned long base_registers_size(void);
int base_open(void);
int base_walk_collect(const void *regs, uint64_t *sum);
int base_walk_slots(const void *regs, uint64_t *sum);
int base_walk_cached(const void *regs, uint64_t *sum);
int base_walk_uncached(const void *regs, uint64_t *sum);
#define BASE_BUILT 1
#else
#define BASE_BUILT 0
#endif
#ifdef PCMAP_BENCH_FRAMEHOP
/* framehop/lib.rs. */
void pcmap_bench_framehop_init(uint64_t eh_frame, uint64_t eh_frame_size, uint64_t eh_frame_hdr,
                               uint64_t eh_frame_hdr_size, uint64_t text, uint64_t text_size);
uint32_t pcmap_bench_framehop_walk(uint64_t pc, uint64_t sp, uint64_t bp, uint32_t frames, uint64_t *sum);
#define FRAMEHOP_BUILT 1
#else
#define FRAMEHOP_BUILT 0
#endif

__attribute__((noinline)) static int walk_framehop(const pcmap_registers *regs, uint64_t *sum) {
#ifdef PCMAP_BENCH_FRAMEHOP
  return (int)pcmap_bench_framehop_walk(regs->pc, regs->value[7], regs->value[6], FRAMES, sum);
#else
  (void)regs, (void)sum;
  return 0;
#endif
}

enum { COLLECT, CACHED, CURSOR, LIBGCC, CHAIN, SLOTS, BASE_COLLECT, BASE_CACHED, BASE_CURSOR, BASE_SLOTS, FRAMEHOP, METHODS };
static const char *names[METHODS] = {"pcmap_walk_collect (warm cache)", "cursor with cache (warm)",
                                     "cursor (pcmap_walk_*)", "_Unwind_Backtrace + hash table", "frame pointer chain",
                                     "pcmap_walk_collect_slots (warm)", "base: pcmap_walk_collect (warm)",
                                     "base: cursor with cache (warm)", "base: cursor (pcmap_walk_*)",
                                     "base: pcmap_walk_collect_slots", "framehop, cached (no roots)"};
/* Whether a route is built in. */
static int built(int m) {
  if (m >= BASE_COLLECT && m <= BASE_SLOTS) return BASE_BUILT;
  if (m == FRAMEHOP) return FRAMEHOP_BUILT;
  return 1;
}
static const char *base_name = "the base commit";

/* The sum of the return addresses the cursor steps to (frames 1 to 64:
 * the chain reads the return address of each of the 64 frames). */
static uint64_t cursor_return_addresses(const pcmap_registers *regs) {
  pcmap_walk c;
  uint64_t sum = 0;
  if (pcmap_walk_init(&c, &maps, regs, 0, 0, 0) != PCMAP_OK) abort();
  while (pcmap_walk_step(&c) == PCMAP_OK) {
    sum += c.regs.pc;
    if (c.at != PCMAP_WALK_AT_RECORD) break;
  }
  return sum;
}

uint64_t bench_safepoint(pcmap_registers *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5) {
  double ns[METHODS][BATCHES];
  uint64_t sums[METHODS] = {0};
  int m, b, r, frames[METHODS] = {0};
  (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
  for (b = 0; b < BATCHES; b++) {
    for (m = 0; m < METHODS; m++) {
      double t0;
      if (!built(m)) continue;
      t0 = now();
      for (r = 0; r < REPEAT; r++) {
        uint64_t sum = 0;
        if (m == COLLECT) {
          frames[m] = walk_collect(regs, &sum);
        } else if (m == CACHED) {
          frames[m] = walk_cached(regs, &sum);
        } else if (m == CURSOR) {
          frames[m] = walk_uncached(regs, &sum);
        } else if (m == LIBGCC) {
          frames[m] = walk_libgcc(&sum);
        } else if (m == SLOTS) {
          frames[m] = walk_slots(regs, &sum);
#ifdef PCMAP_BENCH_BASE
        } else if (m == BASE_COLLECT) {
          frames[m] = base_walk_collect(regs, &sum);
        } else if (m == BASE_SLOTS) {
          frames[m] = base_walk_slots(regs, &sum);
        } else if (m == BASE_CACHED) {
          frames[m] = base_walk_cached(regs, &sum);
        } else if (m == BASE_CURSOR) {
          frames[m] = base_walk_uncached(regs, &sum);
#endif
        } else if (m == FRAMEHOP) {
          frames[m] = walk_framehop(regs, &sum);
        } else {
          frames[m] = walk_chain(regs, &sum);
        }
        sums[m] = sum;
      }
      ns[m][b] = (now() - t0) / REPEAT / frames[m];
    }
  }
  for (m = 0; m < METHODS; m++) {
    if (!built(m)) {
      printf("%-32s (not built)\n", names[m]);
      continue;
    }
    qsort(ns[m], BATCHES, sizeof ns[m][0], cmp);
    printf("%-32s %3d frames  %8.1f ns/frame (median of %d batches of %d walks)\n", names[m], frames[m],
           ns[m][BATCHES / 2], BATCHES, REPEAT);
  }
#define MEDIAN(m) ns[m][BATCHES / 2]
  for (m = COLLECT; m <= SLOTS; m++) {
    if (m == LIBGCC || m == CHAIN) continue;
    printf("%s: %.2fx faster than libgcc, %.2fx the frame pointer chain's time\n", names[m],
           MEDIAN(LIBGCC) / MEDIAN(m), MEDIAN(m) / MEDIAN(CHAIN));
  }
  if (BASE_BUILT) {
    static const int now_of[] = {COLLECT, CACHED, CURSOR, SLOTS}, base_of[] = {BASE_COLLECT, BASE_CACHED, BASE_CURSOR, BASE_SLOTS};
    for (m = 0; m < 4; m++)
      printf("%s: %.2fx the time of %s's\n", names[now_of[m]], MEDIAN(now_of[m]) / MEDIAN(base_of[m]), base_name);
  }
  printf("goal: slots >= 16x faster than libgcc: %.2fx: %s\n", MEDIAN(LIBGCC) / MEDIAN(SLOTS),
         MEDIAN(LIBGCC) / MEDIAN(SLOTS) >= 16 ? "PASS" : "FAIL");
  if (BASE_BUILT)
    printf("goal: slots within 1.25x of %s's: %.2fx: %s\n", base_name, MEDIAN(SLOTS) / MEDIAN(BASE_SLOTS),
           MEDIAN(SLOTS) / MEDIAN(BASE_SLOTS) <= 1.25 ? "PASS" : "FAIL");
  if (FRAMEHOP_BUILT) {
    printf("goal: the cached slots collector (with roots) faster than framehop (cached, no roots): %.1f vs %.1f "
           "ns/frame: %s\n",
           MEDIAN(SLOTS), MEDIAN(FRAMEHOP), MEDIAN(SLOTS) < MEDIAN(FRAMEHOP) ? "PASS" : "FAIL");
    printf("the cached callback collector (decoded roots, registers, a call per frame) vs framehop: %.1f vs %.1f "
           "ns/frame: %.2fx the time\n",
           MEDIAN(COLLECT), MEDIAN(FRAMEHOP), MEDIAN(COLLECT) / MEDIAN(FRAMEHOP));
  }
#undef MEDIAN
  printf("cache: %llu hits, %llu misses, %llu not cached; collect's: %llu, %llu, %llu\n",
         (unsigned long long)cache.hits, (unsigned long long)cache.misses, (unsigned long long)cache.uncached,
         (unsigned long long)collect_cache.hits, (unsigned long long)collect_cache.misses,
         (unsigned long long)collect_cache.uncached);
  printf("slots' cache: %llu hits, %llu misses, %llu not cached\n", (unsigned long long)slots_cache.hits,
         (unsigned long long)slots_cache.misses, (unsigned long long)slots_cache.uncached);
  if (frames[SLOTS] != FRAMES || sums[SLOTS] != sums[LIBGCC] || slots_cache.misses != FRAMES) {
    printf("FAIL: slots: frames %d, root sum %llx (libgcc's %llx), cache misses %llu\n", frames[SLOTS],
           (unsigned long long)sums[SLOTS], (unsigned long long)sums[LIBGCC], (unsigned long long)slots_cache.misses);
    exit(1);
  }
  if (sums[CHAIN] != cursor_return_addresses(regs)) {
    printf("FAIL: the frame pointer chain did not read the cursor's return addresses\n");
    exit(1);
  }
  if (FRAMEHOP_BUILT && (frames[FRAMEHOP] != FRAMES || sums[FRAMEHOP] != sums[CHAIN])) {
    printf("FAIL: framehop: %d frames, not the cursor's return addresses\n", frames[FRAMEHOP]);
    exit(1);
  }
  for (m = BASE_COLLECT; BASE_BUILT && m <= BASE_SLOTS; m++) {
    if (frames[m] != FRAMES || sums[m] != sums[LIBGCC]) {
      printf("FAIL: %s: %d frames, root sum %llx (libgcc's %llx)\n", names[m], frames[m],
             (unsigned long long)sums[m], (unsigned long long)sums[LIBGCC]);
      exit(1);
    }
  }
  if (frames[CURSOR] != FRAMES || frames[LIBGCC] != frames[CURSOR] || frames[CHAIN] != FRAMES ||
      frames[CACHED] != FRAMES || frames[COLLECT] != FRAMES || sums[CURSOR] != sums[LIBGCC] ||
      sums[CACHED] != sums[LIBGCC] || sums[COLLECT] != sums[LIBGCC] || cache.misses != FRAMES ||
      collect_cache.misses != FRAMES) {
    printf("FAIL: frames %d/%d/%d/%d, root sums %llx/%llx/%llx/%llx, cache misses %llu/%llu\n", frames[COLLECT],
           frames[CACHED], frames[CURSOR], frames[LIBGCC], (unsigned long long)sums[COLLECT],
           (unsigned long long)sums[CACHED], (unsigned long long)sums[CURSOR], (unsigned long long)sums[LIBGCC],
           (unsigned long long)collect_cache.misses, (unsigned long long)cache.misses);
    exit(1);
  }
  return 0;
}

/* bench [BASE-NAME [EH_FRAME SIZE EH_FRAME_HDR SIZE TEXT SIZE]]: the base
 * commit's name; framehop's sections (hexadecimal). */
int main(int argc, char **argv) {
  if (argc > 1) base_name = argv[1];
#ifdef PCMAP_BENCH_FRAMEHOP
  {
    uint64_t a[6];
    int i;
    if (argc < 8) return 2;
    for (i = 0; i < 6; i++) a[i] = strtoull(argv[2 + i], NULL, 16);
    pcmap_bench_framehop_init(a[0], a[1], a[2], a[3], a[4], a[5]);
  }
#endif
#ifdef PCMAP_BENCH_BASE
  if (base_registers_size() != sizeof(pcmap_registers) || !base_open()) return 2;
#endif
  if (pcmap_open_linked(&maps, __start_pcmap_stackmaps, __stop_pcmap_stackmaps) != PCMAP_OK) return 2;
  printf("table: %llu records, %u functions, %u tables\n", (unsigned long long)maps.num_records, maps.num_functions,
         maps.num_tables);
  build_table();
  if (pcmap_walk_cache_init(&cache, cache_memory, sizeof cache_memory) != PCMAP_OK) return 2;
  if (pcmap_walk_cache_init(&collect_cache, collect_cache_memory, sizeof collect_cache_memory) != PCMAP_OK) return 2;
  if (pcmap_walk_cache_init(&slots_cache, slots_cache_memory, sizeof slots_cache_memory) != PCMAP_OK) return 2;
  bench_f0(FRAMES - 1, 1000);
  return 0;
}
