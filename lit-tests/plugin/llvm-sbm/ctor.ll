; pcmap parity input (issue 19): one of LLVM's own SanitizerBinaryMetadata tests, Apache-2.0 WITH LLVM-exception (LICENSE.TXT, README.md).
; origin: llvm/llvm-project llvm/test/Instrumentation/SanitizerBinaryMetadata/ctor.ll at 75ef5879ab965f839ea729671b0093bb752c9384
; original-run: opt < %s -passes='module(sanmd-module)' -sanitizer-metadata-atomics -S | FileCheck %s
; changed: RUN and CHECK lines removed; nothing else.
;
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i8 @foo(ptr %a) nounwind uwtable {
entry:
  %0 = load atomic i8, ptr %a unordered, align 1
  ret i8 %0
}
