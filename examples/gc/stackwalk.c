/* Finding the roots: walk the managed frames from a safepoint using only the
 * flat stack map (each record's frame state: the CFA rule and where the
 * return address is saved; its locations) and the architecture's frame
 * conventions (arch.h), and decode each record's locations with the pcmap
 * C API. */
#include <stdio.h>
#include <stdlib.h>

#include "arch.h"
#include "gc.h"
#include "pcmap.h"

/* The linker defines these around the section `pcmap emit` added. */
extern const uint8_t __start_pcmap_stackmaps[];
extern const uint8_t __stop_pcmap_stackmaps[];

static pcmap_stackmaps stackmaps;

/* A statepoint's locations start with three constants: calling convention,
 * flags, and the number of deopt locations that follow; then come the
 * (base, derived) pairs of the relocated pointers. */
enum { STATEPOINT_DEOPT_COUNT = 2, STATEPOINT_HEADER = 3 };

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

/* The record of the safepoint whose return address is `ra`. A statepoint's
 * record is at its return address. A stack map placed after a call is
 * recorded a few instructions later (moves of the call's result; on PowerPC
 * the TOC restore), so it is the function's next record: every call that
 * may collect is followed by one (program.stackmap.ll). */
static int find_safepoint(uint64_t ra, pcmap_function *fn, pcmap_record *rec) {
  int s = pcmap_find(&stackmaps, ra, fn, rec);
  if (s == PCMAP_NOT_FOUND) {
    s = pcmap_find_at_or_after(&stackmaps, ra, fn, rec);
    if (s == PCMAP_OK && rec->kind != PCMAP_KIND_STACKMAP) s = PCMAP_NOT_FOUND;
  }
  if (s != PCMAP_OK && s != PCMAP_NOT_FOUND) die("find", s);
  return s == PCMAP_OK;
}

/* The stack slot location `index` of `rec` names in the frame at `sp`, or
 * NULL for a constant (a null pointer needs no relocation). */
static uint64_t *root_slot(const pcmap_record *rec, uint32_t index, uint64_t sp) {
  pcmap_register regs[] = {
      {ARCH_SP_DWARF, sp, 0},
#ifdef ARCH_FP_EQUAL_TO_SP_DWARF
      {ARCH_FP_EQUAL_TO_SP_DWARF, sp, 0},
#endif
  };
  pcmap_value v;
  pcmap_location loc;
  int s = pcmap_location_at(rec, index, &loc);
  if (s != PCMAP_OK) die("location", s);
  s = pcmap_decode(rec, index, regs, sizeof regs / sizeof regs[0], &v);
  if (s != PCMAP_OK) die("decode", s);
  if (loc.kind == PCMAP_LOCATION_INDIRECT) return (uint64_t *)(uintptr_t)v.address; /* a spill slot */
  if (loc.kind == PCMAP_LOCATION_DIRECT) return (uint64_t *)(uintptr_t)v.value;     /* an alloca */
  if (loc.kind == PCMAP_LOCATION_CONSTANT || loc.kind == PCMAP_LOCATION_CONSTANT_INDEX) return NULL;
  fprintf(stderr, "gc: root in a location of kind %u: not supported\n", (unsigned)loc.kind);
  exit(3);
}

/* Whether DWARF register `reg` holds SP's value in a managed frame. */
static int is_sp(uint16_t reg) {
#ifdef ARCH_FP_EQUAL_TO_SP_DWARF
  if (reg == ARCH_FP_EQUAL_TO_SP_DWARF) return 1;
#endif
  return reg == ARCH_SP_DWARF;
}

/* Where the frame whose CFA is `cfa` saved its return address at `rec`:
 * the slot its frame state names, or the architecture's place. */
static uint64_t return_address_slot(const pcmap_record *rec, uint64_t cfa) {
  pcmap_frame_register saved;
  int s = pcmap_find_frame_register(rec, ARCH_RA_DWARF, &saved);
  if (s == PCMAP_OK) return cfa + (int64_t)saved.offset;
  if (s != PCMAP_NOT_FOUND || ARCH_DEFAULT_RA_SLOT(cfa) == 0) die("return address slot", s);
  return ARCH_DEFAULT_RA_SLOT(cfa);
}

size_t gc_find_roots(uint64_t sp, uint64_t ra, void (*visit)(root r, void *ctx), void *ctx) {
  size_t frames = 0;
  pcmap_function fn;
  pcmap_record rec;
  while (find_safepoint(ra, &fn, &rec)) {
    uint32_t first = 0, i;
    uint64_t cfa;
    /* The CFA rule at this safepoint (at the call, as an unwinder sees
     * it): the frame must be SP-based, the registers the walk knows. */
    if (!(rec.flags & PCMAP_RECORD_HAS_FRAME_STATE) || !(rec.frame_flags & PCMAP_FRAME_CFA_RULE)) {
      fprintf(stderr, "gc: no CFA rule at 0x%llx\n", (unsigned long long)rec.address);
      exit(3);
    }
    if (fn.stack_size == PCMAP_VARIABLE_STACK_SIZE || !is_sp(rec.cfa_register)) {
      fprintf(stderr, "gc: frame of the function at 0x%llx is not SP-based\n", (unsigned long long)fn.address);
      exit(3);
    }
    if (rec.kind == PCMAP_KIND_STATEPOINT) {
      pcmap_value deopt;
      int s = pcmap_decode(&rec, STATEPOINT_DEOPT_COUNT, NULL, 0, &deopt);
      if (s != PCMAP_OK) die("statepoint deopt count", s);
      first = STATEPOINT_HEADER + (uint32_t)deopt.value;
    } else if (rec.kind != PCMAP_KIND_STACKMAP) {
      fprintf(stderr, "gc: record %llu is neither a statepoint nor a stack map\n", (unsigned long long)rec.id);
      exit(3);
    }
    if ((rec.num_locations - first) % 2 != 0) {
      fprintf(stderr, "gc: record %llu has an odd number of root locations\n", (unsigned long long)rec.id);
      exit(3);
    }
    for (i = first; i < rec.num_locations; i += 2) {
      root r;
      r.base = root_slot(&rec, i, sp);
      r.derived = root_slot(&rec, i + 1, sp);
      if (r.base && r.derived) visit(r, ctx);
    }
#ifdef GC_TRACE
    fprintf(stderr, "gc: frame %zu: function 0x%llx sp 0x%llx ra 0x%llx record %llu, %u locations\n", frames,
            (unsigned long long)fn.address, (unsigned long long)sp, (unsigned long long)ra,
            (unsigned long long)rec.id, (unsigned)rec.num_locations);
#endif
    frames++;
    cfa = sp + (int64_t)rec.cfa_offset;
    ra = *(const uint64_t *)(uintptr_t)return_address_slot(&rec, cfa);
#ifdef GC_TRACE
    fprintf(stderr, "gc:   next ra 0x%llx cfa 0x%llx = r%u%+d, stack %u, %u saved registers\n", (unsigned long long)ra,
            (unsigned long long)cfa, (unsigned)rec.cfa_register, (int)rec.cfa_offset, fn.stack_size,
            (unsigned)rec.num_frame_registers);
#endif
    sp = cfa;
  }
  return frames;
}
