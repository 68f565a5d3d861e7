/*
 * api_probe: prints everything the C API says about a pcmap_stackmaps
 * section read from a file, one fact per line, so that a test can compare it
 * with what the table was built from. Compiles as C11 and as C++17.
 *
 *   api_probe SECTION-FILE ADDRESS
 *   api_probe --pctable covered|atomics VERSION PC-WIDTH TABLE-FILE ADDRESS [PC...]
 *
 * The second form prints every entry of a PC table, the count, the sorted
 * index, and for each PC the entry found by linear search and by the index.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcmap.h"

/* Register values the locations are decoded against. */
static const pcmap_register kRegisters[] = {
    {7, 0x10000, 0},  {6, 0x20000, 0},       {31, 0x30000, 0},
    {1, 0x40000, 0},  {29, 0x50000, 0x5008},
};
#define NUM_REGISTERS (sizeof kRegisters / sizeof kRegisters[0])

static int check(pcmap_status s, const char *what) {
  if (s != PCMAP_OK) {
    printf("error %s: %s\n", what, pcmap_strerror(s));
    return 0;
  }
  return 1;
}

static int same_record(const pcmap_record *a, const pcmap_record *b) {
  return a->index == b->index && a->id == b->id && a->address == b->address &&
         a->instruction_offset == b->instruction_offset && a->patchable_size == b->patchable_size &&
         a->num_locations == b->num_locations &&
         a->flags == b->flags && a->kind == b->kind && a->frame_flags == b->frame_flags &&
         a->cfa_register == b->cfa_register && a->cfa_offset == b->cfa_offset &&
         a->num_frame_registers == b->num_frame_registers && a->site == b->site &&
         a->locations == b->locations &&
         a->frame_registers == b->frame_registers && a->frame_shift == b->frame_shift &&
         a->table.data == b->table.data;
}

/* What pcmap_find says of the record's address, and pcmap_find_site with
 * pcmap_site_record: "same" when both give this record. */
static const char *found(const pcmap_stackmaps *m, const pcmap_record *r, uint32_t stack_size) {
  pcmap_function found_f;
  pcmap_record found_r, site_r;
  pcmap_site site;
  pcmap_status s = pcmap_find(m, r->address, &found_f, &found_r);
  if (s != PCMAP_OK) return pcmap_strerror(s);
  if (!same_record(&found_r, r)) return "other";
  s = pcmap_find_site(m, r->address, &site);
  if (s != PCMAP_OK) return pcmap_strerror(s);
  if (site.record != r->index || site.site != r->site || site.stack_size != stack_size ||
      site.function != found_f.index)
    return "other site";
  s = pcmap_site_record(m, &site, &site_r);
  if (s != PCMAP_OK) return pcmap_strerror(s);
  return same_record(&site_r, r) ? "same" : "other site record";
}

