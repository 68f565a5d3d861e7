/* gc_alloc(num_pointers, num_scalars): the managed code's allocation call.
 * Passes the caller's stack pointer as it will be after the return (RSP + 8:
 * the call pushed the return address) and the return address, which names
 * the safepoint's stack map record, to gc_alloc_slow; tail call, no frame. */
        .text
        .globl  gc_alloc
        .type   gc_alloc, @function
gc_alloc:
        leaq    8(%rsp), %rdx
        movq    (%rsp), %rcx
        jmp     gc_alloc_slow
        .size   gc_alloc, .-gc_alloc
        .section .note.GNU-stack,"",@progbits
