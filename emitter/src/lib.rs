//! The object side of pcmap: read ELF objects, find the PC sections and stack
//! maps LLVM 16 wrote, rewrite them, and describe them.

pub mod cfi;
pub mod decode;
pub mod dump;
pub mod elf;
pub mod emit;
pub mod patch;
pub mod pcemit;
pub mod pclayout;
pub mod pcsection;
pub mod stackmap;
pub mod target;
pub mod verify;

/// Errors of the library; the CLI adds the file name.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unsupported architecture {0}")]
    UnsupportedArch(String),
    #[error("{section}: {source}")]
    StackMap {
        section: String,
        #[source]
        source: pcmap_reader::Error,
    },
    #[error("{0}")]
    Object(#[from] object::Error),
    #[error("{0}")]
    Build(#[from] object::build::Error),
    #[error("{0}")]
    Other(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn other<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::Other(msg.into()))
}
