//! The plugin's layout description (`.pcmap.layout`, format in
//! `docs/pcsections-layout.md`): which PC sections the pass requested and
//! how LLVM 16 wrote their entries, so that `emit` never guesses.

use pcmap_reader::pctable::{self, ConstantEncoding, EntryKind, Layout};

/// The section the plugin leaves in every compiled module.
pub const LAYOUT_SECTION: &str = ".pcmap.layout";
/// The one format version this parser knows.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LayoutError {
    #[error(
        "{LAYOUT_SECTION}: unknown layout version {0} (this pcmap reads version {FORMAT_VERSION})"
    )]
    UnknownVersion(String),
    #[error("{LAYOUT_SECTION}: line {line}: {what}")]
    Malformed { line: usize, what: String },
    #[error("{LAYOUT_SECTION}: section {0} is described twice, differently")]
    Conflict(String),
}

/// One requested section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionLayout {
    /// The name LLVM 16 gave the section (the `!pcsections` string).
    pub requested: String,
    /// The name after emission.
    pub final_name: String,
    /// Options after `!` (`C`), empty for none.
    pub options: String,
    pub entries: EntryKind,
    /// Bytes of the function-size field as written (0 for instructions).
    pub size: u8,
    /// Byte width of each constant as written.
    pub aux: Vec<u8>,
    /// The callbacks' version, if the section has callbacks.
    pub version: Option<u32>,
    /// Bytes of each PC field (from the record's `pc-width`).
    pub pc_width: u8,
}

impl SectionLayout {
    /// Whether `emit` must rewrite it (`!C`: ULEB128 constants).
    pub fn compact(&self) -> bool {
        self.options.contains('C')
    }

    /// The entries as LLVM 16 wrote them: fixed widths.
    pub fn raw(&self) -> Result<Layout, pctable::Error> {
        Layout::new(
            self.pc_width,
            self.entries,
            ConstantEncoding::Fixed,
            &self.aux,
        )
    }

    /// The entries as LLVM 19 writes them for the same request.
    pub fn final_layout(&self) -> Result<Layout, pctable::Error> {
        let enc = if self.compact() {
            ConstantEncoding::Uleb128
        } else {
            ConstantEncoding::Fixed
        };
        Ok(self.raw()?.with_encoding(enc))
    }
}

/// Every section described in `data` (the concatenated records of one or
/// more modules), each once.
pub fn parse(data: &[u8]) -> Result<Vec<SectionLayout>, LayoutError> {
    let text = String::from_utf8_lossy(data);
    let mut out: Vec<SectionLayout> = Vec::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    while let Some((line, first)) = lines.next() {
        if first.is_empty() {
            continue;
        }
        let version = first
            .strip_prefix("pcmap-layout ")
            .ok_or_else(|| malformed(line, "expected 'pcmap-layout N'"))?;
        if version != FORMAT_VERSION.to_string() {
            return Err(LayoutError::UnknownVersion(version.to_string()));
        }
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
                    let s = section(line, rest, w)?;
                    match out.iter().find(|o| o.requested == s.requested) {
                        Some(o) if *o != s => return Err(LayoutError::Conflict(s.requested)),
                        Some(_) => {}
                        None => out.push(s),
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
    Ok(out)
}

fn malformed(line: usize, what: &str) -> LayoutError {
    LayoutError::Malformed {
        line,
        what: what.to_string(),
    }
}

/// `NAME final=… options=… entries=… size=… aux=… version=…`.
fn section(line: usize, rest: &str, pc_width: u8) -> Result<SectionLayout, LayoutError> {
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
        "function" => EntryKind::Function,
        "instruction" => EntryKind::Instruction,
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
    let expected_size = match entries {
        EntryKind::Function => pctable::FUNCTION_SIZE_BYTES,
        EntryKind::Instruction => 0,
    };
    if size != expected_size {
        return Err(malformed(
            line,
            &format!("size={size} for {entries:?} entries (LLVM writes {expected_size})"),
        ));
    }
    if final_name.is_empty() || final_name.contains('!') {
        return Err(malformed(line, "bad final= name"));
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
    };
    s.raw()
        .map_err(|e| malformed(line, &format!("unusable layout: {e}")))?;
    Ok(s)
}

fn dash(v: &str) -> &str {
    if v == "-" {
        ""
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: &str = "pcmap-layout 1\ntriple x86_64-unknown-linux-gnu\ncode-model default\npc-width 4\n\
section sanmd_atomics2!C final=sanmd_atomics2 options=C entries=instruction size=0 aux=- version=2\n\
section sanmd_covered2!C final=sanmd_covered2 options=C entries=function size=4 aux=8 version=2\n\
section my_rmw final=my_rmw options=- entries=instruction size=0 aux=4 version=-\nend\n";

    #[test]
    fn plugin_record() {
        let s = parse(X86.as_bytes()).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[1].requested, "sanmd_covered2!C");
        assert_eq!(s[1].final_name, "sanmd_covered2");
        assert!(s[1].compact());
        assert_eq!(
            (s[1].entries, s[1].aux.clone()),
            (EntryKind::Function, vec![8])
        );
        assert_eq!(s[2].version, None);
        assert!(!s[2].compact());
        assert_eq!(s[0].pc_width, 4);
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
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse(b"pcmap-layout 2\nend\n"),
            Err(LayoutError::UnknownVersion("2".into()))
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
        // Every prefix fails cleanly or parses.
        for n in 0..X86.len() {
            let _ = parse(&X86.as_bytes()[..n]);
        }
    }
}
