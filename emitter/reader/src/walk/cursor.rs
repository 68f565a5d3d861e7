//! A cursor for a Rust runtime: a [`Frame`] with its [`Walker`] and
//! cache, moved one frame at a time.

use super::arch::Arch;
use super::memory::Memory;
use super::options::Options;
use super::registers::Registers;
use super::roots::{RootValue, RootsError};
use super::stop::Stop;
use super::tables::{FrameAt, UnwindTables};
use super::walker::{CacheOf, FrameOf, Walker};

/// An unwind cursor: the current frame's registers and what the tables
/// say about its PC, moved to its caller by [`Cursor::step`]; with a cache
/// ([`Cursor::with_cache`]) its frames are found and stepped by their
/// compiled plans, with the same results.
pub struct Cursor<'t, 'c, 'm, A, T: UnwindTables, M> {
    walker: Walker<'t, A, T, M>,
    frame: FrameOf<T>,
    cache: Option<&'c mut CacheOf<'m, T>>,
}

impl<'t, 'c, 'm, A: Arch, T: UnwindTables, M: Memory> Cursor<'t, 'c, 'm, A, T, M> {
    /// A cursor at the frame whose registers are `regs` (from a capture:
    /// the managed caller at its safepoint).
    pub fn new(tables: &'t T, memory: M, regs: Registers, options: Options) -> Result<Self, Stop> {
        Self::start(tables, memory, regs, options, None)
    }

    /// [`Cursor::new`] with a cache of compiled frames (bound to these
    /// tables: emptied if it described others).
    pub fn with_cache(
        tables: &'t T,
        memory: M,
        regs: Registers,
        options: Options,
        cache: &'c mut CacheOf<'m, T>,
    ) -> Result<Self, Stop> {
        Self::start(tables, memory, regs, options, Some(cache))
    }

    fn start(
        tables: &'t T,
        memory: M,
        regs: Registers,
        options: Options,
        mut cache: Option<&'c mut CacheOf<'m, T>>,
    ) -> Result<Self, Stop> {
        let walker = Walker::new(tables, memory, options);
        let mut frame = FrameOf::<T>::new(regs);
        walker.start(&mut frame, cache.as_deref_mut())?;
        Ok(Cursor {
            walker,
            frame,
            cache,
        })
    }

    /// The current frame's registers.
    pub fn registers(&self) -> &Registers {
        &self.frame.regs
    }
    /// What the tables say about the current frame's PC.
    pub fn frame(&self) -> FrameAt<&T::Function, &T::Record> {
        self.frame.at()
    }
    /// Steps taken so far (the current frame's depth).
    pub fn depth(&self) -> u32 {
        self.frame.depth
    }
    /// The current frame's CFA, if its frame state gives it.
    pub fn cfa(&self) -> Option<u64> {
        self.walker.cfa(&self.frame)
    }

    /// Moves to the caller's frame; on `Err` the cursor stays at the frame
    /// it could not unwind.
    pub fn step(&mut self) -> Result<(), Stop> {
        self.walker.step(&mut self.frame, self.cache.as_deref_mut())
    }

    /// The current frame's roots, decoded with its registers, each to
    /// `visit` in record order, every one decoded before the first is
    /// visited ([`Walker::roots`]).
    pub fn roots(&self, mut visit: impl FnMut(&RootValue)) -> Result<(), RootsError> {
        self.walker
            .roots(&self.frame, self.cache.as_deref(), &mut |batch| {
                batch.iter().for_each(&mut visit)
            })
    }
}
