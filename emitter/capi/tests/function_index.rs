//! Lookups use the function index and PC map when a table has them, agree
//! with the frame-record search, and fall back to it when an index entry is
//! corrupt or the map does not fit the program's layout.

use std::mem::MaybeUninit;

use pcmap_capi::ffi::{pcmap_find, pcmap_open, pcmap_validate};
use pcmap_capi::{pcmap_record, pcmap_stackmaps, pcmap_status, Section};
use pcmap_reader::flat::{FlatStackMap, RecordKind, PC_MAP_RECORDS_PER_BUCKET};
use pcmap_reader::stackmap::{write_flat_with, Function, Record, Table};
use pcmap_reader::LittleEndian;

const FUNCTIONS: u64 = 100;

/// Functions 0x40 apart at 0x10_0000, or with a gap of `gap` bytes before
/// function 60 (a linker that moved them apart after `pcmap emit`); with
/// `map`, a PC map from their positions without the gap.
fn table_with(map: bool, gap: u64) -> Table {
    let functions = (0..FUNCTIONS)
        .map(|f| Function {
            address: 0x10_0000 + 0x40 * f + if f >= 60 { gap } else { 0 },
            code_offset: map.then_some(0x40 * f),
            size: 0x30,
            records: (0..3u32)
                .map(|r| Record {
                    id: f * 10 + u64::from(r),
                    instruction_offset: 8 * (r + 1),
                    patchable_size: None,
                    kind: RecordKind::StatePoint,
                    has_live_out_info: false,
                    locations: vec![],
                    live_outs: vec![],
                })
                .collect(),
            ..Function::default()
        })
        .collect();
    Table {
        constants: vec![],
        functions,
    }
}

fn table() -> Table {
    table_with(false, 0)
}

/// The table at address 0, with or without the index, relocated as a
/// linker would.
fn bytes(index: bool) -> (Vec<u8>, Vec<usize>) {
    relocated(&table(), index)
}

fn relocated(t: &Table, index: bool) -> (Vec<u8>, Vec<usize>) {
    let w = write_flat_with(t, LittleEndian, false, index).unwrap();
    let mut b = w.bytes;
    for (i, f) in t.functions.iter().enumerate() {
        let at = w.address_offsets[i];
        b[at..at + 8].copy_from_slice(&(f.address as i64 - at as i64).to_le_bytes());
        if index {
            let at = w.index_offsets[i];
            b[at..at + 4].copy_from_slice(&((f.address as i64 - at as i64) as i32).to_le_bytes());
        }
    }
    (b, w.index_offsets)
}

fn ids(b: &[u8]) -> Vec<Option<u64>> {
    ids_in(b, 0x10_0000 - 8..0x10_0000 + 0x40 * FUNCTIONS + 8)
}

fn ids_in(b: &[u8], pcs: std::ops::Range<u64>) -> Vec<Option<u64>> {
    let s = Section::new(b, 0);
    let mut m = MaybeUninit::<pcmap_stackmaps>::uninit();
    assert_eq!(
        // SAFETY: `b` is readable, `m` writable.
        unsafe { pcmap_open(m.as_mut_ptr(), b.as_ptr().cast(), b.len(), 0) },
        pcmap_status::PCMAP_OK
    );
    // SAFETY: written on OK.
    let m = unsafe { m.assume_init() };
    pcs.map(|pc| {
        let plain = s.find(pc).unwrap().map(|(_, r)| r.id);
        let mut r = MaybeUninit::<pcmap_record>::uninit();
        // SAFETY: `m` is open over `b`; `r` writable.
        let st = unsafe { pcmap_find(&m, pc, std::ptr::null_mut(), r.as_mut_ptr()) };
        let c = match st {
            // SAFETY: written on OK.
            pcmap_status::PCMAP_OK => Some(unsafe { r.assume_init() }.id),
            pcmap_status::PCMAP_NOT_FOUND => None,
            e => panic!("{e:?}"),
        };
        assert_eq!(plain, c, "pc {pc:#x}");
        plain
    })
    .collect()
}

#[test]
fn lookups_with_the_index_agree_with_the_frame_record_search() {
    let (with, _) = bytes(true);
    let (without, _) = bytes(false);
    assert_ne!(with.len(), without.len());
    let found = ids(&with);
    assert_eq!(found, ids(&without));
    assert_eq!(found.iter().flatten().count() as u64, FUNCTIONS * 3);
}

