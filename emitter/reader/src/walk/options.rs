//! How a walk goes: [`Options`], given to a [`Walker`](super::Walker) or
//! a [`Cursor`](super::Cursor) once for the whole walk.

/// How a walk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Continue through a frame without a table entry (unmanaged, or no
    /// record at its PC) by the frame pointer chain
    /// ([`Arch::chain_step`](super::Arch::chain_step)), which the caller
    /// asserts every such frame keeps: the walker cannot check. It does
    /// check that the chain goes up the stack, so that a chain that loops
    /// stops with [`Stop::BadStack`](super::Stop::BadStack).
    pub frame_pointer_chain: bool,
    /// Steps after which a walk stops with
    /// [`Stop::BadStack`](super::Stop::BadStack).
    pub max_frames: u32,
    /// The first frame's PC is the address of an instruction not yet run
    /// (an interrupted context: a signal handler's, a profiler's sample),
    /// not a return address ([`Pc`](crate::flat::Pc)). A frame captured by
    /// a call (`capture_call`) has a return address, as every frame a walk
    /// steps to does.
    pub interrupted: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frame_pointer_chain: false,
            max_frames: 1 << 20,
            interrupted: false,
        }
    }
}
