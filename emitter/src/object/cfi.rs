//! Frame facts from `.eh_frame`, read with `gimli`.
//!
//! In a relocatable object FDE addresses are relocations against code
//! sections. We lay the object's sections out at made-up, non-overlapping
//! addresses, apply `.eh_frame`'s PC-relative relocations for that layout,
//! and map FDE addresses back to (section, offset).

use std::collections::HashMap;

use gimli::{
    BaseAddresses, CfaRule, EhFrame, RegisterRule, RunTimeEndian, UnwindContext, UnwindSection,
};
use object::{Object, ObjectSection};

use super::{CodeLoc, ObjectFile};
use crate::error::{Error, Result};

/// What the CFI says about a function at one of its instructions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameInfo {
    /// The CFA's register (DWARF).
    pub cfa_register: u16,
    pub cfa_offset: i64,
    /// Registers saved in slots, with the slot's offset from the CFA.
    pub saved: Vec<(u16, i64)>,
}

/// The unwind tables of an object.
pub struct Cfi {
    data: Vec<u8>,
    endian: RunTimeEndian,
    eh_frame_address: u64,
    /// Made-up address of each section (relocatable objects only).
    layout: HashMap<object::SectionIndex, u64>,
    relocatable: bool,
    /// (start, end, offset) of every FDE, sorted: one parse, then binary
    /// search (gimli's own lookup walks the section each time).
    fdes: Vec<(u64, u64, usize)>,
}

impl Cfi {
    pub fn new(o: &ObjectFile<'_>) -> Result<Option<Cfi>> {
        let file = &o.file;
        let Some(eh) = file.section_by_name(".eh_frame") else {
            return Ok(None);
        };
        let endian = match o.endian {
            pcmap_reader::RunTimeEndian::Little => RunTimeEndian::Little,
            pcmap_reader::RunTimeEndian::Big => RunTimeEndian::Big,
        };
        let mut data = eh.data()?.to_vec();
        let mut layout = HashMap::new();
        let eh_frame_address = if o.relocatable {
            // .eh_frame at 0, every other section after it, 16-aligned.
            let mut next = (eh.size() + 15) & !15;
            for s in file.sections() {
                if s.index() != eh.index() {
                    layout.insert(s.index(), next);
                    next = (next + s.size() + 16) & !15;
                }
            }
            for (offset, r) in eh.relocations() {
                let t = o.resolve(&r);
                let Some(target) = t.target else {
                    continue;
                };
                let Some(base) = layout.get(&target.section) else {
                    continue;
                };
                // FDE addresses: 32-bit PC-relative (object does not classify
                // every target's types, so match them by number).
                if t.r_type != o.target.pc_relative32().0 {
                    continue;
                }
                let value = (base + target.offset).wrapping_sub(offset) as u32;
                let at = offset as usize;
                if let Some(field) = data.get_mut(at..at + 4) {
                    field.copy_from_slice(&if endian == RunTimeEndian::Little {
                        value.to_le_bytes()
                    } else {
                        value.to_be_bytes()
                    });
                }
            }
            0
        } else {
            eh.address()
        };
        let mut fdes = Vec::new();
        {
            let eh = EhFrame::new(&data, endian);
            let bases = BaseAddresses::default().set_eh_frame(eh_frame_address);
            let mut entries = eh.entries(&bases);
            while let Some(entry) = entries.next().map_err(Error::Cfi)? {
                if let gimli::CieOrFde::Fde(partial) = entry {
                    let fde = partial
                        .parse(EhFrame::cie_from_offset)
                        .map_err(Error::Cfi)?;
                    fdes.push((fde.initial_address(), fde.end_address(), fde.offset()));
                }
            }
        }
        fdes.sort_unstable();
        Ok(Some(Cfi {
            data,
            endian,
            eh_frame_address,
            layout,
            relocatable: o.relocatable,
            fdes,
        }))
    }

    /// The address gimli sees for `loc`.
    fn address(&self, loc: CodeLoc, file: &object::File<'_>) -> Option<u64> {
        if self.relocatable {
            Some(self.layout.get(&loc.section)? + loc.offset)
        } else {
            Some(file.section_by_index(loc.section).ok()?.address() + loc.offset)
        }
    }

    /// The CFI row in force at `loc`, if an FDE covers it.
    pub fn frame_at(&self, o: &ObjectFile<'_>, loc: CodeLoc) -> Result<Option<FrameInfo>> {
        let file = &o.file;
        let Some(pc) = self.address(loc, file) else {
            return Ok(None);
        };
        let eh = EhFrame::new(&self.data, self.endian);
        let bases = BaseAddresses::default().set_eh_frame(self.eh_frame_address);
        let mut ctx = UnwindContext::new();
        let i = self.fdes.partition_point(|f| f.0 <= pc);
        let Some(&(_, end, offset)) = i.checked_sub(1).and_then(|i| self.fdes.get(i)) else {
            return Ok(None);
        };
        if pc >= end {
            return Ok(None);
        }
        let fde = eh
            .fde_from_offset(
                &bases,
                gimli::EhFrameOffset(offset),
                EhFrame::cie_from_offset,
            )
            .map_err(Error::Cfi)?;
        let row = match fde.unwind_info_for_address(&eh, &bases, &mut ctx, pc) {
            Ok(row) => row.clone(),
            Err(gimli::Error::NoUnwindInfoForAddress) => return Ok(None),
            Err(e) => return Err(Error::Cfi(e)),
        };
        let CfaRule::RegisterAndOffset { register, offset } = *row.cfa() else {
            return Ok(None);
        };
        let mut saved: Vec<(u16, i64)> = row
            .registers()
            .filter_map(|(reg, rule)| match rule {
                RegisterRule::Offset(n) => Some((reg.0, *n)),
                _ => None,
            })
            .collect();
        saved.sort();
        Ok(Some(FrameInfo {
            cfa_register: register.0,
            cfa_offset: offset,
            saved,
        }))
    }
}
