//! The plain C structs the API fills in. The caller owns them (usually on its
//! stack): the library allocates nothing. Each function and record carries a
//! reference to its table, so it can be passed back to the API on its own.

use pcmap_reader::flat::{self, FlatStackMap};
use pcmap_reader::{Endian, LiveOut, Location, RunTimeEndian};

use crate::constants::{PCMAP_REGISTER_SLOTS, PCMAP_TABLE_BOUNDS};
use crate::status::pcmap_status;

/// An opened `pcmap_stackmaps` section: one flat table, or the tables of all
/// objects of a linked program back to back.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_stackmaps {
    /// First byte of the section.
    pub data: *const u8,
    /// Size of the section in bytes.
    pub size: usize,
    /// Address of `data` in the program the tables describe: `(uintptr_t)data`
    /// when the section is mapped in this process; its `sh_addr` when read
    /// from a file.
    pub address: u64,
    pub num_tables: u32,
    pub num_functions: u32,
    pub num_records: u64,
    /// How many of `tables` `pcmap_open` filled: `num_tables`, at most
    /// `PCMAP_CACHED_TABLES`.
    pub num_cached_tables: u32,
    /// The parsed headers of the first `PCMAP_CACHED_TABLES` tables, so that
    /// lookups do not parse them again (later tables are parsed per lookup).
    /// For the library: written by `pcmap_open`, trusted afterwards.
    pub tables: [pcmap_table_header; PCMAP_CACHED_TABLES],
}

/// Table headers a `pcmap_stackmaps` keeps (a fixed-size C struct): a single
/// object's section has one table, a linked program one per object.
pub const PCMAP_CACHED_TABLES: usize = 8;

/// A table's header as `pcmap_open` checked it (for the library).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_table_header {
    /// Offset of the table in the section.
    pub offset: u64,
    /// Where the arrays start (frame records, records, addresses,
    /// constants, PC map, Data), and the table size.
    pub bounds: [u32; PCMAP_TABLE_BOUNDS],
    /// Header flags.
    pub flags: u8,
    /// log2 of the code bytes per PC map entry.
    pub pc_map_shift: u8,
}

/// One table of a section, as referenced by the functions and records in it.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_table {
    pub data: *const u8,
    pub size: usize,
    /// Address of `data` in the described program.
    pub address: u64,
}

/// A function's frame record: its code range and frame size. (Its frame
/// state, CFA rule and saved registers, is each record's.)
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_function {
    pub table: pcmap_table,
    /// Index of this frame record in its table.
    pub index: u32,
    /// Absolute address of the function's first instruction.
    pub address: u64,
    /// Size of the function's code in bytes (0 when unknown).
    pub size: u32,
    /// Bytes the function's frame occupies below its caller's stack pointer
    /// at a call, as LLVM's `.llvm_stackmaps` gives it (x86-64: excluding the
    /// return address). `PCMAP_VARIABLE_STACK_SIZE` for a variable-sized frame.
    pub stack_size: u32,
    pub num_records: u32,
    /// Index of the function's first record in its table.
    pub record_index: u32,
}

/// A stack map record: one call site (safepoint) or patch point, its Site
/// (ID, kind, patchable size, locations, live-outs) and the frame state at
/// it (the CFI row: CFA rule and saved registers).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_record {
    pub table: pcmap_table,
    /// Index of this record in its table.
    pub index: u32,
    /// The ID given to the stackmap/patchpoint/statepoint intrinsic.
    pub id: u64,
    /// Absolute address of the record: for a call (statepoint), its return
    /// address.
    pub address: u64,
    /// `address` minus the function's address.
    pub instruction_offset: u32,
    /// Bytes reserved for patching (`PCMAP_RECORD_PATCHABLE_SIZE_KNOWN`).
    pub patchable_size: u32,
    pub num_locations: u16,
    /// `PCMAP_RECORD_*` flags.
    pub flags: u8,
    /// `PCMAP_KIND_*`: what produced the record.
    pub kind: u8,
    /// `PCMAP_FRAME_*` flags of the frame state (0 without one,
    /// `PCMAP_RECORD_HAS_FRAME_STATE` clear).
    pub frame_flags: u8,
    /// With `PCMAP_FRAME_CFA_RULE`: the CFA (the caller's stack pointer at
    /// the call) is the value of DWARF register `cfa_register` plus
    /// `cfa_offset` at this record. Without it the CFA is a DWARF
    /// expression or unknown: a stack walk cannot continue past this frame.
    pub cfa_register: u16,
    pub cfa_offset: i32,
    /// Registers the frame state says are saved in slots (`pcmap_frame_register_at`).
    pub num_frame_registers: u16,
    /// Offset of the record's Site in its table's Data area: records with
    /// the same offset (in one table) have the same Site, so a collector
    /// can cache what it decoded of one.
    pub site: u32,
    /// Where the locations and saved registers start in the Data area, and
    /// how the saved registers' offsets are stored (for the library). The
    /// live-outs follow the locations: `pcmap_live_outs` finds them and
    /// their number (patch points only).
    pub locations: u32,
    pub frame_registers: u32,
    pub frame_shift: u8,
}

