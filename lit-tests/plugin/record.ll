; Generic sections: record=CLASS@SECTION[:iN=VALUE...] adds the PC of every
; instruction of the class to SECTION, followed by the constants; the same in
; both encodings, combined with sanmd entries in one !pcsections node.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<record=call@my_calls:i32=7;record=atomicrmw@my_rmw;stats>' -S %s 2>%t.stats | %FileCheck %s --check-prefixes=CHECK,ONLY
; RUN: %FileCheck %s --check-prefix=STATS --input-file=%t.stats
; STATS: pcmap-stats v1 encoding=compact covered=0 atomics=0 uar=0 recorded=3 fences=0 module={{.*}}record.ll
; The native atomics section is LLVM 16's sanmd_atomics, or LLVM 19's own.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics;native;record=call@my_calls:i32=7;record=atomicrmw@my_rmw>' -S %s | %FileCheck %s --check-prefixes=CHECK,WITH -DATOMICS=%if plugin-llvm16 %{sanmd_atomics%} %else %{sanmd_atomics2!C%}
;
; CHECK-LABEL: define void @f(ptr %p)
; CHECK: call void @g(), !pcsections ![[CALL:[0-9]+]]
; CHECK: call void @llvm.donothing(){{$}}
; ONLY: atomicrmw add ptr %p, i32 1 seq_cst, align 4, !pcsections ![[RMW:[0-9]+]]
; WITH: atomicrmw add ptr %p, i32 1 seq_cst, align 4, !pcsections ![[RMW:[0-9]+]]
; CHECK: invoke void @g()
; CHECK-NEXT: to label %ok unwind label %lp, !pcsections ![[CALL]]
; ONLY-NOT: module_ctor
; CHECK-DAG: ![[CALL]] = !{!"my_calls", ![[AUX:[0-9]+]]}
; CHECK-DAG: ![[AUX]] = !{i32 7}
; ONLY-DAG: ![[RMW]] = !{!"my_rmw"}
; WITH-DAG: ![[RMW]] = !{!"[[ATOMICS]]", !"my_rmw"}
;
; In the object, the section holds a 4-byte PC and the constant per entry.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<record=atomicrmw@my_rmw:i32=7>' %s -o %t.bc
; RUN: %llc -mtriple=%triple-x86_64 -filetype=obj %t.bc -o %t.o
; RUN: %readobj --sections --relocations %t.o | %FileCheck %s --check-prefix=OBJ
; OBJ: Name: my_rmw
; OBJ: Size: 8
; OBJ: Section ({{[0-9]+}}) .relamy_rmw {
; OBJ-NEXT: R_X86_64_PC32 .text
; OBJ-NEXT: }
;
; LLVM 16's and LLVM 19's instruction selection drop !pcsections on calls
; (they warn; LLVM 19 says "!pcsections and/or !mmra"): the call class is
; accepted, but no call PC reaches an object.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<record=call@my_calls>' %s -o %t.calls.bc
; RUN: %llc -mtriple=%triple-x86_64 -filetype=obj %t.calls.bc -o %t.calls.o 2>&1 | %FileCheck %s --check-prefix=LOST
; LOST-COUNT-2: warning: loosing !pcsections {{(and/or !mmra )?}}metadata
; RUN: %readobj --sections %t.calls.o | %FileCheck %s --check-prefix=NOCALLS
; NOCALLS-NOT: Name: my_calls

declare void @g()
declare void @llvm.donothing()
declare i32 @__gxx_personality_v0(...)

define void @f(ptr %p) personality ptr @__gxx_personality_v0 {
  call void @g()
  call void @llvm.donothing()
  %r = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  invoke void @g() to label %ok unwind label %lp
ok:
  ret void
lp:
  %x = landingpad { ptr, i32 } cleanup
  ret void
}
