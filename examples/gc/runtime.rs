//! The collector example's runtime in Rust, over `pcmap-reader` alone (no
//! C library): the same semispace heap and Cheney collector as heap.c, the
//! same driver as main.c, the roots found as stackwalk.c finds them, with
//! the crate's walker (`walk::Cursor` over the program's own section,
//! `NativeMemory`, the capture trampoline of the `capture` feature).
//! `run.sh TARGET --rust` builds it instead of the C runtime.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::process::exit;
use std::sync::OnceLock;

use pcmap_reader::flat::{Function, OpenedSection, RecordKind};
use pcmap_reader::walk::{
    Cache, Cursor, FrameAt, Host, NativeMemory, Options, Registers, RootValue, SectionRecord,
    SectionTables, Slot, UnwindTables, Value,
};
use pcmap_reader::LocationKind;

#[cfg(target_arch = "x86_64")]
const ARCH_NAME: &str = "x86_64";
#[cfg(target_arch = "aarch64")]
const ARCH_NAME: &str = "aarch64";
#[cfg(all(target_arch = "powerpc64", target_endian = "little"))]
const ARCH_NAME: &str = "ppc64le";

const SEMISPACE_WORDS: usize = (1 << 20) / 8;
const FORWARDED: u64 = 1;
const ROUNDS: u64 = 200;
/// Fewer collections would not exercise the collector enough.
const MIN_COLLECTIONS: u64 = 10;

extern "C" {
    /// The managed entry point (program.*.ll).
    fn gc_main(rounds: u64) -> u64;
    /// The capture trampoline (`pcmap-reader`, feature `capture`); the
    /// managed code calls it. Named here so that the link keeps it.
    fn pcmap_capture_call();
    /// The linker defines these around the section `pcmap emit` added.
    static __start_pcmap_stackmaps: u8;
    static __stop_pcmap_stackmaps: u8;
}

fn die(what: &str, why: impl std::fmt::Display) -> ! {
    eprintln!("gc: {what}: {why}");
    exit(3)
}

