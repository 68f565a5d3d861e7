//! Lookups through the PC map (docs/stackmap-v2.md, "PC map") give the
//! answer of a plain scan of the frame records and records, for every PC,
//! whether the program's layout is the one the map was written for or a
//! linker moved functions apart, and whatever a corrupt map entry holds,
//! with self-relative and with absolute addresses.

use pcmap_reader::flat::{FlatStackMap, Found, Match, Pc, RecordKind};
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

/// The answer by scanning the model: the function holding the byte at
/// the PC (a return address: at the PC - 1), the record at the PC.
fn expected(t: &Table, pc: Pc, how: Match) -> Option<Found> {
    let (byte, after) = match pc {
        Pc::ReturnAddress(pc) => (pc.checked_sub(1)?, 1),
        Pc::Instruction(pc) => (pc, 0),
    };
    let f = t.functions.iter().rposition(|f| f.address <= byte)?;
    let function = &t.functions[f];
    let inside = byte - function.address;
    if function.size != 0 && inside >= u64::from(function.size) {
        return None;
    }
    let offset = inside + after;
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

/// Every PC from before the first function to after the last, as a
/// return address and as an instruction's, against the scan, both ways of
/// matching.
fn check(t: &Table, bytes: &[u8]) -> Result<(), TestCaseError> {
    let table = FlatStackMap::parse(bytes, LittleEndian).unwrap();
    let last = t.functions.last().unwrap();
    for pc in BASE - 4..last.address + u64::from(last.size) + 4 {
        for pc in [Pc::ReturnAddress(pc), Pc::Instruction(pc)] {
            for how in [Match::Exact, Match::AtOrAfter] {
                let got = table.lookup(pc, 0, how).unwrap();
                prop_assert_eq!(got, expected(t, pc, how), "pc {:?} {:?}", pc, how);
            }
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

/// A function ending with a call (a `noreturn` call, a safepoint before
/// `unreachable`) returns to its end, which is the next function's first
/// byte when nothing pads between them: looked up as a return address,
/// that PC is the earlier function's, its record at offset = size; looked
/// up as an instruction's address, it is the later function's. With and
/// without a PC map, with self-relative and absolute addresses; the last
/// function's end too, where no function follows.
#[test]
fn a_return_address_at_the_next_functions_start_is_the_calls() {
    // 70 functions of 16 bytes, back to back (a map for >= 64); each has
    // a record at its start and one at its end.
    let functions = (0..70u64)
        .map(|f| Function {
            address: BASE + 16 * f,
            code_offset: Some(16 * f),
            size: 16,
            records: vec![
                Record::new(2 * f, 0, RecordKind::StackMap),
                Record::new(2 * f + 1, 16, RecordKind::StatePoint),
            ],
            ..Function::default()
        })
        .collect();
    let t = Table {
        constants: vec![],
        functions,
    };
    for (absolute, map) in [(false, true), (true, true), (false, false), (true, false)] {
        let bytes = write_flat_placed(&t, LittleEndian, absolute, map, 0).unwrap();
        let table = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
        assert_eq!(table.has_pc_map(), map);
        for f in 0..70u32 {
            let end = BASE + 16 * u64::from(f) + 16;
            let found = |pc| table.lookup(pc, 0, Match::Exact).unwrap();
            let call = found(Pc::ReturnAddress(end)).expect("the call's record");
            assert_eq!(
                (call.function, call.record),
                (f, 2 * f + 1),
                "{absolute} {map}"
            );
            let (_, start, _) = table
                .find_function(Pc::ReturnAddress(end), 0)
                .unwrap()
                .unwrap();
            assert_eq!(start, end - 16);
            let next = found(Pc::Instruction(end));
            let after = table.find_function(Pc::Instruction(end), 0).unwrap();
            if f + 1 < 70 {
                let next = next.expect("the next function's first record");
                assert_eq!((next.function, next.record), (f + 1, 2 * f + 2));
                assert_eq!(after.unwrap().1, end);
            } else {
                assert_eq!((next, after.map(|a| a.0)), (None, None));
            }
            // A function's start is never a return address into it.
            let start = end - 16;
            let before = found(Pc::ReturnAddress(start));
            assert_eq!(before.map(|b| b.function), f.checked_sub(1));
        }
    }
}
