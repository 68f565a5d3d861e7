//! The whole rewrite, `pcmap emit` in process (`emit::emit_all`, the
//! library entry the command uses), on mutated real objects (the corpus in
//! `seeds/`: stack maps, PC tables, `.pcmap.sites` and `.pcmap.layout`,
//! COMDAT groups, four targets). Byte 9 of the ELF identification (padding,
//! ignored by every reader) chooses `--absolute` (bit 0), `--keep-v3`
//! (bit 1) and, when bit 2 is set, emit's default of refusing records of
//! unknown kind (clear: `--no-walk`, so that objects without a description
//! reach the whole rewrite). An input holding [`IR_MARK`] is an object and, after the mark,
//! what `--ir` gives emit: the plugin's description of the IR it was built
//! from, `.pcmap.sites` text (seeds: objects built without the plugin,
//! followed by the description of their IR; the mutations reach both, and
//! which records the description covers).
//!
//! The outcome must be an error (not an internal one), or an object that
//! - passes the command's own check of what it writes (`check::written`);
//! - the `object` crate parses completely: every section's name and
//!   contents, every relocation, symbol and COMDAT group;
//! - our reader parses, with every stack map and PC table decoded and
//!   dumped (text and JSON, as `pcmap dump`) when the input's were (emit
//!   does not decode what it leaves as it is); `verify` runs;
//! - keeps what emit does not rewrite: every other section with the same
//!   type, flags and contents, all its relocations, every symbol not
//!   defined in a removed section, every group with its kept members.
//!
//! Anything else (a panic, an overflow, a written object that fails a
//! check) is a bug; `-rss_limit_mb`/`-malloc_limit_mb` and `-timeout`
//! catch unbounded allocation and time.
#![no_main]
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use object::elf;
use object::read::elf::SectionHeader;
use object::{Object, ObjectComdat, ObjectSection, ObjectSymbol, RelocationTarget, SymbolKind};
use pcmap::emit::{emit_all, Options};
use pcmap::stackmap::emit::Source;
use pcmap::stackmap::ir::IrInput;
use pcmap::Error;
use pcmap_reader::sites::SiteIndex;

/// Where an input's description of its IR starts (make-seeds.sh writes it;
/// no object holds it by chance: a NUL then a comment line).
const IR_MARK: &[u8] = b"\0; pcmap fuzz: --ir\n";

fuzz_target!(|input: &[u8]| {
    let (data, ir) = match find(input, IR_MARK) {
        // A description that does not read is the reader's `sites`
        // target's (emit --ir refuses it whole).
        Some(at) => {
            let mut index = SiteIndex::default();
            match index.add_section(&input[at + IR_MARK.len()..]) {
                Ok(()) => (&input[..at], Some(IrInput::from(index))),
                Err(_) => return,
            }
        }
        None => (input, None),
    };
    let flags = data.get(9).copied().unwrap_or(0);
    let opts = Options {
        absolute: flags & 1 != 0,
        keep_v3: flags & 2 != 0,
        ir,
        no_walk: flags & 4 == 0,
    };
    let mut out = Vec::new();
    let emitted = match emit_all(data, &opts, &mut out) {
        Ok(e) => e,
        Err(e) => return refused(&e),
    };
    if emitted.unchanged {
        assert!(out.is_empty(), "nothing to do, but something was written");
        return;
    }
    // The IR describes the records of an object the plugin did not (the
    // plugin's own description comes first).
    if let Some(report) = &emitted.stack_maps {
        let described = opts.ir.is_some() && !has_section(data, pcmap_reader::sites::SECTION);
        if described && report.records > 0 {
            assert_eq!(
                report.described_by,
                Some(Source::Ir),
                "--ir given, the IR describes"
            );
        }
    }
    if let Err(e) = pcmap::object::check::written(&out) {
        panic!("emit wrote an object that fails its check: {e}");
    }
    readable(&out, dumps(data));
    kept(data, &out, &opts);
});

/// Whether the object `data` has a section named `name`.
fn has_section(data: &[u8], name: &str) -> bool {
    object::File::parse(data).is_ok_and(|f| f.section_by_name(name).is_some())
}

/// The first place `needle` occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// An error says something and is never an internal one. (The command
/// prints it on one line: names from the object may hold any byte, and
/// it escapes control characters.)
fn refused(e: &Error) {
    let message = e.to_string();
    assert!(!message.is_empty());
    if matches!(e, Error::Malformed(_) | Error::Internal(_)) {
        panic!("internal error: {message}");
    }
}

