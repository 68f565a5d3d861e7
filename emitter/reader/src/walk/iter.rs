//! A Rust runtime's ways through a stack: every frame ([`Frames`], an
//! iterator), every root decoded ([`Walker::for_each_root`]) or every
//! root's slot ([`Walker::for_each_slot`]), the last two by the run loop.

use core::mem::MaybeUninit;

use super::arch::Arch;
use super::cursor::Cursor;
use super::memory::Memory;
use super::registers::Registers;
use super::roots::{roots_in_batches, RootSlot, RootValue, RootsError};
use super::stop::Stop;
use super::tables::{FrameAt, UnwindTables};
use super::walker::{CacheOf, End, FrameOf, Sink, Walker};

/// One frame of a walk, as [`Frames`] gives it.
#[derive(Debug, Clone, Copy)]
pub struct FrameView<F, R> {
    /// Steps from the first frame.
    pub depth: u32,
    /// Its registers (those the walk knows).
    pub regs: Registers,
    /// What the tables say about its PC.
    pub at: FrameAt<F, R>,
}

impl<F, R: Copy> FrameView<F, R> {
    /// The frame's roots, decoded with its registers, to `batch` (as
    /// [`Walker::roots`] gives them); nothing for a frame without a record.
    pub fn roots<A: Arch, T: UnwindTables<Function = F, Record = R>>(
        &self,
        tables: &T,
        batch: &mut dyn FnMut(&[RootValue]),
    ) -> Result<(), RootsError> {
        match &self.at {
            FrameAt::Record(_, r) => roots_in_batches::<A, T>(tables, r, &self.regs, batch),
            _ => Ok(()),
        }
    }
}

/// The frames of a walk, from the cursor's on: each one, then its
/// caller's. The walk ends after the frame at which it stops: after an
/// unmanaged frame ([`Stop::Unmanaged`]) or the end of the stack, with
/// nothing more; after any other stop, with that stop as the last item.
pub struct Frames<'t, 'c, 'm, A, T: UnwindTables, M> {
    cursor: Option<Cursor<'t, 'c, 'm, A, T, M>>,
    end: Option<Stop>,
    /// A stop to give as the next item.
    error: Option<Stop>,
}

impl<'t, 'c, 'm, A: Arch, T: UnwindTables, M: Memory> Cursor<'t, 'c, 'm, A, T, M> {
    /// The frames from this one on ([`Frames`]).
    pub fn frames(self) -> Frames<'t, 'c, 'm, A, T, M> {
        Frames {
            cursor: Some(self),
            end: None,
            error: None,
        }
    }
}

impl<A: Arch, T: UnwindTables, M: Memory> Frames<'_, '_, '_, A, T, M> {
    /// Why the walk ended, once it has ([`Stop::Unmanaged`] at the end of
    /// the managed stack).
    pub fn end(&self) -> Option<Stop> {
        self.end
    }
}

impl<A: Arch, T: UnwindTables, M: Memory> Iterator for Frames<'_, '_, '_, A, T, M> {
    type Item = Result<FrameView<T::Function, T::Record>, Stop>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.error.take() {
            return Some(Err(e));
        }
        let cursor = self.cursor.as_mut()?;
        let view = FrameView {
            depth: cursor.depth(),
            regs: *cursor.registers(),
            at: match cursor.frame() {
                FrameAt::Unmanaged => FrameAt::Unmanaged,
                FrameAt::NoRecord(f) => FrameAt::NoRecord(*f),
                FrameAt::Record(f, r) => FrameAt::Record(*f, *r),
            },
        };
        if let Err(s) = cursor.step() {
            self.cursor = None;
            self.end = Some(s);
            if !matches!(s, Stop::Unmanaged | Stop::EndOfStack) {
                self.error = Some(s);
            }
        }
        Some(Ok(view))
    }
}

/// A sink calling a closure with each frame's decoded roots.
struct EachRoot<V>(V);

