/*
 * A JIT's view of a linked program, through the C builder (pcmap_jit.h):
 * the bytes of its relocated `.llvm_stackmaps`, its functions (name,
 * address, size, code) from its symbol table, its `.eh_frame` and address,
 * and optionally the plugin's description of its sites. Builds the flat
 * table into a buffer of its own, opens it with libpcmap and finds every
 * record.
 *
 *   jit-table PROGRAM DESC [EXPECTED|-]   build; compare with EXPECTED (the
 *                                         pcmap_stackmaps section `pcmap emit
 *                                         --absolute` wrote, linked alike)
 *   jit-table --bad PROGRAM DESC          bad input: statuses and messages
 *
 * DESC describes kinds and sizes: sites=FILE (the plugin's .pcmap.sites
 * section, dumped from the object), or - for nothing.
 *
 * ELF64 little-endian only (x86_64, AArch64, PowerPC64 LE): <elf.h>.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcmap.h"
#include "pcmap_jit.h"

static void die(const char *what) {
  fprintf(stderr, "jit-table: %s\n", what);
  exit(1);
}

static unsigned char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) die(path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = malloc(n ? (size_t)n : 1);
  if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) die(path);
  fclose(f);
  *size = (size_t)n;
  return p;
}

typedef struct {
  const unsigned char *file;
  const Elf64_Shdr *sections;
  unsigned count;
  const char *names;
} elf;

static const Elf64_Shdr *section(const elf *e, const char *name) {
  for (unsigned i = 0; i < e->count; i++)
    if (!strcmp(e->names + e->sections[i].sh_name, name)) return &e->sections[i];
  return NULL;
}

/* The module as a JIT knows it: input filled, functions allocated. */
static void module(const elf *e, pcmap_jit_input *in) {
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)e->file;
  memset(in, 0, sizeof *in);
  switch (h->e_machine) {
  case EM_X86_64: in->target = PCMAP_JIT_TARGET_X86_64; break;
  case EM_AARCH64: in->target = PCMAP_JIT_TARGET_AARCH64; break;
  case EM_PPC64: in->target = PCMAP_JIT_TARGET_PPC64LE; break;
  default: die("unknown machine");
  }
  const Elf64_Shdr *sm = section(e, ".llvm_stackmaps");
  const Elf64_Shdr *eh = section(e, ".eh_frame");
  const Elf64_Shdr *text = section(e, ".text");
  const Elf64_Shdr *symtab = section(e, ".symtab");
  if (!sm || !eh || !text || !symtab) die("a section is missing");
  in->stackmaps = e->file + sm->sh_offset;
  in->stackmaps_size = sm->sh_size;
  in->eh_frame = e->file + eh->sh_offset;
  in->eh_frame_size = eh->sh_size;
  in->eh_frame_address = eh->sh_addr;
  const Elf64_Sym *syms = (const Elf64_Sym *)(e->file + symtab->sh_offset);
  size_t nsyms = symtab->sh_size / sizeof(Elf64_Sym);
  const char *strtab = (const char *)e->file + e->sections[symtab->sh_link].sh_offset;
  unsigned text_index = (unsigned)(text - e->sections);
  pcmap_jit_function *fns = calloc(nsyms, sizeof *fns);
  size_t n = 0;
  for (size_t i = 0; i < nsyms; i++) {
    if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC || syms[i].st_shndx != text_index) continue;
    fns[n].name = strtab + syms[i].st_name;
    fns[n].address = syms[i].st_value;
    fns[n].size = syms[i].st_size;
    fns[n].code = e->file + text->sh_offset + (syms[i].st_value - text->sh_addr);
    n++;
  }
  in->functions = fns;
  in->num_functions = n;
}

static const char *status_name(pcmap_jit_status s) {
  switch (s) {
  case PCMAP_JIT_OK: return "OK";
  case PCMAP_JIT_ERR_ARGUMENT: return "ERR_ARGUMENT";
  case PCMAP_JIT_ERR_INPUT: return "ERR_INPUT";
  case PCMAP_JIT_ERR_BUFFER_TOO_SMALL: return "ERR_BUFFER_TOO_SMALL";
  case PCMAP_JIT_ERR_INTERNAL: return "ERR_INTERNAL";
  }
  return "?";
}

