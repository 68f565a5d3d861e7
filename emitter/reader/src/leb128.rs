//! LEB128, the one definition in the crate: ULEB128 for PC tables and the
//! flat stack map layout, SLEB128 for the flat layout's signed fields.
//!
//! Readers accept any encoding of a value that fits in 64 bits (at most
//! [`MAX_LEN`] bytes, as LLVM's decoders do); writers write the shortest,
//! as LLVM's `encodeULEB128`/`encodeSLEB128` do without padding.

/// Longest LEB128 encoding of a 64-bit value.
pub const MAX_LEN: usize = 10;

/// Why a LEB128 value could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LebError {
    /// The data ends inside the value.
    Truncated,
    /// More than [`MAX_LEN`] bytes, or bits beyond 64.
    Overflow,
}

impl core::fmt::Display for LebError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            LebError::Truncated => "LEB128 value truncated: the data ends inside it",
            LebError::Overflow => "LEB128 value longer than 10 bytes or beyond 64 bits",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LebError {}

/// Reads the ULEB128 value at `offset` of `data`: the value and its length.
#[inline]
pub fn read_uleb128(data: &[u8], offset: usize) -> Result<(u64, usize), LebError> {
    let bytes = data.get(offset..).ok_or(LebError::Truncated)?;
    // The common case, one byte, without the loop.
    match bytes.first() {
        Some(&b) if b < 0x80 => return Ok((u64::from(b), 1)),
        None => return Err(LebError::Truncated),
        _ => {}
    }
    // An index loop (not an iterator chain): a stack walk decodes a
    // multi-byte ID per frame.
    let mut value = 0u64;
    let mut i = 0;
    while i < MAX_LEN {
        let Some(&byte) = bytes.get(i) else {
            return Err(LebError::Truncated);
        };
        let bits = u64::from(byte & 0x7f);
        // The tenth byte may only hold bit 63.
        if i == MAX_LEN - 1 && bits > 1 {
            return Err(LebError::Overflow);
        }
        value |= bits << (7 * i as u32);
        if byte & 0x80 == 0 {
            return Ok((value, i + 1));
        }
        i += 1;
    }
    Err(LebError::Overflow)
}

/// Reads the SLEB128 value at `offset` of `data`: the value and its length.
#[inline]
pub fn read_sleb128(data: &[u8], offset: usize) -> Result<(i64, usize), LebError> {
    let bytes = data.get(offset..).ok_or(LebError::Truncated)?;
    match bytes.first() {
        // One byte: bits 0-5 and the sign in bit 6.
        Some(&b) if b < 0x80 => return Ok((i64::from((b << 1) as i8 >> 1), 1)),
        None => return Err(LebError::Truncated),
        _ => {}
    }
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().take(MAX_LEN).enumerate() {
        let bits = u64::from(byte & 0x7f);
        let shift = 7 * i as u32;
        // The tenth byte: bit 63 and its sign extension, 0x00 or 0x7f.
        if i == MAX_LEN - 1 && bits != 0 && bits != 0x7f {
            return Err(LebError::Overflow);
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            let used = shift + 7;
            if used < 64 && byte & 0x40 != 0 {
                value |= u64::MAX << used;
            }
            return Ok((value as i64, i + 1));
        }
    }
    Err(match bytes.len() < MAX_LEN {
        true => LebError::Truncated,
        false => LebError::Overflow,
    })
}

/// Writes `value` as ULEB128 into `out`; returns the length.
#[inline]
pub fn write_uleb128(value: u64, out: &mut [u8; MAX_LEN]) -> usize {
    let mut n = 0;
    encode_uleb128(value, |byte| {
        out[n] = byte;
        n += 1;
    });
    n
}

/// The ULEB128 bytes of `value`, in order, one call of `put` each: the one
/// encoder. The flat writer puts them straight onto its Data area, as a
/// stack buffer copied whole made the copy's wide load wait for the byte
/// stores that filled it.
#[inline(always)]
pub fn encode_uleb128(mut value: u64, mut put: impl FnMut(u8)) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            put(byte);
            return;
        }
        put(byte | 0x80);
    }
}

