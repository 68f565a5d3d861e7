//! Walking a stack with the flat tables alone: the one stack walker, which
//! the C API's routes and a Rust runtime both run.
//!
//! ```text
//!  frame 0  (pc = safepoint's return address, registers captured at the call)
//!    | lookup(pc): function holding pc - 1, record at pc   (tables.rs, cache.rs)
//!    | the record's plan: its cache slot's, or compiled now     (plan.rs)
//!    | roots to the sink: decoded, or their slots               (walker.rs)
//!    | CFA = value(CFA register) + CFA offset
//!    | callee-saved registers: value = [CFA + slot offset], address = the slot
//!    | return address: the saved column, else the ABI's place   (arch/)
//!    v SP = CFA, pc = return address, caller-saved registers unknown
//!  frame 1  ...
//! ```
//!
//! * [`Arch`]: one type per architecture ([`X86_64`], [`AArch64`],
//!   [`PowerPc64ElfV2`], [`PowerPc64ElfV1`]; [`Host`]), chosen at compile
//!   time.
//! * [`Registers`]: a frame's registers, by the slots each architecture's
//!   [`RegisterSet`] gives its DWARF registers; [`Memory`]: the stack's
//!   words (`NativeMemory`, feature `native`: the running program's own).
//! * [`UnwindTables`]: what a walk reads of the tables.
//! * [`Plan`]: one record compiled (the step, the roots); [`Run`]: the
//!   registers plans step.
//! * [`Cache`]: the caller's cache of plans, by return address.
//! * [`Walker`], [`Frame`]: the walk: [`Walker::start`], [`Walker::step`],
//!   [`Walker::roots`], and [`Walker::run`], one loop for every route,
//!   giving each frame's roots to a [`Sink`]; [`Cursor`] wraps them for a
//!   Rust runtime.
//!
//! Nothing here allocates, locks or keeps global state: a walk is
//! arithmetic over the caller's [`Frame`], reads of the table and reads of
//! the stack through the caller's [`Memory`]. It is async-signal-safe when
//! `Memory` is (`NativeMemory` is: plain loads, checked against bounds).
//!
//! The walk never guesses. A frame it cannot unwind exactly stops the walk
//! with a [`Stop`] naming why. On request ([`Options::frame_pointer_chain`])
//! it continues through a frame without a table entry by the frame pointer
//! chain, which the caller asserts such frames keep; registers that chain
//! cannot restore become unknown, and a later frame that needs them stops.
//!
//! # A collector
//!
//! A moving collector at a safepoint: the program's tables (its own
//! `pcmap_stackmaps` section, opened once; here a small table for two
//! functions with x86-64 frame states), the registers of the managed
//! frame that called the collector (from a capture, `capture` feature;
//! here made up), the stack (`NativeMemory` for the running program's;
//! here words in a vector). Every root's slot is found by one run over the
//! stack, then each object is moved and its slots updated. The cache keeps
//! each frame's compiled plan from one collection to the next.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use core::mem::MaybeUninit;
//! use pcmap_reader::flat::OpenedSection;
//! use pcmap_reader::walk::{
//!     Cache, End, FrameOf, Memory, Options, Registers, Slot, SectionTables, Stop, Walker, X86_64,
//! };
//!
//! /// The stack: 8-byte words from `base` up.
//! struct Stack {
//!     base: u64,
//!     words: Vec<u64>,
//! }
//! impl Memory for Stack {
//!     fn read_u64(&self, address: u64) -> Option<u64> {
//!         let at = address.checked_sub(self.base)?;
//!         (at % 8 == 0).then_some(())?;
//!         self.words.get((at / 8) as usize).copied()
//!     }
//! }
//!
//! // The tables: records at 0x40_1010 and 0x40_1048 keep a root at
//! // [RSP + 8]; the CFA is RSP + 24, the return address at CFA - 8.
//! let (bytes, address) = pcmap_reader::flat::example_table();
//! let sections = [OpenedSection::open(&bytes, address)?];
//! let tables = SectionTables::new(&sections);
//! type Tables<'s, 'a> = SectionTables<'s, 'a>;
//!
//! // The stack at the safepoint 0x40_1010 (SP = base): two managed
//! // frames, each with one root, below an unmanaged caller (0x1234).
//! let base = 0x7fff_0000;
//! let mut stack = Stack {
//!     base,
//!     words: vec![0, 0x1000, 0x40_1048, 0, 0x2000, 0x1234],
//! };
//! let regs = Registers::at::<X86_64>(0x40_1010, base);
//!
//! // The cache: memory of the collector's, kept across collections.
//! let mut memory: Vec<MaybeUninit<Slot<_, _>>> = (0..64).map(|_| MaybeUninit::uninit()).collect();
//! let mut cache = Cache::new(&mut memory).expect("64 slots");
//!
//! for collection in 0..2 {
//!     // Find every root's slot.
//!     let mut slots = Vec::new();
//!     let walker = Walker::<X86_64, Tables, _>::new(&tables, &stack, Options::default());
//!     let mut frame = FrameOf::<Tables>::new(regs);
//!     walker.start(&mut frame, Some(&mut cache))?;
//!     let mut buffer = [MaybeUninit::uninit(); 64];
//!     let ended = walker.for_each_slot(&mut frame, Some(&mut cache), &mut buffer, |found| {
//!         slots.extend_from_slice(found)
//!     });
//!     // The walk ends at the first frame outside the tables' functions.
//!     assert_eq!(ended, Err(End::Stop(Stop::Unmanaged)));
//!     assert_eq!(frame.depth, 2);
//!
//!     // Move each object (here: by 0x10_0000), and update its slots.
//!     for slot in &slots {
//!         let word = &mut stack.words[((slot.base - base) / 8) as usize];
//!         *word += 0x10_0000;
//!     }
//!     let moved = 0x10_0000 * (collection + 1);
//!     assert_eq!((stack.words[1], stack.words[4]), (0x1000 + moved, 0x2000 + moved));
//! }
//! // The first collection looked up the three frames (two compiled, the
//! // unmanaged end marked); the second found them all in the cache.
//! assert_eq!((cache.misses, cache.uncached, cache.hits), (2, 1, 3));
//! # Ok(())
//! # }
//! ```

