//! The flat layout's constants, as the drawing in this folder's
//! documentation (`mod.rs`) and `docs/stackmap-v2.md` give them: the magic,
//! version, sizes and flags, each entry's field offsets, the head bits of a
//! Site, a Location and a FrameState, and a record's kind.

/// Name of the section: a C identifier, so linkers define `__start_`/`__stop_`.
pub const SECTION_NAME: &str = "pcmap_stackmaps";
/// The first four bytes of every table: `7F 'S' 'M' 'F'`.
pub const MAGIC: [u8; 4] = [0x7f, b'S', b'M', b'F'];
/// The layout version this crate reads and writes; a reader rejects others.
pub const VERSION: u8 = 2;
/// Header size without a PC map.
pub const HEADER_SIZE: usize = 24;
/// Header size with a PC map's fields.
pub const PC_MAP_HEADER_SIZE: usize = 32;
/// Alignment of the section and of every table in it.
pub const TABLE_ALIGN: usize = 8;
/// Table sizes are a multiple of this (Data is padded to it).
pub const TABLE_SIZE_MULTIPLE: usize = 4;

/// Header flag: function addresses are absolute (the Addresses array), not
/// self-relative.
pub const ABSOLUTE_ADDRESSES: u8 = 1 << 0;
/// Header flag: the table is big-endian.
pub const BIG_ENDIAN: u8 = 1 << 1;
/// Version 1's FUNCTION_INDEX flag, retired: must be 0.
pub const RETIRED_FUNCTION_INDEX: u8 = 1 << 2;
/// Header flag: a PC map follows the constants (header of 32 bytes).
pub const PC_MAP: u8 = 1 << 3;
/// Header flags a version 2 table may set.
pub const HEADER_FLAGS: u8 = ABSOLUTE_ADDRESSES | BIG_ENDIAN | PC_MAP;
/// Largest PC map shift a reader accepts (buckets of 2 GiB).
pub const PC_MAP_MAX_SHIFT: u8 = 31;

/// Stack size stored for a frame with a variable-sized alloca (LLVM's
/// UINT64_MAX).
pub const VARIABLE_STACK_SIZE: u32 = u32::MAX;

/// Bytes of a frame record.
pub const FRAME_RECORD_SIZE: usize = 16;
/// Bytes of a record.
pub const RECORD_SIZE: usize = 8;
/// Bytes of an Addresses entry.
pub const ADDRESS_SIZE: usize = 8;
/// Bytes of a large constant.
pub const CONSTANT_SIZE: usize = 8;
/// Bytes of a PC map entry.
pub const PC_MAP_ENTRY_SIZE: usize = 4;

/// Site head bits.
pub mod site_head {
    /// Bits 0-1: the record's kind ([`RecordKind`](super::RecordKind)).
    pub const KIND: u8 = 0b11;
    /// A patchable size follows the head.
    pub const PATCHABLE_SIZE_KNOWN: u8 = 1 << 2;
    /// LLVM listed the record's live-outs (patch points).
    pub const HAS_LIVE_OUT_INFO: u8 = 1 << 3;
    /// A FrameState offset follows.
    pub const HAS_FRAME_STATE: u8 = 1 << 4;
    /// Bits that must be 0.
    pub const RESERVED: u8 = !(KIND | PATCHABLE_SIZE_KNOWN | HAS_LIVE_OUT_INFO | HAS_FRAME_STATE);
}

/// Location head bits.
pub mod location_head {
    /// Bits 0-2: the location's kind ([`LocationKind`](crate::LocationKind)).
    pub const KIND: u8 = 0b111;
    /// A size follows (else the size is [`DEFAULT_SIZE`]).
    pub const SIZE: u8 = 1 << 3;
    /// A DWARF register follows (else 0).
    pub const REG: u8 = 1 << 4;
    /// An offset follows (else 0).
    pub const OFFSET: u8 = 1 << 5;
    /// Bits that must be 0.
    pub const RESERVED: u8 = !(KIND | SIZE | REG | OFFSET);
    /// A location's size without the SIZE bit.
    pub const DEFAULT_SIZE: u16 = 8;
}

