/* gc_alloc(num_pointers, num_scalars): the managed code's allocation call.
 * Passes the caller's stack pointer (unchanged by `bl`) and the return
 * address (x30), which names the safepoint's stack map record, to
 * gc_alloc_slow; tail call, no frame. */
        .text
        .globl  gc_alloc
        .type   gc_alloc, %function
gc_alloc:
        mov     x2, sp
        mov     x3, x30
        b       gc_alloc_slow
        .size   gc_alloc, .-gc_alloc
        .section .note.GNU-stack,"",%progbits
