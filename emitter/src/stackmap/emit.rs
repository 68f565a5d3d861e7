//! The stack map step of `pcmap emit`: a flat table (`docs/stackmap-v2.md`)
//! for every LLVM table of a relocatable object, each record checked
//! against its function and the target, with the frame facts of `.eh_frame`
//! and the kinds and patchable sizes of the IR.

use object::build::elf::{SectionData, SymbolId};
use object::build::{ByteString, Id};
use object::elf;
use object::{Object, ObjectSection};
use pcmap_reader::flat::{
    self, Cfa, FlatTable, FlatWriter, FrameHead, FrameRegister, FrameStateRef, RecordHead,
    RecordKind, StoredFrameState,
};
use pcmap_reader::llvm::{LlvmRecord, LlvmStackMap, SECTION_NAME as LLVM_STACKMAPS};
use pcmap_reader::RunTimeEndian;

use super::check::{check_offset, check_record, lists_hold};
use pcmap_reader::sites::{self, Match, SiteIndex, SiteKind};

use super::function::{function_place, AddressField};
use super::ir::IrInput;
use crate::error::UnknownKinds;
use crate::error::{Error, Result};
use crate::object::cfi::{Cfi, FrameId, FrameInfo};
use crate::object::rewrite::Rewrite;
use crate::object::{instructions, is_named_contents, CodeLoc, ObjectFile, Relocations, Target};

/// The flat tables `emit` adds: one per LLVM table, back to back in one
/// `pcmap_stackmaps` section (each 8-aligned, as readers expect), and where
/// each function's address field is.
pub struct FlatSection {
    pub bytes: Vec<u8>,
    /// Offset in `bytes` of each function's address field (a self-relative
    /// i32, or with `--absolute` a u64), and its code.
    pub addresses: Vec<(usize, CodeLoc)>,
    /// The `.llvm_stackmaps` sections the tables come from.
    pub v3_sections: Vec<object::SectionIndex>,
    pub report: Report,
    /// The first few records whose kind is unknown, for messages
    /// ("function f, record ID 7 at offset 0x12").
    pub unknown_examples: Vec<String>,
}

/// How many records [`FlatSection::unknown_examples`] names at most.
const UNKNOWN_EXAMPLES: usize = 3;

impl FlatSection {
    /// The error for tables with records of unknown kind: a stack walker
    /// cannot use them (a stackmap at a return address looks like a
    /// statepoint), so the build stops here, not the program's first
    /// collection.
    pub fn unknown_kinds_error(&self) -> Error {
        let r = &self.report;
        let mut examples = self.unknown_examples.join("; ");
        if r.unknown > self.unknown_examples.len() {
            examples.push_str(&format!(
                "; and {} more",
                r.unknown - self.unknown_examples.len()
            ));
        }
        Error::UnknownKinds(UnknownKinds {
            records: r.records,
            unknown: r.unknown,
            examples,
            described_by: r.described_by.map(Source::name),
        })
    }
}

/// What the stack map step did, for the command and the benchmark.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub v3_size: u64,
    pub flat_size: u64,
    pub functions: usize,
    pub records: usize,
    /// Where kinds and patchable sizes came from (`None`: nowhere).
    pub described_by: Option<Source>,
    /// Records whose kind and patchable size are unknown: nothing described
    /// them, or their function's sites with their ID disagree.
    pub unknown: usize,
    /// Distinct Sites and FrameStates the flat tables store.
    pub sites: usize,
    pub frame_states: usize,
    /// Records without a frame state (no FDE covers them), and with one
    /// whose CFA is not register + offset.
    pub no_frame_state: usize,
    pub cfa_expression: usize,
}

/// What describes records' kinds and patchable sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The plugin's `.pcmap.sites` (`docs/stackmap-sites.md`).
    Sites,
    /// The IR given with `--ir`.
    Ir,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Sites => sites::SECTION,
            Source::Ir => "the IR",
        }
    }
}

