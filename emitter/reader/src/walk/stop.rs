//! Why a walk stopped: [`Stop`], what a step, a lookup and an
//! architecture's frame pointer chain give when a frame cannot be unwound
//! (`docs/walker.md`, "What stops a walk", gives each its C status).

/// Why a walk stopped at a frame: the frame is the walk's current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The PC is in no function of the tables: the end of the managed
    /// stack (the runtime's own C frames, `main`).
    Unmanaged,
    /// The PC is in a managed function, but no record is at it, so no
    /// frame state is known there.
    NoRecord,
    /// The record has no frame state (no CFI covered it).
    NoFrameState,
    /// The record's CFA is not register + offset.
    NoCfaRule,
    /// The rule needs this DWARF register, whose value is not known (a
    /// caller-saved register, or one a frame pointer step could not
    /// restore).
    RegisterUnknown(u16),
    /// AArch64: the frame state does not say where x30 was saved.
    ReturnAddressNotSaved,
    /// The return address is 0, or the frame pointer chain ended (0).
    EndOfStack,
    /// The CFA is not above the stack pointer, a read `Memory` refused, a
    /// frame pointer chain that does not go up, or the frame limit was
    /// reached: the stack or the table is not what the walk expects.
    BadStack,
    /// The PC is in no image the tables hold, and the registry refused an
    /// image's tables: the frame may be managed, by that image (the
    /// registry's [`UnwindTables::frame_at`](super::UnwindTables::frame_at)).
    ImageRefused,
    /// The table could not be read.
    Table(crate::Error),
}

impl From<crate::Error> for Stop {
    fn from(e: crate::Error) -> Self {
        Stop::Table(e)
    }
}

impl core::fmt::Display for Stop {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Stop::Unmanaged => {
                f.write_str("frame outside the tables' functions (end of the managed stack)")
            }
            Stop::NoRecord => f.write_str("no record at the frame's PC"),
            Stop::NoFrameState => f.write_str("the record has no frame state"),
            Stop::NoCfaRule => f.write_str("the frame's CFA is not register + offset"),
            Stop::RegisterUnknown(r) => {
                write!(f, "the CFA register ({r}) is not known in this frame")
            }
            Stop::ReturnAddressNotSaved => f.write_str("the return address was not saved"),
            Stop::EndOfStack => f.write_str("end of the stack"),
            Stop::BadStack => {
                f.write_str("CFA not above SP, a read outside the stack, or too many frames")
            }
            Stop::ImageRefused => f.write_str(
                "PC in no registered image, and the registry refused an image's tables: \
                 the frame may be managed",
            ),
            Stop::Table(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Stop {}
