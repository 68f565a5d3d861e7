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

use object::build::elf::{Builder, SectionData, SectionId, SymbolId};
use object::build::ByteString;
use object::elf;
use object::Object;
use pcmap_reader::flat;

use crate::patch::IrInput;
use crate::pcemit::{self, PcReport};
use crate::pclayout::LAYOUT_SECTION;
use crate::stackmap::{self, LLVM_STACKMAPS};
use crate::{other, Error, Result};

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

/// Builds the flat table for the stack maps of `file`.
pub fn flat_table(
    file: &object::File<'_>,
    opts: &Options,
) -> Result<(
    pcmap_reader::write::FlatTable,
    Vec<stackmap::CodeLoc>,
    Report,
)> {
    stackmap::flat_table(file, opts)
}

/// [`emit_all`] into memory, for callers that only care about stack maps.
pub fn emit(data: &[u8], opts: &Options) -> Result<(Vec<u8>, Report)> {
    let mut bytes = Vec::new();
    let e = emit_all(data, opts, &mut bytes)?;
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
    let target = crate::target::Target::of(&file)?;
    if file.kind() != object::ObjectKind::Relocatable {
        return other("emit needs a relocatable object (.o)");
    }
    let stack_maps = match file.section_by_name(LLVM_STACKMAPS) {
        Some(_) => Some(flat_table(&file, opts)?),
        None => None,
    };
    let pc_plan = pcemit::plan(&file)?;
    if stack_maps.is_none() && pc_plan.is_none() {
        return other(format!(
            "nothing to emit: no {LLVM_STACKMAPS} and no {LAYOUT_SECTION} (PC sections of native mode or without a layout description are final as they are)"
        ));
    }

    let (readable, unreadable) = unreadable_as_data(data);
    let mut b = Builder::read(&*readable)?;
    let section_ids: Vec<SectionId> = b.sections.iter().map(|s| s.id()).collect();
    for &(index, sh_type) in &unreadable {
        if let Some(&id) = section_ids.get(index - 1) {
            let s = b.sections.get_mut(id);
            s.sh_type = elf::SectionType(sh_type);
            // Symbol indices change: an address-significance table would
            // name the wrong symbols. Without one, lld treats every symbol
            // as address-significant (safe; only identical code folding
            // loses).
            if s.sh_type.0 == SHT_LLVM_ADDRSIG {
                s.delete = true;
            }
        }
    }
    let symbol_ids: Vec<SymbolId> = b.symbols.iter().map(|s| s.id()).collect();
    let mut emitted = Emitted::default();
    if let Some((flat_table, code_locs, r)) = stack_maps {
        add_stack_maps(&mut b, &section_ids, target, opts, flat_table, &code_locs)?;
        emitted.stack_maps = Some(r);
    }
    if let Some(plan) = pc_plan {
        emitted.pc = Some(plan.report.clone());
        pcemit::apply(&mut b, &section_ids, plan)?;
    }

    // LLVM shares one string table between symbols and section names; the
    // builder keeps `.strtab` for symbols and needs its own for names.
    if !b
        .sections
        .iter()
        .any(|s| matches!(s.data, SectionData::SectionString))
    {
        let s = b.sections.add();
        s.name = ByteString::from(&b".shstrtab"[..]);
        s.sh_type = elf::SHT_STRTAB;
        s.sh_addralign = 1;
        s.data = SectionData::SectionString;
    }

    fix_groups(&mut b, &section_ids, &symbol_ids, file.is_little_endian());

    // The builder reserves the exact size first: one allocation for a Vec.
    b.write(out)?;
    Ok(emitted)
}

