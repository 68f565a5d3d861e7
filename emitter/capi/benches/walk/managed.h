/* Generated for managed.c: 64 functions, each calling the next. */
void bench_f0(uint64_t depth, uint64_t a);
void bench_f1(uint64_t depth, uint64_t a);
void bench_f2(uint64_t depth, uint64_t a);
void bench_f3(uint64_t depth, uint64_t a);
void bench_f4(uint64_t depth, uint64_t a);
void bench_f5(uint64_t depth, uint64_t a);
void bench_f6(uint64_t depth, uint64_t a);
void bench_f7(uint64_t depth, uint64_t a);
void bench_f8(uint64_t depth, uint64_t a);
void bench_f9(uint64_t depth, uint64_t a);
void bench_f10(uint64_t depth, uint64_t a);
void bench_f11(uint64_t depth, uint64_t a);
void bench_f12(uint64_t depth, uint64_t a);
void bench_f13(uint64_t depth, uint64_t a);
void bench_f14(uint64_t depth, uint64_t a);
void bench_f15(uint64_t depth, uint64_t a);
void bench_f16(uint64_t depth, uint64_t a);
void bench_f17(uint64_t depth, uint64_t a);
void bench_f18(uint64_t depth, uint64_t a);
void bench_f19(uint64_t depth, uint64_t a);
void bench_f20(uint64_t depth, uint64_t a);
void bench_f21(uint64_t depth, uint64_t a);
void bench_f22(uint64_t depth, uint64_t a);
void bench_f23(uint64_t depth, uint64_t a);
void bench_f24(uint64_t depth, uint64_t a);
void bench_f25(uint64_t depth, uint64_t a);
void bench_f26(uint64_t depth, uint64_t a);
void bench_f27(uint64_t depth, uint64_t a);
void bench_f28(uint64_t depth, uint64_t a);
void bench_f29(uint64_t depth, uint64_t a);
void bench_f30(uint64_t depth, uint64_t a);
void bench_f31(uint64_t depth, uint64_t a);
void bench_f32(uint64_t depth, uint64_t a);
void bench_f33(uint64_t depth, uint64_t a);
void bench_f34(uint64_t depth, uint64_t a);
void bench_f35(uint64_t depth, uint64_t a);
void bench_f36(uint64_t depth, uint64_t a);
void bench_f37(uint64_t depth, uint64_t a);
void bench_f38(uint64_t depth, uint64_t a);
void bench_f39(uint64_t depth, uint64_t a);
void bench_f40(uint64_t depth, uint64_t a);
void bench_f41(uint64_t depth, uint64_t a);
void bench_f42(uint64_t depth, uint64_t a);
void bench_f43(uint64_t depth, uint64_t a);
void bench_f44(uint64_t depth, uint64_t a);
void bench_f45(uint64_t depth, uint64_t a);
void bench_f46(uint64_t depth, uint64_t a);
void bench_f47(uint64_t depth, uint64_t a);
void bench_f48(uint64_t depth, uint64_t a);
void bench_f49(uint64_t depth, uint64_t a);
void bench_f50(uint64_t depth, uint64_t a);
void bench_f51(uint64_t depth, uint64_t a);
void bench_f52(uint64_t depth, uint64_t a);
void bench_f53(uint64_t depth, uint64_t a);
void bench_f54(uint64_t depth, uint64_t a);
void bench_f55(uint64_t depth, uint64_t a);
void bench_f56(uint64_t depth, uint64_t a);
void bench_f57(uint64_t depth, uint64_t a);
void bench_f58(uint64_t depth, uint64_t a);
void bench_f59(uint64_t depth, uint64_t a);
void bench_f60(uint64_t depth, uint64_t a);
void bench_f61(uint64_t depth, uint64_t a);
void bench_f62(uint64_t depth, uint64_t a);
void bench_f63(uint64_t depth, uint64_t a);
BENCH_FRAME(bench_f0, bench_f1)
BENCH_FRAME(bench_f1, bench_f2)
BENCH_FRAME(bench_f2, bench_f3)
BENCH_FRAME(bench_f3, bench_f4)
BENCH_FRAME(bench_f4, bench_f5)
BENCH_FRAME(bench_f5, bench_f6)
BENCH_FRAME(bench_f6, bench_f7)
BENCH_FRAME(bench_f7, bench_f8)
BENCH_FRAME(bench_f8, bench_f9)
BENCH_FRAME(bench_f9, bench_f10)
BENCH_FRAME(bench_f10, bench_f11)
BENCH_FRAME(bench_f11, bench_f12)
BENCH_FRAME(bench_f12, bench_f13)
BENCH_FRAME(bench_f13, bench_f14)
BENCH_FRAME(bench_f14, bench_f15)
BENCH_FRAME(bench_f15, bench_f16)
BENCH_FRAME(bench_f16, bench_f17)
BENCH_FRAME(bench_f17, bench_f18)
BENCH_FRAME(bench_f18, bench_f19)
BENCH_FRAME(bench_f19, bench_f20)
BENCH_FRAME(bench_f20, bench_f21)
BENCH_FRAME(bench_f21, bench_f22)
BENCH_FRAME(bench_f22, bench_f23)
BENCH_FRAME(bench_f23, bench_f24)
BENCH_FRAME(bench_f24, bench_f25)
BENCH_FRAME(bench_f25, bench_f26)
BENCH_FRAME(bench_f26, bench_f27)
BENCH_FRAME(bench_f27, bench_f28)
BENCH_FRAME(bench_f28, bench_f29)
BENCH_FRAME(bench_f29, bench_f30)
BENCH_FRAME(bench_f30, bench_f31)
BENCH_FRAME(bench_f31, bench_f32)
BENCH_FRAME(bench_f32, bench_f33)
BENCH_FRAME(bench_f33, bench_f34)
BENCH_FRAME(bench_f34, bench_f35)
BENCH_FRAME(bench_f35, bench_f36)
BENCH_FRAME(bench_f36, bench_f37)
BENCH_FRAME(bench_f37, bench_f38)
BENCH_FRAME(bench_f38, bench_f39)
BENCH_FRAME(bench_f39, bench_f40)
BENCH_FRAME(bench_f40, bench_f41)
BENCH_FRAME(bench_f41, bench_f42)
BENCH_FRAME(bench_f42, bench_f43)
BENCH_FRAME(bench_f43, bench_f44)
BENCH_FRAME(bench_f44, bench_f45)
BENCH_FRAME(bench_f45, bench_f46)
BENCH_FRAME(bench_f46, bench_f47)
BENCH_FRAME(bench_f47, bench_f48)
BENCH_FRAME(bench_f48, bench_f49)
BENCH_FRAME(bench_f49, bench_f50)
BENCH_FRAME(bench_f50, bench_f51)
BENCH_FRAME(bench_f51, bench_f52)
BENCH_FRAME(bench_f52, bench_f53)
BENCH_FRAME(bench_f53, bench_f54)
BENCH_FRAME(bench_f54, bench_f55)
BENCH_FRAME(bench_f55, bench_f56)
BENCH_FRAME(bench_f56, bench_f57)
BENCH_FRAME(bench_f57, bench_f58)
BENCH_FRAME(bench_f58, bench_f59)
BENCH_FRAME(bench_f59, bench_f60)
BENCH_FRAME(bench_f60, bench_f61)
BENCH_FRAME(bench_f61, bench_f62)
BENCH_FRAME(bench_f62, bench_f63)
BENCH_FRAME(bench_f63, bench_f0)
