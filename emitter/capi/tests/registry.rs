//! The registry of images' sections (`src/registry.rs`): registration and
//! removal, the callbacks the plugin's per-image constructors call, and
//! lookups by eight threads while another registers and removes an image
//! over and over, unmapping its section after each removal (a lookup that
//! still read it would fault or read the 0xff bytes written over it).
//!
//! One test: the registry is the process's, so its phases run in turn.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use memmap2::MmapMut;
use pcmap_capi::ffi::pcmap_site_record;
use pcmap_capi::pcmap_status::{self, *};
use pcmap_capi::registry::*;
use pcmap_capi::{pcmap_record, pcmap_site, pcmap_stackmaps, PCMAP_STACKMAPS_VERSION};
use pcmap_reader::flat::RecordKind;
use pcmap_reader::stackmap::{write_flat_placed, Function, Record, Table};
use pcmap_reader::LittleEndian;

const READERS: usize = 8;
/// Registrations and removals of B while the readers look up.
const CYCLES: usize = 2000;
/// Functions per image.
const FUNCTIONS: u64 = 70;
/// Image A's code (always registered) and image B's (coming and going).
const A: u64 = 0x40_0000;
const B: u64 = 0x90_0000;

/// A section whose functions are at `base` + 0x40 * i, with records at +8
/// and +0x18 with ID `base + pc offset`; absolute addresses, so it may be
/// mapped anywhere.
fn section(base: u64, functions: u64) -> Vec<u8> {
    let functions = (0..functions)
        .map(|f| Function {
            address: base + 0x40 * f,
            code_offset: Some(0x40 * f),
            size: 0x30,
            records: [8u32, 0x18]
                .iter()
                .map(|&off| Record {
                    id: base + 0x40 * f + u64::from(off),
                    instruction_offset: off,
                    patchable_size: None,
                    kind: RecordKind::StatePoint,
                    has_live_out_info: false,
                    locations: vec![],
                    live_outs: vec![],
                    frame_state: None,
                })
                .collect(),
            ..Function::default()
        })
        .collect();
    let t = Table {
        constants: vec![],
        functions,
    };
    write_flat_placed(&t, LittleEndian, true, true, 0).unwrap()
}

/// `bytes` in a mapping of their own.
fn mapped(bytes: &[u8]) -> MmapMut {
    let mut m = MmapMut::map_anon(bytes.len()).unwrap();
    m.copy_from_slice(bytes);
    m
}

fn find(pc: u64) -> (pcmap_status, Option<pcmap_record>) {
    let mut r = MaybeUninit::uninit();
    // SAFETY: `r` is writable; `function` may be NULL.
    let s = unsafe { pcmap_registry_find(pc, std::ptr::null_mut(), r.as_mut_ptr()) };
    // SAFETY: written on OK.
    (s, (s == PCMAP_OK).then(|| unsafe { r.assume_init() }))
}

fn info() -> pcmap_registry_summary {
    let mut i = MaybeUninit::uninit();
    // SAFETY: `i` is writable.
    assert_eq!(unsafe { pcmap_registry_info(i.as_mut_ptr()) }, PCMAP_OK);
    // SAFETY: written on OK.
    unsafe { i.assume_init() }
}

fn add(m: &[u8]) -> pcmap_status {
    // SAFETY: the mapping outlives its registration (each caller removes
    // it before dropping it).
    unsafe { pcmap_registry_add(m.as_ptr().cast(), m.len()) }
}

fn remove(m: &[u8]) -> pcmap_status {
    pcmap_registry_remove(m.as_ptr().cast())
}

/// The callbacks with `m`'s bounds.
fn callback(add: bool, version: u32, m: &[u8]) {
    let (start, stop) = (m.as_ptr().cast(), m.as_ptr_range().end.cast());
    // SAFETY: `m` is mapped until removed.
    unsafe {
        if add {
            __pcmap_stackmaps_add(version, start, stop)
        } else {
            __pcmap_stackmaps_del(version, start, stop)
        }
    }
}

