// Functions with the use-after-return bit (a local escapes) and stack-passed
// arguments in different numbers: LLVM >= 17 appends their size to the
// covered entry and sets the "has size" bit (2). `sink` and `main` are in
// uar-main.c, so that the local's address escapes for good.
void sink(int *);
int many(long a, long b, long c, long d, long e, long f, long g, long h, long i) {
  int x = (int)(a + b + c + d + e + f + g + h + i);
  sink(&x);
  return x;
}
int more(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j,
         long k, long l, double m) {
  int x = (int)(a + b + c + d + e + f + g + h + i + j + k + l + m);
  sink(&x);
  return x;
}
int few(long a) {
  int x = (int)a;
  sink(&x);
  return x;
}
