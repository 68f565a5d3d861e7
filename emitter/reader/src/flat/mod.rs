//! The flat stack map layout (`docs/stackmap-v2.md`), section
//! `pcmap_stackmaps`.
//!
//! ```text
//! Header (32)       u8[4] magic "\x7fSMF", u8 version, u8 flags, u16 header size,
//!                   u32 table size (= end of the live-outs), u32 offsets of:
//!                   frame records, records, locations, frame registers, live-outs
//! Constant[]   (8)  u64                       (from `header size`)
//! FrameRecord[] (32) i64 address (self-relative) | u64 (absolute), u32 size,
//!                   u32 stack size, u8 flags, u8 num frame regs, u16 CFA reg,
//!                   i32 CFA offset, u32 frame reg index, u32 record index
//! Record[]     (32) u64 ID, u32 instruction offset, u32 patchable size,
//!                   u16 num locations, u16 num live-outs, u32 location index,
//!                   u32 live-out index, u8 flags, u8 kind, u16 0
//! Location[]    (8) u8 kind, u8 size, u16 dwarf reg, i32 offset
//! FrameRegister[] (4) u16 dwarf reg, i16 offset of its slot from the CFA
//! LiveOut[]     (4) u16 dwarf reg, u8 0, u8 size
//! FunctionIndex[] (4) i32 function address (self-relative), one per frame
//!                   record; only with header flag FUNCTION_INDEX
//! PcMap[]       (8) per 2^shift code bytes: u32 function index, u32 record
//!                   index; only with header flag PC_MAP, whose header is
//!                   40 bytes: ... u32 PC map entries (at 32), u8 shift, u8[3] 0
//! ```
//!
//! Arrays follow each other without gaps, so each count is the distance to the
//! next array's offset divided by the entry size. A function's record count
//! is the distance from its record index to the next function's (the last
//! function's: to the number of records). The next table of a section starts
//! at `table size` rounded up to a multiple of 8.

mod lookup;
mod table;
#[cfg(feature = "write")]
mod writer;

pub use lookup::{Found, Hit, Match, PcMapWindow};
pub use table::{
    section_endian, FlatStackMap, FrameRecord, FrameRegister, Header, KeptHeader, Record, Tables,
};
#[cfg(feature = "write")]
pub use writer::{FlatTable, FlatWriter, FrameHead, RecordHead};

/// Name of the section: a C identifier, so linkers define `__start_`/`__stop_`.
pub const SECTION_NAME: &str = "pcmap_stackmaps";
pub const MAGIC: [u8; 4] = [0x7f, b'S', b'M', b'F'];
pub const VERSION: u8 = 1;
pub const HEADER_SIZE: usize = 32;
/// Alignment of the section and of every table in it (and of `header size`).
pub const TABLE_ALIGN: usize = 8;

/// Header flag: function addresses are absolute, not self-relative.
pub const ABSOLUTE_ADDRESSES: u8 = 1 << 0;
/// Header flag: the table is big-endian.
pub const BIG_ENDIAN: u8 = 1 << 1;
/// Header flag: the table ends with a function index, one self-relative i32
/// function address per frame record (never with `ABSOLUTE_ADDRESSES`).
pub const FUNCTION_INDEX: u8 = 1 << 2;
/// Header flag: the table ends with a PC map (after the function index,
/// which it requires), described by the header's extension.
pub const PC_MAP: u8 = 1 << 3;
/// Header size with the PC map's fields.
pub const PC_MAP_HEADER_SIZE: usize = 40;
/// Largest PC map shift a reader accepts (buckets of 2 GiB).
pub const PC_MAP_MAX_SHIFT: u8 = 31;

/// Frame record flags.
pub const HAS_FRAME_POINTER: u8 = 1 << 0;
pub const HAS_VARIABLE_SIZE_ALLOCA: u8 = 1 << 1;
pub const HAS_STACK_REALIGNMENT: u8 = 1 << 2;
pub const HAS_LIVE_OUT_INFO: u8 = 1 << 3;
pub const HAS_FRAME_INFO: u8 = 1 << 4;

/// Record flags.
pub const RECORD_HAS_LIVE_OUT_INFO: u8 = 1 << 0;
pub const RECORD_PATCHABLE_SIZE_KNOWN: u8 = 1 << 1;

/// Stack size stored for a frame with a variable-sized alloca.
pub const VARIABLE_STACK_SIZE: u32 = u32::MAX;

pub const CONSTANT_SIZE: usize = 8;
pub const FRAME_RECORD_SIZE: usize = 32;
pub const RECORD_SIZE: usize = 32;
pub const LOCATION_SIZE: usize = 8;
pub const FRAME_REGISTER_SIZE: usize = 4;
pub const LIVE_OUT_SIZE: usize = 4;
pub const FUNCTION_INDEX_ENTRY_SIZE: usize = 4;
pub const PC_MAP_ENTRY_SIZE: usize = 8;