/// How to write the flat tables.
#[derive(Debug, Default, Clone, Copy)]
pub struct EmitOptions<'a> {
    /// Absolute function addresses instead of self-relative ones.
    pub absolute: bool,
    /// Stack map intrinsic calls of the IR the object was built from
    /// (perhaps still being read on other threads: waited for once the
    /// object's symbols, relocations and CFI are ready).
    pub ir: Option<&'a IrInput>,
}

/// The flat tables for every table of every `.llvm_stackmaps` section of a
/// relocatable object (`ld -r` concatenates tables into one section, or
/// keeps several sections with `--unique`), written straight from the
/// zero-copy reader, each record checked against its function and target.
pub fn flat_tables(o: &ObjectFile<'_>, opts: EmitOptions<'_>) -> Result<FlatSection> {
    let file = &o.file;
    if !o.relocatable {
        return Err(Error::NotRelocatable);
    }
    if file.section_by_name(flat::SECTION_NAME).is_some() {
        return Err(Error::AlreadyEmitted);
    }
    let cfi = Cfi::new(o)?;
    let described = site_index(o)?;
    // The IR (read on other threads so far) is needed from here on; the
    // plugin's description, when the object has one, comes first.
    let ir = match &described {
        Some(_) => None,
        None => opts.ir.map(IrInput::sites).transpose()?,
    };
    let describer = match (&described, ir) {
        (Some(index), _) => Some((Source::Sites, index)),
        (None, Some(ir)) => Some((Source::Ir, ir)),
        (None, None) => None,
    };
    let e = o.endian;
    let mut out = FlatSection {
        bytes: Vec::new(),
        addresses: Vec::new(),
        v3_sections: Vec::new(),
        report: Report {
            described_by: describer.map(|d| d.0),
            ..Report::default()
        },
        unknown_examples: Vec::new(),
    };
    let sections: Vec<_> = file
        .sections()
        .filter(|s| is_named_contents(s, LLVM_STACKMAPS))
        .collect();
    out.v3_sections = sections.iter().map(|s| s.index()).collect();
    let several = sections.len() > 1;
    for (n, section) in sections.iter().enumerate() {
        let data = section.data()?;
        let relocs = o.relocations(section);
        out.report.v3_size += section.size();
        let tables: Vec<_> = LlvmStackMap::tables(data, e).collect();
        let many = several || tables.len() > 1;
        let mut at = 0u64;
        for (k, map) in tables.into_iter().enumerate() {
            // Name the table in messages when there is more than one.
            let name = if many {
                format!("{LLVM_STACKMAPS} (section {}, table {})", n + 1, k + 1)
            } else {
                LLVM_STACKMAPS.to_string()
            };
            let map = map.map_err(|source| Error::StackMap {
                section: name.clone(),
                problem: source,
            })?;
            let t = TableInput {
                place: Place::Object {
                    o,
                    section,
                    relocs: &relocs,
                },
                target: o.target,
                endian: o.endian,
                cfi: cfi.as_ref(),
                describer,
                absolute: opts.absolute,
                name: &name,
                offset: at,
            };
            let (table, locs, counts) = t.flat_table(&map)?;
            out.report.unknown += counts.unknown;
            let room = UNKNOWN_EXAMPLES.saturating_sub(out.unknown_examples.len());
            out.unknown_examples
                .extend(counts.unknown_examples.into_iter().take(room));
            out.report.no_frame_state += counts.no_frame_state;
            out.report.cfa_expression += counts.cfa_expression;
            out.report.sites += table.sites;
            out.report.frame_states += table.frame_states;
            at += map.size() as u64;
            let base = out.bytes.len().next_multiple_of(flat::TABLE_ALIGN);
            if base == 0 {
                // The first table: moved, not copied.
                out.bytes = table.bytes;
            } else {
                out.bytes.resize(base, 0);
                out.bytes.extend_from_slice(&table.bytes);
            }
            out.addresses.extend(
                table
                    .address_offsets
                    .iter()
                    .map(|o| base + o)
                    .zip(locs.iter().copied()),
            );
            out.report.functions += map.num_functions() as usize;
            out.report.records += map.num_records() as usize;
        }
        if at == 0 {
            return Err(Error::Section {
                section: LLVM_STACKMAPS.into(),
                problem: "holds no stack map table".into(),
            });
        }
    }
    out.report.flat_size = out.bytes.len() as u64;
    Ok(out)
}

