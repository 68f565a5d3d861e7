//! The emitter library's errors. Each says what is wrong and where in the
//! object (section, record, relocation); the command adds the file name.
//! No variant repeats its cause: `{:#}` prints each cause once.

/// Errors of the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unsupported architecture {0}")]
    UnsupportedArch(String),
    #[error("not a 64-bit ELF object (pcmap reads ELF64 for x86_64, AArch64 and PowerPC64)")]
    NotElf64,
    /// A problem of one section of the object.
    #[error("{section}: {problem}")]
    Section { section: String, problem: String },
    /// A stack map table that does not decode.
    #[error("{section}: {problem}")]
    StackMap {
        section: String,
        /// Not `source`: thiserror would chain it, and `{:#}` print it twice.
        problem: pcmap_reader::Error,
    },
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
    #[error("{0}")]
    Other(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn other<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::Other(msg.into()))
}
