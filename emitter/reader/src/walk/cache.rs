//! A caller-owned cache of compiled frames: per return address, the plan
//! of the record there (the one encoding a walk runs) and the tables'
//! function and record, so that a walk that meets the PC again neither
//! looks it up nor decodes it.
//!
//! ```text
//! Slot (one cache line holds the PC and the plan's header):
//!    0  pc        u64    the frame's PC; 0: empty
//!    8  plan      Plan   its `link`: where the caller's slot was last, in
//!                        words from the first slot (clamped to the
//!                        cache); its flags: the mark of a PC in no
//!                        function (no plan: the walk ends there)
//!       function, record   the tables' (copied into a cursor's frame)
//! ```
//!
//! Two-way set associative by the PC's hash: a new entry takes an empty
//! slot of its two, else the first, whose entry moves to the second (the
//! one used least recently is dropped). A cache is bound to the tables it
//! was filled from ([`CacheKey`](super::CacheKey): a section, or the
//! registry at a generation) and empties itself when bound to others; a
//! flush empties every slot and counts an epoch, so a walk that began
//! before it stops using it.

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use super::plan::Plan;
use super::tables::CacheKey;

/// One entry of a [`Cache`].
#[repr(C)]
pub struct Slot<F, R> {
    pub(crate) pc: u64,
    pub(crate) plan: Plan,
    pub(crate) function: MaybeUninit<F>,
    pub(crate) record: MaybeUninit<R>,
}

/// Most entries a cache has: every link (a slot's offset in words) fits
/// in a `u32`.
pub const MAX_CACHE_BITS: u32 = 25;

/// A cache of compiled frames in the caller's memory (see the module
/// documentation). repr(C): the C API's `pcmap_walk_cache`.
#[repr(C)]
pub struct Cache<'m, F, R> {
    slots: *mut Slot<F, R>,
    capacity: u32,
    bound: u32,
    key: CacheKey,
    epoch: u64,
    /// Frames found in the cache (a record, or a PC in no function kept
    /// after its lookup).
    pub hits: u64,
    /// Frames looked up in the tables and kept.
    pub misses: u64,
    /// Frames looked up and not kept as a record (no record there, or a
    /// record whose plan does not fit).
    pub uncached: u64,
    _memory: PhantomData<&'m mut [Slot<F, R>]>,
}

impl<'m, F: Copy, R: Copy> Cache<'m, F, R> {
    /// A cache over `memory`: as many slots as a power of two of them
    /// fits (at most 2^[`MAX_CACHE_BITS`]), all empty; `None` for fewer
    /// than two. The cache allocates nothing.
    pub fn new(memory: &'m mut [MaybeUninit<Slot<F, R>>]) -> Option<Self> {
        // SAFETY: the slice is writable slots, borrowed for 'm.
        unsafe { Self::in_memory(memory.as_mut_ptr().cast(), core::mem::size_of_val(memory)) }
    }

    /// A cache over `bytes` bytes at `memory` (8-aligned), as
    /// [`Cache::new`]; `None` for memory not 8-aligned or fewer than two
    /// slots.
    ///
    /// # Safety
    /// `memory` is writable for `bytes` bytes and used by nothing else for
    /// `'m`.
    pub unsafe fn in_memory(memory: *mut u8, bytes: usize) -> Option<Self> {
        let fit = bytes / core::mem::size_of::<Slot<F, R>>();
        let misaligned = memory as usize & (core::mem::align_of::<Slot<F, R>>() - 1) != 0;
        if memory.is_null() || misaligned || fit < 2 {
            return None;
        }
        let capacity = 1u32 << (usize::BITS - 1 - fit.leading_zeros()).min(MAX_CACHE_BITS);
        let slots = memory.cast::<Slot<F, R>>();
        for i in 0..capacity as usize {
            // SAFETY: inside the caller's memory (capacity slots fit).
            unsafe { core::ptr::addr_of_mut!((*slots.add(i)).pc).write(0) };
        }
        // Zeros the compiler does not know are zeros: a few stores, not a
        // call to memset, which the C library does not link.
        let zero = core::hint::black_box(0u64);
        Some(Cache {
            slots,
            capacity,
            bound: zero as u32,
            key: [zero; 4],
            epoch: zero,
            hits: zero,
            misses: zero,
            uncached: zero,
            _memory: PhantomData,
        })
    }

    /// Slots.
    pub fn capacity(&self) -> usize {
        self.capacity as usize
    }

