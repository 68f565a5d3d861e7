/* A runtime whose program and a shared object it dlopen()s both have
 * managed frames. Each image's constructor (the pcmap plugin's) registers
 * its pcmap_stackmaps section with libpcmap's registry; the collector walks
 * the stack with libgcc's unwinder, looks each return address up in the
 * registry, and moves the object each managed frame's stack map names.
 * After dlclose() the shared object's tables must be gone from the registry.
 *
 * Then the same with the library's own walker: pcmap_capture_call in the
 * collector, pcmap_walk_init with PCMAP_WALK_REGISTRY (each frame's PC
 * looked up in the registered images) and PCMAP_WALK_FRAME_POINTER_CHAIN
 * (through the C frames between the managed ones: this file is compiled
 * with frame pointers), pcmap_walk_roots moving each root.
 *
 *   main ./libmanaged.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

#include "pcmap.h"

/* The stack pointer's slot in pcmap_registers (its DWARF number). */
#if defined(__x86_64__)
#define SP_SLOT 7
#elif defined(__aarch64__)
#define SP_SLOT 31
#else
#define SP_SLOT 1
#endif

void *main_frame(void *obj, void (*next)(void)); /* main-frame.ll */
typedef void *(*frame_fn)(void *obj, void (*next)(void));

static frame_fn so_frame;
static void *so_result;
/* Objects A and B, and where the collector moves them: A', B'. */
static char heap[4][16];
static const char *const names[4] = {"A", "B", "A'", "B'"};
static uint64_t so_record_pc;

static void fail(const char *what, pcmap_status s) {
  printf("FAIL: %s: %s\n", what, pcmap_strerror(s));
  exit(1);
}

static const char *name_of(const void *p) {
  for (int i = 0; i < 4; i++)
    if (p == heap[i]) return names[i];
  return "?";
}

