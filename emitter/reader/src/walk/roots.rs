//! A frame's GC roots: which locations of a record are roots
//! ([`RootLayout`], [`try_roots`]), and a location decoded with a frame's
//! registers ([`decode`]: its value, or where it is).

use core::mem::MaybeUninit;

use super::arch::Arch;
use super::registers::Registers;
use super::tables::UnwindTables;
use crate::{Location, LocationKind};

/// A location decoded for a frame: its value, where it is stored, or both
/// (the C API's `pcmap_value`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Value {
    /// The value (0 without one): a register's contents, a `Direct`
    /// address, a constant.
    pub value: u64,
    /// Where the value is stored (0 without one): an `Indirect` slot, or a
    /// register's save slot (a collector updates a root there).
    pub address: u64,
    /// Whether `value` is one.
    pub has_value: bool,
    /// Whether `address` is one.
    pub has_address: bool,
}

impl Value {
    /// The value, if the location has one.
    pub fn value(&self) -> Option<u64> {
        self.has_value.then_some(self.value)
    }
    /// Where it is stored, if it is.
    pub fn address(&self) -> Option<u64> {
        self.has_address.then_some(self.address)
    }
}

/// Why a location could not be decoded for a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// The location names this DWARF register, whose value in the frame is
    /// not known.
    RegisterUnknown(u16),
    /// A `ConstantIndex` the table does not have.
    Table(crate::Error),
}

impl From<crate::Error> for DecodeError {
    fn from(e: crate::Error) -> Self {
        DecodeError::Table(e)
    }
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DecodeError::RegisterUnknown(r) => {
                write!(
                    f,
                    "the location names register {r}, not known in this frame"
                )
            }
            DecodeError::Table(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for DecodeError {}

/// Decodes `loc` in the frame whose registers are `regs`; `constant`
/// gives a `ConstantIndex`'s large constant. Reads no memory.
#[inline(always)]
pub fn decode<A: Arch>(
    loc: &Location,
    regs: &Registers,
    constant: impl FnOnce(u32) -> crate::Result<u64>,
) -> Result<Value, DecodeError> {
    let reg = || {
        regs.get::<A>(loc.dwarf_reg)
            .ok_or(DecodeError::RegisterUnknown(loc.dwarf_reg))
    };
    let at = |base: u64| base.wrapping_add(loc.offset as i64 as u64);
    let value = |v| Value {
        value: v,
        has_value: true,
        ..Value::default()
    };
    Ok(match loc.kind {
        LocationKind::Register => {
            let address = regs.address::<A>(loc.dwarf_reg);
            Value {
                value: reg()?,
                address: address.unwrap_or(0),
                has_value: true,
                has_address: address.is_some(),
            }
        }
        LocationKind::Direct => value(at(reg()?)),
        LocationKind::Indirect => Value {
            address: at(reg()?),
            has_address: true,
            ..Value::default()
        },
        LocationKind::Constant => value(loc.offset as i64 as u64),
        LocationKind::ConstantIndex => value(constant(loc.offset as u32)?),
    })
}

/// Locations of a statepoint record before its relocated pointers:
/// calling convention, flags, number of deopt locations (then that many
/// deopt locations).
pub const STATEPOINT_HEADER: usize = 3;

/// Which locations of a record are GC roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootLayout {
    /// A statepoint: after its constant header and deopt locations,
    /// (base, derived) pairs.
    StatePoint,
    /// A stack map or patch point: every location is a root by itself.
    EveryLocation,
}

impl RootLayout {
    /// The layout of a record of `kind` (its stored byte); a kind not
    /// known ([`RecordKind::Unknown`](crate::flat::RecordKind::Unknown):
    /// an object compiled without the plugin's site descriptions, or a
    /// byte that is no kind) has none: which locations are roots is not
    /// known ([`RootsError::UnknownKind`]).
    pub fn of(kind: u8) -> Result<RootLayout, RootsError> {
        use crate::flat::RecordKind;
        match RecordKind::from_u8(kind) {
            Some(RecordKind::StatePoint) => Ok(RootLayout::StatePoint),
            Some(RecordKind::StackMap | RecordKind::PatchPoint) => Ok(RootLayout::EveryLocation),
            _ => Err(RootsError::UnknownKind),
        }
    }
}

/// A root: the location of a derived pointer and of its base (the same
/// location for a plain root), with their indices among the record's
/// locations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Root {
    /// The base pointer's location.
    pub base: Location,
    /// The derived pointer's location (the base's for a plain root).
    pub derived: Location,
    /// Index of `base` among the record's locations.
    pub base_index: u16,
    /// Index of `derived` among the record's locations.
    pub derived_index: u16,
}

