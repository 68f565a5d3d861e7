#include <stdatomic.h>
#include <stdbool.h>
_Atomic long counter;
atomic_flag flag = ATOMIC_FLAG_INIT;
void consume(int *);
int next(int);
long add(long v) { return atomic_fetch_add_explicit(&counter, v, memory_order_relaxed); }
long get(void) { return atomic_load_explicit(&counter, memory_order_acquire); }
void set(long v) { atomic_store(&counter, v); }
bool cas(long e, long d) { return atomic_compare_exchange_strong(&counter, &e, d); }
void lock(void) { while (atomic_flag_test_and_set(&flag)) {} }
void unlock(void) { atomic_flag_clear(&flag); }
void barrier(void) { atomic_thread_fence(memory_order_seq_cst); atomic_signal_fence(memory_order_seq_cst); }
int escapes(void) { int local = 1; consume(&local); return local; }
int tail(int x) { return next(x + 1); }
int plain(int *p) { return *p + 1; }