/// Whether the tables of `input` decode (`pcmap dump` succeeds on it).
fn dumps(input: &[u8]) -> bool {
    pcmap::object::ObjectFile::parse(input).is_ok_and(|o| {
        pcmap::stackmap::sections(&o).is_ok() && pcmap::pctable::sections(&o).is_ok()
    })
}

/// Everything of `out` reads: with `object`, then with pcmap's readers and
/// dump. Emit does not decode the tables it leaves as they are (native PC
/// sections, LLVM's stack maps with `--keep-v3`): they must dump when the
/// input's did (`input_dumps`).
fn readable(out: &[u8], input_dumps: bool) {
    let file = object::File::parse(out).expect("the output parses");
    for s in file.sections() {
        s.name_bytes().expect("section name");
        s.data().expect("section contents");
        for (_, r) in s.relocations() {
            if let RelocationTarget::Symbol(i) = r.target() {
                file.symbol_by_index(i).expect("relocation symbol");
            }
        }
    }
    for sym in file.symbols() {
        sym.name_bytes().expect("symbol name");
        let _ = sym.section_index();
    }
    for c in file.comdats() {
        c.name_bytes().expect("group signature");
        for s in c.sections() {
            file.section_by_index(s).expect("group member");
        }
    }
    let o = pcmap::object::ObjectFile::parse(out).expect("our reader parses the output");
    let (stack_maps, pc) = match (pcmap::stackmap::sections(&o), pcmap::pctable::sections(&o)) {
        (Ok(s), Ok(p)) => (s, p),
        (s, p) if input_dumps => panic!(
            "the output's tables do not decode: {:?} {:?}",
            s.err(),
            p.err()
        ),
        _ => return,
    };
    let mut text = String::new();
    pcmap::dump::pc_text(&mut text, &pc).expect("PC tables dump");
    pcmap::dump::text(&mut text, &stack_maps).expect("stack maps dump");
    let dump = pcmap::dump::Dump {
        schema: pcmap::dump::SCHEMA_VERSION,
        pc_sections: pc,
        stackmaps: pcmap::dump::json_tables(&stack_maps),
    };
    serde_json::to_string(&dump).expect("JSON dump");
    if let Ok(v) = pcmap::verify::verify(&o, false) {
        let mut report = String::new();
        pcmap::verify::text(&mut report, &v, None).expect("verify report");
    }
}

type Elf<'d> = object::read::elf::ElfFile64<'d, object::Endianness>;
type Section<'d, 'f> = object::read::elf::ElfSection64<'d, 'f, object::Endianness>;

/// A section's identity for comparing input and output: name and type.
type Key = (Vec<u8>, u32);

/// What a kept section must still have: flags, contents, relocations
/// (offset, type, addend, what they name).
#[derive(Debug, PartialEq, Eq)]
struct Kept {
    flags: String,
    data: Vec<u8>,
    relocations: Vec<(u64, String, i64, String)>,
}

