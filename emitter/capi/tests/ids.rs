//! Records by ID (`pcmap_find_id`, with the caller's index and without) and
//! the patch region holding a return address (`pcmap_find_patch_region`),
//! through the C API's functions, on a two-table section whose IDs repeat
//! within a function, across functions and across tables.

use pcmap_capi::ffi::*;
use pcmap_capi::*;
use pcmap_reader::flat::RecordKind;
use pcmap_reader::stackmap::{write_flat, Function, Record, Table};
use pcmap_reader::LittleEndian;

const SECTION: u64 = 0x7000_0000;

fn record(id: u64, offset: u32, kind: RecordKind, size: Option<u32>) -> Record {
    Record {
        id,
        instruction_offset: offset,
        patchable_size: size,
        kind,
        has_live_out_info: kind == RecordKind::PatchPoint,
        locations: vec![],
        live_outs: vec![],
        frame_state: None,
    }
}

fn function(address: u64, records: Vec<Record>) -> Function {
    Function {
        address,
        size: 0x100,
        stack_size: 8,
        records,
        code_offset: None,
    }
}

/// (ID, record address) of every record, in section order.
fn section() -> (Vec<u8>, Vec<(u64, u64)>) {
    use RecordKind::*;
    let tables = [
        Table {
            constants: vec![],
            functions: vec![
                function(
                    0x1000,
                    vec![
                        record(7, 0x10, PatchPoint, Some(13)),
                        record(9, 0x40, StatePoint, Some(5)),
                        // A second site with ID 7 in one function.
                        record(7, 0x60, PatchPoint, Some(16)),
                    ],
                ),
                function(
                    0x2000,
                    vec![
                        record(3, 0x8, StackMap, Some(8)),
                        record(7, 0x20, PatchPoint, None),
                    ],
                ),
            ],
        },
        Table {
            constants: vec![],
            functions: vec![function(
                0x3000,
                vec![
                    record(7, 0x4, PatchPoint, Some(0)),
                    record(1, 0x30, Unknown, Some(20)),
                ],
            )],
        },
    ];
    let mut bytes = Vec::new();
    let mut ids = Vec::new();
    for t in &tables {
        bytes.resize(bytes.len().next_multiple_of(8), 0);
        bytes.extend(write_flat(t, LittleEndian, true).unwrap().bytes);
        for f in &t.functions {
            for r in &f.records {
                ids.push((r.id, f.address + u64::from(r.instruction_offset)));
            }
        }
    }
    (bytes, ids)
}

fn open(bytes: &[u8]) -> pcmap_stackmaps {
    let mut m = std::mem::MaybeUninit::uninit();
    // SAFETY: the bytes outlive `m`'s uses in each test.
    let s = unsafe { pcmap_open(m.as_mut_ptr(), bytes.as_ptr().cast(), bytes.len(), SECTION) };
    assert_eq!(s, pcmap_status::PCMAP_OK);
    // SAFETY: pcmap_open returned OK: written.
    unsafe { m.assume_init() }
}

/// Addresses of the records `pcmap_find_id` gives for `id`, n = 0, 1, ...
fn by_id(m: &pcmap_stackmaps, index: Option<&pcmap_id_index>, id: u64) -> Vec<u64> {
    let ix = index.map_or(std::ptr::null(), |i| i as *const _);
    let mut out = Vec::new();
    // Bounded: a lookup that never says NOT_FOUND fails, not loops.
    for n in 0..16 {
        let mut f = std::mem::MaybeUninit::<pcmap_function>::uninit();
        let mut r = std::mem::MaybeUninit::<pcmap_record>::uninit();
        // SAFETY: `m` is open; `ix` is NULL or built for it.
        let s = unsafe { pcmap_find_id(m, ix, id, n, f.as_mut_ptr(), r.as_mut_ptr()) };
        if s == pcmap_status::PCMAP_NOT_FOUND {
            break;
        }
        assert_eq!(s, pcmap_status::PCMAP_OK);
        // SAFETY: written on OK.
        let (f, r) = unsafe { (f.assume_init(), r.assume_init()) };
        assert_eq!(r.id, id);
        assert_eq!(r.address, f.address + u64::from(r.instruction_offset));
        out.push(r.address);
    }
    assert!(out.len() < 16, "ID {id}: no end");
    out
}

