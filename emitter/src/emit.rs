//! `pcmap emit`: rewrite a relocatable object in two optional steps over
//! one `Builder`, keeping every other section, symbol and relocation:
//!
//! 1. stack maps: add the flat stack map section (`docs/stackmap-v2.md`),
//!    with its relocations, when the object has `.llvm_stackmaps`;
//! 2. PC tables: finish the compact PC sections the plugin described in
//!    `.pcmap.layout` (`pcemit`, `docs/pctables.md`).
//!
//! Everything is decoded and checked before the builder is touched, so an
//! error leaves nothing half done.

use std::collections::HashMap;

use object::build::elf::{SectionData, SectionId, SymbolId};
use object::build::{ByteString, Id};
use object::elf;
use object::Object;
use pcmap_reader::flat;

use crate::patch::IrInput;
use crate::pcemit::{self, PcReport};
use crate::rewrite::Rewrite;
use crate::stackmap::{self, LLVM_STACKMAPS};
use crate::{other, Error, Result};
use pcmap_reader::pclayout::SECTION_NAME as LAYOUT_SECTION;

#[derive(Debug, Default)]
pub struct Options {
    /// Absolute function addresses instead of self-relative ones.
    pub absolute: bool,
    /// Drop `.llvm_stackmaps` from the output.
    pub strip_v3: bool,
    /// Stack map intrinsic calls of the IR the object was built from.
    pub ir: Option<IrInput>,
}

/// What the stack map step did, for the CLI and the benchmark.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    pub v3_size: u64,
    pub flat_size: u64,
    pub functions: usize,
    pub records: usize,
}

/// What each step did (`None`: step not run).
#[derive(Debug, Default)]
pub struct Emitted {
    pub stack_maps: Option<Report>,
    pub pc: Option<PcReport>,
}

/// [`emit_all`] into memory, for callers that only care about stack maps.
pub fn emit(data: &[u8], opts: &Options) -> Result<(Vec<u8>, Report)> {
    let mut bytes = Vec::new();
    let e = emit_all(data, opts, &mut bytes)?;
    crate::check::written(&bytes)?;
    Ok((bytes, e.stack_maps.unwrap_or_default()))
}

/// Rewrites the relocatable ELF object `data` into `out`: stack maps, then
/// PC tables. Streaming to a file (an [`object::write::StreamingBuffer`])
/// spares building the whole object, tens of megabytes, in memory first.
/// Nothing is written before the input passed every check, but the writer
/// can still fail part way: on an error, discard `out`; errors of `out`
/// itself (a streaming buffer's I/O errors) are the caller's to collect.
pub fn emit_all(
    data: &[u8],
    opts: &Options,
    out: &mut dyn object::write::WritableBuffer,
) -> Result<Emitted> {
    let file = object::File::parse(data)?;
    crate::check::section_headers(data, &file)?;
    let target = crate::target::Target::of(&file)?;
    if file.kind() != object::ObjectKind::Relocatable {
        return other("emit needs a relocatable object (.o)");
    }
    let stack_maps = match file.section_by_name(LLVM_STACKMAPS) {
        Some(_) => Some(stackmap::flat_tables(&file, opts)?),
        None => None,
    };
    let pc_plan = pcemit::plan(&file)?;
    if stack_maps.is_none() && pc_plan.is_none() {
        return other(format!(
            "nothing to emit: no {LLVM_STACKMAPS} and no {LAYOUT_SECTION} (PC sections of native mode or without a layout description are final as they are)"
        ));
    }

    let mut scratch = Vec::new();
    let mut rw = Rewrite::read(data, &file, &mut scratch)?;
    let mut emitted = Emitted::default();
    let mut added = 0;
    if let Some(flat) = stack_maps {
        // The table and 24 bytes of relocation per address field.
        added +=
            flat.bytes.len() as u64 + 24 * (flat.addresses.len() + flat.index_entries.len()) as u64;
        emitted.stack_maps = Some(flat.report);
        add_stack_maps(&mut rw, target, opts, flat)?;
    }
    if let Some(plan) = pc_plan {
        emitted.pc = Some(plan.report.clone());
        pcemit::apply(&mut rw, plan)?;
    }
    rw.write(added, out)?;
    Ok(emitted)
}

/// The stack map step: the flat section and its relocations.
fn add_stack_maps(
    rw: &mut Rewrite<'_>,
    target: crate::target::Target,
    opts: &Options,
    flat: stackmap::FlatSection,
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
    // a self-relative reference needs no dynamic relocation.
    let mut section_symbols: HashMap<usize, SymbolId> = HashMap::new();
    for s in rw.builder.symbols.iter() {
        if let (Some(sec), elf::STT_SECTION) = (s.section, s.st_type()) {
            section_symbols.entry(sec.index()).or_insert(s.id());
        }
    }
    let mut relocs = Vec::with_capacity(flat.addresses.len() + flat.index_entries.len());
    let fields = flat
        .addresses
        .iter()
        .map(|&(at, loc)| (at, loc, target.address_relocation(opts.absolute)))
        // The function index: the same targets, 32-bit PC-relative.
        .chain(
            flat.index_entries
                .iter()
                .map(|&(at, loc)| (at, loc, target.pc_relative32())),
        );
    for (at, loc, r_type) in fields {
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

    if opts.strip_v3 {
        let v3: Vec<SectionId> = rw
            .builder
            .sections
            .iter()
            .filter(|s| s.name.as_slice() == LLVM_STACKMAPS.as_bytes())
            .map(|s| s.id())
            .collect();
        for id in v3 {
            rw.delete_section(id);
        }
    }

    let b = &mut rw.builder;
    let new = b.sections.add();
    new.name = ByteString::from(flat::SECTION_NAME.as_bytes());
    new.sh_type = elf::SHT_PROGBITS;
    new.sh_flags = elf::SHF_ALLOC;
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