/// What emit keeps of `input` is in `out`.
fn kept(input: &[u8], out: &[u8], opts: &Options) {
    let before = Elf::parse(input).expect("emit accepted it");
    let after = Elf::parse(out).unwrap();
    let rewritten = rewritten(&before, opts);
    let removed = |s: &Section<'_, '_>| rewritten.contains(&s.name_bytes().unwrap().to_vec());
    // Sections whose contents emit keeps (not the ones it renumbers: symbol
    // and string tables, groups, relocations, address-significance).
    let compared = |s: &Section<'_, '_>| {
        let t = sh_type(s);
        ![
            elf::SHT_NULL.0,
            elf::SHT_SYMTAB.0,
            elf::SHT_STRTAB.0,
            elf::SHT_GROUP.0,
            elf::SHT_REL.0,
            elf::SHT_RELA.0,
            elf::SHT_SYMTAB_SHNDX.0,
            0x6fff_4c03, // SHT_LLVM_ADDRSIG
        ]
        .contains(&t)
            && !removed(s)
    };
    let mut want: BTreeMap<Key, Vec<Kept>> = BTreeMap::new();
    for s in before.sections().filter(|s| compared(s)) {
        want.entry(key(&s))
            .or_default()
            .push(contents(&before, &s, &rewritten));
    }
    let mut got: BTreeMap<Key, Vec<Kept>> = BTreeMap::new();
    for s in after.sections().filter(|s| compared(s)) {
        got.entry(key(&s))
            .or_default()
            .push(contents(&after, &s, &rewritten));
    }
    for (k, sections) in &want {
        let name = String::from_utf8_lossy(&k.0);
        let have = got.get(k).map_or(&[][..], |v| &v[..]);
        assert_eq!(
            have.len(),
            sections.len(),
            "sections {name} (type {:#x})",
            k.1
        );
        for (a, b) in sections.iter().zip(have) {
            assert_eq!(a, b, "section {name} kept as it was");
        }
    }
    // Symbols: every one not defined in a removed section.
    let symbols = |f: &Elf<'_>, keep: &dyn Fn(&Section<'_, '_>) -> bool| {
        let mut v: Vec<String> = f
            .symbols()
            .filter(|s| s.kind() != SymbolKind::Section && s.kind() != SymbolKind::File)
            .filter(|s| match s.section_index() {
                Some(i) => f.section_by_index(i).is_ok_and(|s| keep(&s)),
                None => true,
            })
            .map(|s| format!("{:?}@{}", s.name_bytes().unwrap(), s.address()))
            .collect();
        v.sort();
        v
    };
    let after_symbols = symbols(&after, &|_| true);
    for s in symbols(&before, &|s| !removed(s)) {
        assert!(after_symbols.binary_search(&s).is_ok(), "symbol {s} kept");
    }
    // Groups: the same signatures, each with its kept members.
    let groups = |f: &Elf<'_>| {
        let mut v: Vec<(Vec<u8>, Vec<Vec<u8>>)> = f
            .comdats()
            .map(|c| {
                let mut members: Vec<Vec<u8>> = c
                    .sections()
                    .filter_map(|i| f.section_by_index(i).ok())
                    .filter(|s| compared(s))
                    .map(|s| s.name_bytes().unwrap().to_vec())
                    .collect();
                members.sort();
                (c.name_bytes().unwrap().to_vec(), members)
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        groups(&before),
        groups(&after),
        "groups kept with their members"
    );
}

/// Names of the sections emit removes or rewrites: its descriptions, LLVM's
/// stack maps (unless kept), the PC sections the description has it
/// finish (under their requested and final names).
fn rewritten(file: &Elf<'_>, opts: &Options) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = vec![
        pcmap_reader::sites::SECTION.into(),
        pcmap_reader::pclayout::SECTION_NAME.into(),
        pcmap_reader::flat::SECTION_NAME.into(),
    ];
    if !opts.keep_v3 {
        v.push(pcmap::stackmap::LLVM_STACKMAPS.into());
    }
    let generic = object::File::parse(file.data()).unwrap();
    if let Ok(Some(layouts)) = pcmap::pctable::read::layouts(&generic) {
        for l in layouts.iter().filter(|l| l.compact()) {
            v.push(l.requested.clone().into());
            v.push(l.final_name.clone().into());
        }
    }
    v
}

fn sh_type(s: &Section<'_, '_>) -> u32 {
    s.elf_section_header().sh_type(s.elf_file().endian()).0
}

fn key(s: &Section<'_, '_>) -> Key {
    (s.name_bytes().unwrap().to_vec(), sh_type(s))
}

/// `s` as it must stay; a relocation against a section emit rewrites (or
/// its relocation section) names it by its role, not its name, which emit
/// may change.
fn contents(f: &Elf<'_>, s: &Section<'_, '_>, rewritten: &[Vec<u8>]) -> Kept {
    let rewritten = |name: &[u8]| {
        let base = name
            .strip_prefix(b".rela")
            .or_else(|| name.strip_prefix(b".rel"))
            .unwrap_or(name);
        rewritten.iter().any(|r| r == name || r == base)
    };
    let flags = format!("{:?}", s.flags());
    let name_of = |t: RelocationTarget| match t {
        RelocationTarget::Symbol(i) => f
            .symbol_by_index(i)
            .map(|sym| {
                if sym.kind() == SymbolKind::Section {
                    sym.section_index()
                        .and_then(|i| f.section_by_index(i).ok())
                        .map(|s| match s.name_bytes().unwrap() {
                            n if rewritten(n) => "a section emit rewrites".to_string(),
                            n => format!("section {n:?}"),
                        })
                        .unwrap_or_default()
                } else {
                    format!("{:?}", sym.name_bytes().unwrap())
                }
            })
            .unwrap_or_default(),
        other => format!("{other:?}"),
    };
    Kept {
        flags,
        data: s.data().unwrap_or_default().to_vec(),
        relocations: s
            .relocations()
            .map(|(at, r)| {
                (
                    at,
                    format!("{:?}", r.flags()),
                    r.addend(),
                    name_of(r.target()),
                )
            })
            .collect(),
    }
}
