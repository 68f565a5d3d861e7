//! Reads of the stack being walked: the [`Memory`] trait, and (feature
//! `native`) [`NativeMemory`], the running program's own stack within
//! bounds.

/// Reads of the stack being walked.
pub trait Memory {
    /// The 8-byte word at `address` in the walked program's byte order, or
    /// `None` if it may not be read (outside the stack, misaligned).
    fn read_u64(&self, address: u64) -> Option<u64>;
    /// The instruction word at `address` (a return address), or `None` if
    /// code may not be read. Read on PowerPC64 only (see
    /// [`lookup`](super::lookup)).
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        let _ = address;
        None
    }
    /// Whether [`read_u64`](Self::read_u64) would give a value for every
    /// 8-aligned address in `[low, high)` (`low` itself 8-aligned): one
    /// check for all of a frame's reads, which then go through
    /// [`read_u64_unchecked`](Self::read_u64_unchecked). `false` (the
    /// default) is always correct: the reads are then checked one by one.
    fn can_read(&self, low: u64, high: u64) -> bool {
        let _ = (low, high);
        false
    }
    /// The word at `address` without the checks: what `read_u64` gives
    /// there.
    ///
    /// # Safety
    /// `read_u64(address)` gave a value, or `can_read` allowed a span
    /// holding `address`, which is 8-aligned; the stack was not unmapped
    /// since.
    unsafe fn read_u64_unchecked(&self, address: u64) -> u64 {
        self.read_u64(address).unwrap_or(0)
    }
}

impl<M: Memory> Memory for &M {
    #[inline(always)]
    fn read_u64(&self, address: u64) -> Option<u64> {
        (**self).read_u64(address)
    }
    #[inline(always)]
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        (**self).read_code_u32(address)
    }
    #[inline(always)]
    fn can_read(&self, low: u64, high: u64) -> bool {
        (**self).can_read(low, high)
    }
    #[inline(always)]
    unsafe fn read_u64_unchecked(&self, address: u64) -> u64 {
        // SAFETY: the caller's promise, passed on.
        unsafe { (**self).read_u64_unchecked(address) }
    }
}

/// The running program's own stack (feature `native`): words at or above
/// `low` (at least 1: never address 0) ending at or below `high`
/// (`u64::MAX` without bounds), read with plain loads; the code at a
/// return address readable (PowerPC64's TOC restore).
#[cfg(feature = "native")]
#[derive(Debug, Clone, Copy)]
pub struct NativeMemory {
    low: u64,
    high: u64,
}

#[cfg(feature = "native")]
impl NativeMemory {
    /// The stack between `stack_low` and `stack_high` (`[stack_low,
    /// stack_high)`, e.g. from `pthread_getattr_np`); both 0: no bounds,
    /// reads checked for alignment only.
    ///
    /// # Safety
    /// Every 8-aligned word in the bounds (without bounds: every word a
    /// walk reads, those its tables' rules name above the captured stack
    /// pointer) is mapped and readable while the memory is used; every
    /// return address the walk reads is in mapped code.
    #[inline(always)]
    pub unsafe fn new(stack_low: u64, stack_high: u64) -> NativeMemory {
        let (low, high) = match stack_low != 0 || stack_high != 0 {
            true => (stack_low.max(1), stack_high),
            false => (1, u64::MAX),
        };
        NativeMemory { low, high }
    }
}

#[cfg(feature = "native")]
impl Memory for NativeMemory {
    #[inline(always)]
    fn read_u64(&self, address: u64) -> Option<u64> {
        let end = address.checked_add(8)?;
        if address & 7 != 0 || address < self.low || end > self.high {
            return None;
        }
        // SAFETY: an aligned, non-null address inside the bounds `new`'s
        // caller promised readable.
        Some(unsafe { (address as usize as *const u64).read_volatile() })
    }
    #[inline(always)]
    fn can_read(&self, low: u64, high: u64) -> bool {
        low & 7 == 0 && low >= self.low && low <= high && high <= self.high
    }
    #[inline(always)]
    unsafe fn read_u64_unchecked(&self, address: u64) -> u64 {
        // SAFETY: the caller's promise: `read_u64` accepted `address`, or
        // `can_read` a span holding it, whose checks it passed with it.
        unsafe { (address as usize as *const u64).read_volatile() }
    }
    #[inline(always)]
    fn read_code_u32(&self, address: u64) -> Option<u32> {
        if address & 3 != 0 || address == 0 {
            return None;
        }
        // SAFETY: `address` is the return address of a frame being walked
        // (its PC): the instruction there is mapped code (`new`'s promise).
        Some(unsafe { (address as usize as *const u32).read_volatile() })
    }
}
