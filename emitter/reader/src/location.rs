//! What a record says about one value, shared by every layout.

/// How to find a live value (LLVM's `StackMaps::Location::LocationType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LocationKind {
    /// The value is in `dwarf_reg`.
    Register = 1,
    /// The value is `dwarf_reg + offset` (an alloca's address).
    Direct = 2,
    /// The value is in memory at `[dwarf_reg + offset]` (a spill).
    Indirect = 3,
    /// The value is `offset`, a small constant.
    Constant = 4,
    /// The value is the large constant at index `offset`.
    ConstantIndex = 5,
}

impl LocationKind {
    /// The kind LLVM stores as `kind`, if any.
    pub fn from_u8(kind: u8) -> Option<Self> {
        Some(match kind {
            1 => LocationKind::Register,
            2 => LocationKind::Direct,
            3 => LocationKind::Indirect,
            4 => LocationKind::Constant,
            5 => LocationKind::ConstantIndex,
            _ => return None,
        })
    }
    /// Its name, as LLVM's `llvm-readobj --stackmap` prints it.
    pub fn name(self) -> &'static str {
        match self {
            LocationKind::Register => "Register",
            LocationKind::Direct => "Direct",
            LocationKind::Indirect => "Indirect",
            LocationKind::Constant => "Constant",
            LocationKind::ConstantIndex => "ConstantIndex",
        }
    }
}

/// One location of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Location {
    /// Where the value is.
    pub kind: LocationKind,
    /// Size of the value in bytes.
    pub size: u16,
    /// DWARF register number (0 for constants).
    pub dwarf_reg: u16,
    /// Offset, small constant or constant index, by `kind`.
    pub offset: i32,
}

/// A register live across a patchpoint, to be saved by the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LiveOut {
    /// DWARF register number.
    pub dwarf_reg: u16,
    /// Size of the value in bytes.
    pub size: u8,
}
