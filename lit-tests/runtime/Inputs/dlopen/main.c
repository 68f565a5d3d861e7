/* A runtime whose program and a shared object it dlopen()s both have
 * managed frames. Each image's constructor (the pcmap plugin's) registers
 * its pcmap_stackmaps section with libpcmap's registry; the collector walks
 * the stack with libgcc's unwinder, looks each return address up in the
 * registry, and moves the object each managed frame's stack map names.
 * After dlclose() the shared object's tables must be gone from the registry.
 *
 *   main ./libmanaged.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unwind.h>

#include "pcmap.h"

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

static void collect(void) {
  int managed = 0;
  _Unwind_Backtrace(visit, &managed);
  printf("collected: %d managed frames\n", managed);
}

static void call_so(void) { so_result = so_frame(heap[1], collect); }

static pcmap_registry_summary report(const char *when) {
  pcmap_registry_summary r;
  pcmap_registry_info(&r);
  printf("%s: %u images registered, %" PRIu64 " refused\n", when, r.images, r.rejected);
  return r;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  report("start");
  void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    printf("FAIL: dlopen: %s\n", dlerror());
    return 1;
  }
  so_frame = (frame_fn)(uintptr_t)dlsym(so, "so_frame");
  pcmap_registry_summary loaded = report("after dlopen");
  void *main_result = main_frame(heap[0], call_so);
  printf("main_frame returned %s, so_frame returned %s\n", name_of(main_result),
         name_of(so_result));

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
  /* The program's own tables are still there. */
  main_result = main_frame(heap[0], collect);
  printf("main_frame returned %s\n", name_of(main_result));
  return 0;
}