/// A root decoded with its frame's registers (the C API's `pcmap_root`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RootValue {
    /// The base pointer's location, decoded.
    pub base: Value,
    /// The derived pointer's (the base's for a plain root).
    pub derived: Value,
    /// Index of the base among the record's locations.
    pub base_index: u16,
    /// Index of the derived pointer among them.
    pub derived_index: u16,
}

/// Where a root is: the address of its base's slot and of its derived
/// pointer's (the same for a plain root); the C API's `pcmap_root_slot`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RootSlot {
    /// The base pointer's slot.
    pub base: u64,
    /// The derived pointer's slot (the base's for a plain root).
    pub derived: u64,
}

/// Why a frame's roots could not be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootsError {
    /// A statepoint's header is not three constants, its deopt count runs
    /// past its locations, or its pointers are not in pairs.
    NotAStatePoint,
    /// The record's kind is not known ([`RootLayout::of`]): the object was
    /// finished without the plugin's site descriptions (or `pcmap emit
    /// --ir`).
    UnknownKind,
    /// A root names this DWARF register, not known in the frame.
    RegisterUnknown(u16),
    /// A root is not in memory, where its slot is asked for: a `Direct`
    /// location (its value is an address, not a slot holding the
    /// pointer), a `Constant`, or a register saved nowhere.
    NoSlot,
    /// A location the table could not give.
    Table(crate::Error),
}

impl From<crate::Error> for RootsError {
    fn from(e: crate::Error) -> Self {
        RootsError::Table(e)
    }
}

impl From<DecodeError> for RootsError {
    fn from(e: DecodeError) -> Self {
        match e {
            DecodeError::RegisterUnknown(r) => RootsError::RegisterUnknown(r),
            DecodeError::Table(e) => RootsError::Table(e),
        }
    }
}