/// Byte offsets of the header's fields (the drawing above), for the reader
/// and the writer alike.
pub mod header {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 4;
    pub const FLAGS: usize = 5;
    /// The header size field (u16).
    pub const SIZE: usize = 6;
    pub const TABLE_SIZE: usize = 8;
    /// Five u32 offsets: frame records, records, locations, frame registers,
    /// live-outs.
    pub const ARRAY_OFFSETS: usize = 12;
    /// With a header of at least `PC_MAP_HEADER_SIZE` bytes.
    pub const PC_MAP_ENTRIES: usize = 32;
    pub const PC_MAP_SHIFT: usize = 36;
}

/// Byte offsets of a frame record's fields.
pub mod frame_record {
    pub const ADDRESS: usize = 0;
    pub const SIZE: usize = 8;
    pub const STACK_SIZE: usize = 12;
    pub const FLAGS: usize = 16;
    pub const NUM_FRAME_REGISTERS: usize = 17;
    pub const FRAME_BASE_REGISTER: usize = 18;
    pub const CFA_OFFSET: usize = 20;
    pub const FRAME_REGISTER_INDEX: usize = 24;
    pub const RECORD_INDEX: usize = 28;
}

/// Byte offsets of a record's fields.
pub mod record {
    pub const ID: usize = 0;
    pub const INSTRUCTION_OFFSET: usize = 8;
    pub const PATCHABLE_SIZE: usize = 12;
    pub const NUM_LOCATIONS: usize = 16;
    pub const NUM_LIVE_OUTS: usize = 18;
    pub const LOCATION_INDEX: usize = 20;
    pub const LIVE_OUT_INDEX: usize = 24;
    pub const FLAGS: usize = 28;
    pub const KIND: usize = 29;
}

/// Byte offsets of a location's fields.
pub mod location {
    pub const KIND: usize = 0;
    pub const SIZE: usize = 1;
    pub const DWARF_REG: usize = 2;
    pub const OFFSET: usize = 4;
}

/// Byte offsets of a frame register's fields.
pub mod frame_register {
    pub const DWARF_REG: usize = 0;
    pub const OFFSET: usize = 2;
}

/// Byte offsets of a live-out's fields.
pub mod live_out {
    pub const DWARF_REG: usize = 0;
    pub const SIZE: usize = 3;
}

/// Byte offsets of a PC map entry's fields.
pub mod pc_map_entry {
    pub const FUNCTION: usize = 0;
    pub const RECORD: usize = 4;
}

/// Entries of a table's bounds: where each array starts, and the table size.
pub const NUM_BOUNDS: usize = 9;

/// The arrays, in table order, with their entry sizes and alignments.
pub(crate) const ARRAYS: [(&str, usize, usize); NUM_BOUNDS - 1] = [
    ("constants", CONSTANT_SIZE, 8),
    ("frame records", FRAME_RECORD_SIZE, 8),
    ("records", RECORD_SIZE, 8),
    ("locations", LOCATION_SIZE, 4),
    ("frame registers", FRAME_REGISTER_SIZE, 4),
    ("live-outs", LIVE_OUT_SIZE, 4),
    ("function index", FUNCTION_INDEX_ENTRY_SIZE, 4),
    ("PC map", PC_MAP_ENTRY_SIZE, 4),
];
/// Functions from which `pcmap emit` writes a function index: below, a
/// table's frame records span at most 2 KB.
pub const FUNCTION_INDEX_MIN_FUNCTIONS: usize = 64;

/// Positions of the arrays in [`ARRAYS`] (and in a header's bounds).
pub(crate) const CONSTANTS: usize = 0;
pub(crate) const FRAME_RECORDS: usize = 1;
pub(crate) const RECORDS: usize = 2;
pub(crate) const LOCATIONS: usize = 3;
pub(crate) const FRAME_REGISTERS: usize = 4;
pub(crate) const LIVE_OUTS: usize = 5;
pub(crate) const INDEX_ARRAY: usize = 6;
pub(crate) const MAP_ARRAY: usize = 7;
/// Records (or functions, if more) per PC map bucket `pcmap emit` aims at:
/// the map costs 4 to 8 bytes per record, and a lookup compares one or two
/// records and frame records, read in parallel (2 per bucket halved the
/// map but cost a lookup a third more time at 100,000 records).
pub const PC_MAP_RECORDS_PER_BUCKET: usize = 1;

/// What produced a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKind {
    Unknown = 0,
    StackMap = 1,
    PatchPoint = 2,
    StatePoint = 3,
}

impl RecordKind {
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => RecordKind::Unknown,
            1 => RecordKind::StackMap,
            2 => RecordKind::PatchPoint,
            3 => RecordKind::StatePoint,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Unknown => "unknown",
            RecordKind::StackMap => "stackmap",
            RecordKind::PatchPoint => "patchpoint",
            RecordKind::StatePoint => "statepoint",
        }
    }
}
