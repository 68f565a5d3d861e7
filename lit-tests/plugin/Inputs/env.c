#include <stdatomic.h>
_Atomic int counter;
int bump(void) { return atomic_fetch_add(&counter, 1); }
int keep(void) { return atomic_load(&counter); }