impl<V: FnMut(u32, &Registers, &[RootValue])> Sink for EachRoot<V> {
    const ROOTS: bool = true;
    const SLOTS: bool = false;
    #[inline]
    fn roots(&mut self, regs: &Registers, depth: u32, roots: &[RootValue]) -> Result<(), End> {
        (self.0)(depth, regs, roots);
        Ok(())
    }
}

/// A sink writing root slots into a buffer, calling a closure with them
/// when it is full and at the end.
struct EachSlot<'b, V> {
    buffer: &'b mut [MaybeUninit<RootSlot>],
    used: usize,
    flush: V,
}

impl<V: FnMut(&[RootSlot])> EachSlot<'_, V> {
    fn flush(&mut self) {
        // SAFETY: the first `used` slots were written (`wrote`,
        // `run_wrote` count what the walk wrote).
        let full = unsafe { &*(&self.buffer[..self.used] as *const [_] as *const [RootSlot]) };
        if !full.is_empty() {
            (self.flush)(full);
        }
        self.used = 0;
    }
}

impl<V: FnMut(&[RootSlot])> Sink for EachSlot<'_, V> {
    const ROOTS: bool = true;
    const SLOTS: bool = true;
    fn room(&mut self, n: usize) -> Result<*mut RootSlot, End> {
        if self.used + n > self.buffer.len() {
            self.flush();
        }
        if n > self.buffer.len() {
            return Err(End::Full);
        }
        Ok(self.buffer[self.used..].as_mut_ptr().cast())
    }
    fn wrote(&mut self, n: usize) {
        self.used += n;
    }
    fn run_room(&mut self) -> (*mut RootSlot, *mut RootSlot) {
        let range = self.buffer.as_mut_ptr_range();
        // SAFETY: `used` <= the buffer's length.
        let next = unsafe { range.start.add(self.used) };
        (next.cast(), range.end.cast())
    }
    fn run_wrote(&mut self, next: *mut RootSlot, _frames: u32) {
        // SAFETY: `next` is in the buffer, at or after its start
        // (`run_room`'s, moved by the slots written).
        let written = unsafe { next.offset_from(self.buffer.as_ptr().cast()) };
        self.used = written as usize;
    }
}

impl<'t, A: Arch, T: UnwindTables, M: Memory> Walker<'t, A, T, M> {
    /// Walks the whole stack from `frame` (started), calling `visit(depth,
    /// registers, roots)` with each frame's roots, decoded with its
    /// registers (all of a frame's roots decoded before the first is
    /// given; more than [`ROOTS_AT_ONCE`](super::ROOTS_AT_ONCE) in several
    /// calls). `Err` where the walk ended: [`End::Stop`] with
    /// [`Stop::Unmanaged`] at the end of the managed stack.
    pub fn for_each_root(
        &self,
        frame: &mut FrameOf<T>,
        cache: Option<&mut CacheOf<'_, T>>,
        visit: impl FnMut(u32, &Registers, &[RootValue]),
    ) -> Result<(), End> {
        self.run(frame, cache, &mut EachRoot(visit), u32::MAX)
    }

    /// Walks the whole stack from `frame` (started), writing where each
    /// frame's roots are (their slots: a root in a register saved nowhere
    /// is [`RootsError::NoSlot`]) into `buffer`, and calling `flush` with
    /// the slots written whenever the next frame's do not fit and at the
    /// end. The fastest way through a stack: cached frames are written by
    /// their plans, many in a row. `Err` where the walk ended, as
    /// [`for_each_root`](Self::for_each_root); [`End::Full`] for a frame
    /// with more roots than `buffer` holds.
    pub fn for_each_slot(
        &self,
        frame: &mut FrameOf<T>,
        cache: Option<&mut CacheOf<'_, T>>,
        buffer: &mut [MaybeUninit<RootSlot>],
        flush: impl FnMut(&[RootSlot]),
    ) -> Result<(), End> {
        let mut sink = EachSlot {
            buffer,
            used: 0,
            flush,
        };
        let ended = self.run(frame, cache, &mut sink, u32::MAX);
        sink.flush();
        ended
    }
}
