//! The layout description: a machine-readable account, left in the object,
//! of every PC section the pass requested, so that `pcmap emit` rewrites
//! sections without guessing their layout. Format: docs/pcsections-layout.md.
//!
//! It lives in `.pcmap.layout`, a private constant marked `!exclude`
//! (description.rs): any linker drops it from executables and shared objects
//! even if `pcmap emit` never ran, while `ld -r` concatenates it (each record
//! is self-delimiting).

use std::fmt::Write as _;

use crate::description;
use crate::llvm::{CodeModel, Module};

pub const LAYOUT_SECTION: &str = ".pcmap.layout";
pub const FORMAT_VERSION: u32 = 1;
pub const GLOBAL_NAME: &str = "__pcmap_layout";

/// Bytes of the function-size field of a function entry as LLVM 16 writes it.
const FUNCTION_SIZE_BYTES: u32 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// PC of the function start, then its size, then the constants.
    Function,
    /// PC of one instruction, then the constants.
    Instruction,
}

/// One section as the pass requested it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionLayout {
    /// The name in `!pcsections`, which LLVM 16 uses verbatim.
    pub requested: String,
    /// The name the section must have once rewritten.
    pub final_name: String,
    /// Encoding options after `!` (`C`: ULEB128 constants), or empty.
    pub options: String,
    pub entries: EntryKind,
    /// Byte width of each auxiliary constant as LLVM 16 writes it.
    pub aux_bytes: Vec<u32>,
    /// The version passed to this section's runtime callbacks, if any.
    pub version: Option<u32>,
}

/// PC entry width chosen by LLVM 16's AsmPrinter: pointer-sized for medium
/// and large code models. Without a module flag the target's default model
/// applies, which is medium on 64-bit PowerPC ELF and small elsewhere.
pub fn pc_width(code_model: Option<CodeModel>, triple: &str) -> u32 {
    match code_model {
        Some(CodeModel::Medium | CodeModel::Large) => 8,
        Some(_) => 4,
        None if triple.starts_with("powerpc64") || triple.starts_with("ppc64") => 8,
        None => 4,
    }
}

/// The text of one layout record.
pub fn describe(triple: &str, code_model: Option<CodeModel>, sections: &[SectionLayout]) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(s, "pcmap-layout {FORMAT_VERSION}");
    let _ = writeln!(s, "triple {triple}");
    let _ = writeln!(
        s,
        "code-model {}",
        code_model.map_or("default", CodeModel::name)
    );
    let _ = writeln!(s, "pc-width {}", pc_width(code_model, triple));
    for sec in sections {
        let aux: Vec<String> = sec.aux_bytes.iter().map(u32::to_string).collect();
        let (entries, size) = match sec.entries {
            EntryKind::Function => ("function", FUNCTION_SIZE_BYTES),
            EntryKind::Instruction => ("instruction", 0),
        };
        let _ = writeln!(
            s,
            "section {} final={} options={} entries={} size={} aux={} version={}",
            sec.requested,
            sec.final_name,
            dash_if_empty(&sec.options),
            entries,
            size,
            dash_if_empty(&aux.join(",")),
            sec.version.map_or("-".to_string(), |v| v.to_string()),
        );
    }
    s.push_str("end\n");
    s
}

fn dash_if_empty(s: &str) -> &str {
    if s.is_empty() {
        "-"
    } else {
        s
    }
}

/// Adds the record to the module as `@__pcmap_layout` in `.pcmap.layout`.
pub fn emit(m: Module<'_>, text: &str) {
    description::emit(m, GLOBAL_NAME, LAYOUT_SECTION, text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_text() {
        let sections = [
            SectionLayout {
                requested: "sanmd_covered2!C".into(),
                final_name: "sanmd_covered2".into(),
                options: "C".into(),
                entries: EntryKind::Function,
                aux_bytes: vec![8],
                version: Some(2),
            },
            SectionLayout {
                requested: "calls".into(),
                final_name: "calls".into(),
                options: String::new(),
                entries: EntryKind::Instruction,
                aux_bytes: vec![],
                version: None,
            },
        ];
        let text = describe("x86_64-unknown-linux-gnu", None, &sections);
        assert_eq!(
            text,
            "pcmap-layout 1\ntriple x86_64-unknown-linux-gnu\ncode-model default\npc-width 4\n\
             section sanmd_covered2!C final=sanmd_covered2 options=C entries=function size=4 aux=8 version=2\n\
             section calls final=calls options=- entries=instruction size=0 aux=- version=-\nend\n"
        );
        assert_eq!(pc_width(None, "powerpc64le-unknown-linux-gnu"), 8);
        assert_eq!(pc_width(Some(CodeModel::Large), "x86_64"), 8);
    }
}
