//! Frame facts from `.eh_frame`, read with `gimli`.
//!
//! In a relocatable object FDE addresses are relocations against code
//! sections. We lay the object's sections out at made-up, non-overlapping
//! addresses, apply `.eh_frame`'s PC-relative relocations for that layout,
//! and map FDE addresses back to (section, offset).

use std::cell::{Ref, RefCell};

use gimli::{
    BaseAddresses, CfaRule, EhFrame, RegisterRule, RunTimeEndian, UnwindContext, UnwindSection,
};
use object::{Object, ObjectSection};

use super::file::ObjectFile;
use super::section::CodeLoc;
use crate::error::{Error, Result};

/// What the CFI says about a function at one of its instructions: the row
/// in force there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FrameInfo {
    /// The CFA rule: register (DWARF) + offset. `None` when the CFA is a
    /// DWARF expression (SVE frames, realigned stacks on some targets).
    pub cfa: Option<(u16, i64)>,
    /// Registers saved in slots (`offset(N)` rules), with the slot's offset
    /// from the CFA, sorted by register.
    pub saved: Vec<(u16, i64)>,
}

/// Names one distinct [`FrameInfo`] of a [`Cfi`] ([`Cfi::facts`]): rows
/// with equal facts, in any FDE, have one id, so a caller converts and
/// stores each once. Ids are dense from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameId(u32);

impl FrameId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The distinct facts of the rows evaluated so far: one copy each, not an
/// allocation per row (the rows of tens of thousands of functions).
#[derive(Default)]
struct Facts {
    by_id: Vec<FrameInfo>,
    ids: hashbrown::HashMap<FrameInfo, FrameId>,
    /// The saved registers of the row being interned.
    saved: Vec<(u16, i64)>,
}

/// A [`FrameInfo`] borrowed: hashed as the owned one (its fields in the
/// same order, a slice as a `Vec`), so that a row's facts are looked up
/// without allocating them.
#[derive(Hash)]
struct FrameInfoRef<'a> {
    cfa: Option<(u16, i64)>,
    saved: &'a [(u16, i64)],
}

impl hashbrown::Equivalent<FrameInfo> for FrameInfoRef<'_> {
    fn equivalent(&self, key: &FrameInfo) -> bool {
        self.cfa == key.cfa && self.saved == &key.saved[..]
    }
}

impl Facts {
    /// The id of `row`'s facts (its CFA rule and saved registers).
    fn intern(&mut self, row: &gimli::UnwindTableRow<usize>) -> FrameId {
        let cfa = row_facts(row, &mut self.saved);
        let key = FrameInfoRef {
            cfa,
            saved: &self.saved,
        };
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let info = FrameInfo {
            cfa,
            saved: self.saved.clone(),
        };
        let id = FrameId(self.by_id.len() as u32);
        self.by_id.push(info.clone());
        self.ids.insert(info, id);
        id
    }
}

/// The facts of a CFI row: its CFA rule (`None` for an expression),
/// returned, and the registers it saves at an offset from the CFA, into
/// `saved`, sorted.
fn row_facts(
    row: &gimli::UnwindTableRow<usize>,
    saved: &mut Vec<(u16, i64)>,
) -> Option<(u16, i64)> {
    saved.clear();
    saved.extend(row.registers().filter_map(|(reg, rule)| match rule {
        RegisterRule::Offset(n) => Some((reg.0, *n)),
        _ => None,
    }));
    saved.sort();
    match *row.cfa() {
        CfaRule::RegisterAndOffset { register, offset } => Some((register.0, offset)),
        CfaRule::Expression(_) => None,
    }
}

/// One FDE of the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Fde {
    start: u64,
    end: u64,
    /// Its offset in `.eh_frame`.
    offset: usize,
    /// FDEs with the same CIE and the same bytes after their address range
    /// (augmentation data, instructions) have the same rows relative to
    /// their start but for the last row's end, which is the FDE's end: one
    /// class, evaluated once (many small functions of different sizes
    /// share a few prologues). [`NO_CLASS`]: evaluated alone.
    class: u32,
}

