//! What a walk needs of the tables: [`UnwindTables`], implemented over a
//! section (the C API's, a Rust runtime's) or the registry, and the lookup
//! of a frame's PC ([`lookup`]).

use core::mem::MaybeUninit;

use super::arch::Arch;
use super::memory::Memory;
use super::stop::Stop;
use crate::flat::Pc;
use crate::Location;

/// A register + offset CFA rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfaRule {
    /// DWARF number of the register the CFA is computed from.
    pub register: u16,
    /// Added to that register's value.
    pub offset: i32,
}

/// A record's frame state, as far as a walk needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// No CFI described the code at the record.
    None,
    /// The CFA is a DWARF expression (or otherwise not register + offset).
    NoCfaRule,
    /// CFA = register + offset.
    Cfa(CfaRule),
}

/// What the tables say about one PC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameAt<F, R> {
    /// No function of the tables contains it.
    Unmanaged,
    /// Function `F` contains it, but no record is at it.
    NoRecord(F),
    /// Record `R` of function `F` is at it.
    Record(F, R),
}

/// What identifies the tables a cache's entries were filled from: a cache
/// bound to other tables empties itself ([`Cache`](super::Cache)).
pub type CacheKey = [u64; 4];

/// The tables a walk looks PCs up in, and what it reads of a record.
pub trait UnwindTables {
    /// A function, as the tables name it.
    type Function: Copy;
    /// A record, with what the other methods need of it.
    type Record: Copy;

    /// The function containing `pc` and the record exactly at it (by the
    /// rule of [`Pc`]: a return address is in the function holding the
    /// byte before it). A table it cannot read is
    /// [`Stop::Table`]; a PC it cannot vouch for is its own stop
    /// ([`Stop::ImageRefused`]).
    fn frame_at(&self, pc: Pc) -> Result<FrameAt<Self::Function, Self::Record>, Stop>;
    /// [`frame_at`](Self::frame_at), the function written into `function`
    /// (unless `Unmanaged`) and the record into `record` (with `Record`):
    /// the walk's lookup, which writes them into its frame. Tables whose
    /// records are large write them there once instead of moving them
    /// through every caller.
    #[inline(always)]
    fn frame_at_in(
        &self,
        pc: Pc,
        function: &mut MaybeUninit<Self::Function>,
        record: &mut MaybeUninit<Self::Record>,
    ) -> Result<FrameAt<(), ()>, Stop> {
        Ok(self.frame_at(pc)?.place(function, record))
    }
    /// The record's frame state.
    fn state(&self, record: &Self::Record) -> State;
    /// Calls `visit(DWARF register, slot offset from the CFA)` for each
    /// register the record's frame state says is saved, in its order.
    fn saved_registers(
        &self,
        record: &Self::Record,
        visit: impl FnMut(u16, i32),
    ) -> crate::Result<()>;
    /// The record's kind, as stored ([`RecordKind`](crate::flat::RecordKind)).
    fn kind(&self, record: &Self::Record) -> u8;
    /// The record's locations, in order.
    fn locations<'r>(
        &'r self,
        record: &'r Self::Record,
    ) -> impl Iterator<Item = crate::Result<Location>> + 'r;
    /// The record's table's large constant `index` (a `ConstantIndex`).
    fn constant(&self, record: &Self::Record, index: u32) -> crate::Result<u64>;
    /// What identifies these tables (and their generation, if they change)
    /// for a cache of their frames.
    fn cache_key(&self) -> CacheKey;
}

/// What the tables say about `pc`, a frame's PC ([`Pc`]: a walk's frames
/// have return addresses, but for a first frame that was interrupted).
///
/// On PowerPC64 a call to a function outside the caller's module (or
/// through a pointer) is followed by the TOC restore slot, and a stack map
/// after the call is recorded after that instruction: when no record is at
/// `pc`, the instruction at `pc` is one of the TOC restores
/// ([`Arch::TOC_RESTORES`], read from the code) and a record is at `pc +
/// 4`, that record is the frame's. The restore writes only r2, so the
/// frame state and the values the record describes are those at `pc`. The
/// record after the restore is looked up as the return address `pc + 4`
/// (it may be the function's end).
#[inline]
pub fn lookup<A: Arch, T: UnwindTables, M: Memory>(
    tables: &T,
    memory: &M,
    pc: Pc,
) -> Result<FrameAt<T::Function, T::Record>, Stop> {
    let (mut function, mut record) = (MaybeUninit::uninit(), MaybeUninit::uninit());
    let at = lookup_in::<A, T, M>(tables, memory, pc, &mut function, &mut record)?;
    // SAFETY: `lookup_in` wrote the function unless `Unmanaged`, the
    // record with `Record`.
    Ok(unsafe {
        match at {
            FrameAt::Unmanaged => FrameAt::Unmanaged,
            FrameAt::NoRecord(()) => FrameAt::NoRecord(function.assume_init()),
            FrameAt::Record((), ()) => {
                FrameAt::Record(function.assume_init(), record.assume_init())
            }
        }
    })
}

/// [`lookup`], the function written into `function` (unless `Unmanaged`)
/// and the record into `record` (with `Record`), in place
/// ([`UnwindTables::frame_at_in`]).
#[inline(always)]
pub fn lookup_in<A: Arch, T: UnwindTables, M: Memory>(
    tables: &T,
    memory: &M,
    pc: Pc,
    function: &mut MaybeUninit<T::Function>,
    record: &mut MaybeUninit<T::Record>,
) -> Result<FrameAt<(), ()>, Stop> {
    let at = tables.frame_at_in(pc, function, record)?;
    let address = pc.address();
    if matches!(at, FrameAt::NoRecord(())) && toc_restore_at::<A, M>(memory, address) {
        let after = Pc::ReturnAddress(address.wrapping_add(4));
        if let next @ FrameAt::Record(..) = tables.frame_at(after)? {
            return Ok(next.place(function, record));
        }
    }
    Ok(at)
}

impl<F, R> FrameAt<F, R> {
    /// Writes the function into `function` and the record into `record`:
    /// what [`UnwindTables::frame_at_in`] returns.
    #[inline(always)]
    pub fn place(
        self,
        function: &mut MaybeUninit<F>,
        record: &mut MaybeUninit<R>,
    ) -> FrameAt<(), ()> {
        match self {
            FrameAt::Unmanaged => FrameAt::Unmanaged,
            FrameAt::NoRecord(f) => {
                function.write(f);
                FrameAt::NoRecord(())
            }
            FrameAt::Record(f, r) => {
                function.write(f);
                record.write(r);
                FrameAt::Record((), ())
            }
        }
    }
}

/// Whether the instruction at return address `pc` is a TOC restore
/// ([`Arch::TOC_RESTORES`]: always false but on PowerPC64).
#[inline]
pub fn toc_restore_at<A: Arch, M: Memory>(memory: &M, pc: u64) -> bool {
    !A::TOC_RESTORES.is_empty()
        && memory
            .read_code_u32(pc)
            .is_some_and(|insn| A::TOC_RESTORES.contains(&insn))
}