    /// Flushes so far: a walk that began before the last one stops using
    /// the cache.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Empties every slot (the counters stay): for tables changed in place
    /// (a JIT rewriting its own table), which a key cannot show.
    pub fn flush(&mut self) {
        for i in 0..self.capacity as usize {
            // SAFETY: one of the cache's slots.
            unsafe { (*self.slots.add(i)).pc = 0 };
        }
        self.bound = 0;
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// Binds the cache to the tables `key` names, emptying it if it
    /// described others.
    pub fn bind(&mut self, key: CacheKey) {
        if self.bound == 0 || self.key != key {
            self.flush();
            self.bound = 1;
            self.key = key;
        }
    }

    /// The first slot of the two `pc` may be in (the other is `^ 1`).
    #[inline(always)]
    fn set_of(&self, pc: u64) -> usize {
        ((pc.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize) & (self.capacity as usize - 1)
    }

    /// The slot holding `pc`, if any (a PC is never 0: an empty slot's).
    #[inline(always)]
    pub(crate) fn find(&self, pc: u64) -> Option<*mut Slot<F, R>> {
        if pc == 0 {
            return None;
        }
        let i = self.set_of(pc);
        // SAFETY: `i` and `i ^ 1` are below the capacity (a power of two,
        // at least 2).
        unsafe {
            let s = self.slots.add(i);
            if (*s).pc == pc {
                return Some(s);
            }
            let s = self.slots.add(i ^ 1);
            ((*s).pc == pc).then_some(s)
        }
    }

    /// The slot `pc` is to be kept in, its PC set and its link cleared,
    /// its plan and entry left to the caller to write: an empty slot of
    /// its two, else the first, whose entry moves to the second.
    #[inline(never)]
    pub(crate) fn claim(&mut self, pc: u64) -> Option<*mut Slot<F, R>> {
        if pc == 0 {
            return None;
        }
        let i = self.set_of(pc);
        // SAFETY: both below the capacity; the slots do not overlap.
        unsafe {
            let (a, b) = (self.slots.add(i), self.slots.add(i ^ 1));
            let at = if (*a).pc == 0 {
                a
            } else if (*b).pc == 0 {
                b
            } else {
                core::ptr::swap_nonoverlapping(a, b, 1);
                a
            };
            (*at).pc = pc;
            (*at).plan.link = 0;
            (*at).plan.set_mark(false);
            Some(at)
        }
    }

    /// Keeps `plan` and the tables' `function` and `record` for `pc`.
    #[inline]
    pub(crate) fn keep(
        &mut self,
        pc: u64,
        plan: &Plan,
        function: F,
        record: R,
    ) -> Option<*mut Slot<F, R>> {
        let s = self.claim(pc)?;
        // SAFETY: a slot of the cache, claimed for `pc`; `plan` is the
        // caller's, not in the cache (copies, not moves: the C library
        // links no memmove); the link the claim cleared.
        unsafe {
            core::ptr::copy_nonoverlapping(plan, &mut (*s).plan, 1);
            (*s).plan.link = 0;
            (*s).function = MaybeUninit::new(function);
            (*s).record = MaybeUninit::new(record);
        }
        Some(s)
    }

    /// Keeps the mark of `pc`, in no function: found again, the walk ends
    /// there without a search.
    #[inline]
    pub(crate) fn keep_mark(&mut self, pc: u64) {
        if let Some(s) = self.claim(pc) {
            // SAFETY: a slot of the cache, claimed for `pc`.
            unsafe { (*s).plan.set_mark(true) };
        }
    }

    /// The link to `slot`, one of the cache's: its offset in words.
    #[inline(always)]
    pub(crate) fn link_to(&self, slot: *const Slot<F, R>) -> u32 {
        ((slot as usize).wrapping_sub(self.slots as usize) / 8) as u32
    }

    /// Where the slots are, to follow links ([`Links::linked`]).
    #[inline(always)]
    pub(crate) fn links(&self) -> Links<F, R> {
        Links {
            first: self.slots,
            last: (self.capacity as usize - 1) * (core::mem::size_of::<Slot<F, R>>() / 8),
        }
    }

    /// The slot `from`'s link leads to, if it holds the entry of `pc`
    /// ([`Links::linked`]).
    ///
    /// # Safety
    /// `from` is one of the cache's slots.
    #[inline(always)]
    pub(crate) unsafe fn linked(
        &self,
        from: *const Slot<F, R>,
        pc: u64,
    ) -> Option<*mut Slot<F, R>> {
        // SAFETY: the caller's promise.
        unsafe { self.links().linked(from, pc) }
    }
}

/// Where a cache's slots are, for following links: the first slot and the
/// last one's offset in words.
pub(crate) struct Links<F, R> {
    first: *mut Slot<F, R>,
    last: usize,
}

impl<F, R> Links<F, R> {
    /// The slot `from`'s link leads to, if it holds the entry of `pc` (not
    /// the mark of a PC in no function: a link's slot may have been reused
    /// since, even for the mark of the very PC it looks for).
    ///
    /// # Safety
    /// `from` is one of the cache's slots.
    #[inline(always)]
    pub(crate) unsafe fn linked(
        &self,
        from: *const Slot<F, R>,
        pc: u64,
    ) -> Option<*mut Slot<F, R>> {
        // Clamped to the last slot: in the cache whatever `from` holds (a
        // slot's start, for a link `link_to` made).
        // SAFETY: `from` is the cache's (the caller's promise).
        let words = (unsafe { (*from).plan.link } as usize).min(self.last);
        let to = self
            .first
            .cast::<u64>()
            .wrapping_add(words)
            .cast::<Slot<F, R>>();
        // SAFETY: `to` is inside the cache's memory (clamped), at a slot's
        // start for every link made by `link_to`; its fields are plain
        // words, whatever the slot holds.
        unsafe { ((*to).pc == pc && !(*to).plan.is_mark()).then_some(to) }
    }
}

const _: () = assert!(core::mem::size_of::<Plan>() & 7 == 0);
