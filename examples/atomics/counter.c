// A small multi-threaded program with C11 atomics: the pcmap plugin records
// which functions were analysed and which instructions are atomic.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

enum { THREADS = 4, ROUNDS = 10000 };

static atomic_long hits;
static atomic_int ready;
static long plain_total;

__attribute__((noinline)) static void record(long n) {
  atomic_fetch_add_explicit(&hits, n, memory_order_relaxed);
}

static void *worker(void *arg) {
  long id = (long)arg;
  while (!atomic_load_explicit(&ready, memory_order_acquire))
    ;
  for (long i = 0; i < ROUNDS; i++)
    record(id);
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (long t = 0; t < THREADS; t++)
    pthread_create(&threads[t], NULL, worker, (void *)(t + 1));
  atomic_store_explicit(&ready, 1, memory_order_release);
  for (int t = 0; t < THREADS; t++)
    pthread_join(threads[t], NULL);
  plain_total = atomic_load(&hits);
  printf("hits=%ld (expected %ld)\n", plain_total, (long)ROUNDS * (1 + 2 + 3 + 4));
  return plain_total == (long)ROUNDS * (1 + 2 + 3 + 4) ? 0 : 1;
}
