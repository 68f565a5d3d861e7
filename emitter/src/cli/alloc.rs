//! The command's allocator: the system's, except that blocks of 2 MiB and
//! more are mapped on their own with transparent huge pages advised
//! (`MADV_HUGEPAGE`; systems whose THP setting is `madvise`, the common
//! default, give huge pages only where asked).
//!
//! Why: `emit` fills tens of megabytes of fresh memory (relocations, symbols,
//! the flat table being written, the site index) once each. With 4 KiB pages
//! every page is a fault: 20,900 of them on the `small` benchmark shape,
//! about a fifth of its wall-clock time; with huge pages 2 MiB is one fault
//! (and fewer TLB misses after). Smaller blocks stay with the system
//! allocator, whose heap reuses them. Where the kernel has no huge page to
//! give (THP `never`, or memory too fragmented: with `defrag` at its
//! default, `madvise`, it tries compaction first), the block is in small
//! pages, as glibc's own large blocks are. A block of just over n × 2 MiB
//! holds n + 1 huge pages once touched: at most 2 MiB of memory per block
//! beyond its size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr;

/// Size (and granule) from which a block gets its own huge-page mapping.
const HUGE: usize = 2 << 20;

/// See the module documentation.
pub struct HugeBlocks;

/// Whether a block of `layout` is mapped by [`HugeBlocks`] (by size alone:
/// a block keeps its layout's size from allocation to deallocation, so
/// every call agrees on who owns it). Alignments over a page stay with the
/// system allocator (`mmap` gives page alignment).
fn mapped(size: usize, align: usize) -> bool {
    size >= HUGE && align <= 4096
}

/// `size` rounded up to whole huge pages: the kernel places an anonymous
/// mapping of a multiple of 2 MiB on a 2 MiB boundary, so every page of it
/// can be huge.
fn granules(size: usize) -> Option<usize> {
    size.checked_next_multiple_of(HUGE)
}

/// A fresh zeroed mapping of `size` bytes advised for huge pages; null on
/// failure (the caller's allocation error).
fn map(size: usize) -> *mut u8 {
    let Some(len) = granules(size) else {
        return ptr::null_mut();
    };
    // SAFETY: a new private anonymous mapping: it aliases nothing.
    let p = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return ptr::null_mut();
    }
    // SAFETY: `p..p + len` is the mapping just made. Advice only: if the
    // kernel refuses it, the memory is still there, in small pages.
    unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
    p.cast()
}

// SAFETY: every block is either the system allocator's (asked and returned
// to it alone: `mapped` is false for its size at every call) or a mapping
// of its own of at least its size, page-aligned (enough for `mapped`
// alignments), unmapped exactly once on deallocation.
unsafe impl GlobalAlloc for HugeBlocks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !mapped(layout.size(), layout.align()) {
            // SAFETY: the caller's contract, passed on.
            return unsafe { System.alloc(layout) };
        }
        map(layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !mapped(layout.size(), layout.align()) {
            // SAFETY: the caller's contract, passed on.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // Fresh anonymous memory reads as zeros.
        map(layout.size())
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if !mapped(layout.size(), layout.align()) {
            // SAFETY: the caller's contract, passed on: `p` is the system
            // allocator's.
            return unsafe { System.dealloc(p, layout) };
        }
        let len = granules(layout.size()).unwrap_or(layout.size());
        // SAFETY: `p` is a mapping of `len` bytes made by `map` (or
        // `realloc`'s `mremap`) for a block of this size; unmapped once.
        unsafe { libc::munmap(p.cast(), len) };
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (mapped(layout.size(), align), mapped(new_size, align)) {
            // SAFETY: the caller's contract, passed on.
            (false, false) => unsafe { System.realloc(p, layout, new_size) },
            (true, true) => {
                let (Some(old), Some(new)) = (granules(layout.size()), granules(new_size)) else {
                    return ptr::null_mut();
                };
                if old == new {
                    return p;
                }
                // SAFETY: `p` is a mapping of `old` bytes (see `dealloc`);
                // moved or resized whole, keeping its contents and advice.
                let q = unsafe { libc::mremap(p.cast(), old, new, libc::MREMAP_MAYMOVE) };
                match q == libc::MAP_FAILED {
                    true => ptr::null_mut(),
                    false => q.cast(),
                }
            }
            // Between the two kinds: a new block, the bytes copied.
            _ => {
                // SAFETY: `new_size` is non-zero (at least the old size or
                // over `HUGE`) and `align` a valid alignment: the caller's
                // layout's.
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, align) };
                // SAFETY: as `alloc`.
                let q = unsafe { self.alloc(new_layout) };
                if !q.is_null() {
                    // SAFETY: both blocks hold at least the smaller size;
                    // a new block never overlaps a live one.
                    unsafe {
                        ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                        self.dealloc(p, layout);
                    }
                }
                q
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block grown from the system's heap into a mapping, within it, and
    /// back keeps its bytes at every step; zeroed blocks read as zeros.
    #[test]
    fn blocks_keep_their_bytes_across_kinds() {
        let a = HugeBlocks;
        let fill = |p: *mut u8, n: usize| {
            for i in 0..n {
                // SAFETY: `p` holds at least `n` bytes.
                unsafe { *p.add(i) = (i % 251) as u8 };
            }
        };
        let check = |p: *const u8, n: usize| {
            // SAFETY: `p` holds at least `n` initialized bytes.
            let s = unsafe { std::slice::from_raw_parts(p, n) };
            assert!(s.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
        };
        let sizes = [1000, HUGE + 1, HUGE + 2, 3 * HUGE + 5, HUGE, HUGE - 1, 64];
        let mut layout = Layout::from_size_align(sizes[0], 8).unwrap();
        // SAFETY: a non-zero size.
        let mut p = unsafe { a.alloc(layout) };
        assert!(!p.is_null());
        fill(p, layout.size());
        for &n in &sizes[1..] {
            // SAFETY: `p` is this allocator's block of `layout`; `n` > 0.
            p = unsafe { a.realloc(p, layout, n) };
            assert!(!p.is_null());
            check(p, layout.size().min(n));
            layout = Layout::from_size_align(n, 8).unwrap();
            fill(p, n);
        }
        // SAFETY: `p` is this allocator's block of `layout`.
        unsafe { a.dealloc(p, layout) };
        for n in [100, 3 * HUGE] {
            let l = Layout::from_size_align(n, 4096).unwrap();
            // SAFETY: a non-zero size.
            let z = unsafe { a.alloc_zeroed(l) };
            assert!(!z.is_null() && (z as usize).is_multiple_of(4096));
            // SAFETY: `z` holds `n` zeroed bytes.
            assert!(unsafe { std::slice::from_raw_parts(z, n) }
                .iter()
                .all(|&b| b == 0));
            // SAFETY: `z` is this allocator's block of `l`.
            unsafe { a.dealloc(z, l) };
        }
    }
}