mod arch;
mod cache;
#[cfg(feature = "capture")]
pub mod capture;
mod cursor;
mod iter;
mod memory;
mod options;
mod plan;
mod registers;
mod roots;
mod sections;
mod stop;
mod tables;
mod walker;

#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "powerpc64"
))]
pub use arch::Host;
pub use arch::{AArch64, Arch, PowerPc64ElfV1, PowerPc64ElfV2, X86_64};
pub use cache::{Cache, Slot, MAX_CACHE_BITS};
pub use cursor::Cursor;
pub use iter::{FrameView, Frames};
pub use memory::Memory;
#[cfg(feature = "native")]
pub use memory::NativeMemory;
pub use options::Options;
pub use plan::{slow_step, Checked, Log, Plan, Run, PLAN_ROOTS, PLAN_SAVED};
pub use registers::{RegisterSet, Registers, REGISTER_SLOTS, WORDS};
pub use roots::{
    decode, roots, roots_in_batches, slots_of, try_roots, DecodeError, Root, RootLayout, RootSlot,
    RootValue, RootsError, Value, ROOTS_AT_ONCE, STATEPOINT_HEADER,
};
pub use sections::{SectionRecord, SectionTables};
pub use stop::Stop;
pub use tables::{
    lookup, lookup_in, toc_restore_at, CacheKey, CfaRule, FrameAt, State, UnwindTables,
};
pub use walker::{
    CacheOf, End, Frame, FrameOf, Sink, Steps, Walker, AT_NO_RECORD, AT_RECORD, AT_UNMANAGED,
};
