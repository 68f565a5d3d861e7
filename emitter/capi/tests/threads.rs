//! Every C API call is thread-safe on shared, read-only tables (the
//! library keeps no state outside the caller's structs, except the
//! registry: `tests/registry.rs`). Eight threads open the same section and
//! the same PC table at once and make every call on them; each thread's
//! transcript of results must equal the one a single thread wrote before.

use std::fmt::Write as _;
use std::mem::MaybeUninit;

use pcmap_capi::ffi::*;
use pcmap_capi::pcmap_status::{self, *};
use pcmap_capi::pctable::*;
use pcmap_capi::status::pcmap_strerror;
use pcmap_capi::*;
use pcmap_reader::flat::{Cfa, FrameRegister, RecordKind};
use pcmap_reader::pctable::{write_uleb128, MAX_ULEB128_LEN};
use pcmap_reader::stackmap::{write_flat_placed, FrameState, Function, Record, Table};
use pcmap_reader::{LittleEndian, Location, LocationKind};

const THREADS: usize = 8;
const FUNCTIONS: u64 = 80;

/// 80 functions (a PC map), 3 records each with locations of every kind,
/// live-outs on patch points, frame states with saved registers.
fn section() -> Vec<u8> {
    let loc = |kind, dwarf_reg, offset| Location {
        kind,
        size: 8,
        dwarf_reg,
        offset,
    };
    let functions: Vec<Function> = (0..FUNCTIONS)
        .map(|f| Function {
            address: 0x40_0000 + 0x80 * f,
            code_offset: Some(0x80 * f),
            size: 0x70,
            stack_size: 16 * (f % 5),
            records: (0..3u32)
                .map(|r| Record {
                    id: f * 10 + u64::from(r),
                    instruction_offset: 0x10 * (r + 1),
                    patchable_size: (r == 2).then_some(16),
                    kind: if r == 2 {
                        RecordKind::PatchPoint
                    } else {
                        RecordKind::StatePoint
                    },
                    has_live_out_info: r == 2,
                    locations: vec![
                        loc(LocationKind::Register, 3, 0),
                        loc(LocationKind::Direct, 7, 8 * r as i32),
                        loc(LocationKind::Indirect, 6, -16 - f as i32),
                        loc(LocationKind::Constant, 0, f as i32),
                    ],
                    live_outs: if r == 2 {
                        vec![pcmap_reader::LiveOut {
                            dwarf_reg: 0,
                            size: 8,
                        }]
                    } else {
                        vec![]
                    },
                    frame_state: Some(FrameState {
                        cfa: Some(Cfa {
                            register: 7,
                            offset: 16 + 8 * r as i32,
                        }),
                        stack_realigned: false,
                        saved: vec![
                            FrameRegister {
                                dwarf_reg: 6,
                                offset: -16,
                            },
                            FrameRegister {
                                dwarf_reg: 16,
                                offset: -8,
                            },
                        ],
                    }),
                })
                .collect(),
        })
        .collect();
    let t = Table {
        constants: vec![],
        functions,
    };
    // Absolute addresses, filled in as a linker would.
    write_flat_placed(&t, LittleEndian, true, true, 0).unwrap()
}

/// Compact covered entries (PC delta, size, mask, stack args): three
/// functions at 0x1100, 0x1206 and 0x140d of a table at 0x1000.
fn covered() -> Vec<u8> {
    let mut out = Vec::new();
    for (delta, size, mask, args) in [
        (0x100i32, 0x40u64, 1u64, None),
        (0x200, 300, 5, Some(24u64)),
        (0x400, 8, 3, None),
    ] {
        out.extend_from_slice(&delta.to_le_bytes());
        for v in [Some(size), Some(mask), args].into_iter().flatten() {
            let mut b = [0; MAX_ULEB128_LEN];
            let n = write_uleb128(v, &mut b);
            out.extend_from_slice(&b[..n]);
        }
    }
    out
}

fn ok(s: pcmap_status) -> bool {
    s == PCMAP_OK
}

