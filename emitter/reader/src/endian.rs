//! Byte order, chosen at compile time ([`LittleEndian`], [`BigEndian`]) or at
//! run time ([`RunTimeEndian`]), as in `gimli` and `object`.

use crate::error::{Error, Result};

/// A byte order. Tables are always in their object file's byte order.
pub trait Endian: Copy + core::fmt::Debug {
    /// Whether multi-byte values are stored most significant byte first.
    fn is_big_endian(self) -> bool;

    /// Reads a `u16` stored in this byte order.
    fn u16_from(self, b: [u8; 2]) -> u16 {
        if self.is_big_endian() {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    }
    /// Reads a `u32` stored in this byte order.
    fn u32_from(self, b: [u8; 4]) -> u32 {
        if self.is_big_endian() {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    }
    /// Reads a `u64` stored in this byte order.
    fn u64_from(self, b: [u8; 8]) -> u64 {
        if self.is_big_endian() {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        }
    }
    /// `v` as stored in this byte order.
    fn u16_bytes(self, v: u16) -> [u8; 2] {
        if self.is_big_endian() {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
    /// `v` as stored in this byte order.
    fn u32_bytes(self, v: u32) -> [u8; 4] {
        if self.is_big_endian() {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
    /// `v` as stored in this byte order.
    fn u64_bytes(self, v: u64) -> [u8; 8] {
        if self.is_big_endian() {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
/// Little-endian, known at compile time (x86-64, AArch64, PowerPC64 LE).
pub struct LittleEndian;
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
/// Big-endian, known at compile time (PowerPC64 ELFv1).
pub struct BigEndian;

/// Byte order known only at run time (from the object file header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunTimeEndian {
    /// Least significant byte first.
    Little,
    /// Most significant byte first.
    Big,
}

impl Endian for LittleEndian {
    fn is_big_endian(self) -> bool {
        false
    }
}
impl Endian for BigEndian {
    fn is_big_endian(self) -> bool {
        true
    }
}
impl Endian for RunTimeEndian {
    fn is_big_endian(self) -> bool {
        self == RunTimeEndian::Big
    }
}

/// Bounds-checked reads at byte offsets of a slice.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bytes<'a, E> {
    pub data: &'a [u8],
    pub endian: E,
}

impl<'a, E: Endian> Bytes<'a, E> {
    pub fn new(data: &'a [u8], endian: E) -> Self {
        Bytes { data, endian }
    }
    pub fn array<const N: usize>(&self, offset: usize) -> Result<[u8; N]> {
        let end = offset.checked_add(N).ok_or(Error::Truncated { offset })?;
        let s = self
            .data
            .get(offset..end)
            .ok_or(Error::Truncated { offset })?;
        let mut out = [0; N];
        out.copy_from_slice(s);
        Ok(out)
    }
    pub fn u8(&self, offset: usize) -> Result<u8> {
        Ok(self.array::<1>(offset)?[0])
    }
    pub fn u16(&self, offset: usize) -> Result<u16> {
        Ok(self.endian.u16_from(self.array(offset)?))
    }
    pub fn u32(&self, offset: usize) -> Result<u32> {
        Ok(self.endian.u32_from(self.array(offset)?))
    }
    pub fn i32(&self, offset: usize) -> Result<i32> {
        Ok(self.u32(offset)? as i32)
    }
    pub fn u64(&self, offset: usize) -> Result<u64> {
        Ok(self.endian.u64_from(self.array(offset)?))
    }
    /// The `len` bytes at `offset`.
    pub fn slice(&self, offset: usize, len: usize) -> Result<&'a [u8]> {
        let end = offset.checked_add(len).ok_or(Error::Truncated { offset })?;
        self.data
            .get(offset..end)
            .ok_or(Error::Truncated { offset })
    }
}
