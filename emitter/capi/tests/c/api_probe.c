/*
 * api_probe: prints everything the C API says about a pcmap_stackmaps
 * section read from a file, one fact per line, so that a test can compare it
 * with what the table was built from. Compiles as C11 and as C++17.
 *
 *   api_probe SECTION-FILE ADDRESS
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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

static void print_record(const pcmap_stackmaps *m, const pcmap_record *r) {
  pcmap_function found_f;
  pcmap_record found_r;
  pcmap_status s = pcmap_find(m, r->address, &found_f, &found_r);
  uint32_t i;
  printf("  record id=%" PRIu64 " address=0x%" PRIx64 " kind=%u locations=%u live_outs=%u find=%s\n",
         r->id, r->address, (unsigned)r->kind, (unsigned)r->num_locations, (unsigned)r->num_live_outs,
         s == PCMAP_OK ? (found_r.instruction_offset == r->instruction_offset ? "same" : "other")
                       : pcmap_strerror(s));
  for (i = 0; i < r->num_locations; i++) {
    pcmap_location l;
    pcmap_value v;
    if (!check(pcmap_location_at(r, i, &l), "location")) continue;
    s = pcmap_decode(r, i, kRegisters, NUM_REGISTERS, &v);
    printf("    location kind=%u size=%u reg=%u offset=%d", (unsigned)l.kind, (unsigned)l.size,
           (unsigned)l.dwarf_reg, (int)l.offset);
    if (s != PCMAP_OK)
      printf(" decode=%s\n", pcmap_strerror(s));
    else
      printf(" value=%s0x%" PRIx64 " address=%s0x%" PRIx64 "\n", v.has_value ? "" : "-", v.value,
             v.has_address ? "" : "-", v.address);
  }
  for (i = 0; i < r->num_live_outs; i++) {
    pcmap_live_out lo;
    if (check(pcmap_live_out_at(r, i, &lo), "live-out"))
      printf("    live_out reg=%u size=%u\n", (unsigned)lo.dwarf_reg, (unsigned)lo.size);
  }
}

int main(int argc, char **argv) {
  FILE *f;
  unsigned char *data;
  long size;
  pcmap_stackmaps m;
  uint32_t fi, i;
  if (argc != 3) {
    fprintf(stderr, "usage: api_probe SECTION-FILE ADDRESS\n");
    return 2;
  }
  f = fopen(argv[1], "rb");
  if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0) return 2;
  rewind(f);
  data = (unsigned char *)malloc((size_t)size + 1);
  if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) return 2;
  fclose(f);

  if (!check(pcmap_open(&m, data, (size_t)size, strtoull(argv[2], NULL, 0)), "open")) return 1;
  printf("tables=%u functions=%u records=%" PRIu64 " validate=%s\n", m.num_tables, m.num_functions,
         m.num_records, pcmap_strerror(pcmap_validate(&m)));
  for (fi = 0; fi < m.num_functions; fi++) {
    pcmap_function fn;
    if (!check(pcmap_function_at(&m, fi, &fn), "function")) continue;
    printf("function address=0x%" PRIx64 " size=%u stack_size=%u flags=%u base=%u\n", fn.address,
           fn.size, fn.stack_size, (unsigned)fn.flags, (unsigned)fn.frame_base_register);
    for (i = 0; i < fn.num_frame_registers; i++) {
      pcmap_frame_register reg;
      if (check(pcmap_frame_register_at(&fn, i, &reg), "frame register"))
        printf("  saves reg=%u offset=%d\n", (unsigned)reg.dwarf_reg, (int)reg.offset);
    }
    for (i = 0; i < fn.num_records; i++) {
      pcmap_record r;
      if (check(pcmap_record_at(&fn, i, &r), "record")) print_record(&m, &r);
    }
  }
  /* Past the end of each array: errors, never crashes. */
  {
    pcmap_function fn;
    printf("function_at(end)=%s\n", pcmap_strerror(pcmap_function_at(&m, m.num_functions, &fn)));
  }
  free(data);
  return 0;
}
