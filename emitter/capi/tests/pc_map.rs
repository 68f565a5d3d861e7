//! Lookups through the C API use the PC map when a table has one, agree
//! with the frame-record search (the same table without a map), and fall
//! back to it where the map does not fit the program's layout or an entry
//! is corrupt; `pcmap_find` and `pcmap_find_site` agree everywhere.

use std::mem::MaybeUninit;

use pcmap_capi::ffi::{pcmap_find, pcmap_find_site, pcmap_open, pcmap_validate};
use pcmap_capi::section::find;
use pcmap_capi::{
    pcmap_record, pcmap_site, pcmap_stackmaps, pcmap_status, Section, PCMAP_CACHED_TABLES,
};
use pcmap_reader::flat::{FlatStackMap, Match, RecordKind, PC_MAP_FUNCTIONS_PER_BUCKET};
use pcmap_reader::stackmap::{write_flat_placed, Function, Record, Table};
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
                .map(|r| Record::new(f * 10 + u64::from(r), 8 * (r + 1), RecordKind::StatePoint))
                .collect(),
            ..Function::default()
        })
        .collect();
    Table {
        constants: vec![],
        functions,
    }
}

/// The table at address 0, relocated as a linker would: self-relative, or
/// with `absolute` the Addresses entries.
fn relocated(t: &Table, absolute: bool) -> Vec<u8> {
    write_flat_placed(t, LittleEndian, absolute, true, 0).unwrap()
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
        let plain = find(&s, pc, Match::Exact)
            .unwrap()
            .map(|(_, r)| (r.id, r.index));
        let mut r = MaybeUninit::<pcmap_record>::uninit();
        // SAFETY: `m` is open over `b`; `r` writable.
        let st = unsafe { pcmap_find(&m, pc, std::ptr::null_mut(), r.as_mut_ptr()) };
        let c = match st {
            // SAFETY: written on OK.
            pcmap_status::PCMAP_OK => Some(unsafe { r.assume_init() }),
            pcmap_status::PCMAP_NOT_FOUND => None,
            e => panic!("{e:?}"),
        };
        assert_eq!(plain, c.map(|r| (r.id, r.index)), "pc {pc:#x}");
        let mut site = MaybeUninit::<pcmap_site>::uninit();
        // SAFETY: as above.
        let st = unsafe { pcmap_find_site(&m, pc, site.as_mut_ptr()) };
        let lean = match st {
            // SAFETY: written on OK.
            pcmap_status::PCMAP_OK => Some(unsafe { site.assume_init() }),
            pcmap_status::PCMAP_NOT_FOUND => None,
            e => panic!("{e:?}"),
        };
        assert_eq!(
            lean.map(|s| (s.record, s.site)),
            c.map(|r| (r.index, r.site)),
            "pc {pc:#x}"
        );
        plain.map(|(id, _)| id)
    })
    .collect()
}

#[test]
fn lookups_with_the_pc_map_agree_even_where_it_does_not_fit() {
    for absolute in [false, true] {
        for gap in [0, 0x40, 0x1_0000] {
            let plain = relocated(&table_with(false, gap), absolute);
            let mapped = relocated(&table_with(true, gap), absolute);
            let t = FlatStackMap::parse(&mapped, LittleEndian).unwrap();
            assert!(t.has_pc_map());
            assert!(!FlatStackMap::parse(&plain, LittleEndian)
                .unwrap()
                .has_pc_map());
            // 100 functions: at most one bucket of 2^shift bytes per
            // PC_MAP_FUNCTIONS_PER_BUCKET functions.
            let most = (100 / PC_MAP_FUNCTIONS_PER_BUCKET) as u32;
            assert!(t.num_pc_map_entries() <= most, "{}", t.num_pc_map_entries());
            t.validate().unwrap();
            let pcs = 0x10_0000 - 8..0x10_0000 + 0x40 * FUNCTIONS + gap + 8;
            let found = ids_in(&mapped, pcs.clone());
            assert_eq!(found, ids_in(&plain, pcs), "gap {gap:#x}");
            assert_eq!(found.iter().flatten().count() as u64, FUNCTIONS * 3);
        }
    }
}