/// The stack map step: the flat section and its relocations.
fn add_stack_maps(
    b: &mut Builder<'_>,
    section_ids: &[SectionId],
    target: crate::target::Target,
    opts: &Options,
    flat_table: pcmap_reader::write::FlatTable,
    code_locs: &[stackmap::CodeLoc],
) -> Result<()> {
    let symtab = b
        .sections
        .iter()
        .find(|s| matches!(s.data, SectionData::Symbol))
        .map(|s| s.id())
        .ok_or_else(|| Error::Other("no symbol table".into()))?;

    // A local section symbol for each code section: not preemptible, so
    // a self-relative reference needs no dynamic relocation.
    let mut relocs = Vec::new();
    for (i, loc) in code_locs.iter().enumerate() {
        let sec = section_ids[loc.section.0 - 1];
        let existing = b
            .symbols
            .iter()
            .find(|s| s.section == Some(sec) && s.st_type() == elf::STT_SECTION)
            .map(|s| s.id());
        let sym = match existing {
            Some(id) => id,
            None => {
                let s = b.symbols.add();
                s.section = Some(sec);
                s.set_st_info(elf::STB_LOCAL, elf::STT_SECTION);
                s.id()
            }
        };
        relocs.push(object::build::elf::Relocation {
            r_offset: flat_table.address_offsets[i] as u64,
            symbol: Some(sym),
            r_type: target.address_relocation(opts.absolute),
            r_addend: loc.offset as i64,
        });
        // The function index entry (if any): the same target, 32-bit PC-relative.
        if let Some(&at) = flat_table.index_offsets.get(i) {
            relocs.push(object::build::elf::Relocation {
                r_offset: at as u64,
                symbol: Some(sym),
                r_type: target.pc_relative32(),
                r_addend: loc.offset as i64,
            });
        }
    }

    if opts.strip_v3 {
        let v3 = b
            .sections
            .iter()
            .find(|s| s.name.as_slice() == LLVM_STACKMAPS.as_bytes())
            .map(|s| s.id());
        if let Some(v3) = v3 {
            b.sections.get_mut(v3).delete = true;
            for s in b.sections.iter_mut() {
                if s.sh_info_section == Some(v3) && matches!(s.data, SectionData::Relocation(_)) {
                    s.delete = true;
                }
            }
            for s in b.symbols.iter_mut() {
                if s.section == Some(v3) {
                    s.delete = true;
                }
            }
        }
    }

    let new = b.sections.add();
    new.name = ByteString::from(flat::SECTION_NAME.as_bytes());
    new.sh_type = elf::SHT_PROGBITS;
    new.sh_flags = elf::SHF_ALLOC;
    new.sh_addralign = flat::TABLE_ALIGN as u64;
    new.data = SectionData::Data(flat_table.bytes.into());
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

/// `object`'s builder cannot read `SHT_GROUP` (COMDAT groups, such as those
/// of the plugin's structors) or `SHT_LLVM_ADDRSIG` (clang's) sections:
/// present them as data and return their indices and types, so that the
/// caller restores them ([`fix_groups`] rewrites group contents). ELF64
/// section headers: `sh_type` at byte 4.
const EI_CLASS: usize = 4;
/// LLVM's address-significance table (`object` has no constant for it).
const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;
const EI_DATA: usize = 5;

fn unreadable_as_data(data: &[u8]) -> (std::borrow::Cow<'_, [u8]>, Vec<(usize, u32)>) {
    let field = |at: usize, n: usize| -> Option<u64> {
        let b = data.get(at..at.checked_add(n)?)?;
        let big = data.get(EI_DATA)? == &elf::ELFDATA2MSB.0;
        Some(b.iter().enumerate().fold(0u64, |v, (i, &x)| {
            let k = if big { n - 1 - i } else { i };
            v | (u64::from(x) << (8 * k))
        }))
    };
    let mut groups = Vec::new();
    if data.get(EI_CLASS) != Some(&elf::ELFCLASS64.0) {
        return (data.into(), groups);
    }
    let (Some(shoff), Some(entsize), Some(num)) = (field(0x28, 8), field(0x3a, 2), field(0x3c, 2))
    else {
        return (data.into(), groups);
    };
    let mut out = None;
    for i in 1..num {
        let Some(at) = i
            .checked_mul(entsize)
            .and_then(|o| o.checked_add(shoff))
            .and_then(|o| usize::try_from(o).ok())
            .and_then(|o| o.checked_add(4))
        else {
            break;
        };
        let sh_type = field(at, 4).unwrap_or(0) as u32;
        if sh_type == elf::SHT_GROUP.0 || sh_type == SHT_LLVM_ADDRSIG {
            let bytes = out.get_or_insert_with(|| data.to_vec());
            let progbits = if data[EI_DATA] == elf::ELFDATA2MSB.0 {
                elf::SHT_PROGBITS.0.to_be_bytes()
            } else {
                elf::SHT_PROGBITS.0.to_le_bytes()
            };
            bytes[at..at + 4].copy_from_slice(&progbits);
            groups.push((i as usize, sh_type));
        }
    }
    match out {
        Some(v) => (v.into(), groups),
        None => (data.into(), groups),
    }
}

/// The builder keeps `SHT_GROUP` contents as raw bytes: rewrite their
/// section indices and signature symbol index for the output order.
fn fix_groups(
    b: &mut Builder<'_>,
    section_ids: &[SectionId],
    symbol_ids: &[SymbolId],
    little: bool,
) {
    let mut new_section = std::collections::HashMap::new();
    for (s, index) in b.sections.iter().filter(|s| !s.delete).zip(1..) {
        new_section.insert(s.id().index(), index);
    }
    let mut new_symbol = std::collections::HashMap::new();
    let live = || b.symbols.iter().filter(|s| !s.delete);
    let locals = live().filter(|s| s.st_bind() == elf::STB_LOCAL);
    let globals = live().filter(|s| s.st_bind() != elf::STB_LOCAL);
    for (s, index) in locals.chain(globals).zip(1..) {
        new_symbol.insert(s.id().index(), index);
    }
    let rd = |b: &[u8]| {
        let a: [u8; 4] = b.try_into().unwrap_or_default();
        if little {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        }
    };
    let wr = |v: u32| {
        if little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        }
    };
    for s in b.sections.iter_mut() {
        if s.sh_type != elf::SHT_GROUP {
            continue;
        }
        if let Some(id) = (s.sh_info as usize)
            .checked_sub(1)
            .and_then(|i| symbol_ids.get(i))
        {
            s.sh_info = new_symbol.get(&id.index()).copied().unwrap_or(0);
        }
        if let SectionData::Data(bytes) = &s.data {
            let mut words: Vec<u8> = bytes.to_vec();
            for chunk in words.chunks_exact_mut(4).skip(1) {
                let old = rd(chunk) as usize;
                if let Some(id) = old.checked_sub(1).and_then(|i| section_ids.get(i)) {
                    chunk.copy_from_slice(&wr(new_section.get(&id.index()).copied().unwrap_or(0)));
                }
            }
            s.data = SectionData::Data(words.into());
        }
    }
}

use object::build::Id;