impl core::fmt::Display for RootsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RootsError::NotAStatePoint => f.write_str(
                "a statepoint's locations are not its header, deopt locations and pointer pairs",
            ),
            RootsError::UnknownKind => f.write_str(
                "the record has no known kind (no site description): finish the object with \
                 the plugin's descriptions or pcmap emit --ir",
            ),
            RootsError::RegisterUnknown(r) => {
                write!(f, "a root names register {r}, not known in this frame")
            }
            RootsError::NoSlot => f.write_str("a root of the frame has no slot (not in memory)"),
            RootsError::Table(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for RootsError {}

/// Calls `f` with every root among `locations` (a record's, in order;
/// `constant` resolves a `ConstantIndex` deopt count), decoding each
/// location once, until `f` fails. A statepoint's header and deopt
/// locations are checked before the first root; a malformed record is an
/// error, which may come after some roots were passed to `f` (an odd
/// number of pointers is found at the end). One plain loop, no iterator
/// state.
#[inline(always)]
pub fn try_roots<I, E>(
    layout: RootLayout,
    mut locations: I,
    constant: impl Fn(u32) -> crate::Result<u64>,
    mut f: impl FnMut(Root) -> Result<(), E>,
) -> Result<(), E>
where
    I: Iterator<Item = crate::Result<Location>>,
    E: From<RootsError>,
{
    // The next location and its index; `None` after the last. A macro,
    // not a closure: the loop stays one function at every optimisation
    // level (a closure returning nested enums was not inlined at -Os).
    let mut index = 0u16;
    macro_rules! next {
        () => {
            match locations.next() {
                None => None,
                Some(Ok(l)) => {
                    index = index.wrapping_add(1);
                    Some((index.wrapping_sub(1), l))
                }
                Some(Err(e)) => return Err(RootsError::Table(e).into()),
            }
        };
    }
    if layout == RootLayout::StatePoint {
        let mut deopt = 0u64;
        for _ in 0..STATEPOINT_HEADER {
            let Some((_, l)) = next!() else {
                return Err(RootsError::NotAStatePoint.into());
            };
            deopt = match l.kind {
                LocationKind::Constant => l.offset as i64 as u64,
                LocationKind::ConstantIndex => match constant(l.offset as u32) {
                    Ok(v) => v,
                    Err(e) => return Err(RootsError::Table(e).into()),
                },
                _ => return Err(RootsError::NotAStatePoint.into()),
            };
        }
        // The deopt locations: decoded (so a corrupt one is an error),
        // not roots.
        for _ in 0..deopt {
            if next!().is_none() {
                return Err(RootsError::NotAStatePoint.into());
            }
        }
    }
    while let Some((base_index, base)) = next!() {
        let (derived_index, derived) = match layout {
            RootLayout::EveryLocation => (base_index, base),
            RootLayout::StatePoint => match next!() {
                Some(d) => d,
                None => return Err(RootsError::NotAStatePoint.into()),
            },
        };
        f(Root {
            base,
            derived,
            base_index,
            derived_index,
        })?;
    }
    Ok(())
}

/// Calls `visit` with every root among `locations` ([`try_roots`]). A
/// malformed record is an error, which may come after some roots were
/// visited: a caller that must not act on part of a record collects the
/// roots first ([`roots_in_batches`] does).
pub fn roots<I>(
    layout: RootLayout,
    locations: I,
    constant: impl Fn(u32) -> crate::Result<u64>,
    mut visit: impl FnMut(Root),
) -> Result<(), RootsError>
where
    I: Iterator<Item = crate::Result<Location>>,
{
    try_roots(layout, locations, constant, |r| {
        visit(r);
        Ok(())
    })
}

/// Roots decoded before any is given ([`roots_in_batches`]): a record with
/// more is decoded twice, checked, then given.
pub const ROOTS_AT_ONCE: usize = 32;

/// The roots of `record`, decoded with its frame's registers `regs`, to
/// `batch` in record order in slices of at most [`ROOTS_AT_ONCE`] (one
/// slice, possibly empty, for a record with no more): the record's whole
/// layout and every root checked before the first slice, so that nothing
/// is given of a record that fails. The way roots are given when the
/// frame has no plan that keeps them ([`Plan`](super::Plan)).
#[inline(never)]
pub fn roots_in_batches<A: Arch, T: UnwindTables>(
    tables: &T,
    record: &T::Record,
    regs: &Registers,
    batch: &mut dyn FnMut(&[RootValue]),
) -> Result<(), RootsError> {
    let layout = RootLayout::of(tables.kind(record))?;
    let constant = |i| tables.constant(record, i);
    // Written before read (up to `n`): nothing zeroed.
    let mut buffer = [const { MaybeUninit::<RootValue>::uninit() }; ROOTS_AT_ONCE];
    let mut n = 0usize;
    // One loop for both passes (compiled once): decode and count, then, if
    // they did not all fit, decode again and give.
    let mut pass =
        |giving: bool, buffer: &mut [MaybeUninit<RootValue>; ROOTS_AT_ONCE], n: &mut usize| {
            try_roots(
                layout,
                tables.locations(record),
                constant,
                |r: Root| -> Result<(), RootsError> {
                    let base = decode::<A>(&r.base, regs, constant)?;
                    // A statepoint's plain (not derived) pointer lists the same
                    // location twice: decoded once.
                    let derived = match r.derived == r.base {
                        true => base,
                        false => decode::<A>(&r.derived, regs, constant)?,
                    };
                    if giving && *n == ROOTS_AT_ONCE {
                        batch(filled(buffer, ROOTS_AT_ONCE));
                        *n = 0;
                    }
                    if let Some(slot) = buffer.get_mut(*n) {
                        slot.write(RootValue {
                            base,
                            derived,
                            base_index: r.base_index,
                            derived_index: r.derived_index,
                        });
                    }
                    *n += 1;
                    Ok(())
                },
            )
        };
    pass(false, &mut buffer, &mut n)?;
    if n > ROOTS_AT_ONCE {
        n = 0;
        pass(true, &mut buffer, &mut n)?;
    }
    batch(filled(&buffer, n));
    Ok(())
}

/// The first `n` roots of `buffer`, written.
#[inline(always)]
fn filled(buffer: &[MaybeUninit<RootValue>], n: usize) -> &[RootValue] {
    let given = &buffer[..n.min(buffer.len())];
    // SAFETY: the callers wrote the first `n` (at most the buffer's
    // length); `MaybeUninit<T>` is laid out as `T`.
    unsafe { &*(given as *const [MaybeUninit<RootValue>] as *const [RootValue]) }
}

/// The slots of `roots` (decoded): each location's address (an `Indirect`
/// slot, a register's save slot), into `out` from its start; how many.
/// [`RootsError::NoSlot`] if a root has none, before any is written.
pub fn slots_of(roots: &[RootValue], out: &mut [RootSlot]) -> Result<usize, RootsError> {
    if roots
        .iter()
        .any(|r| !(r.base.has_address & r.derived.has_address))
    {
        return Err(RootsError::NoSlot);
    }
    for (r, o) in roots.iter().zip(out.iter_mut()) {
        *o = RootSlot {
            base: r.base.address,
            derived: r.derived.address,
        };
    }
    Ok(roots.len().min(out.len()))
}