#[test]
fn find_id_gives_every_record_of_an_id_in_section_order() {
    let (bytes, ids) = section();
    let m = open(&bytes);
    let mut size = 0usize;
    // SAFETY: `m` is open.
    let s = unsafe { pcmap_id_index_size(&m, &mut size) };
    assert_eq!(s, pcmap_status::PCMAP_OK);
    assert_eq!(size, ids.len() * 24);
    let mut buffer = vec![0u64; size / 8];
    let mut index = std::mem::MaybeUninit::uninit();
    // One entry short: refused, not overrun.
    // SAFETY: `buffer` holds `size` bytes.
    let short = unsafe {
        pcmap_id_index_build(
            &m,
            buffer.as_mut_ptr().cast(),
            size - 24,
            index.as_mut_ptr(),
        )
    };
    assert_eq!(short, pcmap_status::PCMAP_ERR_ARGUMENT);
    // SAFETY: as above, the whole buffer.
    let s =
        unsafe { pcmap_id_index_build(&m, buffer.as_mut_ptr().cast(), size, index.as_mut_ptr()) };
    assert_eq!(s, pcmap_status::PCMAP_OK);
    // SAFETY: written on OK.
    let index = unsafe { index.assume_init() };
    for id in [0, 1, 3, 7, 9, 10, u64::MAX] {
        let want: Vec<u64> = ids.iter().filter(|r| r.0 == id).map(|r| r.1).collect();
        assert_eq!(by_id(&m, None, id), want, "scan, ID {id}");
        assert_eq!(by_id(&m, Some(&index), id), want, "index, ID {id}");
    }
    assert_eq!(by_id(&m, None, 7).len(), 4);
}

#[test]
fn a_return_address_inside_a_patch_region_finds_its_record() {
    let (bytes, _) = section();
    let m = open(&bytes);
    let region = |pc: u64| {
        let mut r = std::mem::MaybeUninit::<pcmap_record>::uninit();
        // SAFETY: `m` is open.
        match unsafe { pcmap_find_patch_region(&m, pc, std::ptr::null_mut(), r.as_mut_ptr()) } {
            // SAFETY: written on OK.
            pcmap_status::PCMAP_OK => Some(unsafe { r.assume_init() }.address),
            pcmap_status::PCMAP_NOT_FOUND => None,
            s => panic!("{s:?}"),
        }
    };
    // The patch point at 0x1010, 13 bytes: a call in it returns to
    // 0x1011..=0x101d; at 0x1010 a call before the region returns.
    assert_eq!(region(0x1010), None);
    assert_eq!(region(0x1011), Some(0x1010));
    assert_eq!(region(0x101d), Some(0x1010));
    assert_eq!(region(0x101e), None);
    // Statepoints' patch bytes end at the record: not a region here.
    assert_eq!(region(0x1041), None);
    assert_eq!(region(0x1070), Some(0x1060));
    // A stack map's shadow; a size not known; a size of 0.
    assert_eq!(region(0x2010), Some(0x2008));
    assert_eq!(region(0x2021), None);
    assert_eq!(region(0x3005), None);
    // A record of unknown kind; outside every function.
    assert_eq!(region(0x3031), None);
    assert_eq!(region(0x5000), None);
    // pcmap_find matches record addresses only.
    let mut r = std::mem::MaybeUninit::<pcmap_record>::uninit();
    // SAFETY: `m` is open.
    let s = unsafe { pcmap_find(&m, 0x101d, std::ptr::null_mut(), r.as_mut_ptr()) };
    assert_eq!(s, pcmap_status::PCMAP_NOT_FOUND);
}