#[test]
fn registry() {
    let a = mapped(&section(A, FUNCTIONS));
    let b_bytes = section(B, FUNCTIONS);
    let b = mapped(&b_bytes);

    // Empty: nothing found.
    assert_eq!(info().images, 0);
    assert_eq!(find(A + 8).0, PCMAP_NOT_FOUND);

    // Through the constructor's callback.
    let g0 = info().generation;
    callback(true, PCMAP_STACKMAPS_VERSION, &a);
    assert_eq!((info().images, info().rejected), (1, 0));
    assert!(info().generation > g0);
    assert_eq!(find(A + 0x48).1.map(|r| r.id), Some(A + 0x48));
    assert_eq!(find(A + 0x49).0, PCMAP_NOT_FOUND);
    assert_eq!(find(B + 8).0, PCMAP_NOT_FOUND);

    // By hand, twice, removed, removed again.
    assert_eq!(add(&b), PCMAP_OK);
    assert_eq!(add(&b), PCMAP_ERR_REGISTERED);
    assert_eq!(info().images, 2);
    rust_walk_over_the_registry();
    assert_eq!(find(B + 0x18).1.map(|r| r.id), Some(B + 0x18));
    // The site, with its image's maps for the calls that take them.
    let (mut site, mut maps) = (MaybeUninit::<pcmap_site>::uninit(), MaybeUninit::uninit());
    // SAFETY: both writable.
    let s = unsafe { pcmap_registry_find_site(B + 0x58, site.as_mut_ptr(), maps.as_mut_ptr()) };
    assert_eq!(s, PCMAP_OK);
    // SAFETY: written on OK.
    let (site, maps): (pcmap_site, pcmap_stackmaps) =
        unsafe { (site.assume_init(), maps.assume_init()) };
    assert_eq!(maps.data, b.as_ptr());
    let mut r = MaybeUninit::uninit();
    // SAFETY: `maps` is B's, opened; `r` writable.
    let s = unsafe { pcmap_site_record(&maps, &site, r.as_mut_ptr()) };
    assert_eq!(s, PCMAP_OK);
    // SAFETY: written on OK.
    assert_eq!(unsafe { r.assume_init() }.id, B + 0x58);
    let mut m2 = MaybeUninit::<pcmap_stackmaps>::uninit();
    // SAFETY: writable.
    let s = unsafe { pcmap_registry_stackmaps(A + 0x100, m2.as_mut_ptr()) };
    assert_eq!(s, PCMAP_OK);
    // SAFETY: written on OK.
    assert_eq!(unsafe { m2.assume_init() }.data, a.as_ptr());
    // SAFETY: writable.
    let s = unsafe { pcmap_registry_stackmaps(0x10, m2.as_mut_ptr()) };
    assert_eq!(s, PCMAP_NOT_FOUND);
    assert_eq!(remove(&b), PCMAP_OK);
    assert_eq!(remove(&b), PCMAP_NOT_FOUND);
    assert_eq!(find(B + 0x18).0, PCMAP_NOT_FOUND);
    assert_eq!(info().images, 1);

    // Refusals through the callbacks are counted, never silent; an empty
    // range (an image without the section) is not one.
    callback(true, PCMAP_STACKMAPS_VERSION + 1, &b);
    assert_eq!(
        (info().rejected, info().last_rejection),
        (1, PCMAP_ERR_VERSION as i32)
    );
    let zeros = mapped(&[0u8; 64]);
    callback(true, PCMAP_STACKMAPS_VERSION, &zeros);
    assert_eq!(
        (info().rejected, info().last_rejection),
        (2, PCMAP_ERR_BAD_MAGIC as i32)
    );
    callback(true, PCMAP_STACKMAPS_VERSION, &b[..0]);
    // SAFETY: NULL markers: an image linked without the section.
    unsafe { __pcmap_stackmaps_add(PCMAP_STACKMAPS_VERSION, std::ptr::null(), std::ptr::null()) };
    assert_eq!((info().rejected, info().images), (2, 1));
    callback(false, PCMAP_STACKMAPS_VERSION, &b);

    // Full at PCMAP_REGISTRY_CAPACITY images.
    let small: Vec<Vec<u8>> = (0..PCMAP_REGISTRY_CAPACITY as u64)
        .map(|i| section(0x1000_0000 + 0x1000 * i, 1))
        .collect();
    let statuses: Vec<_> = small.iter().map(|s| add(s)).collect();
    assert!(statuses[..PCMAP_REGISTRY_CAPACITY - 1]
        .iter()
        .all(|&s| s == PCMAP_OK));
    assert_eq!(
        statuses[PCMAP_REGISTRY_CAPACITY - 1],
        PCMAP_ERR_REGISTRY_FULL
    );
    assert_eq!(
        find(0x1000_0000 + 0x1000 * 5 + 8).1.map(|r| r.id),
        Some(0x1000_5008)
    );
    for s in &small {
        let _ = remove(s);
    }
    assert_eq!(info().images, 1);

    // Eight readers while B comes and goes, unmapped after each removal.
    drop(b);
    let stop = AtomicBool::new(false);
    let (found_b, missed_b) = (AtomicU64::new(0), AtomicU64::new(0));
    std::thread::scope(|scope| {
        for t in 0..READERS as u64 {
            let (stop, found_b, missed_b) = (&stop, &found_b, &missed_b);
            scope.spawn(move || {
                let mut i = t;
                let mut n = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    // Bursts, then a pause: eight spinning readers on two
                    // cores would be preempted inside lookups, and each
                    // removal waits for the preempted ones to run again.
                    n += 1;
                    if n.is_multiple_of(512) {
                        std::thread::sleep(std::time::Duration::from_micros(20));
                    }
                    i = i
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let pc = |base: u64| base + 0x40 * ((i >> 33) % FUNCTIONS) + 0x18;
                    let (s, r) = find(pc(A));
                    assert_eq!((s, r.map(|r| r.id)), (PCMAP_OK, Some(pc(A))));
                    match find(pc(B)) {
                        (PCMAP_OK, Some(r)) => {
                            assert_eq!(r.id, pc(B));
                            found_b.fetch_add(1, Ordering::Relaxed);
                        }
                        (PCMAP_NOT_FOUND, _) => {
                            missed_b.fetch_add(1, Ordering::Relaxed);
                        }
                        other => panic!("B at {:#x}: {:?}", pc(B), other.0),
                    }
                }
            });
        }
        for _ in 0..CYCLES {
            let mut b = mapped(&b_bytes);
            assert_eq!(add(&b), PCMAP_OK);
            std::thread::yield_now();
            assert_eq!(remove(&b), PCMAP_OK);
            // No lookup reads B any more: scribble over it, then unmap it.
            b.fill(0xff);
            drop(b);
        }
        stop.store(true, Ordering::Relaxed);
    });
    let (found, missed) = (found_b.into_inner(), missed_b.into_inner());
    eprintln!("B found {found} times, not registered {missed} times");
    assert!(found > 0 && missed > 0, "found {found}, missed {missed}");
    assert_eq!(info().images, 1);
    assert_eq!(remove(&a), PCMAP_OK);
    assert_eq!(info().images, 0);
}