/// This program's own tables, opened once.
fn tables() -> SectionTables<'static, 'static> {
    static OPENED: OnceLock<[OpenedSection<'static>; 1]> = OnceLock::new();
    let opened = OPENED.get_or_init(|| {
        // SAFETY: the linker's markers around the mapped section, which
        // stays mapped for the program's life.
        let bytes = unsafe {
            let start = &raw const __start_pcmap_stackmaps;
            let stop = &raw const __stop_pcmap_stackmaps;
            std::slice::from_raw_parts(start, stop as usize - start as usize)
        };
        let opened = OpenedSection::open(bytes, bytes.as_ptr() as u64)
            .unwrap_or_else(|e| die("open pcmap_stackmaps", e));
        opened
            .section()
            .validate()
            .unwrap_or_else(|e| die("validate pcmap_stackmaps", e));
        [opened]
    });
    SectionTables::new(opened)
}

/// A root: the slot of its base pointer and of its derived pointer (the
/// same for a plain root).
#[derive(Clone, Copy)]
struct Root {
    base: *mut u64,
    derived: *mut u64,
}

/// Where a root is stored: a spill slot, a register's save slot
/// (Indirect, Register), or an alloca (Direct: its address is the value).
fn slot(v: &Value, kind: LocationKind) -> *mut u64 {
    match (kind, v.address()) {
        (LocationKind::Direct, _) => v.value as *mut u64,
        (_, Some(address)) => address as *mut u64,
        _ => die(
            "a root whose location has no slot",
            format_args!("{kind:?}"),
        ),
    }
}

/// Calls `visit` on every root of every managed frame, from the safepoint
/// whose registers are `regs` up to the first frame that is not managed.
/// Returns the number of managed frames.
fn find_roots(regs: &Registers, mut visit: impl FnMut(Root)) -> usize {
    type Tables = SectionTables<'static, 'static>;
    type CacheSlot = Slot<Function, SectionRecord<'static>>;
    /// The walk's cache: kept across collections, used by one thread.
    struct CacheMemory(UnsafeCell<[MaybeUninit<CacheSlot>; 64]>);
    // SAFETY: the program is single-threaded; collections do not nest.
    unsafe impl Sync for CacheMemory {}
    static MEMORY: CacheMemory =
        CacheMemory(UnsafeCell::new([const { MaybeUninit::uninit() }; 64]));
    // SAFETY: only here, one collection at a time.
    let memory = unsafe { &mut *MEMORY.0.get() };
    let mut cache = Cache::new(&mut memory[..]).expect("64 slots");

    let tables = tables();
    // SAFETY: no bounds: the walk reads the words the tables' rules name
    // above the captured stack pointer, on this thread's mapped stack.
    let stack = unsafe { NativeMemory::new(0, 0) };
    let cursor = Cursor::<Host, Tables, _>::with_cache(
        &tables,
        stack,
        *regs,
        Options::default(),
        &mut cache,
    )
    .unwrap_or_else(|s| die("walk", s));
    let mut frames = 0;
    for frame in cursor.frames() {
        // Any stop but the end of the managed stack (the Rust `main`) is an
        // error: the walker never guesses.
        let frame = frame.unwrap_or_else(|s| die("walk", s));
        let FrameAt::Record(_, record) = &frame.at else {
            continue;
        };
        let kinds: Vec<LocationKind> = tables
            .locations(record)
            .map(|l| l.unwrap_or_else(|e| die("location", e)).kind)
            .collect();
        let mut roots: Vec<RootValue> = Vec::new();
        frame
            .roots::<Host, Tables>(&tables, &mut |batch| roots.extend_from_slice(batch))
            .unwrap_or_else(|e| die("roots", e));
        let mut give = |r: &RootValue| {
            let base_kind = kinds[r.base_index as usize];
            // A constant (null) needs no relocation.
            if matches!(
                base_kind,
                LocationKind::Constant | LocationKind::ConstantIndex
            ) {
                return;
            }
            visit(Root {
                base: slot(&r.base, base_kind),
                derived: slot(&r.derived, kinds[r.derived_index as usize]),
            });
        };
        if record.site.kind == RecordKind::StatePoint {
            roots.iter().for_each(&mut give);
        } else {
            // Stack maps: every location is a root by itself; the program
            // lists its allocas in (base, derived) pairs.
            if roots.len() % 2 != 0 {
                die("stack map", "an odd number of root locations");
            }
            for pair in roots.chunks(2) {
                give(&RootValue {
                    derived: pair[1].derived,
                    derived_index: pair[1].derived_index,
                    ..pair[0]
                });
            }
        }
        frames += 1;
    }
    frames
}

/// The heap: two semispaces, the one allocated in, the next free word.
struct Heap {
    space: [[u64; SEMISPACE_WORDS]; 2],
    current: usize,
    top: usize,
    collections: u64,
}

struct HeapCell(UnsafeCell<Heap>);
// SAFETY: the program is single-threaded.
unsafe impl Sync for HeapCell {}
static HEAP: HeapCell = HeapCell(UnsafeCell::new(Heap {
    space: [[0; SEMISPACE_WORDS]; 2],
    current: 0,
    top: 0,
    collections: 0,
}));

/// Every object: a header word (pointer fields << 33 | scalar fields << 1),
/// then its pointer fields, then its scalars.
fn header(pointers: u64, scalars: u64) -> u64 {
    pointers << 33 | scalars << 1
}
fn pointers(h: u64) -> usize {
    (h >> 33) as usize
}
fn words(h: u64) -> usize {
    1 + pointers(h) + ((h >> 1) & 0xffff_ffff) as usize
}

impl Heap {
    fn in_space(&self, s: usize, p: u64) -> bool {
        let range = self.space[s].as_ptr_range();
        (range.start as u64..range.end as u64).contains(&p)
    }

    /// The new address of the object at `old`, copying it on first sight.
    fn forward(&mut self, old: u64, free: &mut usize) -> u64 {
        if !self.in_space(self.current, old) {
            return old; // null, or not a heap object
        }
        let from = self.current;
        let at = (old - self.space[from].as_ptr() as u64) as usize / 8;
        let h = self.space[from][at];
        if h & FORWARDED != 0 {
            return h & !FORWARDED;
        }
        let n = words(h);
        let [first, second] = &mut self.space;
        let (src, dst) = match from {
            0 => (first, second),
            _ => (second, first),
        };
        dst[*free..*free + n].copy_from_slice(&src[at..at + n]);
        let copy = dst[*free..].as_ptr() as u64;
        *free += n;
        src[at] = copy | FORWARDED;
        copy
    }

    fn collect(&mut self, regs: &Registers) {
        // Every root read before any is rewritten: slots may be shared.
        let mut pending: Vec<(Root, u64, u64)> = Vec::new();
        find_roots(regs, |r| {
            // SAFETY: the walk's slots: stack words of live managed frames
            // (or the trampoline's register save area).
            let (base, derived) = unsafe { (*r.base, *r.derived) };
            pending.push((r, base, derived.wrapping_sub(base)));
        });
        let to = 1 - self.current;
        let mut free = 0;
        for &(r, base, offset) in &pending {
            if base == 0 {
                continue;
            }
            let new = self.forward(base, &mut free);
            // SAFETY: as above.
            unsafe { *r.derived = new.wrapping_add(offset) };
        }
        // Cheney: the copied objects are the queue.
        let mut scan = 0;
        while scan < free {
            let h = self.space[to][scan];
            for i in 0..pointers(h) {
                let field = self.space[to][scan + 1 + i];
                self.space[to][scan + 1 + i] = self.forward(field, &mut free);
            }
            scan += words(h);
        }
        // Poison the old space: a root left stale now reads zeros.
        self.space[self.current].fill(0);
        self.current = to;
        self.top = free;
        self.collections += 1;
    }
}

/// Where the stack map program (PowerPC) reads an allocation's result.
#[allow(non_upper_case_globals)]
#[no_mangle]
pub static mut gc_result: *mut u64 = std::ptr::null_mut();

/// Called by the managed code through `pcmap_capture_call` with the managed
/// caller's registers at the safepoint, where a collection stops.
///
/// # Safety
/// `regs` is the trampoline's capture, valid for the call.
#[no_mangle]
pub unsafe extern "C" fn gc_alloc_slow(
    regs: *mut Registers,
    num_pointers: u64,
    num_scalars: u64,
) -> *mut u64 {
    // SAFETY: single-threaded; no other reference to the heap is live.
    let heap = unsafe { &mut *HEAP.0.get() };
    let n = 1 + num_pointers as usize + num_scalars as usize;
    if heap.top + n > SEMISPACE_WORDS {
        // SAFETY: the trampoline's registers.
        heap.collect(unsafe { &*regs });
        if heap.top + n > SEMISPACE_WORDS {
            die("out of memory", format_args!("{} live words", heap.top));
        }
    }
    let (current, top) = (heap.current, heap.top);
    heap.top += n;
    let object = &mut heap.space[current][top..top + n];
    object.fill(0);
    object[0] = header(num_pointers, num_scalars);
    let p = object.as_mut_ptr();
    // SAFETY: single-threaded.
    unsafe { gc_result = p };
    p
}

/// check_tree of tree(depth, seed), as program.*.ll computes it.
fn reference_tree(depth: u64, seed: u64) -> u64 {
    let value = seed.wrapping_mul(31).wrapping_add(depth);
    if depth == 0 {
        return value;
    }
    let left = reference_tree(depth - 1, seed << 1);
    let right = reference_tree(depth - 1, seed << 1 | 1);
    left.wrapping_mul(3)
        .wrapping_add(right.wrapping_mul(5))
        .wrapping_add(value)
}

/// gc_main's checksum: the trees from newest to oldest.
fn reference(rounds: u64) -> u64 {
    (0..rounds).rev().fold(0u64, |acc, i| {
        acc.wrapping_mul(31)
            .wrapping_add(reference_tree(i % 4 + 3, i))
    })
}

fn main() {
    std::hint::black_box(pcmap_capture_call as unsafe extern "C" fn());
    let want = reference(ROUNDS);
    tables();
    // SAFETY: the managed program, linked in.
    let got = unsafe { gc_main(ROUNDS) };
    // SAFETY: single-threaded; no collection runs now.
    let collections = unsafe { (*HEAP.0.get()).collections };
    println!("{ARCH_NAME}: {collections} collections, checksum {got:016x}, expected {want:016x}");
    if got != want {
        println!("FAIL: checksum mismatch");
        exit(1);
    }
    if collections < MIN_COLLECTIONS {
        println!("FAIL: only {collections} collections");
        exit(1);
    }
    println!("OK");
}
