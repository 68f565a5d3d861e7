//! The layout description `.pcmap.layout` (`docs/pcsections-layout.md`):
//! the plugin's account of every PC section it requested and of how LLVM 16
//! writes their entries, so that `pcmap emit` finishes them without
//! guessing. The plugin writes it with [`write_record`]; `pcmap emit` reads
//! it with [`parse`].
//!
//! ASCII lines, one record per module (`ld -r` concatenates records):
//!
//! ```text
//! pcmap-layout 2                    the format version (1 is read too)
//! triple <target triple>            may be empty
//! code-model <default|tiny|small|kernel|medium|large>
//! pc-width <4|8>                    bytes of every PC field below
//! section <requested name> final=<name> options=<C|-> entries=<function|instruction>
//!         size=<4|0> aux=<width,…|-> version=<N|-> stack-args=<B|->
//!                                   (one line each; version 1 has no stack-args=)
//! end
//! ```
//!
//! An entry of a section is `pc-width + size + Σ aux` bytes as LLVM 16 writes
//! it, plus 4 bytes (an `i32`) when `stack-args=B` and its first constant has
//! bit `B`: the stack-arguments size LLVM 16's MachineSanitizerBinaryMetadata
//! appends to a `sanmd_covered` entry with the UAR bit. `options=C` asks for
//! its constants (and size) as ULEB128, and for the stack-arguments size as
//! LLVM 19 writes it: the "has size" bit set in the first constant and the
//! size after the constants when it is not zero, neither when it is.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write as _};

use crate::pctable::{self, CodeModel, ConstantEncoding, EntryKind, Layout};
use crate::sanmd::{COMPACT_OPTION, FEATURE_UAR_HAS_SIZE};

/// The section the plugin leaves in every module it compiles in compact
/// mode.
pub const SECTION_NAME: &str = ".pcmap.layout";
/// The private IR constant the plugin places in [`SECTION_NAME`].
pub const GLOBAL_NAME: &str = "__pcmap_layout";
/// The format version the plugin writes.
pub const FORMAT_VERSION: u32 = 2;
/// The first version, without `stack-args=`; still read.
pub const FORMAT_VERSION_1: u32 = 1;

