/* gc_alloc(num_pointers, num_scalars): the managed code's allocation call.
 * Passes the caller's stack pointer (r1, unchanged by `bl`) and the return
 * address (LR), which names the safepoint's stack map record, to
 * gc_alloc_slow; tail call, no frame. The program has one TOC, so r2 is
 * already right for gc_alloc_slow's local entry point. */
        .abiversion 2
        .text
        .globl  gc_alloc
        .type   gc_alloc, @function
gc_alloc:
        mr      5, 1
        mflr    6
        b       gc_alloc_slow
        .size   gc_alloc, .-gc_alloc
        .section .note.GNU-stack,"",@progbits
