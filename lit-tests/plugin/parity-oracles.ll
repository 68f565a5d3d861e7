; Parity with both oracles: every !pcsections attachment (function or
; instruction, and its resolved content), the structors, their callback calls,
; markers and llvm.global_ctors/dtors/used entries produced by
; pcmap<…;native> equal the running opt's own sanmd-module (opt-16's; with
; LLVM 19 under test, opt-19's), and those of pcmap<…> (compact) equal
; opt-19's, for every subset of features. Input: Inputs/parity.ll.
; REQUIRES: llvm19
;
; Features: covered;atomics;uar (clang's `all`, LLVM 19's defaults for the other options)
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.native
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt16
; RUN: diff %t.native %t.opt16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.compact
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt19
; RUN: diff %t.compact %t.opt19
;
; Features: covered
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.native
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-covered -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt16
; RUN: diff %t.native %t.opt16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.compact
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-covered -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt19
; RUN: diff %t.compact %t.opt19
;
; Features: atomics
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.native
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-atomics -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt16
; RUN: diff %t.native %t.opt16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.compact
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-atomics -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt19
; RUN: diff %t.compact %t.opt19
;
; Features: uar
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<uar;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.native
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt16
; RUN: diff %t.native %t.opt16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<uar>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.compact
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt19
; RUN: diff %t.compact %t.opt19
;
; Features: atomics;uar
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics;uar;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.native
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt16
; RUN: diff %t.native %t.opt16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<atomics;uar>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.compact
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt19
; RUN: diff %t.compact %t.opt19
;
; Features: covered;atomics
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.native
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt16
; RUN: diff %t.native %t.opt16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.compact
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt19
; RUN: diff %t.compact %t.opt19
;
; Features: covered;uar
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;uar;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.native
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt16
; RUN: diff %t.native %t.opt16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;uar>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.compact
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.opt19
; RUN: diff %t.compact %t.opt19
;
; The pass does not depend on the target beyond COMDAT support; check the
; other triples once with all features.
; RUN: %opt -mtriple=%triple-aarch64 -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.a64
; RUN: %opt19 -mtriple=%triple-aarch64 -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.a64.opt19
; RUN: diff %t.a64 %t.a64.opt19
; RUN: %opt -mtriple=%triple-ppc64le -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.ppcle
; RUN: %opt -mtriple=%triple-ppc64le -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.ppcle.opt16
; RUN: diff %t.ppcle %t.ppcle.opt16
; RUN: %opt -mtriple=%triple-ppc64 -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.ppc
; RUN: %opt19 -mtriple=%triple-ppc64 -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.ppc.opt19
; RUN: diff %t.ppc %t.ppc.opt19
;
; The comparison can fail: the two releases differ on this input (with
; LLVM 16 under test), and a module with one atomic made single-threaded
; differs from the original.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar;native>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.n
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %S/Inputs/parity.ll | %attachments --structors - > %t.o19
; RUN: %if plugin-llvm16 %{ %not diff %t.n %t.o19 %}
; RUN: sed -e 's/%l2 = load atomic i32, ptr %%p acquire/%l2 = load atomic i32, ptr %%p syncscope("singlethread") acquire/' %S/Inputs/parity.ll > %t.mutated.ll
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -S %t.mutated.ll | %attachments --structors - > %t.mutated
; RUN: %not diff %t.n %t.mutated
;
; Sanity: the listing is not empty and covers what the oracles emit.
; RUN: %FileCheck --input-file=%t.n %s --check-prefix=LIST%llvm-major
; LIST16: @atomic_orderings | function | !{!"sanmd_covered", !{i32 1}}
; LIST16: @atomic_orderings | #1 %l0 = load atomic i32, ptr %p unordered | !{!"sanmd_atomics"}
; LIST16: structor define internal void @__sanitizer_metadata_atomics.module_ctor() comdat
; LIST19: @atomic_orderings | function | !{!"sanmd_covered2!C", !{i64 1}}
; LIST19: @atomic_orderings | #1 %l0 = load atomic i32, ptr %p unordered | !{!"sanmd_atomics2!C"}
; LIST19: structor define hidden void @__sanitizer_metadata_atomics2.module_ctor() comdat
;
; LLVM 19's options (issue 19, item 3), against the oracle that has them:
; -sanitizer-metadata-nosanitize-attr=false keeps the atomics bit of
; no_sanitize_thread functions; LLVM 16 has no such option and behaves so
; by default. -sanitizer-metadata-weak-callbacks=false (LLVM 16 and 19) calls
; the callbacks unconditionally. `all` is clang's word for the three features.
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<all;no-nosanitize-attr>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.nosan
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -sanitizer-metadata-nosanitize-attr=false -S %S/Inputs/parity.ll | %attachments --structors - > %t.nosan19
; RUN: diff %t.nosan %t.nosan19
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<covered;atomics;uar>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.three
; RUN: %not diff %t.nosan %t.three
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<all;no-weak-callbacks>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.strong
; RUN: %opt19 -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -sanitizer-metadata-weak-callbacks=false -S %S/Inputs/parity.ll | %attachments --structors - > %t.strong19
; RUN: diff %t.strong %t.strong19
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<all;native;no-weak-callbacks>' -S %S/Inputs/parity.ll | %attachments --structors - > %t.strong-native
; RUN: %opt -passes='module(sanmd-module)' -sanitizer-metadata-covered -sanitizer-metadata-atomics -sanitizer-metadata-uar -sanitizer-metadata-weak-callbacks=false -S %S/Inputs/parity.ll | %attachments --structors - > %t.strong16
; RUN: diff %t.strong-native %t.strong16
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<all>' -S %S/Inputs/parity.ll | %attachments --structors - | diff - %t.three
;
; nosanitize-attr in the native encoding is ours (LLVM 16 lacks it): the
; no_sanitize_thread functions lose the atomics bit (LLVM 19's default).
; RUN: %opt -load-pass-plugin=%plugin -passes='pcmap<all;native;nosanitize-attr>' -S %S/Inputs/parity.ll | %attachments - | %FileCheck %s --check-prefix=NOSAN%llvm-major
; NOSAN16: @no_sanitize_thread_fn | function | !{!"sanmd_covered", !{i32 0}}
; NOSAN16: @no_sanitize_thread_uar | function | !{!"sanmd_covered", !{i32 2}}
; NOSAN19: @no_sanitize_thread_fn | function | !{!"sanmd_covered2!C", !{i64 0}}
; NOSAN19: @no_sanitize_thread_uar | function | !{!"sanmd_covered2!C", !{i64 2}}
