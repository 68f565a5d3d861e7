//! Sections of the object: what a place in code is, which sections pcmap
//! reads by name, how a section is named in a message, and the LLVM
//! section type both the input checks and the rewrite know.

use object::{Object, ObjectSection, SectionIndex};

/// LLVM's address-significance table: ULEB128 symbol indices.
pub const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;

/// A place in the object's code: section and offset in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeLoc {
    pub section: SectionIndex,
    pub offset: u64,
}

/// Whether `section` is the section called `name` that LLVM or the plugin
/// write (`.llvm_stackmaps`, `.pcmap.sites`, `.pcmap.layout`, a PC
/// section): one of contents, `SHT_PROGBITS`. A section of another type
/// under that name (a relocation section or a group so named) is not what
/// pcmap reads or removes: it is kept as any other section.
pub fn is_named_contents(section: &object::Section<'_, '_>, name: &str) -> bool {
    section.name_bytes().ok() == Some(name.as_bytes()) && is_contents(section)
}

/// Whether `section` is of type `SHT_PROGBITS`: what every section pcmap
/// reads by name is ([`is_named_contents`]).
pub fn is_contents(section: &object::Section<'_, '_>) -> bool {
    matches!(
        section.flags(),
        object::SectionFlags::Elf { sh_type, .. } if sh_type == object::elf::SHT_PROGBITS
    )
}

/// A section name for a one-line message: not UTF-8 replaced, control
/// characters (a newline) escaped.
pub fn printable(name: &[u8]) -> String {
    let mut out = String::with_capacity(name.len());
    for c in String::from_utf8_lossy(name).chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Section `index` in a message: its name ([`printable`]), or `section N`
/// when it has none or an unreadable one.
pub fn section_label(name: Option<&[u8]>, index: usize) -> String {
    match name {
        Some(n) if !n.is_empty() => printable(n),
        _ => format!("section {index}"),
    }
}

/// The name of section `index` of `file`, for messages.
pub fn section_name(file: &object::File<'_>, index: usize) -> String {
    let section = file.section_by_index(SectionIndex(index)).ok();
    section_label(section.as_ref().and_then(|s| s.name_bytes().ok()), index)
}
