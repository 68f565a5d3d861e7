//! One frame's general registers: [`Registers`], the layout the capture
//! trampolines fill in (the C API's `pcmap_registers`), and how an
//! architecture numbers them ([`RegisterSet`]).

/// An architecture's register set as a [`Registers`] holds it: the DWARF
/// numbers of its stack pointer, frame pointer and return address column,
/// and the slot of each DWARF register the walker tracks.
///
/// Slots are DWARF numbers 0..=31; PowerPC64's link register (DWARF 65) is
/// slot 32. The stack pointer's and the frame pointer's slots are their
/// DWARF numbers.
pub trait RegisterSet {
    /// DWARF number (and slot) of the stack pointer.
    const SP: u16;
    /// DWARF number (and slot) of the frame pointer.
    const FP: u16;
    /// DWARF number of the return address column.
    const RA: u16;

    /// The slot of DWARF register `dwarf` in [`Registers`], if it is one
    /// the walker tracks.
    fn slot(dwarf: u16) -> Option<usize>;

    /// The DWARF number of slot `slot`.
    fn dwarf(slot: usize) -> u16 {
        slot as u16
    }
}

/// Register slots of a [`Registers`]: DWARF registers 0..=31 (x86-64 uses
/// 0..=15), and PowerPC64's link register (DWARF 65) in slot 32.
pub const REGISTER_SLOTS: usize = 33;

/// One frame's general registers: which are known, their values, and
/// where each was saved (so that a collector can update a root held in a
/// register of a caller: the slot its callee restores it from).
///
/// ```text
///   0 pc        the frame's PC (a return address for every frame a walk steps to)
///   8 known     bit s: value[s] is known
///  16 saved     bit s: address[s] is where value[s] is stored
///  24 value     [u64; 33] by slot (RegisterSet::slot)
/// 288 address   [u64; 33]
/// ```
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registers {
    /// The frame's PC: for every frame a walk reaches, a return address.
    pub pc: u64,
    /// Bit `i`: `value[i]` is known.
    pub known: u64,
    /// Bit `i`: `address[i]` is where `value[i]` is stored in memory.
    pub saved: u64,
    /// Register values by slot ([`RegisterSet::slot`]).
    pub value: [u64; REGISTER_SLOTS],
    /// Save slot addresses by slot, where `saved` says so.
    pub address: [u64; REGISTER_SLOTS],
}

impl Default for Registers {
    fn default() -> Self {
        Registers {
            pc: 0,
            known: 0,
            saved: 0,
            value: [0; REGISTER_SLOTS],
            address: [0; REGISTER_SLOTS],
        }
    }
}

/// Words of a [`Registers`] ([`Registers::words`]): pc, known, saved,
/// the values, the save slot addresses.
pub const WORDS: usize = 3 + 2 * REGISTER_SLOTS;
/// The word of `value[0]` in [`Registers::words`].
pub(crate) const VALUE_WORD: u8 = 3;
/// The word of `address[0]`.
pub(crate) const ADDRESS_WORD: u8 = 3 + REGISTER_SLOTS as u8;

const _: () = assert!(core::mem::size_of::<Registers>() == WORDS * 8);

impl Registers {
    /// The registers as words, in field order (pc, known, saved, `value`,
    /// `address`): one indexed load for any of them.
    #[inline(always)]
    pub fn words(&self) -> &[u64; WORDS] {
        // SAFETY: repr(C), every field a u64 or an array of them: no
        // padding (size asserted above), alignment that of u64.
        unsafe { &*(self as *const Registers).cast::<[u64; WORDS]>() }
    }
    /// The value of DWARF register `dwarf`, if known.
    #[inline(always)]
    pub fn get<A: RegisterSet>(&self, dwarf: u16) -> Option<u64> {
        let s = A::slot(dwarf)?;
        (self.known >> s & 1 != 0).then(|| self.value[s])
    }
    /// Where the value of DWARF register `dwarf` is stored, if it is.
    #[inline(always)]
    pub fn address<A: RegisterSet>(&self, dwarf: u16) -> Option<u64> {
        let s = A::slot(dwarf)?;
        (self.known >> s & self.saved >> s & 1 != 0).then(|| self.address[s])
    }
    /// Sets DWARF register `dwarf` (ignored if not tracked): its value, and
    /// where it is stored if it is.
    #[inline(always)]
    pub fn set<A: RegisterSet>(&mut self, dwarf: u16, value: u64, address: Option<u64>) {
        if let Some(s) = A::slot(dwarf) {
            self.value[s] = value;
            self.known |= 1 << s;
            match address {
                Some(a) => {
                    self.address[s] = a;
                    self.saved |= 1 << s;
                }
                None => self.saved &= !(1 << s),
            }
        }
    }
    /// Forgets DWARF register `dwarf`.
    #[inline(always)]
    pub fn forget<A: RegisterSet>(&mut self, dwarf: u16) {
        if let Some(s) = A::slot(dwarf) {
            self.known &= !(1 << s);
            self.saved &= !(1 << s);
        }
    }
    /// The stack pointer, if known.
    #[inline(always)]
    pub fn sp<A: RegisterSet>(&self) -> Option<u64> {
        self.get::<A>(A::SP)
    }
    /// Registers with only the stack pointer known, at `pc`: a frame's
    /// start for a walk of stack words (tests, tools).
    pub fn at<A: RegisterSet>(pc: u64, sp: u64) -> Registers {
        let mut r = Registers {
            pc,
            ..Registers::default()
        };
        r.set::<A>(A::SP, sp, None);
        r
    }
}
