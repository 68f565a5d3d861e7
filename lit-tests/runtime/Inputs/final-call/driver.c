/* final-call-*.test: frames whose return address is the next function's
 * first byte (program.*.ll: leaf, tc_a and tc_b end with a call, and the
 * function after each follows with no padding). The safepoint in `leaf`
 * walks the stack by every route of the C API, through the program's
 * section and through the registry, and prints each route's frames (by
 * the function the frame's PC returns into), whether the root `outer`
 * keeps live across its call was found, and the status the walk ended
 * with; the lookups of those return addresses by hand too. Then it exits:
 * the frames above it end with `unreachable`.
 *
 *   walk            every route (the program's section registered by hand)
 *   walk full       the registry filled with 128 other sections first: the
 *                   program's is refused (registry full)
 *   walk corrupt    the program's section registered with a bad magic:
 *                   refused (corrupt)
 *
 * The premise is shown, not assumed: a frame whose PC is the next
 * function's first byte is printed with a `*` (every final-call frame
 * must be). PowerPC64 (STACKMAPS): `leaf` calls the library, after which
 * a TOC restore comes: a plain frame there. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcmap.h"

extern const uint8_t __start_pcmap_stackmaps[];
extern const uint8_t __stop_pcmap_stackmaps[];

void outer(void *obj);
void leaf(void);
void tc_a(void);
void mid(void *obj);
void tc_b(void);
int64_t after(int64_t);

/* The object `outer` keeps live across its call (statepoints), or the
 * value it lists in its stack map (PowerPC64). */
#ifdef STACKMAPS
#define ROOT_VALUE 0x5eed0001u
uint64_t opaque(uint64_t x) {
  (void)x;
  return ROOT_VALUE;
}
#else
static uint64_t object[4];
#define ROOT_VALUE ((uint64_t)(uintptr_t)object)
void use(void *p) { (void)p; }
#endif

static pcmap_stackmaps maps;
static const char *mode = "";

/* A function's first instruction (ELFv1: through its descriptor). */
static uint64_t code(void (*f)(void)) {
#if defined(__powerpc64__) && defined(_CALL_ELF) && _CALL_ELF == 1
  return *(const uint64_t *)(uintptr_t)f;
#else
  return (uint64_t)(uintptr_t)f;
#endif
}

/* The function a frame's PC returns into (the one holding the byte
 * before it), marked `*` when the PC is the next function's first byte. */
static const char *frame_name(uint64_t pc) {
  static const char *const names[] = {"outer", "leaf", "tc_a", "tc_b"};
  static const char *const marked[] = {"outer*", "leaf*", "tc_a*", "tc_b*"};
  uint64_t start[4], end[4];
  int i;
  start[0] = code((void (*)(void))outer), end[0] = code(leaf);
  start[1] = code(leaf), end[1] = code(tc_a);
  start[2] = code(tc_a), end[2] = code((void (*)(void))mid);
  start[3] = code(tc_b), end[3] = code((void (*)(void))after);
  for (i = 0; i < 4; i++)
    if (pc > start[i] && pc <= end[i]) return pc == end[i] ? marked[i] : names[i];
  return "?";
}

/* One route's frames, the root found in outer's frame, the status. */
typedef struct route {
  char frames[256];
  int root_found;
  int roots;
} route;

static void add_frame(route *r, uint64_t pc) {
  size_t n = strlen(r->frames);
  snprintf(r->frames + n, sizeof r->frames - n, "%s%s", n ? " " : "", frame_name(pc));
}

static void print_route(const char *name, route *r, int status) {
  printf("%s: %s; root %s; %s\n", name, r->frames[0] ? r->frames : "(none)",
         r->root_found ? "found" : "missed", pcmap_strerror(status));
}

/* The root's value through a decoded location. */
static void check_value(route *r, const pcmap_value *v) {
  uint64_t got = v->has_address ? *(const uint64_t *)(uintptr_t)v->address : v->value;
  if (got == ROOT_VALUE) r->root_found = 1;
  r->roots++;
}

static void on_root(void *ctx, const pcmap_root *root) { check_value((route *)ctx, &root->base); }

static void on_frame(void *ctx, const pcmap_walk_frame *f) {
  route *r = (route *)ctx;
  uint32_t i;
  add_frame(r, f->regs->pc);
  for (i = 0; i < f->num_roots; i++) check_value(r, &f->roots[i].base);
}

