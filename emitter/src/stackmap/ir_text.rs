//! The byte searches of the IR scan (`ir.rs`), 64 bytes at a time: every
//! position of any of three bytes, and whether text is ASCII.
//!
//! A search that stops at each match (`memchr3_iter`) costs tens of
//! instructions per match to restart; IR text has one every 30–80 bytes
//! (every newline, `@` and `"`). Here each 64 bytes are compared once into
//! a bit mask, and the matches are read off the mask. With AVX2 (checked at
//! run time) two 32-byte compares a chunk; without, on x86_64, four SSE2
//! ones; elsewhere `memchr`'s search.

/// What is told each position [`each_of3`] finds.
pub(super) trait Found {
    fn found(&mut self, at: usize);
}

/// A closure is told as called.
impl<F: FnMut(usize)> Found for F {
    fn found(&mut self, at: usize) {
        self(at)
    }
}

/// Tells `found` the position of every byte of `haystack` equal to one of
/// `needles`, in order. (A `Found` whose `found` is `#[inline(always)]`
/// is compiled into the search's loop: no call per position.)
pub(super) fn each_of3(haystack: &[u8], needles: [u8; 3], found: &mut impl Found) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { x86::each_of3_avx2(haystack, needles, found) };
        } else {
            // SAFETY: every x86_64 CPU has SSE2.
            unsafe { x86::each_of3_sse2(haystack, needles, found) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let [a, b, c] = needles;
        memchr::memchr3_iter(a, b, c, haystack).for_each(|at| found.found(at));
    }
}

/// Whether `test` accepts a position of `haystack` (a line: tens of bytes)
/// holding one of `needles`, tried in order until it does. With AVX2, 32
/// bytes a compare (the last 32 overlapping the ones before): one pass,
/// where `memchr2_iter` searches again from each position it stops at.
pub(super) fn any_of2(
    haystack: &[u8],
    needles: [u8; 2],
    mut test: impl FnMut(usize) -> bool,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if haystack.len() >= 32 && std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { x86::any_of2_avx2(haystack, needles, &mut test) };
        }
    }
    let [a, b] = needles;
    memchr::memchr2_iter(a, b, haystack).any(test)
}

/// Whether every byte of `bytes` is ASCII (`<[u8]>::is_ascii`, faster on
/// x86_64 with AVX2).
pub(super) fn is_ascii(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { x86::is_ascii_avx2(bytes) };
        }
    }
    bytes.is_ascii()
}

/// The bytes after the last whole chunk, compared one by one.
fn each_of3_tail(haystack: &[u8], from: usize, needles: [u8; 3], found: &mut impl Found) {
    for (i, &b) in haystack[from..].iter().enumerate() {
        if needles.contains(&b) {
            found.found(from + i);
        }
    }
}

