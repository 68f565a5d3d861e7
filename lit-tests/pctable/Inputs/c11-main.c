// Drives lit-tests/plugin/Inputs/c11.c so it links into a program: the
// functions it declares, and a main that calls each of its own. Compiled
// without metadata.
#include <stdbool.h>
long add(long);
long get(void);
void set(long);
bool cas(long, long);
void lock(void);
void unlock(void);
void barrier(void);
int escapes(void);
int tail(int);
int plain(int *);

void consume(int *p) { *p += 1; }
int next(int x) { return x * 2; }

int main(void) {
  int one = 1;
  set(1);
  add(2);
  lock();
  unlock();
  barrier();
  long sum = get() + cas(3, 4) + escapes() + tail(1) + plain(&one);
  // get 3 (1 + 2), cas succeeds, escapes 2, tail next(2) = 4, plain 2.
  return sum == 3 + 1 + 2 + 4 + 2 ? 0 : 1;
}