/// FrameState flag bits.
pub mod frame_state_flags {
    /// A register + offset CFA rule follows. Clear: the CFA is a DWARF
    /// expression or unknown, and a walker must stop at this frame.
    pub const CFA_RULE: u8 = 1 << 0;
    /// The function realigns the stack pointer.
    pub const STACK_REALIGNED: u8 = 1 << 1;
    /// The CFA offset and the slot offsets are stored divided by 8
    /// (`1 << SCALE_SHIFT`), as DWARF CFI factors them: set exactly when at
    /// least one offset is stored and all are multiples of 8.
    pub const SCALED: u8 = 1 << 2;
    /// log2 of the factor of `SCALED`.
    pub const SCALE_SHIFT: u32 = 3;
    /// Bits that must be 0.
    pub const RESERVED: u8 = !(CFA_RULE | STACK_REALIGNED | SCALED);
}

/// Most locations, live-outs or saved registers one Site or FrameState may
/// list (LLVM's counts are 16-bit).
pub const MAX_COUNT: u64 = u16::MAX as u64;

/// Byte offsets of the header's fields (the drawing in `mod.rs`), for the reader
/// and the writer alike.
pub mod header {
    /// The magic (4 bytes).
    pub const MAGIC: usize = 0;
    /// The version (u8).
    pub const VERSION: usize = 4;
    /// The flags (u8).
    pub const FLAGS: usize = 5;
    /// The header size field (u16).
    pub const SIZE: usize = 6;
    /// The table size (u32).
    pub const TABLE_SIZE: usize = 8;
    /// The number of frame records (u32).
    pub const NUM_FUNCTIONS: usize = 12;
    /// The number of records (u32).
    pub const NUM_RECORDS: usize = 16;
    /// The number of large constants (u32).
    pub const NUM_CONSTANTS: usize = 20;
    /// With PC_MAP (a 32-byte header).
    pub const PC_MAP_ENTRIES: usize = 24;
    /// log2 of the code bytes per PC map entry (u8).
    pub const PC_MAP_SHIFT: usize = 28;
    /// Three zero bytes after the shift.
    pub const RESERVED: usize = 29;
}

/// Byte offsets of a frame record's fields.
pub mod frame_record {
    /// The function's address, self-relative (i32).
    pub const ADDRESS: usize = 0;
    /// The function's code size (u32).
    pub const SIZE: usize = 4;
    /// The function's stack size (u32).
    pub const STACK_SIZE: usize = 8;
    /// The function's first record (u32).
    pub const FIRST_RECORD: usize = 12;
}

/// Byte offsets of a record's fields.
pub mod record {
    /// The record's offset from its function's address (u32).
    pub const INSTRUCTION_OFFSET: usize = 0;
    /// Its Site's offset in the Data area (u32).
    pub const SITE: usize = 4;
}

/// Entries of a table's bounds: where each array starts, and the table
/// size (the end of Data).
pub const NUM_BOUNDS: usize = 7;
/// Positions in a header's bounds.
pub(crate) const FRAME_RECORDS: usize = 0;
pub(crate) const RECORDS: usize = 1;
pub(crate) const ADDRESSES: usize = 2;
pub(crate) const CONSTANTS: usize = 3;
pub(crate) const MAP_ARRAY: usize = 4;
pub(crate) const DATA: usize = 5;
pub(crate) const END: usize = 6;

/// Functions from which `pcmap emit` writes a PC map: below, a binary
/// search of the frame records touches at most a few cache lines, and the
/// map's 8 header bytes would only make a small table larger.
pub const PC_MAP_MIN_FUNCTIONS: usize = 64;
/// Functions per PC map bucket a writer aims at: the map costs 4 bytes per
/// function, and a lookup compares one or two frame records.
pub const PC_MAP_FUNCTIONS_PER_BUCKET: usize = 1;

/// What produced a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// Not known (a table written from another source than LLVM's).
    Unknown = 0,
    /// `llvm.experimental.stackmap`.
    StackMap = 1,
    /// `llvm.experimental.patchpoint.*`.
    PatchPoint = 2,
    /// `llvm.experimental.gc.statepoint.*`.
    StatePoint = 3,
}

impl RecordKind {
    /// The kind stored as `v`, if any.
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => RecordKind::Unknown,
            1 => RecordKind::StackMap,
            2 => RecordKind::PatchPoint,
            3 => RecordKind::StatePoint,
            _ => return None,
        })
    }
    /// Its name, as `pcmap dump` prints it.
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Unknown => "unknown",
            RecordKind::StackMap => "stackmap",
            RecordKind::PatchPoint => "patchpoint",
            RecordKind::StatePoint => "statepoint",
        }
    }
}
