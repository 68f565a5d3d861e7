//! The object side of pcmap: read ELF objects, find the PC sections and stack
//! maps LLVM 16 wrote, rewrite them, and describe them.

pub mod cfi;
pub mod check;
pub mod decode;
pub mod dump;
pub mod elf;
pub mod emit;
pub mod error;
pub mod output;
pub mod patch;
pub mod pcemit;
pub mod pcsection;
pub mod rewrite;
pub mod stackmap;
pub mod target;
pub mod verify;

pub(crate) use error::other;
pub use error::{Error, Result};
