//! Frame facts from `.eh_frame`, read with `gimli`.
//!
//! In a relocatable object FDE addresses are relocations against code
//! sections. We lay the object's sections out at made-up, non-overlapping
//! addresses, apply `.eh_frame`'s PC-relative relocations for that layout,
//! and map FDE addresses back to (section, offset).

use std::rc::Rc;

use gimli::{
    BaseAddresses, CfaRule, EhFrame, RegisterRule, RunTimeEndian, UnwindContext, UnwindSection,
};
use object::{Object, ObjectSection};

use super::{CodeLoc, ObjectFile};
use crate::error::{Error, Result};

/// What the CFI says about a function at one of its instructions: the row
/// in force there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameInfo {
    /// The CFA rule: register (DWARF) + offset. `None` when the CFA is a
    /// DWARF expression (SVE frames, realigned stacks on some targets).
    pub cfa: Option<(u16, i64)>,
    /// Registers saved in slots (`offset(N)` rules), with the slot's offset
    /// from the CFA, sorted by register.
    pub saved: Vec<(u16, i64)>,
}

/// The unwind tables of an object.
pub struct Cfi {
    data: Vec<u8>,
    endian: RunTimeEndian,
    eh_frame_address: u64,
    /// Made-up address of each section (relocatable objects only).
    /// By section index (`None`: `.eh_frame` itself).
    layout: Vec<Option<u64>>,
    relocatable: bool,
    /// (start, end, offset) of every FDE, sorted: one parse, then binary
    /// search (gimli's own lookup walks the section each time).
    fdes: Vec<(u64, u64, usize)>,
    /// gimli's evaluation state, allocated once (it is kilobytes) and
    /// reused for every FDE.
    ctx: std::cell::RefCell<Box<UnwindContext<usize>>>,
    /// The FDE found last: tables list functions in code order, so the
    /// next one is most often the FDE after it (no search).
    hint: std::cell::Cell<usize>,
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
        let mut layout = Vec::new();
        let eh_frame_address = if o.relocatable {
            // .eh_frame at 0, every other section after it, 16-aligned.
            let mut next = (eh.size() + 15) & !15;
            for s in file.sections() {
                if s.index() != eh.index() {
                    if layout.len() <= s.index().0 {
                        layout.resize(s.index().0 + 1, None);
                    }
                    layout[s.index().0] = Some(next);
                    next = next
                        .checked_add(s.size())
                        .and_then(|n| n.checked_add(16))
                        .ok_or_else(|| Error::Section {
                            section: o.section_name(s.index()),
                            problem: format!(
                                "size {:#x} does not fit in an address space",
                                s.size()
                            ),
                        })?
                        & !15;
                }
            }
            for (offset, r) in eh.relocations() {
                let t = o.resolve(&r);
                let Some(target) = t.target else {
                    continue;
                };
                let Some(&Some(base)) = layout.get(target.section.0) else {
                    continue;
                };
                // FDE addresses: 32-bit PC-relative (object does not classify
                // every target's types, so match them by number).
                if t.r_type != o.target.pc_relative32().0 {
                    continue;
                }
                // 32 bits of a PC-relative value: wrapping, as the linker's.
                let value = base.wrapping_add(target.offset).wrapping_sub(offset) as u32;
                let at = offset as usize;
                if let Some(field) = data.get_mut(at..at.saturating_add(4)) {
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
        Cfi::index(data, endian, eh_frame_address, layout, o.relocatable).map(Some)
    }

    /// The unwind tables of code in memory: `.eh_frame` bytes as loaded
    /// at `address`, their addresses final (a JIT's, once its linker
    /// applied the section's relocations).
    pub fn in_memory(
        data: &[u8],
        address: u64,
        endian: pcmap_reader::RunTimeEndian,
    ) -> Result<Cfi> {
        let endian = match endian {
            pcmap_reader::RunTimeEndian::Little => RunTimeEndian::Little,
            pcmap_reader::RunTimeEndian::Big => RunTimeEndian::Big,
        };
        Cfi::index(data.to_vec(), endian, address, Vec::new(), false)
    }

    /// Indexes the FDEs of `data`, loaded at `eh_frame_address`.
    fn index(
        data: Vec<u8>,
        endian: RunTimeEndian,
        eh_frame_address: u64,
        layout: Vec<Option<u64>>,
        relocatable: bool,
    ) -> Result<Cfi> {
        let mut fdes = Vec::new();
        {
            let eh = EhFrame::new(&data, endian);
            let bases = BaseAddresses::default().set_eh_frame(eh_frame_address);
            let mut entries = eh.entries(&bases);
            // The CIEs, each parsed once (an object has one or two; gimli
            // would parse one per FDE).
            let mut cies = Vec::new();
            while let Some(entry) = entries.next().map_err(Error::Cfi)? {
                if let gimli::CieOrFde::Fde(partial) = entry {
                    let fde = partial
                        .parse(|section, bases, offset| {
                            if let Some((_, cie)) = cies.iter().find(|(at, _)| *at == offset) {
                                return Ok(gimli::CommonInformationEntry::clone(cie));
                            }
                            let cie = section.cie_from_offset(bases, offset)?;
                            cies.push((offset, cie.clone()));
                            Ok(cie)
                        })
                        .map_err(Error::Cfi)?;
                    fdes.push((fde.initial_address(), fde.end_address(), fde.offset()));
                }
            }
        }
        fdes.sort_unstable();
        Ok(Cfi {
            data,
            endian,
            eh_frame_address,
            layout,
            relocatable,
            fdes,
            ctx: std::cell::RefCell::new(Box::new(UnwindContext::new())),
            hint: std::cell::Cell::new(0),
        })
    }

    /// The address gimli sees for `loc`.
    fn address(&self, loc: CodeLoc, file: &object::File<'_>) -> Option<u64> {
        if self.relocatable {
            Some((*self.layout.get(loc.section.0)?)? + loc.offset)
        } else {
            Some(file.section_by_index(loc.section).ok()?.address() + loc.offset)
        }
    }

    /// The CFI row in force at each of `offsets` (ascending) from the
    /// function at `function`, or `None` where no FDE covers it. Each FDE
    /// is parsed and evaluated once for all the offsets it covers; offsets
    /// in one row share its facts (one `Rc`: callers can tell).
    pub fn frames_at(
        &self,
        o: &ObjectFile<'_>,
        function: CodeLoc,
        offsets: &[u64],
    ) -> Result<Vec<Option<Rc<FrameInfo>>>> {
        self.frames_at_address(self.address(function, &o.file), offsets)
    }

    /// [`frames_at`](Self::frames_at) of the function at address `base`
    /// (`None`: no row for any offset).
    pub fn frames_at_address(
        &self,
        base: Option<u64>,
        offsets: &[u64],
    ) -> Result<Vec<Option<Rc<FrameInfo>>>> {
        let mut out = Vec::with_capacity(offsets.len());
        let Some(base) = base else {
            out.resize(offsets.len(), None);
            return Ok(out);
        };
        let eh = EhFrame::new(&self.data, self.endian);
        let bases = BaseAddresses::default().set_eh_frame(self.eh_frame_address);
        let mut guard = self.ctx.borrow_mut();
        let ctx: &mut UnwindContext<usize> = &mut guard;
        let mut i = 0;
        while i < offsets.len() {
            let pc = base.wrapping_add(offsets[i]);
            let covers = |f: usize| self.fdes.get(f).is_some_and(|f| f.0 <= pc && pc < f.1);
            let hint = self.hint.get();
            let f = match [hint + 1, hint].into_iter().find(|&f| covers(f)) {
                Some(f) => Some(f),
                None => self.fdes.partition_point(|f| f.0 <= pc).checked_sub(1),
            };
            if let Some(f) = f {
                self.hint.set(f);
            }
            let fde = match f.and_then(|f| self.fdes.get(f)) {
                Some(&(_, end, offset)) if pc < end => offset,
                _ => {
                    out.push(None);
                    i += 1;
                    continue;
                }
            };
            let fde = eh
                .fde_from_offset(&bases, gimli::EhFrameOffset(fde), EhFrame::cie_from_offset)
                .map_err(Error::Cfi)?;
            // The offsets this FDE covers, against its rows in one pass (a
            // row is read where it stands: rows are kilobytes, never copied).
            let covered = offsets[i..]
                .iter()
                .take_while(|&&o| fde.contains(base.wrapping_add(o)))
                .count();
            let end = i + covered;
            let mut rows = fde.rows(&eh, &bases, &mut *ctx).map_err(Error::Cfi)?;
            while i < end {
                let Some(row) = rows.next_row().map_err(Error::Cfi)? else {
                    out.resize(out.len() + (end - i), None);
                    i = end;
                    break;
                };
                let mut facts: Option<Rc<FrameInfo>> = None;
                while i < end {
                    let pc = base.wrapping_add(offsets[i]);
                    if row.end_address() <= pc {
                        break;
                    }
                    out.push(
                        row.contains(pc)
                            .then(|| facts.get_or_insert_with(|| Rc::new(info(row))).clone()),
                    );
                    i += 1;
                }
            }
        }
        Ok(out)
    }
}

/// A row's CFA rule and saved registers.
fn info(row: &gimli::UnwindTableRow<usize>) -> FrameInfo {
    let cfa = match *row.cfa() {
        CfaRule::RegisterAndOffset { register, offset } => Some((register.0, offset)),
        CfaRule::Expression(_) => None,
    };
    let mut saved: Vec<(u16, i64)> = row
        .registers()
        .filter_map(|(reg, rule)| match rule {
            RegisterRule::Offset(n) => Some((reg.0, *n)),
            _ => None,
        })
        .collect();
    saved.sort();
    FrameInfo { cfa, saved }
}