static void print_record(const pcmap_stackmaps *m, const pcmap_record *r, uint32_t stack_size) {
  pcmap_cursor c, live_outs;
  pcmap_location l;
  pcmap_status s;
  uint32_t i, num_live_outs;
  if (!check(pcmap_live_outs(r, &live_outs), "live-outs")) return;
  num_live_outs = live_outs.remaining;
  printf("  record id=%" PRIu64 " address=0x%" PRIx64 " kind=%u flags=%u patchable=%u locations=%u live_outs=%u find=%s\n",
         r->id, r->address, (unsigned)r->kind, (unsigned)r->flags, r->patchable_size,
         (unsigned)r->num_locations, (unsigned)num_live_outs, found(m, r, stack_size));
  if (r->flags & PCMAP_RECORD_HAS_FRAME_STATE) {
    pcmap_frame_register reg, by_cursor;
    printf("    frame flags=%u", (unsigned)r->frame_flags);
    if (r->frame_flags & PCMAP_FRAME_CFA_RULE)
      printf(" cfa=%u%+d", (unsigned)r->cfa_register, (int)r->cfa_offset);
    printf("\n");
    if (!check(pcmap_frame_registers(r, &c), "frame registers")) return;
    for (i = 0; i < r->num_frame_registers; i++) {
      if (!check(pcmap_frame_register_at(r, i, &reg), "frame register")) continue;
      if (!check(pcmap_frame_register_next(&c, &by_cursor), "frame register cursor")) continue;
      printf("    saves reg=%u offset=%d%s\n", (unsigned)reg.dwarf_reg, (int)reg.offset,
             reg.dwarf_reg == by_cursor.dwarf_reg && reg.offset == by_cursor.offset ? "" : " cursor differs");
    }
    printf("    frame_registers end=%s\n", pcmap_strerror(pcmap_frame_register_next(&c, &reg)));
  }
  if (!check(pcmap_locations(r, &c), "locations")) return;
  for (i = 0; i < r->num_locations; i++) {
    pcmap_location by_cursor;
    pcmap_value v, v2;
    pcmap_status s2;
    if (!check(pcmap_location_at(r, i, &l), "location")) continue;
    if (!check(pcmap_location_next(&c, &by_cursor), "location cursor")) continue;
    s = pcmap_decode(r, i, kRegisters, NUM_REGISTERS, &v);
    s2 = pcmap_decode_location(r, &by_cursor, kRegisters, NUM_REGISTERS, &v2);
    printf("    location kind=%u size=%u reg=%u offset=%d%s", (unsigned)l.kind, (unsigned)l.size,
           (unsigned)l.dwarf_reg, (int)l.offset,
           l.kind == by_cursor.kind && l.size == by_cursor.size && l.dwarf_reg == by_cursor.dwarf_reg &&
                   l.offset == by_cursor.offset && s == s2 &&
                   (s != PCMAP_OK || (v.value == v2.value && v.address == v2.address &&
                                      v.has_value == v2.has_value && v.has_address == v2.has_address))
               ? ""
               : " cursor differs");
    if (s != PCMAP_OK)
      printf(" decode=%s\n", pcmap_strerror(s));
    else
      printf(" value=%s0x%" PRIx64 " address=%s0x%" PRIx64 "\n", v.has_value ? "" : "-", v.value,
             v.has_address ? "" : "-", v.address);
  }
  printf("    locations end=%s\n", pcmap_strerror(pcmap_location_next(&c, &l)));
  for (i = 0; i < num_live_outs; i++) {
    pcmap_live_out lo, by_cursor;
    if (check(pcmap_live_out_at(r, i, &lo), "live-out") &&
        check(pcmap_live_out_next(&live_outs, &by_cursor), "live-out cursor"))
      printf("    live_out reg=%u size=%u%s\n", (unsigned)lo.dwarf_reg, (unsigned)lo.size,
             lo.dwarf_reg == by_cursor.dwarf_reg && lo.size == by_cursor.size ? "" : " cursor differs");
  }
}

static unsigned char *read_file(const char *path, long *size) {
  unsigned char *data;
  FILE *f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0 || (*size = ftell(f)) < 0) return NULL;
  rewind(f);
  data = (unsigned char *)malloc((size_t)*size + 1);
  if (!data || fread(data, 1, (size_t)*size, f) != (size_t)*size) return NULL;
  fclose(f);
  return data;
}

static void print_entry(const char *what, const pcmap_pctable_entry *e) {
  printf("%s pc=0x%" PRIx64 " size=%" PRIu64 " features=%" PRIu64 " stack_args=%s%" PRIu64
         " offset=%" PRIu64 "\n",
         what, e->pc, e->size, e->features, e->has_stack_args ? "" : "-", e->stack_args, e->offset);
}

static int same_entry(const pcmap_pctable_entry *a, const pcmap_pctable_entry *b) {
  return a->pc == b->pc && a->size == b->size && a->features == b->features &&
         a->stack_args == b->stack_args && a->offset == b->offset &&
         a->has_stack_args == b->has_stack_args;
}

