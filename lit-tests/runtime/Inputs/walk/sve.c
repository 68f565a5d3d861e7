/* The walk through an SVE frame (sve.ll): the cursor starts on sve_frame's
 * record, whose CFA is a DWARF expression; pcmap_walk_cfa and
 * pcmap_walk_step must say so (PCMAP_STOP_NO_CFA_RULE), with and without
 * the frame pointer chain, and the program must go on normally. */
#include <stdio.h>
#include <string.h>

#include "pcmap.h"

extern const unsigned char __start_pcmap_stackmaps[], __stop_pcmap_stackmaps[];
void sve_frame(char *p);
static pcmap_stackmaps maps;
static int walks;

void sve_use(void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }

static void walk(const pcmap_registers *regs, uint32_t flags, const char *how) {
  pcmap_walk c;
  uint64_t cfa;
  int s = pcmap_walk_init(&c, &maps, regs, 0, 0, flags);
  printf("%s: init %s, at %s, frame state %s, frame_flags %u\n", how, pcmap_strerror(s),
         c.at == PCMAP_WALK_AT_RECORD ? "record" : "no record",
         c.record.flags & PCMAP_RECORD_HAS_FRAME_STATE ? "yes" : "no", (unsigned)c.record.frame_flags);
  printf("%s: cfa %s\n", how, pcmap_strerror(pcmap_walk_cfa(&c, &cfa)));
  s = pcmap_walk_step(&c);
  printf("%s: step %s (%s)\n", how, s == PCMAP_STOP_NO_CFA_RULE ? "PCMAP_STOP_NO_CFA_RULE" : "other",
         pcmap_strerror(s));
}

uint64_t sve_safepoint(pcmap_registers *regs, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                       uint64_t a5) {
  if (a1 != 1 || a2 != 2 || a3 != 3 || a4 != 4 || a5 != 5) printf("arguments wrong\n");
  walk(regs, 0, "walk");
  walk(regs, PCMAP_WALK_FRAME_POINTER_CHAIN, "chain");
  walks++;
  return 0;
}

int main(void) {
  char byte = 1;
  int s = pcmap_open_linked(&maps, __start_pcmap_stackmaps, __stop_pcmap_stackmaps);
  if (s == PCMAP_OK) s = pcmap_validate(&maps);
  if (s != PCMAP_OK) {
    printf("open: %s\n", pcmap_strerror(s));
    return 2;
  }
  sve_frame(&byte);
  printf("%d walks, byte %d\n", walks, byte);
  return walks == 1 && byte == 0 ? 0 : 1;
}
