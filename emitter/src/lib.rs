//! The object side of pcmap: read ELF objects, find the PC sections and stack
//! maps LLVM 16 wrote, rewrite them, and describe them.

pub mod elf;