/// What `pcmap_find_site` found: enough to walk a frame (the stack size)
/// and to find or cache what a record says (its table and Site), without
/// decoding anything. `pcmap_site_record` decodes the whole record.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct pcmap_site {
    /// Offset of the record's table in the section.
    pub table: u64,
    /// Index of the function's frame record in its table.
    pub function: u32,
    /// Index of the record in its table.
    pub record: u32,
    /// Offset of the record's Site in the table's Data area (shared by the
    /// records with the same Site).
    pub site: u32,
    /// The function's stack size (`PCMAP_VARIABLE_STACK_SIZE` for a
    /// variable-sized frame).
    pub stack_size: u32,
}

/// A position in a record's locations, live-outs or saved registers, each
/// decoded in turn (`pcmap_location_next`, `pcmap_live_out_next`,
/// `pcmap_frame_register_next`). Filled by this library.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_cursor {
    /// The table's Data area and its size.
    pub data: *const u8,
    pub size: u32,
    /// Offset of the next entry in the Data area.
    pub position: u32,
    /// Entries left.
    pub remaining: u16,
    /// How far the offsets of saved registers are stored shifted (for the
    /// library).
    pub shift: u8,
}

/// Where a live value is (`PCMAP_LOCATION_*` kind); see `pcmap_decode`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_location {
    pub kind: u8,
    pub dwarf_reg: u16,
    /// Size of the value in bytes (up to 65535: vector deopt values).
    pub size: u16,
    /// Offset, small constant or constant index, by `kind`.
    pub offset: i32,
}

/// A register live across a patch point.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_live_out {
    pub dwarf_reg: u16,
    /// Size in bytes.
    pub size: u8,
}

/// A register the frame saved in a slot at a record: the slot's address is
/// the CFA plus `offset` (the CFA is the record's `cfa_register` plus
/// `cfa_offset`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_frame_register {
    pub dwarf_reg: u16,
    pub offset: i32,
}

/// A register value of the frame being decoded, supplied by the caller.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_register {
    /// DWARF register number (x86-64: RSP 7, RBP 6; AArch64: SP 31, FP 29;
    /// PowerPC64: r1 1, r31 31).
    pub dwarf_reg: u16,
    /// The register's value in the frame.
    pub value: u64,
    /// Where the register's value is saved in memory (so that a collector can
    /// update it), or 0 if it is only in the register.
    pub address: u64,
}

/// The general registers of one frame, by slot (DWARF registers 0..=31;
/// PowerPC64's link register, DWARF 65, in slot 32): which are known, their
/// values, and where each was saved in memory. `pcmap_capture_call` fills
/// one in for the managed caller of a safepoint; a `pcmap_cursor` holds the
/// current frame's. The layout of `pcmap_reader::walk::Registers`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_registers {
    /// The frame's PC (a return address).
    pub pc: u64,
    /// Bit `i`: `value[i]` is known.
    pub known: u64,
    /// Bit `i`: `address[i]` is where `value[i]` is stored (a collector
    /// updates a root held in the register there).
    pub saved: u64,
    pub value: [u64; PCMAP_REGISTER_SLOTS],
    pub address: [u64; PCMAP_REGISTER_SLOTS],
}

/// A decoded location. Which fields are valid depends on its kind; see
/// `pcmap_decode`. The library never reads the described memory itself.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_value {
    /// The value: a register's contents, a `Direct` address, a constant.
    pub value: u64,
    /// Where the value is stored (`Indirect`; `Register` if the caller gave
    /// the register's save slot).
    pub address: u64,
    pub has_value: bool,
    pub has_address: bool,
}

pub(crate) type Table<'a> = FlatStackMap<'a, RunTimeEndian>;