/// Calls `found` for each set bit of `mask`, lowest first, as a position
/// from `base`.
#[inline(always)]
fn each_bit(mut mask: u64, base: usize, found: &mut impl Found) {
    while mask != 0 {
        found.found(base + mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{each_bit, each_of3_tail, Found};

    /// [`super::each_of3`] with AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn each_of3_avx2(haystack: &[u8], needles: [u8; 3], found: &mut impl Found) {
        let a = _mm256_set1_epi8(needles[0] as i8);
        let b = _mm256_set1_epi8(needles[1] as i8);
        let c = _mm256_set1_epi8(needles[2] as i8);
        let mut at = 0;
        for chunk in haystack.chunks_exact(64) {
            let p = chunk.as_ptr().cast::<__m256i>();
            // Unaligned loads of the chunk's two halves, both in bounds.
            let (lo, hi) = (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)));
            let lo = _mm256_or_si256(
                _mm256_or_si256(_mm256_cmpeq_epi8(lo, a), _mm256_cmpeq_epi8(lo, b)),
                _mm256_cmpeq_epi8(lo, c),
            );
            let hi = _mm256_or_si256(
                _mm256_or_si256(_mm256_cmpeq_epi8(hi, a), _mm256_cmpeq_epi8(hi, b)),
                _mm256_cmpeq_epi8(hi, c),
            );
            let mask = _mm256_movemask_epi8(lo) as u32 as u64
                | (_mm256_movemask_epi8(hi) as u32 as u64) << 32;
            each_bit(mask, at, found);
            at += 64;
        }
        each_of3_tail(haystack, at, needles, found);
    }

    /// [`super::any_of2`] with AVX2, on at least 32 bytes.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn any_of2_avx2(
        haystack: &[u8],
        needles: [u8; 2],
        test: &mut impl FnMut(usize) -> bool,
    ) -> bool {
        assert!(haystack.len() >= 32);
        let a = _mm256_set1_epi8(needles[0] as i8);
        let b = _mm256_set1_epi8(needles[1] as i8);
        let mut at = 0;
        while at < haystack.len() {
            // The last 32 bytes end the text; those already seen are
            // masked off.
            let start = at.min(haystack.len() - 32);
            // SAFETY: `start + 32 <= haystack.len()`: an unaligned load in
            // bounds.
            let v = unsafe { _mm256_loadu_si256(haystack.as_ptr().add(start).cast()) };
            let hit = _mm256_or_si256(_mm256_cmpeq_epi8(v, a), _mm256_cmpeq_epi8(v, b));
            let mut mask = (_mm256_movemask_epi8(hit) as u32) & (u32::MAX << (at - start));
            while mask != 0 {
                if test(start + mask.trailing_zeros() as usize) {
                    return true;
                }
                mask &= mask - 1;
            }
            at = start + 32;
        }
        false
    }

    /// [`super::each_of3`] with SSE2.
    ///
    /// # Safety
    /// The CPU must have SSE2 (every x86_64 CPU has).
    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn each_of3_sse2(haystack: &[u8], needles: [u8; 3], found: &mut impl Found) {
        let a = _mm_set1_epi8(needles[0] as i8);
        let b = _mm_set1_epi8(needles[1] as i8);
        let c = _mm_set1_epi8(needles[2] as i8);
        let mut at = 0;
        for chunk in haystack.chunks_exact(64) {
            let p = chunk.as_ptr().cast::<__m128i>();
            let mut mask = 0u64;
            for k in 0..4 {
                // An unaligned 16-byte load inside the 64-byte chunk.
                let v = _mm_loadu_si128(p.add(k));
                let m = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, a), _mm_cmpeq_epi8(v, b)),
                    _mm_cmpeq_epi8(v, c),
                );
                mask |= (_mm_movemask_epi8(m) as u32 as u64) << (16 * k);
            }
            each_bit(mask, at, found);
            at += 64;
        }
        each_of3_tail(haystack, at, needles, found);
    }

    /// [`super::is_ascii`] with AVX2: no byte with its top bit set.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn is_ascii_avx2(bytes: &[u8]) -> bool {
        let mut any = _mm256_setzero_si256();
        let chunks = bytes.chunks_exact(128);
        let tail = chunks.remainder();
        for chunk in chunks {
            let p = chunk.as_ptr().cast::<__m256i>();
            // Four unaligned 32-byte loads inside the 128-byte chunk.
            let v = [
                _mm256_loadu_si256(p),
                _mm256_loadu_si256(p.add(1)),
                _mm256_loadu_si256(p.add(2)),
                _mm256_loadu_si256(p.add(3)),
            ];
            any = _mm256_or_si256(
                any,
                _mm256_or_si256(_mm256_or_si256(v[0], v[1]), _mm256_or_si256(v[2], v[3])),
            );
        }
        _mm256_movemask_epi8(any) == 0 && tail.is_ascii()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_a_plain_search_finds() {
        // Every length around the chunk sizes, matches at every offset.
        let text: Vec<u8> = (0..700u32)
            .map(|i| match (i * 7919) % 23 {
                0 => b'\n',
                1 => b'@',
                2 => b'"',
                3 => 0xC3,
                _ => b'a' + (i % 26) as u8,
            })
            .collect();
        for len in (0..200).chain([255, 256, 257, 640, 700]) {
            for start in [0, 1, 31, 33] {
                let h = &text[start.min(len)..len];
                let mut got = Vec::new();
                each_of3(h, [b'\n', b'@', b'"'], &mut |at| got.push(at));
                let want: Vec<_> = memchr::memchr3_iter(b'\n', b'@', b'"', h).collect();
                assert_eq!(got, want, "{start}..{len}");
                #[cfg(target_arch = "x86_64")]
                {
                    let mut sse2 = Vec::new();
                    // SAFETY: every x86_64 CPU has SSE2.
                    unsafe { x86::each_of3_sse2(h, [b'\n', b'@', b'"'], &mut |at| sse2.push(at)) };
                    assert_eq!(sse2, want, "sse2 {start}..{len}");
                }
                assert_eq!(is_ascii(h), h.is_ascii(), "{start}..{len}");
                // Every position tried, in order, then stopping at each.
                let want: Vec<_> = memchr::memchr2_iter(b'@', b'"', h).collect();
                let mut got = Vec::new();
                assert!(!any_of2(h, [b'@', b'"'], |at| {
                    got.push(at);
                    false
                }));
                assert_eq!(got, want, "any_of2 {start}..{len}");
                for (k, &stop) in want.iter().enumerate() {
                    let mut tried = 0;
                    assert!(any_of2(h, [b'@', b'"'], |at| {
                        tried += 1;
                        at == stop
                    }));
                    assert_eq!(tried, k + 1, "any_of2 stops {start}..{len}");
                }
            }
        }
    }
}
