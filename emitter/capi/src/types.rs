//! The plain C structs the API fills in. The caller owns them (usually on its
//! stack): the library allocates nothing. Each function and record carries a
//! reference to its table, so it can be passed back to the API on its own.

use pcmap_reader::flat::{self, FlatStackMap};
use pcmap_reader::{Endian, LiveOut, Location, RunTimeEndian};

use crate::constants::PCMAP_TABLE_BOUNDS;
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
    /// Where the arrays start (constants, frame records, records, locations,
    /// frame registers, live-outs, function index, PC map), and the table
    /// size.
    pub bounds: [u32; PCMAP_TABLE_BOUNDS],
    /// Header flags.
    pub flags: u8,
    /// log2 of the code bytes per PC map entry.
    pub pc_map_shift: u8,
}

impl pcmap_table_header {
    /// The reader's form of this header, read in place.
    #[inline(always)]
    pub fn kept(&self) -> flat::KeptHeader<'_> {
        flat::KeptHeader {
            bounds: &self.bounds,
            flags: self.flags,
            pc_map_shift: self.pc_map_shift,
        }
    }
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

/// A function's frame record: its code range and frame layout.
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
    /// `PCMAP_FUNCTION_*` flags.
    pub flags: u8,
    pub num_frame_registers: u8,
    /// DWARF register the frame registers' offsets are relative to (the CFA
    /// register: the stack pointer, or the frame pointer).
    pub frame_base_register: u16,
    /// The CFA (the caller's stack pointer at the call) is the value of
    /// `frame_base_register` plus this.
    pub cfa_offset: i32,
    pub num_records: u32,
    /// Where this function's lists start in their arrays (for the library).
    pub frame_register_index: u32,
    pub record_index: u32,
}

/// A stack map record: one call site (safepoint) or patch point.
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
    pub num_live_outs: u16,
    /// `PCMAP_RECORD_*` flags.
    pub flags: u8,
    /// `PCMAP_KIND_*`: what produced the record.
    pub kind: u8,
    /// Where this record's lists start in their arrays (for the library).
    pub location_index: u32,
    pub live_out_index: u32,
}

/// Where a live value is (`PCMAP_LOCATION_*` kind); see `pcmap_decode`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct pcmap_location {
    pub kind: u8,
    /// Size of the value in bytes.
    pub size: u8,
    pub dwarf_reg: u16,
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

/// A register the function saved in its frame, and where: the slot's address
/// is the value of the function's `frame_base_register` plus `offset`.
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
            flags: f.flags,
            num_frame_registers: f.num_frame_registers,
            frame_base_register: f.frame_base_register,
            cfa_offset: f.cfa_offset,
            num_records: f.num_records,
            frame_register_index: f.frame_register_index,
            record_index: f.record_index,
        })
    }
}

impl pcmap_record {
    pub(crate) fn new(f: &pcmap_function, index: u32, r: &flat::Record) -> Self {
        pcmap_record {
            table: f.table,
            index,
            id: r.id,
            address: f.address.wrapping_add(r.instruction_offset.into()),
            instruction_offset: r.instruction_offset,
            patchable_size: r.patchable_size,
            num_locations: r.num_locations,
            num_live_outs: r.num_live_outs,
            flags: r.flags,
            kind: r.kind as u8,
            location_index: r.location_index,
            live_out_index: r.live_out_index,
        }
    }
}

impl From<Location> for pcmap_location {
    fn from(l: Location) -> Self {
        pcmap_location {
            kind: l.kind as u8,
            // The flat layout stores sizes in a byte.
            size: l.size.min(u8::MAX.into()) as u8,
            dwarf_reg: l.dwarf_reg,
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