impl pcmap_function {
    pub(crate) fn new<E: Endian>(
        table: pcmap_table,
        t: &FlatStackMap<'_, E>,
        index: u32,
    ) -> Result<Self, pcmap_status> {
        let f = t.frame_record(index)?;
        Ok(pcmap_function {
            table,
            index,
            address: t.function_address(index, table.address)?,
            size: f.size,
            stack_size: f.stack_size,
            num_records: f.num_records,
            record_index: f.record_index,
        })
    }
}

impl pcmap_record {
    /// Record `index` at `r` of the function at `function_address`, its
    /// Site (up to its locations) and frame state decoded from `data`.
    #[inline(always)]
    pub(crate) fn new(
        table: pcmap_table,
        function_address: u64,
        index: u32,
        r: flat::Record,
        data: &flat::SiteData<'_>,
    ) -> Result<Self, pcmap_status> {
        let site = data.site(r.site)?;
        let mut flags = 0;
        if site.patchable_size.is_some() {
            flags |= flat::site_head::PATCHABLE_SIZE_KNOWN;
        }
        if site.has_live_out_info {
            flags |= flat::site_head::HAS_LIVE_OUT_INFO;
        }
        let mut out = pcmap_record {
            table,
            index,
            id: site.id,
            address: function_address.wrapping_add(r.instruction_offset.into()),
            instruction_offset: r.instruction_offset,
            patchable_size: site.patchable_size.unwrap_or(0),
            num_locations: site.num_locations,
            flags,
            kind: site.kind as u8,
            frame_flags: 0,
            cfa_register: 0,
            cfa_offset: 0,
            num_frame_registers: 0,
            site: r.site,
            locations: site.locations,
            frame_registers: 0,
            frame_shift: 0,
        };
        if let Some(at) = site.frame_state {
            let fs = data.frame_state(at)?;
            out.flags |= flat::site_head::HAS_FRAME_STATE;
            // The encoding's own flag is the library's business.
            out.frame_flags = fs.flags & !flat::frame_state_flags::SCALED;
            out.frame_shift = fs.scale_shift() as u8;
            if let Some(cfa) = fs.cfa {
                out.cfa_register = cfa.register;
                out.cfa_offset = cfa.offset;
            }
            out.num_frame_registers = fs.num_saved;
            out.frame_registers = fs.saved;
        }
        Ok(out)
    }
}

impl From<Location> for pcmap_location {
    fn from(l: Location) -> Self {
        pcmap_location {
            kind: l.kind as u8,
            dwarf_reg: l.dwarf_reg,
            size: l.size,
            offset: l.offset,
        }
    }
}

impl From<LiveOut> for pcmap_live_out {
    fn from(l: LiveOut) -> Self {
        pcmap_live_out {
            dwarf_reg: l.dwarf_reg,
            size: l.size,
        }
    }
}

impl pcmap_table {
    /// The table these bytes hold. The caller of the API promised that `data`
    /// and `size` came from this library, pointing into a live section.
    pub(crate) fn open(&self) -> Result<Table<'_>, pcmap_status> {
        if self.data.is_null() {
            return Err(pcmap_status::PCMAP_ERR_ARGUMENT);
        }
        // SAFETY: filled by this library from a section the caller keeps alive.
        let bytes = unsafe { core::slice::from_raw_parts(self.data, self.size) };
        Ok(FlatStackMap::parse(bytes, flat::section_endian(bytes))?)
    }
}

impl pcmap_cursor {
    /// A cursor over `count` entries at `at` of `data` (saved registers:
    /// their offsets stored shifted right by `shift`).
    pub(crate) fn new(data: &flat::SiteData<'_>, at: u32, count: u16, shift: u32) -> Self {
        let bytes = data.bytes();
        pcmap_cursor {
            data: bytes.as_ptr(),
            size: bytes.len() as u32,
            position: at,
            remaining: count,
            shift: shift as u8,
        }
    }

    /// The Data area it reads.
    pub(crate) fn site_data(&self) -> Result<flat::SiteData<'_>, pcmap_status> {
        if self.data.is_null() {
            return Err(pcmap_status::PCMAP_ERR_ARGUMENT);
        }
        // SAFETY: filled by this library from a section the caller keeps
        // alive (`pcmap_cursor`'s contract).
        let bytes = unsafe { core::slice::from_raw_parts(self.data, self.size as usize) };
        Ok(flat::SiteData::new(bytes, 0))
    }
}

/// An index of a section's records by ID, in memory the caller gives
/// (`pcmap_id_index_build`): `count` entries of three `uint64_t` (ID,
/// table offset, function index << 32 | record index), sorted.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct pcmap_id_index {
    pub entries: *const u64,
    pub count: usize,
}