/// Writes `value` as SLEB128 into `out`; returns the length.
#[inline]
pub fn write_sleb128(value: i64, out: &mut [u8; MAX_LEN]) -> usize {
    let mut n = 0;
    encode_sleb128(value, |byte| {
        out[n] = byte;
        n += 1;
    });
    n
}

/// [`encode_uleb128`] for SLEB128.
#[inline(always)]
pub fn encode_sleb128(mut value: i64, mut put: impl FnMut(u8)) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0) {
            put(byte);
            return;
        }
        put(byte | 0x80);
    }
}

/// Bytes the ULEB128 encoding of `value` takes.
#[inline]
pub fn uleb128_len(value: u64) -> usize {
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uleb128_edges() {
        let mut buf = [0; MAX_LEN];
        for v in [0, 1, 0x7f, 0x80, 0x3fff, 0x4000, u32::MAX.into(), u64::MAX] {
            let n = write_uleb128(v, &mut buf);
            assert_eq!(n, uleb128_len(v));
            assert_eq!(read_uleb128(&buf[..n], 0), Ok((v, n)));
            for k in 0..n {
                assert_eq!(read_uleb128(&buf[..k], 0), Err(LebError::Truncated));
            }
        }
        assert_eq!(write_uleb128(624485, &mut buf), 3);
        assert_eq!(&buf[..3], &[0xe5, 0x8e, 0x26]);
        // Padded encodings are read (LLVM pads some).
        assert_eq!(read_uleb128(&[0x80, 0x80, 0x00], 0), Ok((0, 3)));
        let mut too_big = [0xff; 10];
        too_big[9] = 0x02;
        assert_eq!(read_uleb128(&too_big, 0), Err(LebError::Overflow));
        assert_eq!(read_uleb128(&[0x80; 11], 0), Err(LebError::Overflow));
    }

    #[test]
    fn sleb128_edges() {
        let mut buf = [0; MAX_LEN];
        for v in [
            0,
            1,
            -1,
            63,
            64,
            -64,
            -65,
            8191,
            -8192,
            i32::MIN.into(),
            i32::MAX.into(),
            u32::MAX.into(),
            i64::MIN,
            i64::MAX,
        ] {
            let n = write_sleb128(v, &mut buf);
            assert_eq!(read_sleb128(&buf[..n], 0), Ok((v, n)), "{v}");
            for k in 0..n {
                assert_eq!(read_sleb128(&buf[..k], 0), Err(LebError::Truncated));
            }
        }
        // LLVM's documented examples.
        assert_eq!(write_sleb128(-123456, &mut buf), 3);
        assert_eq!(&buf[..3], &[0xc0, 0xbb, 0x78]);
        assert_eq!(read_sleb128(&[0x7f], 0), Ok((-1, 1)));
        assert_eq!(read_sleb128(&[0x80, 0x7f], 0), Ok((-128, 2)));
        // A tenth byte beyond bit 63's sign.
        let mut too_big = [0x80; 10];
        too_big[9] = 0x01;
        assert_eq!(read_sleb128(&too_big, 0), Err(LebError::Overflow));
        assert_eq!(read_sleb128(&[0xff; 11], 0), Err(LebError::Overflow));
    }

    #[test]
    fn every_value_round_trips_near_the_byte_boundaries() {
        let mut buf = [0; MAX_LEN];
        for shift in 0..64 {
            for d in [-1i64, 0, 1] {
                let u = (1u64 << shift).wrapping_add(d as u64);
                let n = write_uleb128(u, &mut buf);
                assert_eq!(read_uleb128(&buf, 0), Ok((u, n)));
                for s in [u as i64, (u as i64).wrapping_neg()] {
                    let n = write_sleb128(s, &mut buf);
                    assert_eq!(read_sleb128(&buf, 0), Ok((s, n)));
                }
            }
        }
    }
}
