//! What the walker knows of each architecture: one module and type per
//! architecture implementing [`Arch`], chosen at compile time. The C library walks its
//! own host ([`Host`]); tests and fuzz targets walk all four.
//!
//! | | x86-64 | AArch64 | PowerPC64 (ELFv2 LE, ELFv1 BE) |
//! |---|---|---|---|
//! | SP, FP, return address (DWARF) | RSP 7, RBP 6, RIP 16 | SP 31, x29, x30 | r1, r31, LR 65 |
//! | callee-saved general registers | RBX, RBP, R12-R15 | x19-x29 | r14-r31 |
//! | return address | CFA − 8 | the saved x30 | the saved LR, else CFA + 16 |
//! | frame pointer chain | caller's RBP at [RBP], return address at [RBP + 8], SP = RBP + 16 | caller's x29 at [x29], return address at [x29 + 8], SP unknown | caller's r1 at [r1], return address at [caller's r1 + 16] |
//! | after a call, before a record | | | a TOC restore: `nop`, ELFv2 `ld r2, 24(r1)`, ELFv1 `ld r2, 40(r1)` |

mod aarch64;
mod conventions;
mod powerpc64;
mod x86_64;

pub use aarch64::AArch64;
pub(crate) use conventions::ra_bit;
pub use conventions::Arch;
pub use powerpc64::{PowerPc64ElfV1, PowerPc64ElfV2};
pub use x86_64::X86_64;

/// The architecture this code is compiled for.
#[cfg(target_arch = "x86_64")]
pub type Host = X86_64;
/// The architecture this code is compiled for.
#[cfg(target_arch = "aarch64")]
pub type Host = AArch64;
/// The architecture this code is compiled for.
#[cfg(all(target_arch = "powerpc64", target_endian = "little"))]
pub type Host = PowerPc64ElfV2;
/// The architecture this code is compiled for.
#[cfg(all(target_arch = "powerpc64", target_endian = "big"))]
pub type Host = PowerPc64ElfV1;