const NO_CLASS: u32 = u32::MAX;

/// Rows relative to their FDE's start: start, end (the last one's is the
/// first FDE's of the class: see [`Fde::class`]), facts.
type Row = (u64, u64, FrameId);

/// The rows of a class of FDEs.
#[derive(Clone, Copy)]
enum Class {
    /// Not evaluated yet.
    Pending,
    /// Its rows: `start..end` of [`Cfi::rows`].
    Rows(usize, usize),
    /// Evaluated FDE by FDE: its rows depend on its address
    /// (`DW_CFA_set_loc`), or evaluating all of them failed (an error
    /// past the rows asked for is not an error, as when alone).
    Alone,
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
    /// Every FDE, sorted by address: one parse, then binary search
    /// (gimli's own lookup walks the section each time).
    fdes: Vec<Fde>,
    /// The rows of each class of FDEs (see [`Fde::class`]), evaluated the
    /// first time an FDE of the class is asked about.
    classes: RefCell<Vec<Class>>,
    /// The rows of every class evaluated, back to back (one allocation,
    /// not one per class: thousands of classes of a few rows each).
    rows: RefCell<Vec<Row>>,
    /// The facts of every row evaluated, by [`FrameId`].
    facts: RefCell<Facts>,
    /// gimli's evaluation state, allocated once (it is kilobytes) and
    /// reused for every FDE.
    ctx: RefCell<Box<UnwindContext<usize>>>,
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
            for (offset, t) in o.relocations_of(eh.index()) {
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
        let mut classes = 0u32;
        {
            let eh = EhFrame::new(&data, endian);
            let bases = BaseAddresses::default().set_eh_frame(eh_frame_address);
            let mut entries = eh.entries(&bases);
            // The CIEs, each parsed once (an object has one or two; gimli
            // would parse one per FDE).
            let mut cies = Vec::new();
            let mut by_bytes: hashbrown::HashMap<(usize, &[u8]), u32> =
                hashbrown::HashMap::with_capacity(64);
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
                    let class = match class_bytes(&data, &fde) {
                        Some(key) => {
                            let next = classes;
                            let class = *by_bytes.entry((fde.cie().offset(), key)).or_insert(next);
                            classes += u32::from(class == next);
                            class
                        }
                        None => NO_CLASS,
                    };
                    fdes.push(Fde {
                        start: fde.initial_address(),
                        end: fde.end_address(),
                        offset: fde.offset(),
                        class,
                    });
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
            classes: RefCell::new(vec![Class::Pending; classes as usize]),
            rows: RefCell::default(),
            facts: RefCell::default(),
            ctx: RefCell::new(Box::new(UnwindContext::new())),
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
    /// function at `function`, or `None` where no FDE covers it, onto `out`. Each FDE
    /// is parsed and evaluated once for all the offsets it covers; offsets
    /// with equal facts share their [`FrameId`].
    pub fn frames_at(
        &self,
        o: &ObjectFile<'_>,
        function: CodeLoc,
        offsets: &[u64],
        out: &mut Vec<Option<FrameId>>,
    ) -> Result<()> {
        self.frames_at_address(self.address(function, &o.file), offsets, out)
    }

    /// [`frames_at`](Self::frames_at) of the function at address `base`
    /// (`None`: no row for any offset).
    pub fn frames_at_address(
        &self,
        base: Option<u64>,
        offsets: &[u64],
        out: &mut Vec<Option<FrameId>>,
    ) -> Result<()> {
        let Some(base) = base else {
            out.resize(out.len() + offsets.len(), None);
            return Ok(());
        };
        let mut i = 0;
        while i < offsets.len() {
            let pc = base.wrapping_add(offsets[i]);
            let covers = |f: usize| {
                self.fdes
                    .get(f)
                    .is_some_and(|f| f.start <= pc && pc < f.end)
            };
            let hint = self.hint.get();
            let f = match [hint + 1, hint].into_iter().find(|&f| covers(f)) {
                Some(f) => Some(f),
                None => self.fdes.partition_point(|f| f.start <= pc).checked_sub(1),
            };
            if let Some(f) = f {
                self.hint.set(f);
            }
            let fde = match f.and_then(|f| self.fdes.get(f)) {
                Some(&fde) if pc < fde.end => fde,
                _ => {
                    out.push(None);
                    i += 1;
                    continue;
                }
            };
            // The offsets this FDE covers.
            let covered = offsets[i..]
                .iter()
                .take_while(|&&o| {
                    let pc = base.wrapping_add(o);
                    fde.start <= pc && pc < fde.end
                })
                .count();
            let end = i + covered;
            match self.class_rows(fde) {
                Some(rows) => {
                    // As `rows_of` does with gimli's rows, on the class's.
                    let mut rows = rows.iter();
                    while i < end {
                        let Some((start, stop, facts)) = rows.next() else {
                            out.resize(out.len() + (end - i), None);
                            i = end;
                            break;
                        };
                        // The last row ends where this FDE does (the
                        // class's rows were evaluated with another's range).
                        let start = fde.start.wrapping_add(*start);
                        let stop = match rows.len() {
                            0 => fde.end,
                            _ => fde.start.wrapping_add(*stop),
                        };
                        while i < end {
                            let pc = base.wrapping_add(offsets[i]);
                            if stop <= pc {
                                break;
                            }
                            out.push((start <= pc).then_some(*facts));
                            i += 1;
                        }
                    }
                }
                None => {
                    self.rows_of(fde, base, &offsets[i..end], out)?;
                    i = end;
                }
            }
        }
        Ok(())
    }

    /// The facts of the rows with id `id` (from this `Cfi`).
    pub fn facts(&self, id: FrameId) -> Ref<'_, FrameInfo> {
        Ref::map(self.facts.borrow(), |f| &f.by_id[id.index()])
    }

    /// The rows of `fde`'s class relative to its start, evaluated once per
    /// class; `None`: evaluate the FDE alone.
    fn class_rows(&self, fde: Fde) -> Option<Ref<'_, [Row]>> {
        self.evaluate_class(fde);
        match self.classes.borrow().get(fde.class as usize) {
            Some(&Class::Rows(start, end)) => {
                Some(Ref::map(self.rows.borrow(), |rows| &rows[start..end]))
            }
            _ => None,
        }
    }

