//! Flat tables built in memory, for a JIT: from LLVM's `.llvm_stackmaps`
//! bytes as its linker left them (function addresses final), what it knows
//! of each function (name, address, code), and optionally the `.eh_frame`
//! it registers and the plugin's description of its sites (`.pcmap.sites`).
//!
//! It runs `emit`'s per-table code (`emit::TableInput`) with the functions
//! found by address instead of through relocations, so the table is the one
//! `pcmap emit --absolute` writes for the same module once linked at the
//! same addresses (tests/memory.rs compares them byte for byte).
//!
//! ```text
//!  .llvm_stackmaps (relocated) ─┐
//!  functions (name, address, code) ─┼─▶ TableInput::flat_table ─▶ pcmap_stackmaps
//!  .eh_frame (as loaded)  ──────┤        (records checked, kinds and
//!  .pcmap.sites           ──────┘         sizes checked against the code)
//! ```

use pcmap_reader::flat;
use pcmap_reader::llvm::{LlvmStackMap, SECTION_NAME as LLVM_STACKMAPS};
use pcmap_reader::sites::{self, SiteIndex, Sites};
use pcmap_reader::RunTimeEndian;

pub use super::emit::MemoryFunction;
use super::emit::{Place, Source, TableInput};
use crate::error::{Error, Result};
use crate::object::cfi::Cfi;
use crate::object::Target;

/// A JIT's module: what [`flat_tables`] builds from.
#[derive(Debug, Clone, Copy)]
pub struct MemoryModule<'a> {
    pub target: Target,
    /// `.llvm_stackmaps` as loaded, its function addresses relocated.
    pub stackmaps: &'a [u8],
    /// The functions the tables name (others are ignored).
    pub functions: &'a [MemoryFunction<'a>],
    /// `.eh_frame` as loaded, and its address: frame states for records.
    pub eh_frame: Option<(&'a [u8], u64)>,
    /// The plugin's description of the records' kinds and patchable sizes
    /// (`.pcmap.sites`): what its `sites` pass left in the JIT's object,
    /// or described of the JIT's IR ([`super::ir::describe`]).
    pub sites: Option<&'a [u8]>,
}

/// A flat table for each LLVM table of `m.stackmaps`, back to back (each
/// 8-aligned), with absolute addresses: the bytes `pcmap emit --absolute`
/// puts in `pcmap_stackmaps` once linked where the JIT put the code.
pub fn flat_tables(m: &MemoryModule<'_>) -> Result<Vec<u8>> {
    let endian = match m.target {
        Target::PowerPc64 {
            big_endian: true, ..
        } => RunTimeEndian::Big,
        _ => RunTimeEndian::Little,
    };
    let cfi = match m.eh_frame {
        Some((data, address)) => Some(Cfi::in_memory(data, address, endian)?),
        None => None,
    };
    let index;
    let describer = match m.sites {
        Some(bytes) => {
            let parsed = Sites::parse(bytes).map_err(|e| Error::Section {
                section: sites::SECTION.into(),
                problem: e.to_string(),
            })?;
            index = SiteIndex::of(&parsed);
            Some((Source::Sites, &index))
        }
        None => None,
    };
    let mut out = Vec::new();
    let tables: Vec<_> = LlvmStackMap::tables(m.stackmaps, endian).collect();
    let many = tables.len() > 1;
    let mut at = 0u64;
    for (k, map) in tables.into_iter().enumerate() {
        let name = match many {
            true => format!("{LLVM_STACKMAPS} (table {})", k + 1),
            false => LLVM_STACKMAPS.to_string(),
        };
        let map = map.map_err(|problem| Error::StackMap {
            section: name.clone(),
            problem,
        })?;
        let t = TableInput {
            place: Place::Memory(m.functions),
            target: m.target,
            endian,
            cfi: cfi.as_ref(),
            describer,
            absolute: true,
            name: &name,
            offset: at,
        };
        let (table, _, _) = t.flat_table(&map)?;
        at += map.size() as u64;
        out.resize(out.len().next_multiple_of(flat::TABLE_ALIGN), 0);
        out.extend_from_slice(&table.bytes);
    }
    if at == 0 {
        return Err(Error::Section {
            section: LLVM_STACKMAPS.into(),
            problem: "holds no stack map table".into(),
        });
    }
    Ok(out)
}
