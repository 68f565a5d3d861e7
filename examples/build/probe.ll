; A function with a stack map record, compiled by `pcmap cc CC -c probe.ll`:
; the plugin describes the site in .pcmap.sites and pcmap emit writes the
; flat table pcmap_stackmaps that report.c finds through __start_/__stop_.
define i32 @sm_probe(i32 %x) {
entry:
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 42, i32 0, i32 %x)
  ret i32 %x
}

declare void @llvm.experimental.stackmap(i64, i32, ...)
