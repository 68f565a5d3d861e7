; An unknown pass parameter is a clear error from opt naming the bad word,
; not a crash.
; RUN: %not %opt -load-pass-plugin=%plugin -passes='pcmap<covered;bogus>' -disable-output %s 2>&1 | %FileCheck %s
; CHECK: pcmap: unknown pass parameter 'bogus'
; CHECK: unknown pass name 'pcmap<covered;bogus>'
; CHECK-NOT: Stack dump

; RUN: %not %opt -load-pass-plugin=%plugin -passes='pcmap<>' -disable-output %s 2>&1 | %FileCheck %s --check-prefix=EMPTY
; EMPTY: pcmap: empty pass parameter

define void @f() {
  ret void
}
