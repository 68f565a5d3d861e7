//! The one error type of every reader.

use core::fmt;

/// Why a table could not be read. Offsets are from the start of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A field at `offset` lies past the end of the data.
    Truncated {
        /// Byte offset.
        offset: usize,
    },
    /// An LLVM stack map version this reader does not know.
    UnsupportedVersion(u8),
    /// Not a flat stack map table (bad magic).
    BadMagic,
    /// A flat table of a layout version this reader does not know.
    UnsupportedFlatVersion(u8),
    /// The table's byte-order flag disagrees with the byte order given.
    WrongByteOrder,
    /// A location kind byte outside 1..=5.
    BadLocationKind {
        /// Byte offset.
        offset: usize,
        /// The kind byte read.
        kind: u8,
    },
    /// A header or count that contradicts the rest of the table.
    Inconsistent(&'static str),
    /// An index past the end of the array it points into.
    IndexOutOfRange {
        /// Which array.
        what: &'static str,
        /// The index given.
        index: u64,
        /// The array's length.
        count: u64,
    },
    /// A function's records are not sorted by instruction offset.
    NotSorted {
        /// Index of the function.
        function: u32,
        /// Index of the record.
        record: u32,
    },
    /// A table's functions are not in address order, or overlap.
    FunctionsNotSorted {
        /// Index of the function.
        function: u32,
        /// Index of the function before it.
        previous: u32,
    },
    /// A value the layout being written cannot hold.
    TooLarge(&'static str),
    /// A ULEB128/SLEB128 field at `offset` longer than 10 bytes or too
    /// large for its field.
    BadLeb128 {
        /// Byte offset.
        offset: usize,
    },
    /// A table whose function addresses are still 0, as an object file
    /// holds them before linking (its relocations give them): opened as a
    /// running program's, every address would be wrong.
    Unrelocated,
}

/// The readers' result: [`Error`] by default.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated { offset } => {
                write!(
                    f,
                    "truncated stack map: field at offset {offset} is past the end"
                )
            }
            Error::UnsupportedVersion(v) => write!(f, "unsupported LLVM stack map version {v}"),
            Error::BadMagic => f.write_str("not a flat stack map table (bad magic)"),
            Error::UnsupportedFlatVersion(v) => {
                write!(f, "unsupported flat stack map layout version {v}")
            }
            Error::WrongByteOrder => f.write_str("flat stack map byte order flag is wrong"),
            Error::BadLocationKind { offset, kind } => {
                write!(f, "bad location kind {kind} at offset {offset}")
            }
            Error::Inconsistent(what) => write!(f, "inconsistent stack map: {what}"),
            Error::IndexOutOfRange { what, index, count } => {
                write!(f, "{what} index {index} out of range (count {count})")
            }
            Error::NotSorted { function, record } => write!(
                f,
                "records of function {function} not sorted by instruction offset at record {record}"
            ),
            Error::FunctionsNotSorted { function, previous } => write!(
                f,
                "function {function} starts before the end of function {previous}: functions not in address order"
            ),
            Error::TooLarge(what) => write!(f, "{what} too large for the flat stack map layout"),
            Error::BadLeb128 { offset } => write!(
                f,
                "LEB128 field at offset {offset} is too long or too large for its field"
            ),
            Error::Unrelocated => f.write_str(
                "unrelocated stack map: its function addresses are 0 until linked (a relocatable object's table); resolve the object's relocations or read the linked program's section",
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}
