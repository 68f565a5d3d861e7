//! Lookups through the PC map (docs/stackmap-v2.md, "PC map") give the
//! answer of a plain scan of the frame records and records, for every PC,
//! whether the program's layout is the one the map was written for or a
//! linker moved functions apart, and whatever a corrupt map entry holds,
//! with self-relative and with absolute addresses.

use pcmap_reader::flat::{FlatStackMap, Found, Match, RecordKind};
use pcmap_reader::stackmap::{write_flat_placed, Function, Record, Table};
use pcmap_reader::LittleEndian;
use proptest::prelude::*;

/// Where the first function is at run time.
const BASE: u64 = 0x40_0000;

/// A function: size, padding before it when the map was written, padding
/// before it at run time (a linker that laid the code out otherwise), and
/// record offsets.
type Shape = (u32, u64, u64, Vec<u32>);

/// Functions laid out one after another with their sizes rounded to 16 and
/// their paddings: the map's layout (code offsets) and the run-time one
/// (addresses from `BASE`).
fn table(shape: &[Shape]) -> Table {
    let (mut code, mut address) = (0u64, BASE);
    let functions = shape
        .iter()
        .enumerate()
        .map(|(f, (size, pad, gap, offsets))| {
            if f > 0 {
                code += pad;
                address += gap;
            }
            let mut offsets = offsets.clone();
            offsets.sort_unstable();
            let function = Function {
                address,
                code_offset: Some(code),
                size: *size,
                records: offsets
                    .iter()
                    .enumerate()
                    .map(|(r, &instruction_offset)| {
                        Record::new(
                            (f * 1000 + r) as u64,
                            instruction_offset,
                            RecordKind::StatePoint,
                        )
                    })
                    .collect(),
                ..Function::default()
            };
            let rounded = u64::from(*size).next_multiple_of(16).max(16);
            code += rounded;
            address += rounded;
            function
        })
        .collect();
    Table {
        constants: vec![],
        functions,
    }
}

/// The table at address 0 with its address fields relocated (self-relative,
/// or with `absolute` the Addresses entries).
fn relocated(t: &Table, absolute: bool) -> Vec<u8> {
    write_flat_placed(t, LittleEndian, absolute, true, 0).unwrap()
}

/// The answer by scanning the model.
fn expected(t: &Table, pc: u64, how: Match) -> Option<Found> {
    let f = t.functions.iter().rposition(|f| f.address <= pc)?;
    let function = &t.functions[f];
    let offset = pc - function.address;
    if function.size != 0 && offset > u64::from(function.size) {
        return None;
    }
    let first: usize = t.functions[..f].iter().map(|f| f.records.len()).sum();
    let r = function
        .records
        .iter()
        .position(|r| u64::from(r.instruction_offset) >= offset)?;
    let hit = u64::from(function.records[r].instruction_offset) == offset;
    (hit || how == Match::AtOrAfter).then_some(Found {
        function: f as u32,
        address: function.address,
        record: (first + r) as u32,
    })
}

/// Every PC from before the first function to after the last, against the
/// scan, both ways of matching.
fn check(t: &Table, bytes: &[u8]) -> Result<(), TestCaseError> {
    let table = FlatStackMap::parse(bytes, LittleEndian).unwrap();
    let last = t.functions.last().unwrap();
    for pc in BASE - 4..last.address + u64::from(last.size) + 4 {
        for how in [Match::Exact, Match::AtOrAfter] {
            let got = table.lookup(pc, 0, how).unwrap();
            prop_assert_eq!(got, expected(t, pc, how), "pc {:#x} {:?}", pc, how);
        }
    }
    Ok(())
}

/// Padding: mostly none, else up to a few buckets' worth.
fn padding() -> impl Strategy<Value = u64> {
    prop_oneof![4 => Just(0u64), 1 => (1u64..0x30).prop_map(|p| p * 16)]
}

fn function() -> impl Strategy<Value = Shape> {
    // Mostly a few records; sometimes more than a lookup counts without
    // a binary search first (8).
    let records = prop_oneof![3 => 0usize..6, 1 => 6usize..24];
    (0u32..96, padding(), padding(), records).prop_flat_map(|(size, pad, gap, records)| {
        let offsets = prop::collection::vec(0..=size, records);
        (Just(size), Just(pad), Just(gap), offsets)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn map_lookups_equal_the_scan(shape in prop::collection::vec(function(), 1..80), absolute in any::<bool>()) {
        let t = table(&shape);
        let bytes = relocated(&t, absolute);
        let parsed = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
        prop_assert!(parsed.has_pc_map());
        parsed.validate().unwrap();
        check(&t, &bytes)?;
    }

    #[test]
    fn corrupt_map_entries_change_no_answer(
        shape in prop::collection::vec(function(), 1..40),
        changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u32>()), 1..4),
        absolute in any::<bool>(),
    ) {
        let t = table(&shape);
        let mut bytes = relocated(&t, absolute);
        let parsed = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
        let entries = parsed.num_pc_map_entries() as usize;
        let map = parsed.parsed_header().bounds[4] as usize;
        for (bucket, value) in changes {
            // Small values are the likely wrong ones: near indices.
            let value = if value & 1 == 0 { value % 64 } else { value };
            let at = map + 4 * bucket.index(entries);
            bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
        check(&t, &bytes)?;
    }
}
