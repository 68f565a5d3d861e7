/* A program around one-stackmap.ll's g (a stack map right after a call). */
void f(void) {}
long g(long);
int main(void) { return (int)g(0); }