/// Why a layout description could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutError {
    /// A record of a format version this reader does not know.
    UnknownVersion(String),
    /// A line that is not what the format says.
    Malformed {
        /// Line number, from 1.
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// Two records describe one section differently.
    Conflict(String),
    /// A section the writer was given cannot be described (or read back).
    Invalid {
        /// The section's name.
        section: String,
        /// What is wrong.
        what: String,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::UnknownVersion(v) => write!(
                f,
                "{SECTION_NAME}: unknown layout version {v} (this pcmap reads versions {FORMAT_VERSION_1} and {FORMAT_VERSION})"
            ),
            LayoutError::Malformed { line, what } => {
                write!(f, "{SECTION_NAME}: line {line}: {what}")
            }
            LayoutError::Conflict(s) => {
                write!(f, "{SECTION_NAME}: section {s} is described twice, differently")
            }
            LayoutError::Invalid { section, what } => {
                write!(f, "{SECTION_NAME}: section {section}: {what}")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LayoutError {}

/// One requested section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionLayout {
    /// The name LLVM 16 gave the section (the `!pcsections` string).
    pub requested: String,
    /// The name after emission.
    pub final_name: String,
    /// Options after `!` (`C`), empty for none.
    pub options: String,
    /// What an entry holds.
    pub entries: EntryKind,
    /// Bytes of the function-size field as written (0 for instructions):
    /// [`EntryKind::size_field_bytes`].
    pub size: u8,
    /// Byte width of each constant as written.
    pub aux: Vec<u8>,
    /// The callbacks' version, if the section has callbacks.
    pub version: Option<u32>,
    /// Bytes of each PC field (the record's `pc-width`).
    pub pc_width: u8,
    /// `stack-args=B`: LLVM 16 appended an `i32` stack-arguments size to
    /// every entry whose first constant has this bit (a single bit).
    pub stack_args: Option<u64>,
}

impl SectionLayout {
    /// Whether `emit` must rewrite it (`!C`: ULEB128 constants).
    pub fn compact(&self) -> bool {
        self.options.contains(COMPACT_OPTION)
    }

    /// The entries as LLVM 16 wrote them: fixed widths.
    pub fn raw(&self) -> Result<Layout, pctable::Error> {
        let l = Layout::new(
            self.pc_width,
            self.entries,
            ConstantEncoding::Fixed,
            &self.aux,
        )?;
        Ok(match self.stack_args {
            Some(bit) => l.with_stack_args(bit),
            None => l,
        })
    }

    /// The entries as LLVM 19 writes them for the same request: with `!C`,
    /// ULEB128 constants, and a stack-arguments size marked by the "has
    /// size" bit.
    pub fn final_layout(&self) -> Result<Layout, pctable::Error> {
        if !self.compact() {
            return self.raw();
        }
        let l = Layout::new(
            self.pc_width,
            self.entries,
            ConstantEncoding::Uleb128,
            &self.aux,
        )?;
        Ok(match self.stack_args {
            Some(_) => l.with_stack_args(FEATURE_UAR_HAS_SIZE),
            None => l,
        })
    }

    /// What a reader requires of a section beyond the syntax of its line.
    fn check(&self) -> Result<(), String> {
        let expected_size = self.entries.size_field_bytes();
        if self.size != expected_size {
            return Err(format!(
                "size={} for {:?} entries (LLVM writes {expected_size})",
                self.size, self.entries
            ));
        }
        if self.final_name.is_empty() || self.final_name.contains('!') {
            return Err("bad final= name".to_string());
        }
        // Section names: one word of printable characters (a NUL would end
        // the name in the string table, a newline the record).
        let word =
            |w: &str| !w.is_empty() && !w.contains(|c: char| c.is_whitespace() || c.is_control());
        if !word(&self.requested)
            || !word(&self.final_name)
            || !word(&self.options) && !self.options.is_empty()
        {
            return Err(
                "a name or the options are not one word of printable characters".to_string(),
            );
        }
        if let Some(bit) = self.stack_args {
            // LLVM 16 appends the size only to function entries, after a
            // feature mask; LLVM 19's form needs !C and a mask that is
            // ULEB128 and can take the has-size bit.
            if !bit.is_power_of_two() || bit == FEATURE_UAR_HAS_SIZE {
                return Err(format!(
                    "stack-args bit {bit:#x} is not a single bit other than has-size"
                ));
            }
            if self.entries != EntryKind::Function || !self.compact() {
                return Err("stack-args= needs function entries and options=C".to_string());
            }
            let mask_width = self.aux.first().copied().unwrap_or(0);
            if mask_width < 2 {
                return Err(
                    "stack-args= needs a feature mask of 2..8 bytes as first constant".to_string(),
                );
            }
        }
        self.raw()
            .map_err(|e| format!("unusable layout: {e}"))
            .map(|_| ())
    }
}

/// The `entries=` words.
const FUNCTION: &str = "function";
const INSTRUCTION: &str = "instruction";
/// The `code-model` of a module without a `Code Model` flag.
const DEFAULT_CODE_MODEL: &str = "default";
/// A field without a value.
const NONE: &str = "-";
/// `stack-args=` value: a bit number.
fn bit_number(bit: u64) -> u32 {
    bit.trailing_zeros()
}

/// The text of one record, describing `sections` (which must all have
/// `pc_width`) of a module for `triple`: what the plugin leaves in a
/// module's `.pcmap.layout`. An error if [`parse`] would not read a section
/// back as it was given.
pub fn write_record(
    triple: &str,
    code_model: Option<CodeModel>,
    pc_width: u8,
    sections: &[SectionLayout],
) -> Result<String, LayoutError> {
    let invalid = |section: &str, what: &str| LayoutError::Invalid {
        section: section.to_string(),
        what: what.to_string(),
    };
    if triple.contains(['\n', '\r']) {
        return Err(invalid("-", "the triple is not one line"));
    }
    if pc_width != 4 && pc_width != 8 {
        return Err(invalid("-", "the PC width is not 4 or 8"));
    }
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "pcmap-layout {FORMAT_VERSION}");
    let _ = writeln!(out, "triple {triple}");
    let model = code_model.map_or(DEFAULT_CODE_MODEL, CodeModel::name);
    let _ = writeln!(out, "code-model {model}");
    let _ = writeln!(out, "pc-width {pc_width}");
    for s in sections {
        let words = [&s.requested, &s.final_name, &s.options];
        if words.iter().any(|w| w.contains(char::is_whitespace)) || s.requested.is_empty() {
            return Err(invalid(
                &s.requested,
                "a name or the options are not one word",
            ));
        }
        if s.options == NONE || s.pc_width != pc_width {
            return Err(invalid(
                &s.requested,
                "options or PC width the record cannot say",
            ));
        }
        s.check().map_err(|what| invalid(&s.requested, &what))?;
        let entries = match s.entries {
            EntryKind::Function => FUNCTION,
            EntryKind::Instruction => INSTRUCTION,
        };
        let aux: Vec<String> = s.aux.iter().map(u8::to_string).collect();
        let version = s.version.map(|v| v.to_string());
        let stack_args = s.stack_args.map(|b| bit_number(b).to_string());
        let _ = writeln!(
            out,
            "section {} final={} options={} entries={entries} size={} aux={} version={} stack-args={}",
            s.requested,
            s.final_name,
            or_none(&s.options),
            s.size,
            or_none(&aux.join(",")),
            version.as_deref().unwrap_or(NONE),
            stack_args.as_deref().unwrap_or(NONE),
        );
    }
    out.push_str("end\n");
    Ok(out)
}

/// Every section described in `data` (the concatenated records of one or
/// more modules), each once.
pub fn parse(data: &[u8]) -> Result<Vec<SectionLayout>, LayoutError> {
    let mut out = Vec::new();
    parse_into(&mut out, data)?;
    Ok(out)
}

/// [`parse`], adding to the sections `out` holds (from other `.pcmap.layout`
/// sections of the same object): a section described again must be
/// described alike.
pub fn parse_into(out: &mut Vec<SectionLayout>, data: &[u8]) -> Result<(), LayoutError> {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    while let Some((line, first)) = lines.next() {
        if first.is_empty() {
            continue;
        }
        let version = first
            .strip_prefix("pcmap-layout ")
            .ok_or_else(|| malformed(line, "expected 'pcmap-layout N'"))?;
        let format = match version.parse::<u32>() {
            Ok(v @ (FORMAT_VERSION_1 | FORMAT_VERSION)) if v.to_string() == version => v,
            _ => return Err(LayoutError::UnknownVersion(version.to_string())),
        };
        let mut pc_width = None;
        let mut ended = false;
        for (line, l) in lines.by_ref() {
            let (key, rest) = l.split_once(' ').unwrap_or((l, ""));
            match key {
                "triple" | "code-model" => {}
                "pc-width" => {
                    pc_width = Some(match rest {
                        "4" => 4,
                        "8" => 8,
                        _ => return Err(malformed(line, "pc-width must be 4 or 8")),
                    })
                }
                "section" => {
                    let w = pc_width.ok_or_else(|| malformed(line, "section before pc-width"))?;
                    let s = section(line, rest, w, format)?;
                    match out.iter().find(|o| o.requested == s.requested) {
                        Some(o) if *o != s => return Err(LayoutError::Conflict(s.requested)),
                        Some(_) => {}
                        None => {
                            // Two sections emit gives one name (`ld -r` of
                            // format 1 and 2 objects: sanmd_covered2!C and
                            // sanmd_covered) must hold the same entries:
                            // readers decode a section by its name.
                            let clash = out.iter().find(|o| {
                                o.final_name == s.final_name
                                    && (o.entries != s.entries || o.aux.len() != s.aux.len())
                            });
                            if let Some(o) = clash {
                                return Err(malformed(
                                    line,
                                    &format!(
                                        "final={} is also the final name of {}, whose entries differ",
                                        s.final_name, o.requested
                                    ),
                                ));
                            }
                            out.push(s)
                        }
                    }
                }
                "end" => {
                    ended = true;
                    break;
                }
                _ => return Err(malformed(line, &format!("unknown line '{l}'"))),
            }
        }
        if !ended {
            return Err(malformed(line, "record has no 'end'"));
        }
    }
    Ok(())
}

fn malformed(line: usize, what: &str) -> LayoutError {
    LayoutError::Malformed {
        line,
        what: what.to_string(),
    }
}

/// `NAME final=… options=… entries=… size=… aux=… version=… stack-args=…`
/// (no `stack-args=` in format version 1).
fn section(
    line: usize,
    rest: &str,
    pc_width: u8,
    format: u32,
) -> Result<SectionLayout, LayoutError> {
    let mut words = rest.split(' ');
    let requested = words
        .next()
        .filter(|w| !w.is_empty())
        .ok_or_else(|| malformed(line, "section without a name"))?;
    let mut field = |key: &str| -> Result<&str, LayoutError> {
        let w = words
            .next()
            .ok_or_else(|| malformed(line, &format!("missing {key}=")))?;
        w.strip_prefix(key)
            .and_then(|v| v.strip_prefix('='))
            .ok_or_else(|| malformed(line, &format!("expected {key}=, found '{w}'")))
    };
    let final_name = field("final")?.to_string();
    let options = dash(field("options")?).to_string();
    let entries = match field("entries")? {
        FUNCTION => EntryKind::Function,
        INSTRUCTION => EntryKind::Instruction,
        e => return Err(malformed(line, &format!("unknown entries={e}"))),
    };
    let size: u8 = field("size")?
        .parse()
        .map_err(|_| malformed(line, "size= is not a number"))?;
    let aux = match dash(field("aux")?) {
        "" => Vec::new(),
        a => a
            .split(',')
            .map(|w| {
                w.parse()
                    .map_err(|_| malformed(line, "aux= is not a list of widths"))
            })
            .collect::<Result<_, _>>()?,
    };
    let version = match dash(field("version")?) {
        "" => None,
        v => Some(
            v.parse()
                .map_err(|_| malformed(line, "version= is not a number"))?,
        ),
    };
    let stack_args = if format == FORMAT_VERSION_1 {
        None
    } else {
        match dash(field("stack-args")?) {
            "" => None,
            word => Some(
                word.parse::<u32>()
                    .ok()
                    .filter(|&b| b < 64 && b.to_string() == word)
                    .map(|b| 1u64 << b)
                    .ok_or_else(|| malformed(line, "stack-args= is not a bit number"))?,
            ),
        }
    };
    if let Some(w) = words.next() {
        return Err(malformed(line, &format!("unexpected '{w}'")));
    }
    let s = SectionLayout {
        requested: requested.to_string(),
        final_name,
        options,
        entries,
        size,
        aux,
        version,
        pc_width,
        stack_args,
    };
    s.check().map_err(|what| malformed(line, &what))?;
    Ok(s)
}

/// A field's value, `-` read as none.
fn dash(v: &str) -> &str {
    if v == NONE {
        ""
    } else {
        v
    }
}

/// A field's value, none written as `-`.
fn or_none(v: &str) -> &str {
    if v.is_empty() {
        NONE
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sanmd::FEATURE_UAR;
    use alloc::vec;

    /// What the plugin writes for x86_64 with a generic section.
    const X86: &str = "pcmap-layout 2\ntriple x86_64-unknown-linux-gnu\ncode-model default\npc-width 4\n\
section sanmd_atomics2!C final=sanmd_atomics2 options=C entries=instruction size=0 aux=- version=2 stack-args=-\n\
section sanmd_covered final=sanmd_covered2 options=C entries=function size=4 aux=8 version=2 stack-args=1\n\
section my_rmw final=my_rmw options=- entries=instruction size=0 aux=4 version=- stack-args=-\nend\n";

    /// What the plugin wrote before the stack-arguments size (version 1).
    const X86_V1: &str = "pcmap-layout 1\ntriple x86_64-unknown-linux-gnu\ncode-model default\npc-width 4\n\
section sanmd_atomics2!C final=sanmd_atomics2 options=C entries=instruction size=0 aux=- version=2\n\
section sanmd_covered2!C final=sanmd_covered2 options=C entries=function size=4 aux=8 version=2\n\
section my_rmw final=my_rmw options=- entries=instruction size=0 aux=4 version=-\nend\n";

    #[test]
    fn plugin_record() {
        let s = parse(X86.as_bytes()).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].requested, "sanmd_covered");
        assert_eq!(s[1].final_name, "sanmd_covered2");
        assert!(s[1].compact());
        assert_eq!(
            (s[1].entries, s[1].aux.clone(), s[1].stack_args),
            (EntryKind::Function, vec![8], Some(FEATURE_UAR))
        );
        assert_eq!(s[1].raw().unwrap().stack_args_bit(), FEATURE_UAR);
        assert_eq!(
            s[1].final_layout().unwrap().stack_args_bit(),
            FEATURE_UAR_HAS_SIZE
        );
        assert_eq!(
            s[1].final_layout().unwrap().encoding(),
            ConstantEncoding::Uleb128
        );
        assert_eq!(s[2].version, None);
        assert_eq!(s[2].stack_args, None);
        assert!(!s[2].compact());
        assert_eq!(s[0].pc_width, 4);
    }

    #[test]
    fn version_1_is_read() {
        let s = parse(X86_V1.as_bytes()).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].requested, "sanmd_covered2!C");
        assert!(s.iter().all(|l| l.stack_args.is_none()));
        // Version 1 lines have no stack-args=, version 2 lines need it.
        assert!(matches!(
            parse(X86.replace("pcmap-layout 2", "pcmap-layout 1").as_bytes()),
            Err(LayoutError::Malformed { line: 5, .. })
        ));
        assert!(matches!(
            parse(
                X86_V1
                    .replace("pcmap-layout 1", "pcmap-layout 2")
                    .as_bytes()
            ),
            Err(LayoutError::Malformed { line: 5, .. })
        ));
    }

    #[test]
    fn concatenated_records_merge() {
        let two = format!("{X86}{X86}");
        assert_eq!(parse(two.as_bytes()).unwrap().len(), 3);
        let other = X86.replace("pc-width 4", "pc-width 8");
        let both = format!("{X86}{other}");
        assert_eq!(
            parse(both.as_bytes()),
            Err(LayoutError::Conflict("sanmd_atomics2!C".into()))
        );
        // The same across sections of one object.
        let mut all = parse(X86.as_bytes()).unwrap();
        parse_into(&mut all, X86.as_bytes()).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(
            parse_into(&mut all, other.as_bytes()),
            Err(LayoutError::Conflict("sanmd_atomics2!C".into()))
        );
        // A record of each version (`ld -r` of old and new objects): the
        // sections both describe agree, the covered ones differ in name.
        let mixed = parse(format!("{X86_V1}{X86}").as_bytes()).unwrap();
        assert_eq!(mixed.len(), 4);
        // But one final name for different entries is refused.
        let clash = X86.replace("final=sanmd_atomics2", "final=sanmd_covered2");
        assert!(matches!(
            parse(clash.as_bytes()),
            Err(LayoutError::Malformed { line: 6, .. })
        ));
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse(b"pcmap-layout 3\nend\n"),
            Err(LayoutError::UnknownVersion("3".into()))
        );
        assert_eq!(
            parse(b"pcmap-layout 02\nend\n"),
            Err(LayoutError::UnknownVersion("02".into()))
        );
        assert!(matches!(
            parse(X86.replace("end\n", "").as_bytes()),
            Err(LayoutError::Malformed { .. })
        ));
        assert!(matches!(
            parse(X86.replace("aux=8", "aux=9").as_bytes()),
            Err(LayoutError::Malformed { line: 6, .. })
        ));
        assert!(matches!(
            parse(X86.replace("size=4", "size=8").as_bytes()),
            Err(LayoutError::Malformed { .. })
        ));
        for bad in [
            "stack-args=x",
            "stack-args=64",
            "stack-args=01",
            "stack-args=2", // the has-size bit itself
            "stack-args=1 more",
        ] {
            assert!(
                matches!(
                    parse(X86.replace("stack-args=1", bad).as_bytes()),
                    Err(LayoutError::Malformed { line: 6, .. })
                ),
                "{bad}"
            );
        }
        // Only compact function entries with a wide first constant.
        for (from, to) in [
            ("options=C entries=function", "options=- entries=function"),
            (
                "aux=8 version=2 stack-args=1",
                "aux=1 version=2 stack-args=1",
            ),
            (
                "aux=8 version=2 stack-args=1",
                "aux=- version=2 stack-args=1",
            ),
        ] {
            assert!(
                matches!(
                    parse(X86.replace(from, to).as_bytes()),
                    Err(LayoutError::Malformed { line: 6, .. })
                ),
                "{to}"
            );
        }
        // Every prefix fails cleanly or parses.
        for n in 0..X86.len() {
            let _ = parse(&X86.as_bytes()[..n]);
        }
    }

    fn section(
        requested: &str,
        final_name: &str,
        options: &str,
        entries: EntryKind,
        aux: &[u8],
        version: Option<u32>,
        pc_width: u8,
    ) -> SectionLayout {
        SectionLayout {
            requested: requested.into(),
            final_name: final_name.into(),
            options: options.into(),
            entries,
            size: entries.size_field_bytes(),
            aux: aux.to_vec(),
            version,
            pc_width,
            stack_args: None,
        }
    }

    /// What lit-tests/plugin/layout.ll checks `opt-16` with the plugin
    /// writes.
    #[test]
    fn writes_the_plugins_text() {
        let sections = [
            section(
                "sanmd_atomics2!C",
                "sanmd_atomics2",
                "C",
                EntryKind::Instruction,
                &[],
                Some(2),
                4,
            ),
            SectionLayout {
                stack_args: Some(FEATURE_UAR),
                ..section(
                    "sanmd_covered",
                    "sanmd_covered2",
                    "C",
                    EntryKind::Function,
                    &[8],
                    Some(2),
                    4,
                )
            },
            section(
                "my_rmw",
                "my_rmw",
                "",
                EntryKind::Instruction,
                &[4],
                None,
                4,
            ),
        ];
        let triple = "x86_64-unknown-linux-gnu";
        let pc_width = pctable::pc_width_for_triple(None, triple);
        let text = write_record(triple, None, pc_width, &sections).unwrap();
        assert_eq!(text, X86);
        assert_eq!(parse(text.as_bytes()).unwrap(), sections);

        let large = [section(
            "sanmd_atomics65538!C",
            "sanmd_atomics65538",
            "C",
            EntryKind::Instruction,
            &[],
            Some(65538),
            8,
        )];
        let text = write_record(triple, Some(CodeModel::Large), 8, &large).unwrap();
        assert!(text.contains(
            "code-model large\npc-width 8\nsection sanmd_atomics65538!C final=sanmd_atomics65538 options=C entries=instruction size=0 aux=- version=65538 stack-args=-\n"
        ));
        let ppc = "powerpc64le-unknown-linux-gnu";
        let text = write_record(ppc, None, pctable::pc_width_for_triple(None, ppc), &[]).unwrap();
        assert_eq!(
            text,
            "pcmap-layout 2\ntriple powerpc64le-unknown-linux-gnu\ncode-model default\npc-width 8\nend\n"
        );
    }

    #[test]
    fn writes_only_what_reads_back() {
        let good = section("calls", "calls", "", EntryKind::Instruction, &[4], None, 4);
        let write = |s: &SectionLayout| write_record("x86_64", None, 4, core::slice::from_ref(s));
        assert!(write(&good).is_ok());
        let bad = [
            SectionLayout {
                size: 4,
                ..good.clone()
            },
            SectionLayout {
                aux: vec![9],
                ..good.clone()
            },
            SectionLayout {
                final_name: "calls!C".into(),
                ..good.clone()
            },
            SectionLayout {
                requested: "two words".into(),
                ..good.clone()
            },
            SectionLayout {
                options: "-".into(),
                ..good.clone()
            },
            SectionLayout {
                pc_width: 8,
                ..good.clone()
            },
            SectionLayout {
                stack_args: Some(FEATURE_UAR),
                ..good.clone()
            },
            SectionLayout {
                stack_args: Some(3),
                ..section("c", "c2", "C", EntryKind::Function, &[8], Some(2), 4)
            },
        ];
        for b in &bad {
            assert!(
                matches!(write(b), Err(LayoutError::Invalid { .. })),
                "{b:?}"
            );
        }
        assert!(write_record("x86\n64", None, 4, &[]).is_err());
        assert!(write_record("x86_64", None, 2, &[]).is_err());
    }
}
