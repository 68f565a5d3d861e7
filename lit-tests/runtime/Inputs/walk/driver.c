/* The stack walk corpus test: runs chains of generated managed frames
 * (gen.py) down to a safepoint and there walks the stack twice, with the
 * pcmap cursor (the flat tables alone) and with libgcc's unwinder
 * (_Unwind_Backtrace, _Unwind_GetIP, _Unwind_GetCFA, which read .eh_frame),
 * and requires them to agree frame by frame on PC and CFA. Each managed
 * frame's stack map locations, decoded with the frame's registers as the
 * cursor restored them, must be the values the frame holds (checked by the
 * frame itself after the call returns). Every 64th safepoint walks again
 * from a signal handler, with allocation forbidden.
 *
 *   walk [CHAINS [DEEP [frames]]]   exit 0 and "ok" if every chain agreed;
 *                                   "frames": compare frames only (no root
 *                                   is moved or checked) */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

#include "corpus.h"

extern const uint8_t __start_pcmap_stackmaps[];
extern const uint8_t __stop_pcmap_stackmaps[];

enum { MAX_FRAMES = 8192, MAX_LOCATIONS = 16 };

/* The stack pointer's slot in pcmap_registers (its DWARF number). */
#if defined(__x86_64__)
#define PCMAP_SP_SLOT 7
#elif defined(__aarch64__)
#define PCMAP_SP_SLOT 31
#else
#define PCMAP_SP_SLOT 1
#endif

static pcmap_stackmaps maps;
static u64 stack_low, stack_high;
static unsigned long failures, frames_compared, values_checked, signal_walks;
static u64 expect_depth; /* managed frames below the driver, minus one */
static long chain;
static int frames_only;

volatile u64 corpus_acc;
void corpus_sink(void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }

/* What the cursor saw at each frame (frame i is the function at depth i). */
static u64 seen[MAX_FRAMES][MAX_LOCATIONS];
static unsigned seen_count[MAX_FRAMES];

static void fail(const char *what, long frame, u64 got, u64 want) {
  if (failures++ < 20)
    fprintf(stderr, "walk: chain %ld frame %ld: %s: got 0x%llx, want 0x%llx\n", chain, frame, what,
            (unsigned long long)got, (unsigned long long)want);
}

void corpus_check(u64 depth, unsigned k, u64 v) {
  if (frames_only) return;
  values_checked++;
  if (depth >= MAX_FRAMES || k >= MAX_LOCATIONS) return fail("check out of range", (long)depth, k, 0);
  if (seen[depth][k] != v) fail("stack map value", (long)depth, seen[depth][k], v);
}

/* References: opaque to the optimizer (calls), so they stay references. */
ref corpus_ref(u64 v) { return (ref)(uintptr_t)v; }
u64 corpus_unref(ref r) { return (u64)(uintptr_t)r; }

void corpus_check_root(u64 depth, unsigned k, u64 got, u64 want) {
  if (frames_only) return;
  values_checked++;
  if (got != want) fail("root not moved exactly once", (long)depth * 100 + k, got, want);
}

void corpus_check_count(u64 depth, unsigned n) {
  if (frames_only) return;
  if (depth < MAX_FRAMES && seen_count[depth] != n) fail("stack map locations", (long)depth, seen_count[depth], n);
}

/* A frame as each walker sees it: PC, and the CFA (ours: by the frame's
 * own rule; libgcc's _Unwind_GetCFA in a backtrace: the CFA of the frame
 * below, which is this frame's SP); sp: ours only. */
typedef struct frame {
  u64 pc, cfa, sp;
  int has_cfa;
} frame;

/* The roots of a walk, moved after all are read (slots may be shared). */
enum { MAX_ROOTS = 65536 };
typedef struct pending {
  pcmap_root roots[MAX_ROOTS];
  long frame[MAX_ROOTS];
  long n;
} pending;
static pending roots;
static unsigned long roots_moved;