/* Every record of the table is found by its address, in its function. */
static int find_every_record(const void *table, size_t size) {
  pcmap_stackmaps m;
  pcmap_status s = pcmap_open(&m, table, size, (uint64_t)(uintptr_t)table);
  if (s != PCMAP_OK) { printf("pcmap_open: %s\n", pcmap_strerror(s)); return 1; }
  if ((s = pcmap_validate(&m)) != PCMAP_OK) { printf("pcmap_validate: %s\n", pcmap_strerror(s)); return 1; }
  unsigned records = 0, with_frame = 0;
  for (uint32_t i = 0; i < m.num_functions; i++) {
    pcmap_function f;
    if (pcmap_function_at(&m, i, &f) != PCMAP_OK) { printf("function %u: not readable\n", i); return 1; }
    for (uint32_t j = 0; j < f.num_records; j++) {
      pcmap_record r, found;
      pcmap_function ff;
      if (pcmap_record_at(&f, j, &r) != PCMAP_OK) { printf("record %u.%u: not readable\n", i, j); return 1; }
      if (pcmap_find(&m, r.address, &ff, &found) != PCMAP_OK || found.address != r.address ||
          ff.address != f.address || r.address != f.address + r.instruction_offset) {
        printf("record ID %llu at %#llx: pcmap_find does not find it\n",
               (unsigned long long)r.id, (unsigned long long)r.address);
        return 1;
      }
      records++;
      with_frame += (r.flags & PCMAP_RECORD_HAS_FRAME_STATE) != 0;
    }
  }
  printf("pcmap_open: %u functions, %u records found by pcmap_find, %u with frame states\n",
         m.num_functions, records, with_frame);
  return 0;
}

static int build(const pcmap_jit_input *in, const char *expected) {
  char msg[256];
  size_t size = 0, written = 0;
  pcmap_jit_status s = pcmap_jit_table_size(in, &size, msg, sizeof msg);
  if (s != PCMAP_JIT_OK) { printf("pcmap_jit_table_size: %s: %s\n", status_name(s), msg); return 1; }
  void *buf = aligned_alloc(8, (size + 7) & ~(size_t)7);
  s = pcmap_jit_table_build(in, buf, size, &written, msg, sizeof msg);
  if (s != PCMAP_JIT_OK || written != size) { printf("pcmap_jit_table_build: %s: %s\n", status_name(s), msg); return 1; }
  printf("built %zu bytes from %zu bytes of .llvm_stackmaps, %zu functions\n", size,
         in->stackmaps_size, in->num_functions);
  if (expected && strcmp(expected, "-")) {
    size_t want_size;
    unsigned char *want = slurp(expected, &want_size);
    if (want_size != size || memcmp(want, buf, size)) {
      size_t k = 0;
      while (k < size && k < want_size && ((unsigned char *)buf)[k] == want[k]) k++;
      printf("differs from pcmap emit --absolute (%zu bytes): first at byte %zu\n", want_size, k);
      return 1;
    }
    printf("equal to pcmap emit --absolute, byte for byte\n");
    free(want);
  }
  int rc = find_every_record(buf, size);
  free(buf);
  return rc;
}

/* Statuses of the sweeps: an internal error (a caught panic) fails. */
static unsigned counts[4];
static int tally(pcmap_jit_status s) {
  switch (s) {
  case PCMAP_JIT_OK: counts[0]++; return 0;
  case PCMAP_JIT_ERR_INPUT: counts[1]++; return 0;
  case PCMAP_JIT_ERR_ARGUMENT: counts[2]++; return 0;
  default: counts[3]++; return 1;
  }
}

