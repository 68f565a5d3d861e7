; pcmap oracle corpus (issue 14): an LLVM CodeGen test input, Apache-2.0 WITH LLVM-exception (see README.md).
; origin: llvm/llvm-project llvm/test/CodeGen/AArch64/arm64-anyregcc-crash.ll at 10359153e443277373e732a8c997e4eafb5f2edb
; original-run: not llc < %s -mtriple=arm64-apple-darwin 2>&1
; corpus-triples: aarch64
; corpus-expect: llc-error ran out of registers during register allocation
; changed: RUN and CHECK lines removed; nothing else. LLVM expects llc to refuse it: the checker checks that it does.
;
; Check that misuse of anyregcc results in a compile time error.

define i64 @anyreglimit(i64 %v1, i64 %v2, i64 %v3, i64 %v4, i64 %v5, i64 %v6, i64 %v7, i64 %v8,
                        i64 %v9, i64 %v10, i64 %v11, i64 %v12, i64 %v13, i64 %v14, i64 %v15, i64 %v16,
                        i64 %v17, i64 %v18, i64 %v19, i64 %v20, i64 %v21, i64 %v22, i64 %v23, i64 %v24,
                        i64 %v25, i64 %v26, i64 %v27, i64 %v28, i64 %v29, i64 %v30, i64 %v31, i64 %v32) {
entry:
  %result = tail call anyregcc i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 12, i32 16, ptr inttoptr (i64 0 to ptr), i32 32,
                i64 %v1, i64 %v2, i64 %v3, i64 %v4, i64 %v5, i64 %v6, i64 %v7, i64 %v8,
                i64 %v9, i64 %v10, i64 %v11, i64 %v12, i64 %v13, i64 %v14, i64 %v15, i64 %v16,
                i64 %v17, i64 %v18, i64 %v19, i64 %v20, i64 %v21, i64 %v22, i64 %v23, i64 %v24,
                i64 %v25, i64 %v26, i64 %v27, i64 %v28, i64 %v29, i64 %v30, i64 %v31, i64 %v32)
  ret i64 %result
}

declare i64 @llvm.experimental.patchpoint.i64(i64, i32, ptr, i32, ...)