/// Adds `flat` and its relocations to the object being rewritten (and
/// removes LLVM's section unless `keep_v3`). The table is `SHF_GNU_RETAIN`,
/// and a System V object becomes GNU for GNU ld to honour that:
/// `--gc-sections` keeps it, and with it every function it describes.
pub fn apply(
    rw: &mut Rewrite<'_>,
    target: Target,
    absolute: bool,
    keep_v3: bool,
    flat: FlatSection,
) -> Result<()> {
    let symtab = rw
        .builder
        .sections
        .iter()
        .find(|s| matches!(s.data, SectionData::Symbol))
        .map(|s| s.id())
        .ok_or(Error::Section {
            section: ".symtab".into(),
            problem: "the object has no symbol table".into(),
        })?;

    // A local section symbol for each code section: not preemptible, so
    // a self-relative reference needs no dynamic relocation. (One whose
    // value is not 0, legal if odd, would move every address by it.)
    let mut section_symbols: hashbrown::HashMap<usize, SymbolId> = hashbrown::HashMap::new();
    for s in rw.builder.symbols.iter() {
        if let (Some(sec), elf::STT_SECTION, 0) = (s.section, s.st_type(), s.st_value) {
            section_symbols.entry(sec.index()).or_insert(s.id());
        }
    }
    let mut relocs = Vec::with_capacity(flat.addresses.len());
    // Self-relative: 32-bit PC-relative, as `.eh_frame`'s FDE addresses
    // (a table and its code are within ±2 GiB); absolute: 64-bit.
    let r_type = match absolute {
        true => target.address_relocation(true),
        false => target.pc_relative32(),
    };
    for &(at, loc) in &flat.addresses {
        let sec = rw.section(loc.section)?;
        let sym = match section_symbols.get(&sec.index()) {
            Some(&id) => id,
            None => {
                let s = rw.builder.symbols.add();
                s.section = Some(sec);
                s.set_st_info(elf::STB_LOCAL, elf::STT_SECTION);
                section_symbols.insert(sec.index(), s.id());
                s.id()
            }
        };
        relocs.push(object::build::elf::Relocation {
            r_offset: at as u64,
            symbol: Some(sym),
            r_type,
            r_addend: loc.offset as i64,
        });
    }

    if !keep_v3 {
        for &index in &flat.v3_sections {
            let id = rw.section(index)?;
            rw.delete_section(id);
        }
    }

    let b = &mut rw.builder;
    // GNU ld honours SHF_GNU_RETAIN only in objects whose OS/ABI is GNU or
    // FreeBSD (bfd's `_bfd_elf_make_section_from_shdr`): a System V object
    // becomes GNU, as LLVM's assembler makes it when it writes a retained
    // section. Another OS/ABI is kept, as LLVM keeps it (docs/emit.md).
    if b.header.os_abi == elf::ELFOSABI_NONE {
        b.header.os_abi = elf::ELFOSABI_GNU;
    }
    let new = b.sections.add();
    new.name = ByteString::from(flat::SECTION_NAME.as_bytes());
    new.sh_type = elf::SHT_PROGBITS;
    new.sh_flags = elf::SHF_ALLOC | elf::SHF_GNU_RETAIN;
    new.sh_addralign = flat::TABLE_ALIGN as u64;
    new.data = SectionData::Data(flat.bytes.into());
    let new_id = new.id();
    let rela = b.sections.add();
    rela.name = ByteString::from(format!(".rela{}", flat::SECTION_NAME).into_bytes());
    rela.sh_type = elf::SHT_RELA;
    rela.sh_flags = elf::SHF_INFO_LINK;
    rela.sh_link_section = Some(symtab);
    rela.sh_info_section = Some(new_id);
    rela.sh_addralign = 8;
    rela.sh_entsize = 24;
    rela.data = SectionData::Relocation(relocs);
    Ok(())
}