static void collect_root(void *ctx, const pcmap_root *r) {
  pending *p = (pending *)ctx;
  if (p->n < MAX_ROOTS) p->roots[p->n++] = *r;
}

/* The value of a decoded root, and where to write its new value. */
static u64 *root_slot(const pcmap_value *v, long frame) {
  if (!v->has_address) {
    fail("root without a slot (a register saved nowhere)", frame, v->value, 0);
    return NULL;
  }
  return (u64 *)(uintptr_t)v->address;
}

/* Moves every root: base' = base ^ CORPUS_MOVE, derived' = base' +
 * (derived - base). A slot written twice must get the same value. */
static void move_roots(void) {
  static u64 *slot[2 * MAX_ROOTS];
  static u64 value[2 * MAX_ROOTS];
  long i, k, n = 0;
  for (i = 0; i < roots.n; i++) {
    u64 *b = root_slot(&roots.roots[i].base, roots.frame[i]);
    u64 *d = root_slot(&roots.roots[i].derived, roots.frame[i]);
    u64 nb, nd;
    if (!b || !d) continue;
    nb = *b ^ CORPUS_MOVE;
    nd = nb + (*d - *b);
    slot[n] = b, value[n++] = nb;
    slot[n] = d, value[n++] = nd;
  }
  for (i = 0; i < n; i++)
    for (k = 0; k < i; k++)
      if (slot[k] == slot[i] && value[k] != value[i]) fail("one slot, two new values", i, value[i], value[k]);
  for (i = 0; i < n; i++) *slot[i] = value[i];
  roots_moved += (unsigned long)roots.n;
}

static frame ours[MAX_FRAMES];

/* A cache of decoded frames (pcmap_walk_init_cached), small enough that
 * the corpus's records evict each other. */