    /// Evaluates the rows of `fde`'s class if pending.
    fn evaluate_class(&self, fde: Fde) {
        let mut classes = self.classes.borrow_mut();
        let Some(class @ Class::Pending) = classes.get_mut(fde.class as usize) else {
            return;
        };
        let eh = EhFrame::new(&self.data, self.endian);
        let bases = BaseAddresses::default().set_eh_frame(self.eh_frame_address);
        let mut all = self.rows.borrow_mut();
        let before = all.len();
        let evaluated = (|| -> gimli::Result<bool> {
            let parsed = eh.fde_from_offset(
                &bases,
                gimli::EhFrameOffset(fde.offset),
                EhFrame::cie_from_offset,
            )?;
            let mut cie_ins = parsed.cie().instructions(&eh, &bases);
            let mut fde_ins = parsed.instructions(&eh, &bases);
            while let Some(i) = cie_ins.next()? {
                if matches!(i, gimli::CallFrameInstruction::SetLoc { .. }) {
                    return Ok(false);
                }
            }
            while let Some(i) = fde_ins.next()? {
                if matches!(i, gimli::CallFrameInstruction::SetLoc { .. }) {
                    return Ok(false);
                }
            }
            let start = parsed.initial_address();
            let mut guard = self.ctx.borrow_mut();
            let mut rows = parsed.rows(&eh, &bases, &mut **guard)?;
            while let Some(row) = rows.next_row()? {
                all.push((
                    row.start_address().wrapping_sub(start),
                    row.end_address().wrapping_sub(start),
                    self.facts.borrow_mut().intern(row),
                ));
            }
            Ok(true)
        })();
        *class = match evaluated {
            Ok(true) => Class::Rows(before, all.len()),
            Ok(false) | Err(_) => {
                all.truncate(before);
                Class::Alone
            }
        };
    }