/// One function as a JIT knows it (`memory::flat_tables`).
#[derive(Debug, Clone, Copy)]
pub struct MemoryFunction<'a> {
    /// Its symbol name (what `.pcmap.sites` names it by).
    pub name: &'a [u8],
    /// The address of its first instruction; LLVM's table names it so.
    pub address: u64,
    /// Its code: exactly its bytes, from `address` for its size.
    pub code: &'a [u8],
}

impl MemoryFunction<'_> {
    /// Its name for messages.
    pub fn display(&self) -> String {
        String::from_utf8_lossy(self.name).into_owned()
    }
}

/// Where a table's functions are.
pub(super) enum Place<'a, 'd, 'f> {
    /// In a relocatable object: the table's section and its relocations
    /// say which function each entry is.
    Object {
        o: &'a ObjectFile<'d>,
        section: &'a object::Section<'d, 'f>,
        relocs: &'a Relocations,
    },
    /// In memory (a JIT's): each entry's address is its function's.
    Memory(&'a [MemoryFunction<'a>]),
}

/// One function of a table, found: what its records are checked against.
struct Resolved<'c> {
    /// For messages.
    name: std::borrow::Cow<'c, str>,
    /// The symbol sites name it by.
    symbol: &'c [u8],
    /// Its code (to its end if its size is known, else its section's).
    code: &'c [u8],
    /// Its size (0: unknown).
    size: u32,
    /// Where it is in an object, or its address in memory.
    at: Either,
}

#[derive(Clone, Copy)]
enum Either {
    Object(CodeLoc),
    Memory(u64),
}

/// One LLVM table and what its flat table is made from.
pub(super) struct TableInput<'a, 'd, 'f> {
    pub(super) place: Place<'a, 'd, 'f>,
    pub(super) target: Target,
    pub(super) endian: RunTimeEndian,
    pub(super) cfi: Option<&'a Cfi>,
    pub(super) describer: Option<(Source, &'a SiteIndex)>,
    /// Absolute function addresses (always so in memory).
    pub(super) absolute: bool,
    /// The table's name in messages.
    pub(super) name: &'a str,
    /// The table's offset in its section.
    pub(super) offset: u64,
}

impl<'a> TableInput<'a, '_, '_> {
    fn err(&self, problem: String) -> Error {
        Error::Section {
            section: self.name.to_string(),
            problem,
        }
    }

