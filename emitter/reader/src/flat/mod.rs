//! The flat stack map layout, version 2 (`docs/stackmap-v2.md`), section
//! `pcmap_stackmaps`.
//!
//! ```text
//! Header (24; 32 with PC_MAP)
//!    0 u8[4] magic 7F 'S' 'M' 'F'   4 u8 version 2   5 u8 flags
//!    6 u16 header size   8 u32 table size   12 u32 F functions
//!   16 u32 R records     20 u32 C large constants
//!   with PC_MAP: 24 u32 M PC map entries   28 u8 shift   29 u8[3] 0
//! FrameRecord[F] (16) i32 function address (self-relative; 0 with
//!                     ABSOLUTE_ADDRESSES), u32 size, u32 stack size,
//!                     u32 first record
//! Record[R]       (8) u32 instruction offset, u32 site offset (in Data)
//! Address[F]      (8) u64 absolute address (ABSOLUTE_ADDRESSES only)
//! Constant[C]     (8) u64
//! PcMap[M]        (4) u32 last function starting at or before bucket b
//! Data                Sites and FrameStates, each distinct one once;
//!                     zeros to a multiple of 4
//!
//! Site:       ULEB ID, u8 head (bits 0-1 kind, 2 PATCHABLE_SIZE_KNOWN,
//!             3 HAS_LIVE_OUT_INFO, 4 HAS_FRAME_STATE), [ULEB patchable
//!             size], [ULEB frame state offset], ULEB N, N x Location,
//!             ULEB L, L x (ULEB DWARF register, u8 size)
//! Location:   u8 head (bits 0-2 kind, 3 SIZE, 4 REG, 5 OFFSET), [ULEB
//!             size, else 8], [ULEB register, else 0], [SLEB offset, else 0]
//! FrameState: u8 flags (0 CFA_RULE, 1 STACK_REALIGNED, 2 SCALED: offsets
//!             stored / 8), [ULEB CFA register, SLEB CFA offset], ULEB S,
//!             S x (ULEB register, SLEB slot offset from the CFA), sorted
//!             by register
//! ```
//!
//! Arrays follow each other in this order with no offset fields: each
//! starts where the one before ends (Addresses and Constants at an 8-byte
//! boundary, which every count leaves them on). A function's records run
//! from its first record to the next function's (the last one's: to R). The
//! next table of a section starts at `table size` rounded up to 8.
//!
//! # Reading a section
//!
//! A runtime reads its own `pcmap_stackmaps` section in place: every table
//! of it (a linked program has one per object), each at its offset of the
//! section, looked up by return address. The block below is the snippet of
//! `docs/stackmap-v2.md` ("Reading with `pcmap-reader`"); a test keeps the
//! two identical.
//!
//! ```
//! # fn main() -> Result<(), pcmap_reader::Error> {
//! # let (section, section_address) = pcmap_reader::flat::example_table();
//! # let (section_bytes, pc) = (&section[..], 0x40_1010);
//! use pcmap_reader::flat::{FlatStackMap, Match, Pc};
//! use pcmap_reader::LittleEndian;
//! for table in FlatStackMap::tables(section_bytes, LittleEndian) {
//!     let (offset, table) = table?;
//!     let address = section_address + offset as u64;
//!     if let Some(hit) = table.lookup_hit(Pc::ReturnAddress(pc), address, Match::Exact)? {
//!         let function = hit.function();                      // its address resolved
//!         let stack_size = hit.stack_size();
//!         let site = table.site(hit.site_offset())?;          // ID, kind, sizes
//!         for loc in table.locations(&site) { let loc = loc?; /* ... */ }
//!         if let Some(fs) = site.frame_state {
//!             let fs = table.frame_state(fs)?;                // CFA rule
//!             for saved in table.saved_registers(&fs) { let saved = saved?; }
//!         }
//! #       assert_eq!((function.address, hit.record_address(), stack_size), (0x40_1000, pc, 24));
//! #       assert_eq!(site.id, 7);
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod layout;
mod lookup;
mod section;
mod site;
mod table;
#[cfg(feature = "write")]
mod writer;

pub use layout::{
    frame_record, frame_state_flags, header, location_head, record, site_head, RecordKind,
    ABSOLUTE_ADDRESSES, ADDRESS_SIZE, BIG_ENDIAN, CONSTANT_SIZE, FRAME_RECORD_SIZE, HEADER_FLAGS,
    HEADER_SIZE, MAGIC, MAX_COUNT, NUM_BOUNDS, PC_MAP, PC_MAP_ENTRY_SIZE,
    PC_MAP_FUNCTIONS_PER_BUCKET, PC_MAP_HEADER_SIZE, PC_MAP_MAX_SHIFT, PC_MAP_MIN_FUNCTIONS,
    RECORD_SIZE, RETIRED_FUNCTION_INDEX, SECTION_NAME, TABLE_ALIGN, TABLE_SIZE_MULTIPLE,
    VARIABLE_STACK_SIZE, VERSION,
};
pub(crate) use layout::{CONSTANTS, MAP_ARRAY};
pub use lookup::{Found, Hit, Match, Pc, PcMapWindow};
#[doc(hidden)]
pub use section::OPENED_SECTION_LAYOUT;
pub use section::{OpenedSection, Output, Section, TableAt, TableHeader, KEPT_TABLES};
pub use site::{
    Cfa, FrameRegister, FrameState, LiveOuts, Locations, SavedRegisters, Site, SiteData,
    SiteWithLiveOuts,
};
pub use table::{
    section_endian, FlatStackMap, FrameRecord, Function, Header, KeptHeader, Record, Tables,
};
#[cfg(feature = "write")]
#[doc(hidden)]
pub use writer::example_table;
#[cfg(feature = "write")]
pub use writer::{FlatTable, FlatWriter, FrameHead, FrameStateRef, RecordHead, StoredFrameState};
