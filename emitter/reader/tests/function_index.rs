//! The flat layout's function index (docs/stackmap-v2.md, "Function index"):
//! written on request, validated against the frame records, absent by
//! default, and rejected where the header makes it impossible.

use pcmap_reader::flat::{self, FlatStackMap, RecordKind};
use pcmap_reader::stackmap::{write_flat, write_flat_with, Function, Record, Table};
use pcmap_reader::{LittleEndian, Location, LocationKind};

/// Three functions of two records; address fields hold self-relative values.
fn table() -> Table {
    let functions = (0..3u64)
        .map(|f| Function {
            address: 0x1000 + 0x100 * f,
            size: 0x80,
            stack_size: 16,
            records: (0..2)
                .map(|r| Record {
                    id: f * 10 + r,
                    instruction_offset: 8 * (r as u32 + 1),
                    locations: vec![Location {
                        kind: LocationKind::Indirect,
                        size: 8,
                        dwarf_reg: 7,
                        offset: 8,
                    }],
                    patchable_size: None,
                    kind: RecordKind::StackMap,
                    has_live_out_info: false,
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

#[test]
fn index_is_written_validated_and_agrees_with_the_frame_records() {
    let w = write_flat_with(&table(), LittleEndian, false, true).unwrap();
    let t = FlatStackMap::parse(&w.bytes, LittleEndian).unwrap();
    assert!(t.has_function_index());
    assert_eq!(t.flags() & flat::FUNCTION_INDEX, flat::FUNCTION_INDEX);
    assert_eq!(t.num_function_index_entries(), 3);
    assert_eq!(w.index_offsets.len(), 3);
    assert_eq!(
        *w.index_offsets.last().unwrap() + flat::FUNCTION_INDEX_ENTRY_SIZE,
        t.table_size() as usize
    );
    t.validate().unwrap();
    for i in 0..3 {
        assert_eq!(
            t.function_index_offset(i).unwrap(),
            w.index_offsets[i as usize]
        );
        for base in [0, 0x7000_0000] {
            assert_eq!(
                t.function_index_address(i, base).unwrap(),
                t.function_address(i, base).unwrap()
            );
        }
    }
    // 4 bytes per function more than without, nothing else changes.
    let plain = write_flat(&table(), LittleEndian, false).unwrap();
    assert_eq!(w.bytes.len(), plain.bytes.len() + 3 * 4);
    assert_eq!(w.bytes[12..32], plain.bytes[12..32]);
}

#[test]
fn index_is_absent_by_default_and_with_absolute_addresses() {
    for (absolute, index) in [(false, false), (true, true)] {
        let w = write_flat_with(&table(), LittleEndian, absolute, index).unwrap();
        let t = FlatStackMap::parse(&w.bytes, LittleEndian).unwrap();
        assert!(!t.has_function_index());
        assert_eq!(t.num_function_index_entries(), 0);
        assert!(w.index_offsets.is_empty());
        assert!(t.function_index_address(0, 0).is_err());
        t.validate().unwrap();
    }
}

#[test]
fn an_index_entry_that_differs_from_its_frame_record_fails_validation() {
    let w = write_flat_with(&table(), LittleEndian, false, true).unwrap();
    let mut bytes = w.bytes.clone();
    bytes[w.index_offsets[1]] ^= 0x40;
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    assert!(t.validate().is_err());
}

#[test]
fn impossible_index_headers_are_rejected() {
    let w = write_flat_with(&table(), LittleEndian, false, true).unwrap();
    // With absolute addresses.
    let mut bytes = w.bytes.clone();
    bytes[5] |= flat::ABSOLUTE_ADDRESSES;
    assert!(FlatStackMap::parse(&bytes, LittleEndian).is_err());
    // The flag on a table without room for it: the live-outs would have to
    // end before the frame registers.
    let plain = write_flat(&table(), LittleEndian, false).unwrap();
    let mut bytes = plain.bytes.clone();
    bytes[5] |= flat::FUNCTION_INDEX;
    let t = FlatStackMap::parse(&bytes, LittleEndian);
    // Either rejected, or (if the last arrays happen to be long enough) its
    // index disagrees with the frame records.
    assert!(t.is_err() || t.unwrap().validate().is_err());
}