    /// The flat table for `map`, with the code location of each function,
    /// and how many records have an unknown kind and size or lack a frame
    /// state.
    pub(super) fn flat_table(
        &self,
        map: &LlvmStackMap<'_, RunTimeEndian>,
    ) -> Result<(FlatTable, Vec<CodeLoc>, Counts)> {
        let target = self.target;
        let err = |source| Error::StackMap {
            section: self.name.to_string(),
            problem: source,
        };
        let nfun = map.num_functions();
        if map.version() == 1 && nfun > 1 {
            return Err(self.err(format!(
                "version 1 has no per-function record counts; cannot assign records of {nfun} functions"
            )));
        }
        // The parse saw every list: where they all hold for the target, a
        // record's own check is its offset (a pass over the lists less).
        let lists_hold = lists_hold(target, map.lists());
        let mut w = FlatWriter::new(self.endian, self.absolute);
        // A PC map speeds lookups of tables of many functions up when they
        // share one code section (no -ffunction-sections); linkers keep a
        // section's layout (docs/stackmap-v2.md).
        w.pc_map(nfun as usize >= flat::PC_MAP_MIN_FUNCTIONS);
        w.reserve(nfun as usize, map.num_records() as usize);
        for c in map.constants() {
            w.constant(c.map_err(err)?);
        }
        let mut records = map.records();
        let mut batch: Vec<LlvmRecord<'_, RunTimeEndian>> = Vec::new();
        let mut counts = Counts::default();
        let mut locs = Vec::with_capacity(nfun as usize);
        let mut calls_at: Vec<Option<u32>> = Vec::new();
        let mut probes: Vec<u64> = Vec::new();
        let mut frames: Vec<Option<FrameId>> = Vec::new();
        let mut stored = StoredStates::default();
        for i in 0..nfun {
            let f = map.function(i).map_err(err)?;
            let Resolved {
                name,
                symbol,
                code,
                size,
                at,
            } = self.function(map, i, f.address)?;
            let name = &*name;
            let count = match f.record_count {
                Some(c) => c,
                None if i + 1 == nfun => u64::from(map.num_records()),
                None => 0,
            };
            batch.clear();
            for _ in 0..count {
                let r = records
                    .next()
                    .ok_or(pcmap_reader::Error::Inconsistent(
                        "fewer records than counted",
                    ))
                    .map_err(err)?
                    .map_err(err)?;
                batch.push(r);
            }
            if !batch.is_sorted_by_key(|r| r.instruction_offset) {
                batch.sort_by_key(|r| r.instruction_offset);
            }

            let code_size = code.len() as u64;
            for r in &batch {
                match lists_hold {
                    true => check_offset(r.instruction_offset, code_size),
                    false => check_record(
                        target,
                        r.instruction_offset,
                        r.locations(),
                        r.live_outs(),
                        code_size,
                    ),
                }
                .map_err(|problem| {
                    self.err(format!(
                        "function {name}, record ID {} at offset {:#x}: {problem}",
                        r.id, r.instruction_offset
                    ))
                })?;
            }

            // Records are in offset order: one decoding pass finds the
            // calls that end at them.
            let mut calls = instructions::Calls::new(target, code);
            calls_at.clear();
            calls_at.extend(
                batch
                    .iter()
                    .map(|r| calls.ending_at(r.instruction_offset.into())),
            );
            // The frame state at each record: the CFI row in force at the
            // call that ends there (pc - 1, as an unwinder looks a return
            // address up), else at the record.
            probes.clear();
            probes.extend(
                batch
                    .iter()
                    .zip(&calls_at)
                    .map(|(r, call)| u64::from(r.instruction_offset) - u64::from(call.is_some())),
            );
            frames.clear();
            match (self.cfi, at, &self.place) {
                (Some(c), Either::Object(loc), Place::Object { o, .. }) => {
                    c.frames_at(o, loc, &probes, &mut frames)?
                }
                (Some(c), Either::Memory(address), _) => {
                    c.frames_at_address(Some(address), &probes, &mut frames)?
                }
                _ => frames.resize(batch.len(), None),
            };
            let realigned = calls.realigns_stack();
            // The function's sites, looked up once for all its records.
            let sites = self
                .describer
                .map(|(source, index)| (source, index.function_sites(symbol)));
            for (j, r) in batch.iter().enumerate() {
                let neighbours = (
                    j.checked_sub(1).map(|p| batch[p].instruction_offset),
                    batch.get(j + 1).map(|n| n.instruction_offset),
                );
                let (kind, patchable_size) = match &sites {
                    Some((source, sites)) => describe(
                        *source,
                        sites.lookup(r.id),
                        r,
                        name,
                        code,
                        neighbours,
                        target,
                        calls_at[j],
                    )?,
                    None => (RecordKind::Unknown, None),
                };
                if kind == RecordKind::Unknown {
                    counts.unknown += 1;
                    if counts.unknown_examples.len() < UNKNOWN_EXAMPLES {
                        counts.unknown_examples.push(format!(
                            "function {name}, record ID {} at offset {:#x}",
                            r.id, r.instruction_offset
                        ));
                    }
                }
                let head = RecordHead {
                    id: r.id,
                    instruction_offset: r.instruction_offset,
                    patchable_size,
                    kind,
                    has_live_out_info: kind == RecordKind::PatchPoint || r.num_live_outs() > 0,
                };
                let state = match (frames[j], self.cfi) {
                    (Some(id), Some(cfi)) => {
                        let at = || {
                            format!(
                                "function {name}, record ID {} at offset {:#x}",
                                r.id, r.instruction_offset
                            )
                        };
                        let (state, expression) = stored.get(&mut w, id, realigned, |saved| {
                            self.frame_state(cfi, id, saved, at)
                        })?;
                        counts.cfa_expression += usize::from(expression);
                        Some(state)
                    }
                    _ => {
                        counts.no_frame_state += 1;
                        None
                    }
                };
                w.record_stored(&head, r.locations(), r.live_outs(), state)
                    .map_err(flat_error)?;
            }

            // In an object the relocation's addend carries the code offset;
            // in memory the address is known (one address space: one
            // "section" for the PC map).
            let (address, code_pos) = match at {
                Either::Object(loc) => (0, (loc.section.0, loc.offset)),
                Either::Memory(address) => (address, (0, address)),
            };
            w.function(&FrameHead {
                address,
                size,
                stack_size: f.stack_size,
                code: Some(code_pos),
            })
            .map_err(flat_error)?;
            if let Either::Object(loc) = at {
                locs.push(loc);
            }
        }
        if records.next().is_some() {
            return Err(self.err(format!(
                "{} records, more than its functions count",
                map.num_records()
            )));
        }
        let out = w.finish().map_err(flat_error)?;
        Ok((out, locs, counts))
    }

