// uint64_t odd_frame(void (*next)(uint64_t), uint64_t value): calls
// next(value) with `value` in a stack slot, and returns what the slot holds
// afterwards (what the collector moved it to). Its frame record {x29, x30}
// is at 8 mod 16, below it x19 alone (an odd number of callee-saved
// registers), as AAPCS64 allows and LLVM 16 never does:
//
//   CFA - 16  value (the root: [x29 + 16])
//   CFA - 32  x30  \ frame record, x29 = sp + 8
//   CFA - 40  x29  /
//   CFA - 48  x19   sp (16-aligned)
//
// Its stack map (.llvm_stackmaps, version 3, written by hand: one record,
// ID 99, at the return address of the call, one Indirect [x29 + 16]
// location) and its description (.pcmap.sites, as the plugin would write
// it for an llvm.experimental.stackmap with ID 99 and no shadow:
// docs/stackmap-sites.md; not a statepoint, whose records begin with three
// constant locations) become a flat table with the record's kind and its
// frame state (CFA = x29 + 40) through pcmap emit, as an LLVM-compiled
// function's would.
        .text
        .globl  odd_frame
        .type   odd_frame, %function
        .p2align 2
odd_frame:
        .cfi_startproc
        sub     sp, sp, #48
        .cfi_def_cfa_offset 48
        str     x19, [sp]
        stp     x29, x30, [sp, #8]
        str     x1, [sp, #24]
        add     x29, sp, #8
        .cfi_def_cfa w29, 40
        .cfi_offset w30, -32
        .cfi_offset w29, -40
        .cfi_offset w19, -48
        mov     x19, x0
        mov     x0, x1
        blr     x19
.Lreturn:
        ldr     x0, [sp, #24]
        ldp     x29, x30, [sp, #8]
        ldr     x19, [sp]
        add     sp, sp, #48
        .cfi_def_cfa sp, 0
        .cfi_restore w30
        .cfi_restore w29
        .cfi_restore w19
        ret
        .cfi_endproc
        .size   odd_frame, .-odd_frame

        .section .llvm_stackmaps,"a",@progbits
        .p2align 3
        .byte   3, 0                    // version 3
        .hword  0
        .word   1, 0, 1                 // functions, constants, records
        .xword  odd_frame               // function: address, stack size, records
        .xword  48
        .xword  1
        .xword  99                      // record: ID
        .word   .Lreturn - odd_frame    // instruction offset: the return address
        .hword  0                       // flags
        .hword  1                       // locations
        .byte   3, 0                    // Indirect
        .hword  8                       // size
        .hword  29                      // x29
        .hword  0
        .word   16                      // offset
        .word   0                       // padding to 8
        .hword  0                       // padding
        .hword  0                       // live-outs
        .word   0                       // padding to 8

        .section .pcmap.sites,"e",@progbits
        .ascii  "pcmap-sites 1\n"
        .ascii  "site stackmap 99 0 odd_frame\n"
        .ascii  "end\n"
        .section .note.GNU-stack,"",@progbits