/// Every call of the C API on `section` and `pctable`, results written out.
fn transcript(section: &[u8], pctable: &[u8]) -> String {
    let mut out = String::new();
    let mut m = MaybeUninit::<pcmap_stackmaps>::uninit();
    // SAFETY: the buffers are readable for their lengths, the outputs are
    // locals; every struct passed back was filled by the library on OK.
    unsafe {
        let s = pcmap_open(m.as_mut_ptr(), section.as_ptr().cast(), section.len(), 0);
        assert!(ok(s), "open: {s:?}");
        let m = m.assume_init();
        let mut linked = MaybeUninit::<pcmap_stackmaps>::uninit();
        let end = section.as_ptr().add(section.len());
        let s = pcmap_open_linked(linked.as_mut_ptr(), section.as_ptr().cast(), end.cast());
        writeln!(
            out,
            "open {} {} {}; linked {s:?}",
            m.num_tables, m.num_functions, m.num_records
        )
        .unwrap();
        writeln!(out, "validate {:?}", pcmap_validate(&m)).unwrap();
        let regs = [
            pcmap_register {
                dwarf_reg: 3,
                value: 33,
                address: 0,
            },
            pcmap_register {
                dwarf_reg: 6,
                value: 0x7000,
                address: 0,
            },
            pcmap_register {
                dwarf_reg: 7,
                value: 0x6000,
                address: 0,
            },
        ];
        for pc in (0x40_0000 - 0x10..0x40_0000 + 0x80 * FUNCTIONS + 0x10).step_by(8) {
            let (mut f, mut r) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let s = pcmap_find(&m, pc, f.as_mut_ptr(), r.as_mut_ptr());
            write!(out, "{pc:#x}: find {s:?}").unwrap();
            let (mut f2, mut r2) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let s2 = pcmap_find_at_or_after(&m, pc, f2.as_mut_ptr(), r2.as_mut_ptr());
            if ok(s2) {
                write!(out, " after {:?}", r2.assume_init().id).unwrap();
            }
            let mut site = MaybeUninit::uninit();
            let ss = pcmap_find_site(&m, pc, site.as_mut_ptr());
            let mut site2 = MaybeUninit::uninit();
            let _ = pcmap_find_site_at_or_after(&m, pc, site2.as_mut_ptr());
            if !ok(s) {
                writeln!(out, " site {ss:?}").unwrap();
                continue;
            }
            let (f, r) = (f.assume_init(), r.assume_init());
            let site = site.assume_init();
            let (mut sr, mut sf) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            assert!(ok(pcmap_site_record(&m, &site, sr.as_mut_ptr())));
            assert!(ok(pcmap_site_function(&m, &site, sf.as_mut_ptr())));
            write!(
                out,
                " {f:?} {r:?} {site:?} {:?} {:?}",
                sr.assume_init(),
                sf.assume_init()
            )
            .unwrap();
            let mut fa = MaybeUninit::uninit();
            write!(
                out,
                " fn_at {:?}",
                pcmap_function_at(&m, f.index, fa.as_mut_ptr())
            )
            .unwrap();
            for i in 0..f.num_records {
                let mut ri = MaybeUninit::uninit();
                if ok(pcmap_record_at(&f, i, ri.as_mut_ptr())) {
                    write!(out, " rec {}", ri.assume_init().id).unwrap();
                }
            }
            let mut c = MaybeUninit::uninit();
            assert!(ok(pcmap_locations(&r, c.as_mut_ptr())));
            let mut c = c.assume_init();
            let mut loc = MaybeUninit::uninit();
            let mut i = 0;
            while ok(pcmap_location_next(&mut c, loc.as_mut_ptr())) {
                let loc = loc.assume_init_ref();
                let (mut v, mut v2, mut at) = (
                    MaybeUninit::uninit(),
                    MaybeUninit::uninit(),
                    MaybeUninit::uninit(),
                );
                let a = pcmap_decode_location(&r, loc, regs.as_ptr(), regs.len(), v.as_mut_ptr());
                let b = pcmap_decode(&r, i, regs.as_ptr(), regs.len(), v2.as_mut_ptr());
                assert!(ok(pcmap_location_at(&r, i, at.as_mut_ptr())));
                write!(out, " loc {loc:?} {a:?} {:?} {b:?}", v.assume_init()).unwrap();
                i += 1;
            }
            let mut c = MaybeUninit::uninit();
            assert!(ok(pcmap_live_outs(&r, c.as_mut_ptr())));
            let mut c = c.assume_init();
            let mut lo = MaybeUninit::uninit();
            while ok(pcmap_live_out_next(&mut c, lo.as_mut_ptr())) {
                let mut lo2 = MaybeUninit::uninit();
                let _ = pcmap_live_out_at(&r, 0, lo2.as_mut_ptr());
                write!(out, " live {:?}", lo.assume_init()).unwrap();
            }
            let mut c = MaybeUninit::uninit();
            assert!(ok(pcmap_frame_registers(&r, c.as_mut_ptr())));
            let mut c = c.assume_init();
            let mut fr = MaybeUninit::uninit();
            while ok(pcmap_frame_register_next(&mut c, fr.as_mut_ptr())) {
                write!(out, " saved {:?}", fr.assume_init()).unwrap();
            }
            let (mut fr0, mut ra) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let a = pcmap_frame_register_at(&r, 0, fr0.as_mut_ptr());
            let b = pcmap_find_frame_register(&r, 16, ra.as_mut_ptr());
            writeln!(out, " {a:?} {b:?} {:?}", ra.assume_init()).unwrap();
        }
        // The PC table calls.
        let mut t = MaybeUninit::<pcmap_pctable>::uninit();
        assert!(ok(pcmap_pctable_open(
            t.as_mut_ptr(),
            PCMAP_PCTABLE_COVERED,
            2,
            pctable.as_ptr().cast(),
            pctable.len(),
            0x1000,
            4,
        )));
        let t = t.assume_init();
        let mut linked = MaybeUninit::<pcmap_pctable>::uninit();
        let end = pctable.as_ptr().add(pctable.len());
        let s = pcmap_pctable_open_linked(
            linked.as_mut_ptr(),
            PCMAP_PCTABLE_COVERED,
            2,
            pctable.as_ptr().cast(),
            end.cast(),
        );
        let (mut cursor, mut e, mut n) = (0, pcmap_pctable_entry::default(), 0);
        while ok(pcmap_pctable_next(&t, &mut cursor, &mut e)) {
            write!(out, " entry {e:?}").unwrap();
        }
        assert!(ok(pcmap_pctable_count(&t, &mut n)));
        let mut index = vec![pcmap_pctable_entry::default(); n];
        let mut indexed = 0;
        assert!(ok(pcmap_pctable_index(
            &t,
            index.as_mut_ptr(),
            index.len(),
            &mut indexed
        )));
        for pc in (0x1000..0x1500).step_by(4) {
            let (mut a, mut b) = (
                pcmap_pctable_entry::default(),
                pcmap_pctable_entry::default(),
            );
            let sa = pcmap_pctable_find(&t, pc, &mut a);
            let sb = pcmap_pctable_index_find(index.as_ptr(), indexed, pc, &mut b);
            assert_eq!((sa, a), (sb, b));
            if ok(sa) {
                write!(out, " {pc:#x}:{}", a.pc).unwrap();
            }
        }
        let msg = std::ffi::CStr::from_ptr(pcmap_strerror(PCMAP_ERR_CORRUPT as i32));
        writeln!(out, "\npctable linked {s:?} {n} {msg:?}").unwrap();
    }
    out
}

#[test]
fn eight_threads_open_and_use_the_same_tables() {
    let (section, pctable) = (section(), covered());
    let expected = transcript(&section, &pctable);
    // The transcript saw records, locations of each kind, live-outs,
    // saved registers and PC table entries.
    for word in [
        "find PCMAP_OK",
        "kind: 3",
        "live ",
        "saved ",
        "entry ",
        "0x1100:",
    ] {
        assert!(expected.contains(word), "transcript lacks {word:?}");
    }
    let barrier = std::sync::Barrier::new(THREADS);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    (0..4)
                        .map(|_| transcript(&section, &pctable))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for got in h.join().unwrap() {
                assert!(got == expected, "a thread's transcript differs");
            }
        }
    });
}