    /// Function `i` of `map`, whose entry holds `address`: its name, code
    /// and size.
    fn function(
        &self,
        map: &LlvmStackMap<'_, RunTimeEndian>,
        i: u32,
        address: u64,
    ) -> Result<Resolved<'a>> {
        let (o, section, relocs) = match self.place {
            Place::Object { o, section, relocs } => (o, section, relocs),
            Place::Memory(functions) => {
                let f = functions
                    .iter()
                    .find(|f| f.address == address)
                    .ok_or_else(|| {
                        self.err(format!(
                            "function {i} at {address:#x} is none of the functions given"
                        ))
                    })?;
                let size = u32::try_from(f.code.len())
                    .map_err(|_| self.err(format!("function {} larger than 4 GiB", f.display())))?;
                return Ok(Resolved {
                    name: f.display().into(),
                    symbol: f.name,
                    code: f.code,
                    size,
                    at: Either::Memory(address),
                });
            }
        };
        let file = &o.file;
        let field = self.offset + map.function_address_offset(i) as u64;
        let place = function_place(o, section, field, address, AddressField::Llvm, relocs)?;
        let name = place.symbol(o).unwrap_or_default();
        let code_loc = place
            .code
            .ok_or_else(|| self.err(format!("address of function {i} ({name}) is not in code")))?;
        let code_section = file.section_by_index(code_loc.section)?;
        let data = code_section.data()?;
        let in_code = usize::try_from(code_loc.offset)
            .ok()
            .filter(|&o| o < data.len());
        let Some(start) = in_code else {
            return Err(self.err(format!(
                "function {i} ({name}) at offset {:#x} of {}, which is {:#x} bytes long",
                code_loc.offset,
                code_section.name().unwrap_or("?"),
                data.len()
            )));
        };
        let fsize = place.function.map(|f| f.size);
        let end = match fsize {
            Some(size) if size > 0 => start.saturating_add(size as usize).min(data.len()),
            _ => data.len(),
        };
        let size = u32::try_from(fsize.unwrap_or(0))
            .map_err(|_| self.err(format!("function {name} larger than 4 GiB")))?;
        // The symbol sites name the function by: none for a function
        // without one (a private function's address is its section's).
        let symbol = place.function.map_or(&b""[..], |f| o.functions.symbol(f));
        Ok(Resolved {
            name,
            symbol,
            code: &data[start..end],
            size,
            at: Either::Object(code_loc),
        })
    }

    /// A record's frame state from the CFI row at it (`id` of `cfi`): the
    /// CFA rule (`None` for an expression), and the saved registers into
    /// `saved`. A value the layout cannot hold (an offset beyond an i32) is
    /// an error naming the record (`at`).
    fn frame_state(
        &self,
        cfi: &Cfi,
        id: FrameId,
        saved: &mut Vec<FrameRegister>,
        at: impl Fn() -> String,
    ) -> Result<Option<Cfa>> {
        let info: &FrameInfo = &cfi.facts(id);
        let cfa = match info.cfa {
            Some((register, offset)) => Some(Cfa {
                register,
                offset: i32::try_from(offset).map_err(|_| {
                    self.err(format!("{}: CFA offset {offset} beyond 32 bits", at()))
                })?,
            }),
            None => None,
        };
        saved.clear();
        for &(reg, off) in &info.saved {
            let offset = i32::try_from(off).map_err(|_| {
                self.err(format!(
                    "{}: register {reg} saved {off} bytes from the CFA (beyond 32 bits)",
                    at()
                ))
            })?;
            saved.push(FrameRegister {
                dwarf_reg: reg,
                offset,
            });
        }
        Ok(cfa)
    }
}