static void cursor(const char *name, const pcmap_registers *regs, uint32_t flags, pcmap_walk_cache *cache) {
  route r = {{0}, 0, 0};
  pcmap_walk c;
  int s = pcmap_walk_init_cached(&c, flags & PCMAP_WALK_REGISTRY ? NULL : &maps, regs, 0, 0, flags, cache);
  while (s == PCMAP_OK) {
    if (c.at == PCMAP_WALK_AT_RECORD) {
      add_frame(&r, c.regs.pc);
      s = pcmap_walk_roots(&c, on_root, &r);
      if (s != PCMAP_OK) break;
    }
    s = pcmap_walk_step(&c);
  }
  print_route(name, &r, s);
}

static void collect(const char *name, const pcmap_registers *regs, uint32_t flags, pcmap_walk_cache *cache) {
  route r = {{0}, 0, 0};
  int s = pcmap_walk_collect(cache, flags & PCMAP_WALK_REGISTRY ? NULL : &maps, regs, 0, 0, flags, on_frame, &r);
  print_route(name, &r, s);
}

static void slots(const char *name, const pcmap_registers *regs, uint32_t flags, pcmap_walk_cache *cache) {
  route r = {{0}, 0, 0};
  pcmap_root_slot buffer[64];
  pcmap_slot_buffer b = {buffer, 64, 0, 0, NULL, NULL};
  uint32_t i;
  int s = pcmap_walk_collect_slots(cache, flags & PCMAP_WALK_REGISTRY ? NULL : &maps, regs, 0, 0, flags, &b);
  snprintf(r.frames, sizeof r.frames, "%u frames", b.frames);
  for (i = 0; i < b.count; i++)
    if (*(const uint64_t *)(uintptr_t)buffer[i].base == ROOT_VALUE) r.root_found = 1;
  print_route(name, &r, s);
}

/* pcmap_find, pcmap_find_site and pcmap_find_function at the return
 * address of a call that ends `before`: the first byte of `next`. */
static void lookups(const char *name, void (*before)(void), void (*next)(void)) {
  uint64_t pc = code(next);
  pcmap_function f;
  pcmap_record rec;
  pcmap_site site;
  int s = pcmap_find(&maps, pc, &f, &rec);
  printf("find %s's return address: %s", name, pcmap_strerror(s));
  if (s == PCMAP_OK) printf(", %s", f.address == code(before) ? "its function" : "another function");
  s = pcmap_find_site(&maps, pc, &site);
  printf("; site: %s", pcmap_strerror(s));
  s = pcmap_registry_find(pc, &f, &rec);
  printf("; registry: %s", pcmap_strerror(s));
  if (s == PCMAP_OK) printf(", %s", f.address == code(before) ? "its function" : "another function");
  s = pcmap_find_function(&maps, pc, PCMAP_PC_RETURN_ADDRESS, &f);
  printf("; function: %s", s == PCMAP_OK ? (f.address == code(before) ? "its own" : "another") : pcmap_strerror(s));
  s = pcmap_find_function(&maps, pc, PCMAP_PC_INSTRUCTION, &f);
  printf("; the byte as an instruction's: %s\n",
         s == PCMAP_OK ? (f.address == code(next) ? "the next function" : "another") : pcmap_strerror(s));
}

/* A first frame at mid's first byte: as a return address it is tc_a's (at
 * its record), as an interrupted instruction's (PCMAP_WALK_INTERRUPTED)
 * it is mid's (no record at its first byte). */
static void first_frame(const pcmap_registers *regs) {
  static const char *const at[] = {"unmanaged", "no record", "record"};
  uint32_t flags[2] = {0, PCMAP_WALK_INTERRUPTED};
  pcmap_registers r = *regs;
  pcmap_walk c;
  int i;
  r.pc = code((void (*)(void))mid);
  for (i = 0; i < 2; i++) {
    int s = pcmap_walk_init(&c, &maps, &r, 0, 0, flags[i]);
    printf("first frame at mid's first byte, %s: %s", i ? "interrupted" : "returned to", pcmap_strerror(s));
    if (s == PCMAP_OK && c.at != PCMAP_WALK_AT_UNMANAGED)
      printf(", %s, %s\n", c.function.address == code(tc_a) ? "tc_a" : c.function.address == r.pc ? "mid" : "?",
             at[c.at]);
    else
      printf("\n");
  }
}

