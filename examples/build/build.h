// The example's functions, shared by its translation units.
#ifndef BUILD_H
#define BUILD_H

long bump(long n);
long bumped(void);
// report.c: checks what the SanitizerBinaryMetadata callbacks and the
// stack map section gave; returns the number of problems found.
int report(void);

#endif