    /// The CFI rows of `fde` (all of whose `offsets` from `base` it
    /// covers) at `offsets`, onto `out`: the FDE parsed and evaluated alone,
    /// its rows read where they stand (rows are kilobytes, never copied).
    fn rows_of(
        &self,
        fde: Fde,
        base: u64,
        offsets: &[u64],
        out: &mut Vec<Option<FrameId>>,
    ) -> Result<()> {
        let eh = EhFrame::new(&self.data, self.endian);
        let bases = BaseAddresses::default().set_eh_frame(self.eh_frame_address);
        let mut guard = self.ctx.borrow_mut();
        let ctx: &mut UnwindContext<usize> = &mut guard;
        let fde = eh
            .fde_from_offset(
                &bases,
                gimli::EhFrameOffset(fde.offset),
                EhFrame::cie_from_offset,
            )
            .map_err(Error::Cfi)?;
        let mut rows = fde.rows(&eh, &bases, &mut *ctx).map_err(Error::Cfi)?;
        let (mut i, end) = (0, offsets.len());
        while i < end {
            let Some(row) = rows.next_row().map_err(Error::Cfi)? else {
                out.resize(out.len() + (end - i), None);
                break;
            };
            let mut facts: Option<FrameId> = None;
            while i < end {
                let pc = base.wrapping_add(offsets[i]);
                if row.end_address() <= pc {
                    break;
                }
                out.push(
                    row.contains(pc)
                        .then(|| *facts.get_or_insert_with(|| self.facts.borrow_mut().intern(row))),
                );
                i += 1;
            }
        }
        Ok(())
    }
}

