//! The supported targets and what pcmap needs to know about each.

use object::{elf, Architecture, Endianness, Object};

use crate::error::Error;

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

    /// An LLVM triple for the target's ELF objects on Linux (what the
    /// plugin describes IR for: `stackmap::ir`). A big-endian PowerPC64
    /// triple's ABI is ELFv1 in LLVM 16, which changes nothing the plugin
    /// describes.
    pub fn llvm_triple(self) -> &'static str {
        match self {
            Target::X86_64 => "x86_64-unknown-linux-gnu",
            Target::Aarch64 => "aarch64-unknown-linux-gnu",
            Target::PowerPc64 {
                big_endian: false, ..
            } => "powerpc64le-unknown-linux-gnu",
            Target::PowerPc64 { .. } => "powerpc64-unknown-linux-gnu",
        }
    }

    /// The target's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Target::X86_64 => "x86_64",
            Target::Aarch64 => "AArch64",
            Target::PowerPc64 {
                big_endian: false, ..
            } => "PowerPC64 LE",
            Target::PowerPc64 { .. } => "PowerPC64",
        }
    }

    /// The largest DWARF register number LLVM gives a register of the
    /// target: x86-64 psABI (k7 = 125, bnd3 = 129, APX r31 = 145);
    /// AADWARF64 (z31 = 127); PowerPC (`PPCRegisterInfo.td`: SPE's s31 =
    /// 1231, which LLVM 16 writes for live-out GPRs). A stack map naming a
    /// larger one is corrupt.
    pub fn max_dwarf_register(self) -> u16 {
        match self {
            Target::X86_64 => 145,
            Target::Aarch64 => 127,
            Target::PowerPc64 { .. } => 1231,
        }
    }

    /// The 64- and 32-bit data relocations pcmap reads and writes, by name.
    fn relocations(self) -> [(elf::RelocationType, &'static str); 4] {
        match self {
            Target::X86_64 => [
                (elf::R_X86_64_64, "R_X86_64_64"),
                (elf::R_X86_64_PC64, "R_X86_64_PC64"),
                (elf::R_X86_64_PC32, "R_X86_64_PC32"),
                (elf::R_X86_64_32, "R_X86_64_32"),
            ],
            Target::Aarch64 => [
                (elf::R_AARCH64_ABS64, "R_AARCH64_ABS64"),
                (elf::R_AARCH64_PREL64, "R_AARCH64_PREL64"),
                (elf::R_AARCH64_PREL32, "R_AARCH64_PREL32"),
                (elf::R_AARCH64_ABS32, "R_AARCH64_ABS32"),
            ],
            Target::PowerPc64 { .. } => [
                (elf::R_PPC64_ADDR64, "R_PPC64_ADDR64"),
                (elf::R_PPC64_REL64, "R_PPC64_REL64"),
                (elf::R_PPC64_REL32, "R_PPC64_REL32"),
                (elf::R_PPC64_ADDR32, "R_PPC64_ADDR32"),
            ],
        }
    }

    /// A relocation type's name, for messages.
    pub fn relocation_name(self, r_type: u32) -> String {
        self.relocations()
            .iter()
            .find(|(t, _)| t.0 == r_type)
            .map_or_else(|| format!("type {r_type}"), |(_, n)| (*n).to_string())
    }
}
