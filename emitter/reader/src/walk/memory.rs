//! Reads of the stack being walked: the [`Memory`] trait, and (feature
//! `native`) [`NativeMemory`], the running program's own stack within
//! bounds.

/// How far from a frame's CFA a plan's reads are at most: a plan whose
/// reads reach farther checks them one by one.
pub const SPAN_REACH: u64 = 128 * 8;

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
    /// Whether [`can_read`](Self::can_read) allows every span of
    /// 8-aligned words within [`SPAN_REACH`] bytes of `center` (an
    /// 8-aligned address): one compare for a frame whose CFA is not near
    /// the stack's ends. `false` (the default) is always correct.
    fn can_read_near(&self, center: u64) -> bool {
        let _ = center;
        false
    }
    /// The word at `address` without the checks: what `read_u64` gives
    /// there.
    ///
    /// # Safety
    /// `read_u64(address)` gave a value, or `can_read` (or
    /// `can_read_near`) allowed a span holding `address`, which is
    /// 8-aligned; the stack was not unmapped since.
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
    fn can_read_near(&self, center: u64) -> bool {
        (**self).can_read_near(center)
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
    /// `can_read_near(c)`: `c - near_low <= near_width` (unsigned), that
    /// is `c` in `[low + SPAN_REACH, high - SPAN_REACH]`; for bounds closer
    /// than that, no `c` (`near_low` 1: `c` is 8-aligned).
    near_low: u64,
    near_width: u64,
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
        let (near_low, near_width) = match high.checked_sub(low) {
            Some(size) if size >= 2 * SPAN_REACH => (low + SPAN_REACH, size - 2 * SPAN_REACH),
            _ => (1, 0),
        };
        NativeMemory {
            low,
            high,
            near_low,
            near_width,
        }
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
    fn can_read_near(&self, center: u64) -> bool {
        center.wrapping_sub(self.near_low) <= self.near_width
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

#[cfg(all(test, feature = "native"))]
mod tests {
    use super::*;

    /// `can_read_near` allows a CFA only where every word within
    /// `SPAN_REACH` of it, both ways, is inside the bounds: exactly.
    #[test]
    fn a_cfa_is_near_only_inside_the_bounds_by_the_reach() {
        let new = |low, high| {
            // SAFETY: nothing is read: only the bounds' arithmetic.
            unsafe { NativeMemory::new(low, high) }
        };
        let (low, high) = (0x10_0000u64, 0x10_4000u64);
        let m = new(low, high);
        let near = |c: u64| m.can_read_near(c);
        assert!(near(low + SPAN_REACH));
        assert!(!near(low + SPAN_REACH - 8));
        assert!(near(high - SPAN_REACH));
        assert!(!near(high - SPAN_REACH + 8));
        assert!(near((low + high) / 2));
        assert!(!near(0) && !near(u64::MAX - 7));
        // Each allowed span of reads is one `can_read` allows.
        for c in [low + SPAN_REACH, high - SPAN_REACH] {
            assert!(m.can_read(c - SPAN_REACH, c + SPAN_REACH));
        }
        // Bounds closer than twice the reach: no CFA is near.
        let small = new(low, low + 2 * SPAN_REACH - 8);
        for c in (low..low + 2 * SPAN_REACH).step_by(8) {
            assert!(!small.can_read_near(c), "{c:#x}");
        }
        assert!(new(low, low + 2 * SPAN_REACH).can_read_near(low + SPAN_REACH));
        // Without bounds: any aligned CFA but within the reach of 0 and of
        // the top of the address space.
        let none = new(0, 0);
        assert!(none.can_read_near(SPAN_REACH + 8) && !none.can_read_near(SPAN_REACH));
        let top = u64::MAX - SPAN_REACH + 1;
        assert!(none.can_read_near(top - 8) && !none.can_read_near(top));
    }
}