static int pctable_main(int argc, char **argv) {
  long size;
  unsigned char *data;
  pcmap_pctable t;
  pcmap_pctable_entry e, *index;
  pcmap_status s;
  uint64_t cursor = 0;
  size_t count = 0, indexed = 0, i;
  int a;
  uint32_t kind = strcmp(argv[2], "atomics") == 0 ? PCMAP_PCTABLE_ATOMICS : PCMAP_PCTABLE_COVERED;
  if (!(data = read_file(argv[5], &size))) return 2;
  s = pcmap_pctable_open(&t, kind, (uint32_t)strtoul(argv[3], NULL, 0), data, (size_t)size,
                         strtoull(argv[6], NULL, 0), (uint8_t)strtoul(argv[4], NULL, 0));
  if (!check(s, "open")) return 1;
  printf("pctable kind=%u version=%u pc_width=%u size=%zu\n", (unsigned)t.kind,
         (unsigned)t.version, (unsigned)t.pc_width, t.size);
  while ((s = pcmap_pctable_next(&t, &cursor, &e)) == PCMAP_OK) print_entry("entry", &e);
  printf("next=%s at %" PRIu64 "\n", pcmap_strerror(s), cursor);
  s = pcmap_pctable_count(&t, &count);
  printf("count=%s %zu\n", pcmap_strerror(s), count);
  index = (pcmap_pctable_entry *)malloc((count + 1) * sizeof *index);
  if (!index) return 2;
  if (count > 0)
    printf("index(small)=%s\n", pcmap_strerror(pcmap_pctable_index(&t, index, count - 1, &indexed)));
  s = pcmap_pctable_index(&t, index, count, &indexed);
  printf("index=%s %zu\n", pcmap_strerror(s), indexed);
  for (i = 0; i < indexed; i++) print_entry("sorted", &index[i]);
  for (a = 7; a < argc; a++) {
    uint64_t pc = strtoull(argv[a], NULL, 0);
    pcmap_pctable_entry linear, fast;
    pcmap_status sl = pcmap_pctable_find(&t, pc, &linear);
    pcmap_status sf = pcmap_pctable_index_find(index, indexed, pc, &fast);
    printf("find 0x%" PRIx64 ": %s", pc, pcmap_strerror(sl));
    if (sl == PCMAP_OK) printf(" pc=0x%" PRIx64, linear.pc);
    printf(" index: %s", pcmap_strerror(sf));
    if (sf == PCMAP_OK) printf(" pc=0x%" PRIx64 "%s", fast.pc,
                               sl == PCMAP_OK && same_entry(&fast, &linear) ? " same" : " differs");
    printf("\n");
  }
  free(index);
  free(data);
  return 0;
}

int main(int argc, char **argv) {
  unsigned char *data;
  long size;
  pcmap_stackmaps m;
  uint32_t fi, i;
  if (argc >= 7 && strcmp(argv[1], "--pctable") == 0) return pctable_main(argc, argv);
  if (argc != 3) {
    fprintf(stderr, "usage: api_probe SECTION-FILE ADDRESS\n");
    return 2;
  }
  if (!(data = read_file(argv[1], &size))) return 2;

  if (!check(pcmap_open(&m, data, (size_t)size, strtoull(argv[2], NULL, 0)), "open")) return 1;
  printf("tables=%u functions=%u records=%" PRIu64 " validate=%s\n", m.num_tables, m.num_functions,
         m.num_records, pcmap_strerror(pcmap_validate(&m)));
  for (fi = 0; fi < m.num_functions; fi++) {
    pcmap_function fn;
    if (!check(pcmap_function_at(&m, fi, &fn), "function")) continue;
    printf("function address=0x%" PRIx64 " size=%u stack_size=%u records=%u\n", fn.address, fn.size,
           fn.stack_size, fn.num_records);
    for (i = 0; i < fn.num_records; i++) {
      pcmap_record r;
      if (check(pcmap_record_at(&fn, i, &r), "record")) print_record(&m, &r, fn.stack_size);
    }
  }
  /* The function containing PCs around each function's code: below its
   * start, at it, inside, at its end and past it, as return addresses
   * (their function holds the byte before them: the end is in, the start
   * is not) and as instructions' addresses (the start is in, the end is
   * not). */
  for (fi = 0; fi < m.num_functions; fi++) {
    pcmap_function fn, found;
    uint64_t pcs[5];
    uint32_t k;
    if (!check(pcmap_function_at(&m, fi, &fn), "function")) continue;
    pcs[0] = fn.address - 1, pcs[1] = fn.address, pcs[2] = fn.address + fn.size / 2;
    pcs[3] = fn.address + fn.size, pcs[4] = fn.address + fn.size + 1;
    for (i = 0; i < 5; i++) {
      for (k = PCMAP_PC_RETURN_ADDRESS; k <= PCMAP_PC_INSTRUCTION; k++) {
        pcmap_status s = pcmap_find_function(&m, pcs[i], k, &found);
        printf("find_function(0x%" PRIx64 ", %s)=", pcs[i], k == PCMAP_PC_RETURN_ADDRESS ? "return" : "instruction");
        if (s == PCMAP_OK)
          printf("0x%" PRIx64 " size=%u records=%u\n", found.address, found.size, found.num_records);
        else
          printf("%s\n", pcmap_strerror(s));
      }
    }
  }
  {
    pcmap_function fn;
    printf("find_function(kind 2)=%s\n", pcmap_strerror(pcmap_find_function(&m, 0, 2, &fn)));
  }
  /* Past the end of each array: errors, never crashes. */
  {
    pcmap_function fn;
    pcmap_site site;
    printf("function_at(end)=%s\n", pcmap_strerror(pcmap_function_at(&m, m.num_functions, &fn)));
    printf("find_site(0)=%s\n", pcmap_strerror(pcmap_find_site(&m, 0, &site)));
  }
  free(data);
  return 0;
}