static uint64_t cache_memory[4 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];

uint64_t handler(pcmap_registers *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5) {
  pcmap_walk_cache cache;
  (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
  if (strcmp(mode, "walk") != 0) {
    /* A refused image: the walk must not take its frames for unmanaged. */
    cursor("registry cursor", regs, PCMAP_WALK_REGISTRY, NULL);
    collect("registry collect", regs, PCMAP_WALK_REGISTRY | PCMAP_WALK_FRAME_POINTER_CHAIN, NULL);
    slots("registry slots", regs, PCMAP_WALK_REGISTRY, NULL);
    exit(0);
  }
  if (pcmap_walk_cache_init(&cache, cache_memory, sizeof cache_memory) != PCMAP_OK) exit(3);
  cursor("cursor", regs, 0, NULL);
  cursor("cursor, cache (cold)", regs, 0, &cache);
  cursor("cursor, cache (warm)", regs, 0, &cache);
  collect("collect", regs, 0, NULL);
  collect("collect, cache (warm)", regs, 0, &cache);
  slots("slots", regs, 0, NULL);
  slots("slots, cache (cold)", regs, 0, &cache);
  slots("slots, cache (warm)", regs, 0, &cache);
  cursor("registry cursor", regs, PCMAP_WALK_REGISTRY, NULL);
  collect("registry collect", regs, PCMAP_WALK_REGISTRY, &cache);
  slots("registry slots", regs, PCMAP_WALK_REGISTRY, &cache);
#ifndef STACKMAPS
  lookups("leaf", leaf, tc_a);
#endif
  lookups("tc_a", tc_a, (void (*)(void))mid);
  lookups("tc_b", tc_b, (void (*)(void))after);
  first_frame(regs);
  fflush(stdout);
  exit(0);
}

int main(int argc, char **argv) {
  size_t size = (size_t)(__stop_pcmap_stackmaps - __start_pcmap_stackmaps);
  int s;
  mode = argc > 1 ? argv[1] : "walk";
  s = pcmap_open_linked(&maps, __start_pcmap_stackmaps, __stop_pcmap_stackmaps);
  if (s != PCMAP_OK) {
    printf("open: %s\n", pcmap_strerror(s));
    return 1;
  }
  /* A NULL handler is refused like every NULL callback: nothing called. */
  printf("capture_call(NULL): %s\n",
         pcmap_capture_call(NULL, 1, 2, 3, 4, 5) == (uint64_t)(int64_t)PCMAP_ERR_ARGUMENT ? "refused" : "?");
  if (!strcmp(mode, "walk")) {
    s = pcmap_registry_add(__start_pcmap_stackmaps, size);
    if (s != PCMAP_OK) printf("registry_add: %s\n", pcmap_strerror(s));
  } else if (!strcmp(mode, "full")) {
    /* Copies elsewhere: other sections (their code is elsewhere too). */
    int i;
    for (i = 0; i < PCMAP_REGISTRY_CAPACITY; i++) {
      uint8_t *copy = aligned_alloc(8, (size + 7) & ~(size_t)7);
      memcpy(copy, __start_pcmap_stackmaps, size);
      __pcmap_stackmaps_add(PCMAP_STACKMAPS_VERSION, (const char *)copy, (const char *)copy + size);
    }
    __pcmap_stackmaps_add(PCMAP_STACKMAPS_VERSION, (const char *)__start_pcmap_stackmaps,
                          (const char *)__stop_pcmap_stackmaps);
  } else if (!strcmp(mode, "corrupt")) {
    uint8_t *copy = aligned_alloc(8, (size + 7) & ~(size_t)7);
    memcpy(copy, __start_pcmap_stackmaps, size);
    copy[0] ^= 0xff;
    __pcmap_stackmaps_add(PCMAP_STACKMAPS_VERSION, (const char *)copy, (const char *)copy + size);
  } else {
    return 2;
  }
  if (strcmp(mode, "walk") != 0) {
    pcmap_registry_summary info;
    pcmap_registry_info(&info);
    printf("registry: %u images, %" PRIu64 " refused: %s\n", info.images, info.rejected,
           pcmap_strerror(info.last_rejection));
  }
  fflush(stdout);
#ifdef STACKMAPS
  outer(NULL);
#else
  outer(object);
#endif
  return 1;
}