/// An error of the flat table being written.
fn flat_error(source: pcmap_reader::Error) -> Error {
    Error::StackMap {
        section: flat::SECTION_NAME.into(),
        problem: source,
    }
}

/// The frame states one flat table's writer has stored, by CFI row facts
/// and stack realignment: each converted and encoded once for all the
/// records that share it (tens of thousands of functions share a few
/// prologues), not once per function.
#[derive(Default)]
struct StoredStates {
    /// By [`FrameId`], not realigned and realigned: the state stored and
    /// whether its CFA is an expression.
    by_id: Vec<[Option<(StoredFrameState, bool)>; 2]>,
    /// The saved registers of the state being converted.
    saved: Vec<FrameRegister>,
}

impl StoredStates {
    /// The frame state of the CFI row `id` in a function that realigns its
    /// stack or not, stored in `w` the first time it is asked for, as
    /// `convert` makes it (the CFA rule, the saved registers into the
    /// buffer given); and whether its CFA is an expression.
    fn get(
        &mut self,
        w: &mut FlatWriter<RunTimeEndian>,
        id: FrameId,
        realigned: bool,
        convert: impl FnOnce(&mut Vec<FrameRegister>) -> Result<Option<Cfa>>,
    ) -> Result<(StoredFrameState, bool)> {
        let i = id.index();
        if self.by_id.len() <= i {
            self.by_id.resize(i + 1, [None; 2]);
        }
        if let Some(known) = self.by_id[i][usize::from(realigned)] {
            return Ok(known);
        }
        let cfa = convert(&mut self.saved)?;
        let state = w
            .frame_state(&FrameStateRef {
                cfa,
                stack_realigned: realigned,
                saved: &self.saved,
            })
            .map_err(flat_error)?;
        let known = (state, cfa.is_none());
        self.by_id[i][usize::from(realigned)] = Some(known);
        Ok(known)
    }
}

/// What one table's records lacked.
#[derive(Debug, Clone, Default)]
pub(super) struct Counts {
    pub(super) unknown: usize,
    /// The first few of them, named.
    pub(super) unknown_examples: Vec<String>,
    pub(super) no_frame_state: usize,
    pub(super) cfa_expression: usize,
}

