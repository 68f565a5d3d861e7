// The other half of uar-args.c: what its functions pass their locals to.
int many(long, long, long, long, long, long, long, long, long);
int more(long, long, long, long, long, long, long, long, long, long, long, long, double);
int few(long);
void sink(int *p) { *p += 1; }
int main(void) {
  return many(1, 2, 3, 4, 5, 6, 7, 8, 9) + more(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13.0) +
             few(1) ==
         0;
}