/// A Rust runtime's walk over the registry: the reader's walker over
/// `CTables::registry()` finds each image's records (the test's records
/// have no frame state: the step stops there, and says so).
fn rust_walk_over_the_registry() {
    use pcmap_capi::walk::CTables;
    use pcmap_reader::flat::Pc;
    use pcmap_reader::walk::{
        Cursor, FrameAt, Host, Memory, Options, Registers, Stop, UnwindTables,
    };
    struct NoStack;
    impl Memory for NoStack {
        fn read_u64(&self, _: u64) -> Option<u64> {
            None
        }
    }
    let tables = CTables::registry();
    for pc in [A + 0x48, B + 0x58] {
        match tables.frame_at(Pc::ReturnAddress(pc)) {
            Ok(FrameAt::Record(f, r)) => {
                assert_eq!((r.record().id, f.address), (pc, pc & !0x3f));
            }
            other => panic!("{pc:#x}: {other:?}"),
        }
    }
    assert!(matches!(
        tables.frame_at(Pc::ReturnAddress(A + 0x49)),
        Ok(FrameAt::NoRecord(_))
    ));
    assert!(matches!(
        tables.frame_at(Pc::ReturnAddress(0x10)),
        Ok(FrameAt::Unmanaged)
    ));
    let regs = Registers::at::<Host>(B + 0x58, 0x7000);
    let mut c = Cursor::<Host, _, _>::new(&tables, NoStack, regs, Options::default()).unwrap();
    assert!(matches!(c.frame(), FrameAt::Record(..)));
    assert_eq!(c.step(), Err(Stop::NoFrameState));
}