/// The bytes of an FDE that, with its CIE, decide its rows relative to its
/// start but for the last row's end: all after its initial address and
/// address range (same size). `None` when that size is not fixed, or the
/// addresses are not 64-bit (rows then wrap).
fn class_bytes<'d>(
    data: &'d [u8],
    fde: &gimli::FrameDescriptionEntry<gimli::EndianSlice<'d, RunTimeEndian>>,
) -> Option<&'d [u8]> {
    if fde.cie().address_size() != 8 {
        return None;
    }
    let encoding = fde
        .cie()
        .fde_address_encoding()
        .unwrap_or(gimli::DW_EH_PE_absptr);
    let size = match encoding.format() {
        gimli::DW_EH_PE_absptr | gimli::DW_EH_PE_udata8 | gimli::DW_EH_PE_sdata8 => 8,
        gimli::DW_EH_PE_udata4 | gimli::DW_EH_PE_sdata4 => 4,
        gimli::DW_EH_PE_udata2 | gimli::DW_EH_PE_sdata2 => 2,
        _ => return None,
    };
    // 32-bit DWARF format only: length, CIE pointer, initial address.
    let length = u32::try_from(fde.entry_len())
        .ok()
        .filter(|&l| l < 0xffff_fff0)?;
    let start = fde.offset().checked_add(8 + 2 * size)?;
    let end = fde.offset().checked_add(4 + length as usize)?;
    data.get(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzz seeds, and clang-16's objects of 300 small C functions for
    /// each of the four targets (both byte orders): functions of a few
    /// prologues and many sizes, whose FDEs share classes.
    fn objects() -> Vec<(String, Vec<u8>)> {
        let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/objects");
        let mut paths: Vec<_> = std::fs::read_dir(seeds)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        // f<i> keeps i % 6 + 1 values across calls (that many callee-saved
        // registers) and makes i % 5 more calls (its size).
        let mut c = String::from("long g(long);\n");
        for i in 0..300 {
            let values: Vec<String> = (0..=i % 6).map(|j| format!("v{j} = p[{j}] * n")).collect();
            let calls: String = (0..i % 5).map(|e| format!("n = g(n + {e}); ")).collect();
            let sum: Vec<String> = (0..=i % 6).map(|j| format!("v{j}")).collect();
            c += &format!(
                "long f{i}(long *p, long n) {{ long {}; n = g(n); {calls}return n + {}; }}\n",
                values.join(", "),
                sum.join(" + ")
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("f.c");
        std::fs::write(&source, c).unwrap();
        for target in ["x86_64", "aarch64", "powerpc64le", "powerpc64"] {
            let object = dir.path().join(format!("{target}.o"));
            let status = std::process::Command::new("clang-16")
                .arg(format!("--target={target}-linux-gnu"))
                .args(["-O2", "-c"])
                .arg(&source)
                .arg("-o")
                .arg(&object)
                .status()
                .unwrap();
            assert!(status.success(), "clang-16 --target={target}-linux-gnu");
            paths.push(object);
        }
        paths
            .into_iter()
            .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
            .collect()
    }

    #[test]
    fn class_rows_are_each_fdes_own() {
        // Every FDE of every object, evaluated alone by gimli: at the
        // first and last address of each of its rows, and just past its
        // end, the lookup (its class's rows, shared with other FDEs) gives
        // the same facts, asked one address at a time and all at once.
        let (mut fdes, mut shared, mut checked) = (0, 0, 0);
        for (name, data) in objects() {
            let Ok(o) = ObjectFile::parse(&data) else {
                continue;
            };
            let Ok(Some(cfi)) = Cfi::new(&o) else {
                continue;
            };
            let eh = EhFrame::new(&cfi.data, cfi.endian);
            let bases = BaseAddresses::default().set_eh_frame(cfi.eh_frame_address);
            let mut ctx = Box::new(UnwindContext::new());
            let mut classes = std::collections::HashSet::new();
            for fde in cfi.fdes.clone() {
                fdes += 1;
                shared += usize::from(fde.class != NO_CLASS && !classes.insert(fde.class));
                let parsed = eh
                    .fde_from_offset(
                        &bases,
                        gimli::EhFrameOffset(fde.offset),
                        EhFrame::cie_from_offset,
                    )
                    .unwrap();
                // The reference: each row's range and facts.
                let mut expected = Vec::new();
                let mut rows = parsed.rows(&eh, &bases, &mut *ctx).unwrap();
                while let Some(row) = rows.next_row().unwrap() {
                    let mut saved = Vec::new();
                    let cfa = row_facts(row, &mut saved);
                    let info = FrameInfo { cfa, saved };
                    let (start, end) = (row.start_address(), row.end_address());
                    expected.push((start, Some(info.clone())));
                    if end > start + 1 {
                        expected.push((end - 1, Some(info)));
                    }
                }
                let past = cfi
                    .fdes
                    .iter()
                    .any(|f| f.start <= fde.end && fde.end < f.end);
                if !past {
                    expected.push((fde.end, None));
                }
                let offsets: Vec<u64> = expected.iter().map(|(pc, _)| pc - fde.start).collect();
                let mut all = Vec::new();
                cfi.frames_at_address(Some(fde.start), &offsets, &mut all)
                    .unwrap();
                for (k, (pc, want)) in expected.iter().enumerate() {
                    let mut one = Vec::new();
                    cfi.frames_at_address(Some(*pc), &[0], &mut one).unwrap();
                    for got in [one[0], all[k]] {
                        let got = got.map(|id| cfi.facts(id).clone());
                        assert_eq!(
                            &got, want,
                            "{name}: FDE at .eh_frame+{:#x}, address {pc:#x}",
                            fde.offset
                        );
                    }
                    checked += 1;
                }
            }
        }
        // The class path ran where it matters: FDEs that share rows.
        assert!(
            shared > 1000 && checked > 5 * fdes,
            "{fdes} FDEs, {shared} sharing a class, {checked} addresses"
        );
    }
}
