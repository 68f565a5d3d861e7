//! The supported targets and what pcmap needs to know about each.

use object::{elf, Architecture, Endianness, Object};

use crate::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    X86_64,
    Aarch64,
    /// PowerPC64; `elfv1` for the big-endian ABI with `.opd` descriptors.
    PowerPc64 {
        big_endian: bool,
        elfv1: bool,
    },
}

impl Target {
    pub fn of(file: &object::File<'_>) -> Result<Target, Error> {
        let big = file.endianness() == Endianness::Big;
        Ok(match file.architecture() {
            Architecture::X86_64 => Target::X86_64,
            Architecture::Aarch64 => Target::Aarch64,
            Architecture::PowerPc64 => {
                let abi = match file {
                    object::File::Elf64(f) => {
                        f.elf_header().e_flags.get(f.endian()).0 & elf::EF_PPC64_ABI
                    }
                    _ => 0,
                };
                // e_flags ABI 0 (unspecified) on big-endian means ELFv1.
                Target::PowerPc64 {
                    big_endian: big,
                    elfv1: big && abi != 2,
                }
            }
            other => return Err(Error::UnsupportedArch(format!("{other:?}"))),
        })
    }

    /// DWARF number of the stack pointer.
    pub fn stack_pointer(self) -> u16 {
        match self {
            Target::X86_64 => 7,
            Target::Aarch64 => 31,
            Target::PowerPc64 { .. } => 1,
        }
    }

    /// Relocation types for a 64-bit self-relative and absolute address.
    pub fn address_relocation(self, absolute: bool) -> elf::RelocationType {
        match (self, absolute) {
            (Target::X86_64, false) => elf::R_X86_64_PC64,
            (Target::X86_64, true) => elf::R_X86_64_64,
            (Target::Aarch64, false) => elf::R_AARCH64_PREL64,
            (Target::Aarch64, true) => elf::R_AARCH64_ABS64,
            (Target::PowerPc64 { .. }, false) => elf::R_PPC64_REL64,
            (Target::PowerPc64 { .. }, true) => elf::R_PPC64_ADDR64,
        }
    }

    /// The 32-bit PC-relative relocation `.eh_frame` uses for FDE addresses.
    pub fn pc_relative32(self) -> elf::RelocationType {
        match self {
            Target::X86_64 => elf::R_X86_64_PC32,
            Target::Aarch64 => elf::R_AARCH64_PREL32,
            Target::PowerPc64 { .. } => elf::R_PPC64_REL32,
        }
    }

    /// Whether `r_type` is the 64-bit absolute relocation LLVM uses for a
    /// stack map function address.
    pub fn is_abs64(self, r_type: u32) -> bool {
        r_type == self.address_relocation(true).0
    }
}