/// A record's kind and patchable size as `source` describes its function's
/// sites with its ID (`m`), checked against the code: the patch region
/// inside the function, clear of the records beside it (`neighbours`:
/// the offsets before and after), holding nothing but what LLVM puts
/// there. Sites that disagree leave kind and size unknown; no site is an
/// error, as is a region the code contradicts.
#[allow(clippy::too_many_arguments)]
fn describe(
    source: Source,
    m: Match,
    r: &LlvmRecord<'_, RunTimeEndian>,
    function: &str,
    code: &[u8],
    (before, after): (Option<u32>, Option<u32>),
    target: Target,
    call: Option<u32>,
) -> Result<(RecordKind, Option<u32>)> {
    let offset = r.instruction_offset;
    let err = |problem: String| Error::IrRecord {
        function: function.to_string(),
        problem: format!(
            "function {function}, record ID {} at offset {offset:#x}: {problem}",
            r.id
        ),
    };
    let (kind, bytes) = match m {
        Match::Agree { kind, bytes } => (kind, bytes),
        Match::Disagree => return Ok((RecordKind::Unknown, None)),
        Match::Missing => {
            return Err(err(format!(
                "{} describes no site of this function with this ID (is it this object's?)",
                source.name()
            )))
        }
    };
    let end = u64::from(offset);
    let region = match kind {
        SiteKind::StackMap | SiteKind::PatchPoint => {
            let stop = end + u64::from(bytes);
            if stop > code.len() as u64 {
                return Err(err(format!(
                    "{} says {} patchable bytes, which run past the function's end ({:#x} bytes)",
                    source.name(),
                    bytes,
                    code.len()
                )));
            }
            if let Some(next) = after.filter(|&n| u64::from(n) < stop && bytes > 0) {
                return Err(err(format!(
                    "{} says {} patchable bytes, which run into the record at offset {next:#x}",
                    source.name(),
                    bytes
                )));
            }
            (end as usize..stop as usize, kind == SiteKind::PatchPoint)
        }
        SiteKind::StatePoint if bytes == 0 => {
            // The call's own bytes: the instruction that ends at the offset.
            let size = call.ok_or_else(|| {
                err("a statepoint without patch bytes, but no call instruction ends here".into())
            })?;
            return Ok((RecordKind::StatePoint, Some(size)));
        }
        SiteKind::StatePoint => {
            let Some(start) = end.checked_sub(u64::from(bytes)) else {
                return Err(err(format!(
                    "{} says {bytes} patch bytes before the record, more than the function has there",
                    source.name()
                )));
            };
            if let Some(prev) = before.filter(|&p| u64::from(p) > start) {
                return Err(err(format!(
                    "{} says {bytes} patch bytes, which reach back past the record at offset {prev:#x}",
                    source.name()
                )));
            }
            (start as usize..end as usize, false)
        }
    };
    // A stackmap's shadow may hold the function's own code; the others
    // hold what LLVM puts there.
    if kind != SiteKind::StackMap {
        let (range, call) = region;
        if let Some(at) = instructions::foreign_in_patch_region(target, &code[range.clone()], call)
        {
            return Err(err(format!(
                "{} says {bytes} patch bytes, but the code at +{:#x} is not what LLVM puts in a patch region (does {} belong to this object?)",
                source.name(),
                range.start + at,
                source.name()
            )));
        }
    }
    let kind = match kind {
        SiteKind::StackMap => RecordKind::StackMap,
        SiteKind::PatchPoint => RecordKind::PatchPoint,
        SiteKind::StatePoint => RecordKind::StatePoint,
    };
    Ok((kind, Some(bytes)))
}

/// The plugin's description of the object's sites: every `.pcmap.sites`
/// section (`ld -r` concatenates records; `--unique` keeps sections),
/// indexed.
pub(super) fn site_index(o: &ObjectFile<'_>) -> Result<Option<SiteIndex>> {
    let mut index: Option<SiteIndex> = None;
    for section in o.file.sections() {
        if !is_named_contents(&section, sites::SECTION) {
            continue;
        }
        index
            .get_or_insert_with(SiteIndex::default)
            .add_section(section.data()?)
            .map_err(|e| Error::Section {
                section: sites::SECTION.into(),
                problem: e.to_string(),
            })?;
    }
    Ok(index)
}