#[test]
fn corrupt_pc_map_entries_change_no_answer_and_fail_validation() {
    let good = relocated(&table_with(true, 0), false);
    let t = FlatStackMap::parse(&good, LittleEndian).unwrap();
    let entries = t.num_pc_map_entries() as usize;
    let map_start = t.parsed_header().bounds[4] as usize;
    let expected = ids(&good);
    for (bucket, value) in [
        (0usize, 99u32),
        (3, 0),
        (7, 1000),
        (24, u32::MAX),
        (40, 2),
        (entries - 1, 0),
        (entries - 1, u32::MAX),
    ] {
        let mut b = good.clone();
        let at = map_start + 4 * bucket.min(entries - 1);
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        assert_eq!(ids(&b), expected, "bucket {bucket} = {value}");
        let t = FlatStackMap::parse(&b, LittleEndian).unwrap();
        assert!(t.validate().is_err(), "bucket {bucket} = {value}");
        let mut m = MaybeUninit::<pcmap_stackmaps>::uninit();
        // SAFETY: `b` is readable, `m` writable; `m` is read after OK.
        unsafe {
            assert_eq!(
                pcmap_open(m.as_mut_ptr(), b.as_ptr().cast(), b.len(), 0),
                pcmap_status::PCMAP_OK
            );
            assert_ne!(pcmap_validate(m.as_ptr()), pcmap_status::PCMAP_OK);
        }
    }
}

/// Every single-byte corruption of a table with a PC map: `pcmap_open`,
/// `pcmap_find` and `pcmap_find_site` (over the kept headers, through the
/// map) return a status and never panic (debug builds check every
/// arithmetic overflow) or read outside the section.
#[test]
fn every_byte_of_a_mapped_table_corrupted_never_panics() {
    for absolute in [false, true] {
        let good = relocated(&table_with(true, 0), absolute);
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
                let opened =
                    unsafe { pcmap_open(m.as_mut_ptr(), bad.as_ptr().cast(), bad.len(), 0) };
                if opened != pcmap_status::PCMAP_OK {
                    continue;
                }
                // SAFETY: written on OK.
                let m = unsafe { m.assume_init() };
                for &pc in &pcs {
                    let mut r = MaybeUninit::<pcmap_record>::uninit();
                    let mut site = MaybeUninit::<pcmap_site>::uninit();
                    // SAFETY: `m` is open over `bad`; outputs writable.
                    unsafe {
                        let _ = pcmap_find(&m, pc, std::ptr::null_mut(), r.as_mut_ptr());
                        let _ = pcmap_find_site(&m, pc, site.as_mut_ptr());
                    }
                }
            }
        }
    }
}

/// A linked section of more tables than `pcmap_stackmaps` keeps headers of:
/// a lookup searches the kept ones, then parses the rest (one table: the
/// lean path; here the general one). Every answer agrees with a search of
/// the section that keeps no header, records of the last table included.
#[test]
fn lookups_in_more_tables_than_are_kept_agree() {
    let tables = PCMAP_CACHED_TABLES as u64 + 3;
    let mut bytes = Vec::new();
    for k in 0..tables {
        let mut t = table_with(true, 0);
        for f in &mut t.functions {
            f.address += k * 0x1_0000;
        }
        bytes.resize(bytes.len().next_multiple_of(8), 0);
        let at = bytes.len() as u64;
        bytes.extend(write_flat_placed(&t, LittleEndian, false, true, at).unwrap());
    }
    let mut found = 0;
    for k in 0..tables {
        let start = 0x10_0000 + k * 0x1_0000;
        // Around the first functions and the last one of table k.
        for pcs in [
            start - 8..start + 0x100,
            start + 0x40 * 98..start + 0x40 * 100 + 8,
        ] {
            let ids = ids_in(&bytes, pcs);
            if k == tables - 1 {
                found += ids.iter().flatten().count();
            }
        }
    }
    // Table k's function f has records f * 10 + 0..3 at +8, +16, +24.
    assert_eq!(found, 4 * 3 + 2 * 3);
}
