//! Reading every stack map table of an object or a linked program, for
//! `pcmap dump` and `pcmap verify`: the owned model of each table
//! (`pcmap_reader::stackmap::Table`) with each function tied to its code.

use object::{Object, ObjectSection, SectionIndex};
use pcmap_reader::flat::{self, FlatStackMap};
use pcmap_reader::llvm::LlvmStackMap;
use pcmap_reader::stackmap::Table;

use pcmap_reader::llvm::SECTION_NAME as LLVM_STACKMAPS;

use super::function::{function_ref, AddressField, FunctionRef};
use crate::error::{Error, Result};
use crate::object::{is_contents, ObjectFile};

/// A stack map table's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    V1,
    V2,
    V3,
    Flat,
}

/// One table of a stack map section.
#[derive(Debug, Clone)]
pub struct DecodedTable {
    pub format: Format,
    /// Offset of the table in its section.
    pub offset: u64,
    pub size: u64,
    /// Flat header flags (0 for LLVM tables).
    pub flags: u8,
    pub table: Table,
    pub functions: Vec<FunctionRef>,
}

/// A stack map section and its tables.
#[derive(Debug, Clone)]
pub struct StackMapSection {
    pub name: String,
    pub index: SectionIndex,
    /// Its address (linked files only).
    pub address: Option<u64>,
    pub size: u64,
    pub tables: Vec<DecodedTable>,
}

/// Every `.llvm_stackmaps` and `pcmap_stackmaps` section of `file`, decoded.
pub fn sections(o: &ObjectFile<'_>) -> Result<Vec<StackMapSection>> {
    let e = o.endian;
    let mut out = Vec::new();
    for section in o.file.sections() {
        // A name that is not UTF-8 is no stack map section's.
        let Ok(name) = section.name().map(str::to_string) else {
            continue;
        };
        let is_llvm = name == LLVM_STACKMAPS;
        if !is_llvm && name != flat::SECTION_NAME || !is_contents(&section) {
            continue;
        }
        let err = |source| Error::StackMap {
            section: name.clone(),
            problem: source,
        };
        let data = section.data()?;
        let relocs = o.relocations(&section);
        let mut tables = Vec::new();
        if is_llvm {
            let mut offset = 0u64;
            for map in LlvmStackMap::tables(data, e) {
                let map = map.map_err(err)?;
                let table = Table::from_llvm(&map).map_err(err)?;
                let mut functions = Vec::new();
                for (i, f) in table.functions.iter().enumerate() {
                    let field = offset + map.function_address_offset(i as u32) as u64;
                    functions.push(function_ref(
                        o,
                        &section,
                        field,
                        f.address,
                        AddressField::Llvm,
                        &relocs,
                    )?);
                }
                tables.push(DecodedTable {
                    format: match map.version() {
                        1 => Format::V1,
                        2 => Format::V2,
                        _ => Format::V3,
                    },
                    offset,
                    size: map.size() as u64,
                    flags: 0,
                    table,
                    functions,
                });
                offset += map.size() as u64;
            }
        } else {
            for t in FlatStackMap::tables(data, e) {
                let (at, t) = t.map_err(err)?;
                let table = Table::from_flat(&t).map_err(err)?;
                let mut functions = Vec::new();
                for (i, f) in table.functions.iter().enumerate() {
                    let field =
                        at as u64 + t.function_address_offset(i as u32).map_err(err)? as u64;
                    functions.push(function_ref(
                        o,
                        &section,
                        field,
                        f.address,
                        if t.absolute_addresses() {
                            AddressField::FlatAbsolute
                        } else {
                            AddressField::FlatRelative
                        },
                        &relocs,
                    )?);
                }
                tables.push(DecodedTable {
                    format: Format::Flat,
                    offset: at as u64,
                    size: u64::from(t.table_size()),
                    flags: t.flags(),
                    table,
                    functions,
                });
            }
        }
        out.push(StackMapSection {
            name,
            index: section.index(),
            address: (!o.relocatable).then(|| section.address()),
            size: section.size(),
            tables,
        });
    }
    Ok(out)
}
