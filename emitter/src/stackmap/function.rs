//! The function a stack map table names by address: its address field
//! (LLVM's absolute one, a flat table's self-relative or absolute one)
//! resolved through its relocation or, in a linked file, by address, to
//! code, symbol and section.

use object::{Object, ObjectSection};

use crate::error::{Error, Result};
use crate::object::{CodeLoc, ObjectFile, Relocations};

/// What a function address field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressField {
    /// LLVM's tables: an absolute address.
    Llvm,
    /// A flat table's self-relative address.
    FlatRelative,
    /// A flat table's absolute address (`--absolute`).
    FlatAbsolute,
}

/// The function a frame record / LLVM function entry describes.
#[derive(Debug, Clone)]
pub struct FunctionRef {
    /// The function's symbol name (the descriptor's on ELFv1).
    pub symbol: Option<String>,
    /// Where its code is, when found.
    pub code: Option<CodeLoc>,
    /// Name of the code section.
    pub code_section: Option<String>,
    /// Absolute address of the code (linked files only).
    pub address: Option<u64>,
    /// st_size of the function's symbol.
    pub size: Option<u64>,
    /// The address named an ELFv1 descriptor in `.opd`, resolved to code.
    pub opd: bool,
}

/// Describes the function whose address field is at `field` (offset in
/// `section`), holding `stored`; in a relocatable object the field's
/// relocation must be the one `kind` of field takes.
pub fn function_ref(
    o: &ObjectFile<'_>,
    section: &object::Section<'_, '_>,
    field: u64,
    stored: u64,
    kind: AddressField,
    relocs: &Relocations,
) -> Result<FunctionRef> {
    let p = function_place(o, section, field, stored, kind, relocs)?;
    let symbol = match (p.function, p.reloc_symbol) {
        (Some(func), _) => Some(func.name.to_string()),
        (None, Some(s)) => o.symbol_name(s),
        (None, None) => None,
    };
    Ok(FunctionRef {
        symbol,
        code: p.code,
        code_section: p.code.map(|l| o.section_name(l.section)),
        address: p.address,
        size: p.function.map(|f| f.size),
        opd: p.opd,
    })
}

/// [`function_ref`]'s findings, borrowed: what `emit` asks of each of
/// tens of thousands of functions, with nothing allocated.
pub(crate) struct FunctionPlace<'o> {
    /// The function symbol starting at the code, if any.
    pub function: Option<&'o crate::object::Function<'o>>,
    /// Else the relocation's symbol, which names it.
    pub reloc_symbol: Option<object::SymbolIndex>,
    pub code: Option<CodeLoc>,
    pub address: Option<u64>,
    pub opd: bool,
}

impl<'o> FunctionPlace<'o> {
    /// The function's name, as [`FunctionRef::symbol`].
    pub fn symbol(&self, o: &ObjectFile<'_>) -> Option<std::borrow::Cow<'o, str>> {
        match (self.function, self.reloc_symbol) {
            (Some(func), _) => Some(std::borrow::Cow::Borrowed(&*func.name)),
            (None, Some(s)) => o.symbol_name(s).map(std::borrow::Cow::Owned),
            (None, None) => None,
        }
    }
}

/// [`function_ref`] without the names.
pub(crate) fn function_place<'o>(
    o: &'o ObjectFile<'_>,
    section: &object::Section<'_, '_>,
    field: u64,
    stored: u64,
    kind: AddressField,
    relocs: &Relocations,
) -> Result<FunctionPlace<'o>> {
    let relative = kind == AddressField::FlatRelative;
    let section_name = || o.section_name(section.index());
    let mut f = FunctionPlace {
        function: None,
        reloc_symbol: None,
        code: None,
        address: None,
        opd: false,
    };
    let mut loc;
    // The relocation's symbol names the function unless a function symbol
    // starts where it points (its name is looked up only then).
    let mut reloc_symbol = None;
    if o.relocatable {
        let r = relocs.get(&field).ok_or_else(|| Error::Section {
            section: section_name(),
            problem: format!("no relocation for the function address at offset {field:#x}"),
        })?;
        // LLVM's tables and flat absolute ones: 64-bit absolute; flat
        // self-relative: 32-bit PC-relative.
        let (want, what) = match relative {
            true => (o.target.pc_relative32(), "32-bit self-relative"),
            false => (o.target.address_relocation(true), "64-bit absolute"),
        };
        if r.r_type != want.0 {
            return Err(Error::Section {
                section: section_name(),
                problem: format!(
                    "the function address at offset {field:#x} has a relocation of type {}, not {} (the {what} address a stack map takes)",
                    o.target.relocation_name(r.r_type),
                    o.target.relocation_name(want.0),
                ),
            });
        }
        loc = r.target;
        if loc.is_none() {
            return Err(Error::Section {
                section: section_name(),
                problem: format!("unresolvable relocation at offset {field:#x}"),
            });
        }
        reloc_symbol = r.symbol;
    } else {
        let at = section.address() + field;
        let address = match (relative, stored) {
            (true, _) => at.wrapping_add(stored),
            // Absolute, relocated at load time (a shared object).
            (false, 0) => o.dynamic_value(at).unwrap_or(0),
            (false, _) => stored,
        };
        loc = o.loc_of_address(address);
    }
    if let Some(l) = loc {
        if o.is_opd(l.section) {
            f.opd = true;
            loc = o.resolve_opd(l);
        }
    }
    if let Some(l) = loc {
        if let Some(func) = o.functions.at(l) {
            f.function = Some(func);
            reloc_symbol = None;
        }
        if !o.relocatable {
            let s = o.file.section_by_index(l.section)?;
            f.address = Some(s.address() + l.offset);
        }
    }
    f.reloc_symbol = reloc_symbol;
    f.code = loc;
    Ok(f)
}
