//! The emitter library's errors. Each says what is wrong and where in the
//! object (section, record, relocation, entry); the command adds the file
//! name. No variant repeats its cause: `{:#}` prints each cause once (a
//! field named `source` would be chained by thiserror and printed twice).

use std::path::PathBuf;

use pcmap_reader::flat::SECTION_NAME as FLAT_SECTION;
use pcmap_reader::llvm::SECTION_NAME as LLVM_STACKMAPS;

/// Errors of the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unsupported architecture {0}")]
    UnsupportedArch(String),
    #[error("not a 64-bit ELF object (pcmap reads ELF64 for x86_64, AArch64 and PowerPC64)")]
    NotElf64,
    #[error("emit needs a relocatable object (.o)")]
    NotRelocatable,
    #[error("already has a {FLAT_SECTION} section")]
    AlreadyEmitted,
    /// A problem of one section of the object.
    #[error("{section}: {problem}")]
    Section { section: String, problem: String },
    /// Stack map records of unknown kind, which a stack walker cannot use
    /// (refused unless `--no-walk`).
    #[error("{0}")]
    UnknownKinds(UnknownKinds),
    /// A stack map table that does not decode.
    #[error("{section}: {problem}")]
    StackMap {
        section: String,
        problem: pcmap_reader::Error,
    },
    /// A PC table that does not decode.
    #[error("{section}: {problem}")]
    PcTable {
        section: String,
        problem: pcmap_reader::pctable::Error,
    },
    /// The plugin's layout description does not parse.
    #[error(transparent)]
    Layout(#[from] pcmap_reader::pclayout::LayoutError),
    /// `.eh_frame` does not decode.
    #[error(".eh_frame: {0}")]
    Cfi(gimli::Error),
    /// The IR given with `--ir` cannot be read.
    #[error("{}: {problem}", path.display())]
    Ir { path: PathBuf, problem: String },
    /// A stack map record that the IR does not describe as the code has it.
    #[error("{problem}")]
    IrRecord { function: String, problem: String },
    /// `pcmap verify --against`'s statistics do not parse.
    #[error("{0}")]
    Stats(String),
    #[error(transparent)]
    Object(#[from] object::Error),
    /// `object`'s builder could not read the object.
    #[error("cannot read the object for rewriting: {0}")]
    Unreadable(String),
    /// `object`'s builder could not write the object.
    #[error("cannot write the object: {0}")]
    Unwritable(String),
    #[error("the output would be {size} bytes, more than the input and the tables emit adds can explain (at most {limit}); a corrupt section alignment or size?")]
    OutputTooLarge { size: u64, limit: u64 },
    /// The written object failed its check: a bug of pcmap, never written out.
    #[error("internal error: the rewritten object is malformed ({0}); nothing was written; please report this with the input object")]
    Malformed(String),
    #[error("internal error: {0}")]
    Internal(&'static str),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Records of unknown kind in the tables emit would write, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKinds {
    pub records: usize,
    pub unknown: usize,
    /// The first few, named ("function f, record ID 7 at offset 0x12"),
    /// and how many more.
    pub examples: String,
    /// `None`: nothing described the records; else the name of the
    /// description whose sites disagree for them (`.pcmap.sites`, `--ir`).
    pub described_by: Option<&'static str>,
}

impl std::fmt::Display for UnknownKinds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self.described_by {
            None => "compile with the plugin (-fpass-plugin=libpcmap_plugin.so describes every site in .pcmap.sites) or pass --ir FILE.ll".to_string(),
            Some(source) => format!(
                "{source} lists sites of their function with their ID that differ in kind or size: give each site its own ID (docs/stackmap-sites.md)"
            ),
        };
        write!(
            f,
            "{LLVM_STACKMAPS}: {} of {} stack map records have no known kind ({}): a stack walker cannot use these tables; {how}, or pass --no-walk if no runtime walks the stack with them",
            self.unknown, self.records, self.examples
        )
    }
}