#[test]
fn a_corrupt_index_entry_falls_back_to_the_frame_records_and_fails_validation() {
    let (good, index) = bytes(true);
    let expected = ids(&good);
    for (i, delta) in [
        (0usize, 0x40i32),
        (37, -0x40),
        (50, 0x1000),
        (99, -0x10_0000),
    ] {
        let mut b = good.clone();
        let at = index[i];
        let v = i32::from_le_bytes(b[at..at + 4].try_into().unwrap()) + delta;
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        assert_eq!(ids(&b), expected, "entry {i} {delta:+#x}");
        let mut m = MaybeUninit::<pcmap_stackmaps>::uninit();
        // SAFETY: as above.
        unsafe {
            assert_eq!(
                pcmap_open(m.as_mut_ptr(), b.as_ptr().cast(), b.len(), 0),
                pcmap_status::PCMAP_OK
            );
            assert_ne!(pcmap_validate(m.as_ptr()), pcmap_status::PCMAP_OK);
        }
    }
}

#[test]
fn lookups_with_the_pc_map_agree_even_where_it_does_not_fit() {
    for gap in [0, 0x40, 0x1_0000] {
        let (plain, _) = relocated(&table_with(false, gap), true);
        let (mapped, _) = relocated(&table_with(true, gap), true);
        let t = FlatStackMap::parse(&mapped, LittleEndian).unwrap();
        assert!(t.has_pc_map());
        // 300 records: at most one bucket of 2^shift bytes per
        // PC_MAP_RECORDS_PER_BUCKET records.
        let most = (300 / PC_MAP_RECORDS_PER_BUCKET) as u32;
        assert!(t.num_pc_map_entries() <= most, "{}", t.num_pc_map_entries());
        t.validate().unwrap();
        let pcs = 0x10_0000 - 8..0x10_0000 + 0x40 * FUNCTIONS + gap + 8;
        let found = ids_in(&mapped, pcs.clone());
        assert_eq!(found, ids_in(&plain, pcs), "gap {gap:#x}");
        assert_eq!(found.iter().flatten().count() as u64, FUNCTIONS * 3);
    }
}

#[test]
fn corrupt_pc_map_entries_change_no_answer_and_fail_validation() {
    let (good, _) = relocated(&table_with(true, 0), true);
    let t = FlatStackMap::parse(&good, LittleEndian).unwrap();
    let entries = t.num_pc_map_entries() as usize;
    let map_start = good.len() - 8 * entries;
    let expected = ids(&good);
    // (bucket, field: 0 function, 1 record, value)
    for (bucket, field, value) in [
        (0usize, 0, 99u32),
        (3, 0, 0),
        (7, 0, 1000),
        (24, 0, u32::MAX),
        (0, 1, 299),
        (5, 1, 0),
        (40, 1, 301),
        (entries - 1, 1, u32::MAX),
    ] {
        let mut b = good.clone();
        let at = map_start + 8 * bucket.min(entries - 1) + 4 * field;
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        assert_eq!(ids(&b), expected, "bucket {bucket}.{field} = {value}");
        let t = FlatStackMap::parse(&b, LittleEndian).unwrap();
        assert!(t.validate().is_err(), "bucket {bucket}.{field} = {value}");
    }
}

/// Every single-byte corruption of a table with an index and a PC map:
/// `pcmap_open` and `pcmap_find` (over the kept headers, through the map)
/// return a status and never panic (debug builds check every arithmetic
/// overflow) or read outside the section.
#[test]
fn every_byte_of_a_mapped_table_corrupted_never_panics() {
    let (good, _) = relocated(&table_with(true, 0), true);
    let pcs: Vec<u64> = (0..FUNCTIONS)
        .step_by(7)
        .flat_map(|f| [0x10_0000 + 0x40 * f + 8, 0x10_0000 + 0x40 * f + 12])
        .collect();
    for at in 0..good.len() {
        for value in [0x00, 0x01, 0x7f, 0xff] {
            let mut bad = good.clone();
            bad[at] = value;
            let mut m = MaybeUninit::<pcmap_stackmaps>::uninit();
            // SAFETY: `bad` is readable, `m` writable.
            let opened = unsafe { pcmap_open(m.as_mut_ptr(), bad.as_ptr().cast(), bad.len(), 0) };
            if opened != pcmap_status::PCMAP_OK {
                continue;
            }
            // SAFETY: written on OK.
            let m = unsafe { m.assume_init() };
            for &pc in &pcs {
                let mut r = MaybeUninit::<pcmap_record>::uninit();
                // SAFETY: `m` is open over `bad`; `r` writable.
                let _ = unsafe { pcmap_find(&m, pc, std::ptr::null_mut(), r.as_mut_ptr()) };
            }
        }
    }
}
