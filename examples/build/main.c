// A small multi-file C program built through `pcmap cc`: its covered
// functions and atomic PCs reach report.c's runtime through the callbacks
// the plugin's module constructors call; report() checks them.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "build.h"

enum { THREADS = 4, ROUNDS = 1000 };

static atomic_int go;

static void *worker(void *arg) {
  while (!atomic_load_explicit(&go, memory_order_acquire))
    ;
  for (int i = 0; i < ROUNDS; i++)
    bump((long)arg);
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)1);
  atomic_store_explicit(&go, 1, memory_order_release);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  printf("bumped=%ld (expected %d)\n", bumped(), THREADS * ROUNDS);
  int problems = report();
  if (bumped() != THREADS * ROUNDS)
    problems++;
  printf("%s\n", problems ? "FAIL" : "OK");
  return problems != 0;
}