/* The file name of the image holding `pc`. */
static const char *image_of(uint64_t pc) {
  Dl_info info;
  if (!dladdr((void *)(uintptr_t)pc, &info) || !info.dli_fname) return "?";
  const char *slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

static _Unwind_Reason_Code visit(struct _Unwind_Context *ctx, void *arg) {
  int *managed = arg;
  uint64_t pc = _Unwind_GetIP(ctx);
  pcmap_function fn;
  pcmap_record rec;
  /* The stack map follows the call: at or after the return address. */
  pcmap_status s = pcmap_registry_find_at_or_after(pc, &fn, &rec);
  if (s == PCMAP_NOT_FOUND) return _URC_NO_REASON; /* an unmanaged frame */
  if (s != PCMAP_OK) fail("registry lookup", s);
  pcmap_location loc;
  if ((s = pcmap_location_at(&rec, 0, &loc)) != PCMAP_OK) fail("location", s);
  /* The frame's register the location names, as libgcc restored it. */
  pcmap_register reg = {loc.dwarf_reg, (uint64_t)_Unwind_GetGR(ctx, loc.dwarf_reg), 0};
  pcmap_value v;
  if ((s = pcmap_decode(&rec, 0, &reg, 1, &v)) != PCMAP_OK) fail("decode", s);
  if (loc.kind != PCMAP_LOCATION_DIRECT || !v.has_value) {
    printf("FAIL: record %" PRIu64 ": location kind %u, not Direct\n", rec.id, loc.kind);
    exit(1);
  }
  void **slot = (void **)(uintptr_t)v.value;
  int i = *slot == heap[0] ? 0 : *slot == heap[1] ? 1 : -1;
  if (i < 0) {
    printf("FAIL: record %" PRIu64 ": the slot holds %p, no object\n", rec.id, *slot);
    exit(1);
  }
  *slot = heap[i + 2];
  if (rec.id == 2) so_record_pc = rec.address;
  printf("frame in %s, record %" PRIu64 ": root %s moved to %s\n", image_of(fn.address), rec.id,
         names[i], names[i + 2]);
  ++*managed;
  return _URC_NO_REASON;
}

/* The library's walker. Stack reads stay between the captured stack
 * pointer and `stack_top` (a local of main: the walk ends at main's
 * frame, whose frame pointer chain goes above it). */
static uintptr_t stack_top;
static bool use_walker;

static void move_root(void *ctx, const pcmap_root *r) {
  const pcmap_walk *c = ctx;
  /* A Direct location: the slot's address is the root's value. */
  if (!r->base.has_value || r->base_index != r->derived_index) {
    printf("FAIL: record %" PRIu64 ": not a Direct stack map root\n", c->record.id);
    exit(1);
  }
  void **slot = (void **)(uintptr_t)r->base.value;
  int i = *slot == heap[0] ? 0 : *slot == heap[1] ? 1 : -1;
  if (i < 0) {
    printf("FAIL: record %" PRIu64 ": the slot holds %p, no object\n", c->record.id, *slot);
    exit(1);
  }
  *slot = heap[i + 2];
  if (c->record.id == 2) so_record_pc = c->record.address;
  printf("walk: frame in %s, record %" PRIu64 ": root %s moved to %s\n", image_of(c->function.address),
         c->record.id, names[i], names[i + 2]);
}

/* The walker's cache of decoded frames (pcmap_walk_init_cached): filled
 * while libmanaged.so is loaded, it must not answer for its PCs after
 * dlclose (the registry's generation changed: the cache is emptied). */
static pcmap_walk_cache cache;
static uint64_t cache_memory[16 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];

static uint64_t walk_and_collect(pcmap_registers *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                 uint64_t a5) {
  (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
  pcmap_walk c;
  int managed = 0;
  /* The slots collector first, with the cache and without: these roots
   * are Direct locations (the slot's address is the root's value; no slot
   * holds a pointer to it), so it stops at the first managed frame,
   * giving nothing. */
  static pcmap_root_slot slots[32];
  pcmap_slot_buffer b = {slots, 32, 0, 0, NULL, NULL}, u = b;
  pcmap_status s = pcmap_walk_collect_slots(&cache, NULL, regs, regs->value[SP_SLOT], stack_top,
                                            PCMAP_WALK_REGISTRY | PCMAP_WALK_FRAME_POINTER_CHAIN, &b);
  pcmap_status t = pcmap_walk_collect_slots(NULL, NULL, regs, regs->value[SP_SLOT], stack_top,
                                            PCMAP_WALK_REGISTRY | PCMAP_WALK_FRAME_POINTER_CHAIN, &u);
  printf("walk: slots: %s; %u frames, %u slots given", pcmap_strerror(s), b.frames, b.count);
  if (t == s && u.frames == b.frames && u.count == b.count)
    printf(" (the same without a cache)\n");
  else
    printf(" (without a cache: %s; %u frames, %u slots given)\n", pcmap_strerror(t), u.frames, u.count);
  s = pcmap_walk_init_cached(&c, NULL, regs, regs->value[SP_SLOT], stack_top,
                                          PCMAP_WALK_REGISTRY | PCMAP_WALK_FRAME_POINTER_CHAIN, &cache);
  while (s == PCMAP_OK) {
    if (c.at == PCMAP_WALK_AT_RECORD) {
      s = pcmap_walk_roots(&c, move_root, &c);
      if (s == PCMAP_ERR_NO_REGISTER)
        /* PowerPC64: the frame is r31-based, and the frame pointer chain
         * through the C frame below restores only r1. */
        printf("walk: frame in %s, record %" PRIu64 ": its roots name a register the walk does not know\n",
               image_of(c.function.address), c.record.id);
      else if (s != PCMAP_OK)
        fail("walk roots", s);
      else
        managed++;
    }
    s = pcmap_walk_step(&c);
  }
  if (s == PCMAP_STOP_REGISTER_UNKNOWN)
    printf("walk: stopped: the CFA register (DWARF %u) is not known\n", (unsigned)c.stop_register);
  /* Else the end: main's frame, whose chain leaves the stack bounds. */
  else if (s != PCMAP_ERR_BAD_STACK && s != PCMAP_STOP_END_OF_STACK)
    fail("walk", s);
  printf("walk: collected: %d managed frames\n", managed);
  return 0;
}

static void collect(void) {
  if (use_walker) {
    pcmap_capture_call(walk_and_collect, 0, 0, 0, 0, 0);
    return;
  }
  int managed = 0;
  _Unwind_Backtrace(visit, &managed);
  printf("collected: %d managed frames\n", managed);
}

/* What a walk through the registry (with the cache, or without) finds at
 * the shared object's record. */
static void found_at_so_record(pcmap_walk_cache *with, char *out, size_t size) {
  pcmap_registers regs = {0};
  pcmap_walk c;
  regs.pc = so_record_pc;
  pcmap_status s = pcmap_walk_init_cached(&c, NULL, &regs, 0, 0, PCMAP_WALK_REGISTRY, with);
  if (s != PCMAP_OK) fail("walk init", s);
  if (c.at == PCMAP_WALK_AT_RECORD)
    snprintf(out, size, "record %" PRIu64 " in %s", c.record.id, image_of(c.function.address));
  else
    snprintf(out, size, "%s", c.at == PCMAP_WALK_AT_UNMANAGED ? "unmanaged" : "no record");
}

static void walk_at_so_record(void) {
  char plain[128], cached[128];
  found_at_so_record(NULL, plain, sizeof plain);
  found_at_so_record(&cache, cached, sizeof cached);
  if (strcmp(plain, cached) == 0)
    printf("walk at the shared object's record: %s (the same with the cache)\n", plain);
  else
    printf("walk at the shared object's record: %s (with the cache: %s)\n", plain, cached);
}

static void call_so(void) { so_result = so_frame(heap[1], collect); }

static pcmap_registry_summary report(const char *when) {
  pcmap_registry_summary r;
  pcmap_registry_info(&r);
  printf("%s: %u images registered, %" PRIu64 " refused\n", when, r.images, r.rejected);
  return r;
}

/* dlopen()s the shared object and finds its entry; NULL (said) if not. */
static void *open_so(const char *path, const char *what) {
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    printf("FAIL: %s: %s\n", what, dlerror());
    return NULL;
  }
  so_frame = (frame_fn)(uintptr_t)dlsym(so, "so_frame");
  return so;
}

/* A collection through frames of both images, by libgcc's route and then
 * by the library's walker through the registry, and a walk at the shared
 * object's record. */
static void collect_across_images(void) {
  use_walker = false;
  void *main_result = main_frame(heap[0], call_so);
  printf("main_frame returned %s, so_frame returned %s\n", name_of(main_result),
         name_of(so_result));
  use_walker = true;
  main_result = main_frame(heap[0], call_so);
  printf("main_frame returned %s, so_frame returned %s\n", name_of(main_result),
         name_of(so_result));
  walk_at_so_record();
}

int main(int argc, char **argv) {
  volatile char top = 0;
  stack_top = (uintptr_t)&top;
  if (argc != 2) return 2;
  if (pcmap_walk_cache_init(&cache, cache_memory, sizeof cache_memory) != PCMAP_OK) return 2;
  report("start");
  void *so = open_so(argv[1], "dlopen");
  if (!so) return 1;
  pcmap_registry_summary loaded = report("after dlopen");
  collect_across_images();

  if (dlclose(so) != 0) {
    printf("FAIL: dlclose: %s\n", dlerror());
    return 1;
  }
  pcmap_registry_summary closed = report("after dlclose");
  pcmap_record rec;
  pcmap_stackmaps m;
  printf("the shared object's record: %s; its tables: %s\n",
         pcmap_strerror(pcmap_registry_find(so_record_pc, NULL, &rec)),
         pcmap_strerror(pcmap_registry_stackmaps(so_record_pc, &m)));
  printf("generation changed: %s\n", closed.generation != loaded.generation ? "yes" : "no");
  walk_at_so_record();
  /* The program's own tables are still there, for libgcc's route and
   * for the walker. */
  use_walker = false;
  void *main_result = main_frame(heap[0], collect);
  printf("main_frame returned %s\n", name_of(main_result));
  use_walker = true;
  main_result = main_frame(heap[0], collect);
  printf("main_frame returned %s\n", name_of(main_result));

  /* Loaded again: registered again at a new generation (the cache, filled
   * before, is flushed), and both images' frames are found once more. */
  if (!open_so(argv[1], "dlopen again")) return 1;
  pcmap_registry_summary again = report("after dlopen again");
  printf("generation changed: %s\n", again.generation != closed.generation ? "yes" : "no");
  collect_across_images();
  return 0;
}