static int bad(pcmap_jit_input in) {
  char msg[256];
  size_t size, needed = 0;
  pcmap_jit_status s;
  int failed = 0;
  if (pcmap_jit_table_size(&in, &needed, msg, sizeof msg) != PCMAP_JIT_OK) die(msg);

  /* Every truncation of .llvm_stackmaps. */
  const pcmap_jit_input whole = in;
  memset(counts, 0, sizeof counts);
  for (size_t n = 0; n < whole.stackmaps_size; n++) {
    in.stackmaps_size = n;
    failed |= tally(pcmap_jit_table_size(&in, &size, msg, sizeof msg));
  }
  printf("truncated .llvm_stackmaps, %zu lengths: %u ok, %u input errors, %u other\n",
         whole.stackmaps_size, counts[0], counts[1], counts[2] + counts[3]);
  in.stackmaps_size = whole.stackmaps_size / 2;
  s = pcmap_jit_table_size(&in, &size, msg, sizeof msg);
  printf("half: %s: %s\n", status_name(s), msg);
  in = whole;

  /* Every byte of .llvm_stackmaps, then of .eh_frame, inverted. */
  const char *names[2] = {".llvm_stackmaps", ".eh_frame"};
  const void *parts[2] = {whole.stackmaps, whole.eh_frame};
  size_t sizes[2] = {whole.stackmaps_size, whole.eh_frame_size};
  for (int p = 0; p < 2; p++) {
    unsigned char *copy = malloc(sizes[p]);
    memcpy(copy, parts[p], sizes[p]);
    if (p == 0) in.stackmaps = copy; else in.eh_frame = copy;
    memset(counts, 0, sizeof counts);
    for (size_t k = 0; k < sizes[p]; k++) {
      copy[k] ^= 0xff;
      failed |= tally(pcmap_jit_table_size(&in, &size, msg, sizeof msg));
      copy[k] ^= 0xff;
    }
    printf("%s, each of %zu bytes inverted: %u ok, %u input errors, %u other\n", names[p],
           sizes[p], counts[0], counts[1], counts[2] + counts[3]);
    in = whole;
    free(copy);
  }

  /* A buffer one byte short: the size needed, the buffer untouched. */
  unsigned char *buf = malloc(needed);
  memset(buf, 0xa5, needed);
  size = 0;
  s = pcmap_jit_table_build(&in, buf, needed - 1, &size, msg, sizeof msg);
  int untouched = 1;
  for (size_t k = 0; k < needed; k++) untouched &= buf[k] == 0xa5;
  printf("buffer of %zu: %s, size %s, buffer %s: %s\n", needed - 1, status_name(s),
         size == needed ? "= needed" : "wrong", untouched ? "untouched" : "WRITTEN", msg);
  s = pcmap_jit_table_build(&in, NULL, 0, &size, msg, sizeof msg);
  printf("NULL buffer: %s, size %s\n", status_name(s), size == needed ? "= needed" : "wrong");
  free(buf);

  /* A function the JIT did not give: every record of it has no function. */
  for (size_t k = 0; k < whole.num_functions; k++) {
    pcmap_jit_function fns[64];
    if (whole.num_functions > 64) die("too many functions");
    size_t n = 0;
    for (size_t j = 0; j < whole.num_functions; j++)
      if (j != k) fns[n++] = whole.functions[j];
    in.functions = fns;
    in.num_functions = n;
    s = pcmap_jit_table_size(&in, &size, msg, sizeof msg);
    if (s != PCMAP_JIT_OK)
      printf("without %s: %s: %s\n", whole.functions[k].name, status_name(s), msg);
  }
  in = whole;

  /* Arguments. */
  s = pcmap_jit_table_size(NULL, &size, msg, sizeof msg);
  printf("NULL input: %s: %s\n", status_name(s), msg);
  in.target = 99;
  s = pcmap_jit_table_size(&in, &size, msg, sizeof msg);
  printf("target 99: %s: %s\n", status_name(s), msg);
  in = whole;
  in.stackmaps = NULL;
  s = pcmap_jit_table_size(&in, &size, msg, sizeof msg);
  printf("NULL stackmaps: %s: %s\n", status_name(s), msg);
  in = whole;
  in.sites = NULL;
  in.sites_size = 1;
  s = pcmap_jit_table_size(&in, &size, msg, sizeof msg);
  printf("NULL sites: %s: %s\n", status_name(s), msg);
  in = whole;
  /* A message buffer of 8 bytes: 7 characters and the NUL. */
  in.stackmaps_size = 3;
  s = pcmap_jit_table_size(&in, &size, msg, 8);
  printf("message in 8 bytes: \"%s\" (%zu)\n", msg, strlen(msg));
  return failed;
}

int main(int argc, char **argv) {
  int check_bad = argc > 1 && !strcmp(argv[1], "--bad");
  if (argc < 3 + check_bad) die("usage: jit-table [--bad] PROGRAM sites=FILE|- [EXPECTED|-]");
  size_t size;
  elf e;
  e.file = slurp(argv[1 + check_bad], &size);
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)e.file;
  if (size < sizeof *h || memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS64 ||
      h->e_ident[EI_DATA] != ELFDATA2LSB)
    die("not a little-endian ELF64 file");
  e.sections = (const Elf64_Shdr *)(e.file + h->e_shoff);
  e.count = h->e_shnum;
  e.names = (const char *)e.file + e.sections[h->e_shstrndx].sh_offset;
  const char *desc = argv[2 + check_bad];
  pcmap_jit_input in;
  module(&e, &in);
  if (!strncmp(desc, "sites=", 6))
    in.sites = slurp(desc + 6, &in.sites_size);
  else if (strcmp(desc, "-"))
    die("DESC: sites=FILE or -");
  if (check_bad) return bad(in);
  return build(&in, argc > 3 ? argv[3] : NULL);
}