static pcmap_walk_cache cache;
static u64 cache_memory[64 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
/* What a cached walk saw: compared with the walk without the cache. */
static u64 seen_cached[MAX_FRAMES][MAX_LOCATIONS];
static unsigned seen_count_cached[MAX_FRAMES];
static pending roots_cached;
static frame ours_cached[MAX_FRAMES];

/* Walks with the cursor from `regs` (with the cache `with`, or NULL): the
 * frames, and the status that ended the walk. Records what each frame's
 * locations hold (into `into`, `counts`) and its roots (into `p`) if
 * `record`. */
static int walk_with(const pcmap_registers *regs, frame *out, long *n, int record, pcmap_walk_cache *with,
                     pending *p, u64 (*into)[MAX_LOCATIONS], unsigned *counts) {
  pcmap_walk c;
  int s = pcmap_walk_init_cached(&c, &maps, regs, stack_low, stack_high, 0, with);
  *n = 0;
  if (s != PCMAP_OK) return s;
  for (;;) {
    frame *f = &out[*n];
    f->pc = c.regs.pc;
    f->sp = c.regs.value[PCMAP_SP_SLOT];
    f->has_cfa = pcmap_walk_cfa(&c, &f->cfa) == PCMAP_OK;
    if (!f->has_cfa) f->cfa = 0;
    if (record && c.at == PCMAP_WALK_AT_RECORD && c.record.kind == PCMAP_KIND_STATEPOINT) {
      long before = p->n, i;
      int r = pcmap_walk_roots(&c, collect_root, p);
      if (r != PCMAP_OK) fail(pcmap_strerror(r), *n, c.regs.pc, 0);
      for (i = before; i < p->n; i++) p->frame[i] = *n;
    } else if (record && c.at == PCMAP_WALK_AT_RECORD && *n < MAX_FRAMES) {
      unsigned i, count = c.record.num_locations;
      counts[*n] = count;
      for (i = 0; i < count && i < MAX_LOCATIONS; i++) {
        pcmap_value v;
        int d = pcmap_walk_decode(&c, i, &v);
        if (d != PCMAP_OK) {
          fail(pcmap_strerror(d), *n, i, 0);
          into[*n][i] = 0xdeadbeef;
        } else {
          into[*n][i] = v.has_value ? v.value : *(const u64 *)(uintptr_t)v.address;
        }
      }
    }
    (*n)++;
    if (*n == MAX_FRAMES) return PCMAP_ERR_BAD_STACK;
    s = pcmap_walk_step(&c);
    if (s != PCMAP_OK) return s;
  }
}

static int walk_cursor(const pcmap_registers *regs, frame *out, long *n, int record) {
  return walk_with(regs, out, n, record, NULL, &roots, seen, seen_count);
}

static int same_value(const pcmap_value *a, const pcmap_value *b) {
  return a->value == b->value && a->address == b->address && a->has_value == b->has_value &&
         a->has_address == b->has_address;
}

/* The walk with the cache must see what the walk without it saw (`s`, `n`
 * frames in `ours`, the roots, the decoded values). */
static void compare_cached(const pcmap_registers *regs, int s, long n, const char *pass) {
  long m, i;
  unsigned k;
  int t;
  roots_cached.n = 0;
  t = walk_with(regs, ours_cached, &m, !frames_only, &cache, &roots_cached, seen_cached, seen_count_cached);
  if (t != s || m != n) {
    fprintf(stderr, "walk: chain %ld: %s cached walk: status %d, %ld frames; without the cache %d, %ld\n", chain,
            pass, t, m, s, n);
    failures++;
    return;
  }
  for (i = 0; i < n; i++)
    if (ours_cached[i].pc != ours[i].pc || ours_cached[i].sp != ours[i].sp || ours_cached[i].cfa != ours[i].cfa ||
        ours_cached[i].has_cfa != ours[i].has_cfa)
      fail(pass[0] == 'c' ? "cold cached walk: frame" : "warm cached walk: frame", i, ours_cached[i].cfa, ours[i].cfa);
  if (frames_only) return;
  if (roots_cached.n != roots.n) fail("cached walk: roots", 0, (u64)roots_cached.n, (u64)roots.n);
  for (i = 0; i < roots.n && i < roots_cached.n; i++) {
    const pcmap_root *a = &roots_cached.roots[i], *b = &roots.roots[i];
    if (!same_value(&a->base, &b->base) || !same_value(&a->derived, &b->derived) || a->base_index != b->base_index ||
        a->derived_index != b->derived_index || roots_cached.frame[i] != roots.frame[i])
      fail("cached walk: root", i, a->base.address, b->base.address);
  }
  for (i = 0; i < n && i < MAX_FRAMES; i++) {
    if (seen_count[i] == 0xffffffffu) continue;
    if (seen_count_cached[i] != seen_count[i]) fail("cached walk: locations", i, seen_count_cached[i], seen_count[i]);
    for (k = 0; k < seen_count[i] && k < MAX_LOCATIONS; k++)
      if (seen_cached[i][k] != seen[i][k]) fail("cached walk: decoded value", i, seen_cached[i][k], seen[i][k]);
  }
}

/* What a walk visits, root by root and frame by frame: the one-call
 * collector (pcmap_walk_collect) must visit what the cursor does. */
typedef struct visited {
  pcmap_root roots[MAX_ROOTS];
  u64 pc[MAX_ROOTS];
  unsigned depth[MAX_ROOTS];
  long n;
  u64 frame_pc[MAX_FRAMES], frame_sp[MAX_FRAMES];
  unsigned frame_depth[MAX_FRAMES], frame_roots[MAX_FRAMES];
  long frames;
} visited;
static visited visits_ref, visits_got;
static pcmap_walk_cache collect_cache;
static u64 collect_cache_memory[64 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
static visited *visiting;
static unsigned long slot_frames, slots_given;

static void add_frame(visited *v, const pcmap_registers *r, unsigned depth, unsigned n) {
  if (v->frames && v->frame_depth[v->frames - 1] == depth) {
    /* A frame's roots in several calls (more than 32). */
    v->frame_roots[v->frames - 1] += n;
  } else if (v->frames < MAX_FRAMES) {
    v->frame_pc[v->frames] = r->pc;
    v->frame_sp[v->frames] = r->value[PCMAP_SP_SLOT];
    v->frame_depth[v->frames] = depth;
    v->frame_roots[v->frames++] = n;
  }
}

static void add_root(visited *v, const pcmap_root *r, u64 pc, unsigned depth) {
  if (v->n >= MAX_ROOTS) return;
  v->roots[v->n] = *r;
  v->pc[v->n] = pc;
  v->depth[v->n++] = depth;
}

static void cursor_root(void *ctx, const pcmap_root *r) {
  const pcmap_walk *c = (const pcmap_walk *)ctx;
  add_root(visiting, r, c->regs.pc, c->depth);
}

/* The cursor's roots at every frame with a record, until a step (or a
 * frame's roots) fails: that status. */
static int cursor_visits(const pcmap_registers *regs, pcmap_walk_cache *with, visited *v) {
  pcmap_walk c;
  int s = pcmap_walk_init_cached(&c, &maps, regs, stack_low, stack_high, 0, with);
  v->n = v->frames = 0;
  visiting = v;
  if (s != PCMAP_OK) return s;
  for (;;) {
    if (c.at == PCMAP_WALK_AT_RECORD) {
      long before = v->n;
      s = pcmap_walk_roots(&c, cursor_root, &c);
      if (s != PCMAP_OK) return s;
      add_frame(v, &c.regs, c.depth, (unsigned)(v->n - before));
    }
    s = pcmap_walk_step(&c);
    if (s != PCMAP_OK) return s;
  }
}

static void collect_frame(void *ctx, const pcmap_walk_frame *f) {
  visited *v = (visited *)ctx;
  unsigned i;
  for (i = 0; i < f->num_roots; i++) add_root(v, &f->roots[i], f->regs->pc, f->depth);
  add_frame(v, f->regs, f->depth, f->num_roots);
}

static int collect_visits(const pcmap_registers *regs, pcmap_walk_cache *with, visited *v) {
  v->n = v->frames = 0;
  return pcmap_walk_collect(with, &maps, regs, stack_low, stack_high, 0, collect_frame, v);
}

static void compare_visits(const char *what, int want, int got) {
  const visited *a = &visits_got, *b = &visits_ref;
  long i;
  if (got != want || a->frames != b->frames || a->n != b->n) {
    fprintf(stderr, "walk: chain %ld: %s: status %d, %ld frames, %ld roots; the cursor's %d, %ld, %ld\n", chain, what,
            got, a->frames, a->n, want, b->frames, b->n);
    failures++;
    return;
  }
  for (i = 0; i < a->frames; i++)
    if (a->frame_pc[i] != b->frame_pc[i] || a->frame_sp[i] != b->frame_sp[i] ||
        a->frame_depth[i] != b->frame_depth[i] || a->frame_roots[i] != b->frame_roots[i]) {
      fprintf(stderr, "walk: chain %ld: %s: frame %ld: pc %llx sp %llx depth %u, %u roots; the cursor's %llx %llx %u, %u\n",
              chain, what, i, (unsigned long long)a->frame_pc[i], (unsigned long long)a->frame_sp[i],
              a->frame_depth[i], a->frame_roots[i], (unsigned long long)b->frame_pc[i],
              (unsigned long long)b->frame_sp[i], b->frame_depth[i], b->frame_roots[i]);
      failures++;
      return;
    }
  for (i = 0; i < a->n; i++) {
    const pcmap_root *x = &a->roots[i], *y = &b->roots[i];
    if (!same_value(&x->base, &y->base) || !same_value(&x->derived, &y->derived) || x->base_index != y->base_index ||
        x->derived_index != y->derived_index || a->pc[i] != b->pc[i] || a->depth[i] != b->depth[i]) {
      fprintf(stderr, "walk: chain %ld: %s: root %ld (frame %u): slot %llx; the cursor's %llx (frame %u)\n", chain, what,
              i, a->depth[i], (unsigned long long)x->base.address, (unsigned long long)y->base.address, b->depth[i]);
      failures++;
      return;
    }
  }
}

/* The slots collector (pcmap_walk_collect_slots): every root's slot
 * addresses, through the smallest buffer it takes (32 slots: passed to
 * `full` again and again), with a cache of its own. */
static pcmap_walk_cache slots_cache;
static u64 slots_cache_memory[64 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
static pcmap_root_slot slots_buffer[32];
static struct {
  pcmap_root_slot s[MAX_ROOTS];
  long n;
} slots_got;

static void slots_full(void *ctx, const pcmap_root_slot *s, uint32_t n) {
  uint32_t i;
  (void)ctx;
  for (i = 0; i < n; i++)
    if (slots_got.n < MAX_ROOTS) slots_got.s[slots_got.n++] = s[i];
}

/* The slots collector must give the slot addresses of the cursor's roots
 * (`visits_ref`, status `want`), frame after frame, and stop with
 * PCMAP_STOP_NO_SLOT at the first frame with a root that has no address
 * (a Direct location, a constant, a register saved nowhere). */
static void compare_slots(const char *what, const pcmap_registers *regs, int want, pcmap_walk_cache *with) {
  const visited *b = &visits_ref;
  pcmap_slot_buffer buf;
  long f, i, r = 0, n = 0;
  unsigned frames = 0;
  int got;
  buf.slots = slots_buffer;
  buf.capacity = 32;
  buf.full = slots_full;
  buf.ctx = NULL;
  slots_got.n = 0;
  got = pcmap_walk_collect_slots(with, &maps, regs, stack_low, stack_high, 0, &buf);
  slots_full(NULL, slots_buffer, buf.count);
  for (f = 0; f < b->frames; f++, frames++) {
    int all = 1;
    for (i = r; i < r + (long)b->frame_roots[f]; i++)
      all &= b->roots[i].base.has_address && b->roots[i].derived.has_address;
    if (!all) {
      want = PCMAP_STOP_NO_SLOT;
      break;
    }
    r += b->frame_roots[f];
  }
  if (got != want || buf.frames != frames || slots_got.n != r) {
    fprintf(stderr, "walk: chain %ld: %s: status %d, %u frames, %ld slots; the cursor's %d, %u, %ld\n", chain, what, got,
            buf.frames, slots_got.n, want, frames, r);
    failures++;
    return;
  }
  for (n = 0; n < r; n++)
    if (slots_got.s[n].base != b->roots[n].base.address || slots_got.s[n].derived != b->roots[n].derived.address) {
      fprintf(stderr, "walk: chain %ld: %s: slot %ld (frame %u): %llx %llx; the cursor's %llx %llx\n", chain, what, n,
              b->depth[n], (unsigned long long)slots_got.s[n].base, (unsigned long long)slots_got.s[n].derived,
              (unsigned long long)b->roots[n].base.address, (unsigned long long)b->roots[n].derived.address);
      failures++;
      return;
    }
  slot_frames += frames;
  slots_given += (unsigned long)r;
}

/* The collector, without a cache, cold and warm, against the cursor
 * without the cache; and the cursor with the cache, against it too; and
 * the slots collector, likewise. */
static void compare_collect(const pcmap_registers *regs) {
  int want = cursor_visits(regs, NULL, &visits_ref);
  compare_visits("cursor with the cache", want, cursor_visits(regs, &cache, &visits_got));
  compare_visits("collect without a cache", want, collect_visits(regs, NULL, &visits_got));
  if (pcmap_walk_cache_flush(&collect_cache) != PCMAP_OK) fail("pcmap_walk_cache_flush", 0, 0, 0);
  compare_visits("cold collect", want, collect_visits(regs, &collect_cache, &visits_got));
  compare_visits("warm collect", want, collect_visits(regs, &collect_cache, &visits_got));
  compare_slots("slots without a cache", regs, want, NULL);
  if (pcmap_walk_cache_flush(&slots_cache) != PCMAP_OK) fail("pcmap_walk_cache_flush", 0, 0, 0);
  compare_slots("cold slots", regs, want, &slots_cache);
  compare_slots("warm slots", regs, want, &slots_cache);
}

/* libgcc's view. */
typedef struct gcc_walk {
  frame frames[MAX_FRAMES + 16];
  long n;
} gcc_walk;

static _Unwind_Reason_Code gcc_frame(struct _Unwind_Context *ctx, void *arg) {
  gcc_walk *w = (gcc_walk *)arg;
  if (w->n == MAX_FRAMES + 16) return _URC_END_OF_STACK;
  w->frames[w->n].pc = _Unwind_GetIP(ctx);
  w->frames[w->n].cfa = _Unwind_GetCFA(ctx);
  w->n++;
  return _URC_NO_REASON;
}

static gcc_walk theirs;
static const pcmap_registers *signal_regs;
static volatile int in_walk;
static long signal_n;
static int signal_status;
static frame signal_frames[MAX_FRAMES];

/* The walk from a signal handler: nothing it calls may allocate (malloc
 * below aborts while in_walk is set). */
static void on_signal(int sig) {
  (void)sig;
  in_walk = 1;
  signal_status = walk_cursor(signal_regs, signal_frames, &signal_n, 0);
  in_walk = 0;
}

u64 corpus_safepoint(pcmap_registers *regs, u64 path, u64 a2, u64 a3, u64 a4, u64 a5) {
  long n, i, j, managed = (long)expect_depth + 2; /* and corpus_entry */
  int s;
  (void)path, (void)a2, (void)a3, (void)a4, (void)a5;
  roots.n = 0;
  s = walk_cursor(regs, ours, &n, !frames_only);
  if (s != PCMAP_STOP_UNMANAGED) fail(pcmap_strerror(s), n - 1, n ? ours[n - 1].pc : 0, PCMAP_STOP_UNMANAGED);
  /* The managed frames, then the driver's frame, where the walk stops. */
  if (n != managed + 1) fail("frames walked (got: the last PC)", n, n ? ours[n - 1].pc : 0, (u64)managed + 1);
  /* Twice with the cache: its entries of this chain's frames are filled
   * by the first (or earlier chains), used by the second. */
  compare_cached(regs, s, n, "cold");
  compare_cached(regs, s, n, "warm");
  if (!frames_only) compare_collect(regs);
  theirs.n = 0;
  _Unwind_Backtrace(gcc_frame, &theirs);
  for (j = 0; j < theirs.n && theirs.frames[j].pc != regs->pc; j++) {
  }
  if (j == theirs.n) {
    fail("safepoint's return address not in libgcc's backtrace", 0, regs->pc, 0);
    return 0;
  }
  for (i = 0; i < n && i < managed + 1; i++) {
    frame *o = &ours[i], *t = &theirs.frames[j + i];
    if (j + i >= theirs.n) {
      fail("libgcc's backtrace ended", i, 0, 0);
      break;
    }
    frames_compared++;
    if (o->pc != t->pc) fail("pc", i, o->pc, t->pc);
    /* libgcc's CFA of a frame in a backtrace is the one of the frame it
     * was unwound from: the frame's SP. */
    if (o->sp != t->cfa) fail("sp (libgcc's CFA of the frame below)", i, o->sp, t->cfa);
    if (i < managed) {
      if (!o->has_cfa) fail("no CFA", i, 0, 0);
      else if (j + i + 1 < theirs.n && o->cfa != t[1].cfa) fail("cfa", i, o->cfa, t[1].cfa);
    }
  }
  if (chain % 64 == 0) {
    /* Before anything moves. */
    signal_regs = regs;
    raise(SIGUSR1);
    signal_walks++;
    if (signal_status != s || signal_n != n) fail("walk in the signal handler", signal_n, (u64)signal_status, (u64)s);
    for (i = 0; i < n && i < signal_n; i++)
      if (signal_frames[i].pc != ours[i].pc || signal_frames[i].cfa != ours[i].cfa)
        fail("signal handler's frame", i, signal_frames[i].pc, ours[i].pc);
  }
  if (!frames_only) move_roots();
  return 0;
}

/* Allocation is forbidden while the signal handler walks. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
void *malloc(size_t n) {
  if (in_walk) abort();
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
  if (in_walk) abort();
  return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  if (in_walk) abort();
  return __libc_realloc(p, n);
}
void free(void *p) {
  if (in_walk) abort();
  __libc_free(p);
}

static u64 next_random(u64 *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

int main(int argc, char **argv) {
  long chains = argc > 1 ? atol(argv[1]) : 2000, deep = argc > 2 ? atol(argv[2]) : 3000;
  frames_only = argc > 3 && strcmp(argv[3], "frames") == 0;
  u64 rng = 0x9e3779b97f4a7c15ull;
  pthread_attr_t attr;
  void *addr;
  size_t size;
  struct sigaction sa;
  int s = pcmap_open_linked(&maps, __start_pcmap_stackmaps, __stop_pcmap_stackmaps);
  if (s == PCMAP_OK) s = pcmap_validate(&maps);
  if (s != PCMAP_OK) {
    fprintf(stderr, "walk: pcmap_stackmaps: %s\n", pcmap_strerror(s));
    return 2;
  }
  /* The walk reads the stack only, within the main thread's stack. */
  if (pthread_getattr_np(pthread_self(), &attr) || pthread_attr_getstack(&attr, &addr, &size)) return 2;
  stack_low = (u64)(uintptr_t)addr;
  stack_high = stack_low + size;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGUSR1, &sa, NULL);
  if (pcmap_walk_cache_init(&cache, cache_memory, sizeof cache_memory) != PCMAP_OK) return 2;
  if (pcmap_walk_cache_init(&collect_cache, collect_cache_memory, sizeof collect_cache_memory) != PCMAP_OK) return 2;
  if (pcmap_walk_cache_init(&slots_cache, slots_cache_memory, sizeof slots_cache_memory) != PCMAP_OK) return 2;
  for (chain = 0; chain < chains; chain++) {
    unsigned entry = (unsigned)(chain % (corpus_entries + 1));
    u64 r = next_random(&rng);
    u64 depth = entry == corpus_entries ? (u64)(chain % 7) * 3 + 1 : r % 24;
    if (chain == chains - 1 && deep > 0) entry = corpus_entries, depth = (u64)deep;
    expect_depth = depth;
    memset(seen_count, 0xff, sizeof seen_count[0] * (depth + 2 < MAX_FRAMES ? depth + 2 : MAX_FRAMES));
    corpus_entry(entry, depth, r >> 8, r * 7, r ^ 0x5555);
  }
  printf("walk: %ld chains, %lu frames compared with libgcc, %lu roots moved, %lu values checked, %lu walks in a signal handler, %lu failures\n",
         chains, frames_compared, roots_moved, values_checked, signal_walks, failures);
  /* The cached walks used the cache (to stderr: the count depends on the
   * corpus). */
  fprintf(stderr, "walk: cache: %llu hits, %llu misses, %llu not cached\n", (unsigned long long)cache.hits,
          (unsigned long long)cache.misses, (unsigned long long)cache.uncached);
  fprintf(stderr, "walk: collect cache: %llu hits, %llu misses, %llu not cached\n",
          (unsigned long long)collect_cache.hits, (unsigned long long)collect_cache.misses,
          (unsigned long long)collect_cache.uncached);
  fprintf(stderr, "walk: slots cache: %llu hits, %llu misses, %llu not cached; %lu frames, %lu roots' slots given\n",
          (unsigned long long)slots_cache.hits, (unsigned long long)slots_cache.misses,
          (unsigned long long)slots_cache.uncached, slot_frames, slots_given);
  if (cache.hits == 0 || cache.misses == 0 ||
      (!frames_only && (collect_cache.hits == 0 || collect_cache.misses == 0 || slots_cache.hits == 0 ||
                        slots_cache.misses == 0 || slot_frames == 0))) {
    printf("FAIL: the cache was not used\n");
    return 1;
  }
  if (failures) {
    printf("FAIL\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
