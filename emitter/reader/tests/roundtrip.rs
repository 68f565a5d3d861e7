//! Writer/reader pairs: what a writer writes, its reader reads back the same;
//! every prefix of a table is rejected with an error, never a panic.

use pcmap_reader::flat::{Cfa, FlatStackMap, FrameRegister, RecordKind};
use pcmap_reader::llvm::LlvmStackMap;
use pcmap_reader::stackmap::{write_flat, write_llvm, FrameState, Function, Record, Table};
use pcmap_reader::{
    BigEndian, Endian, LittleEndian, LiveOut, Location, LocationKind, RunTimeEndian,
};
use proptest::prelude::*;

/// Sizes LLVM writes (1..64, 8 most often) and vector deopt values up to
/// LLVM's u16 field's limit.
fn size() -> impl Strategy<Value = u16> {
    prop_oneof![4 => Just(8u16), 4 => 1u16..=64, 1 => any::<u16>(), 1 => Just(u16::MAX), 1 => Just(8192u16)]
}

/// DWARF registers: small ones, any u16, the largest.
fn register() -> impl Strategy<Value = u16> {
    prop_oneof![4 => 0u16..32, 1 => any::<u16>(), 1 => Just(u16::MAX)]
}

fn location(num_constants: usize) -> impl Strategy<Value = Location> {
    (1u8..=5, size(), register(), any::<i32>()).prop_map(move |(k, size, reg, off)| {
        let kind = LocationKind::from_u8(k).unwrap();
        match kind {
            LocationKind::ConstantIndex if num_constants == 0 => Location {
                kind: LocationKind::Constant,
                size,
                dwarf_reg: 0,
                offset: off,
            },
            LocationKind::ConstantIndex => Location {
                kind,
                size,
                dwarf_reg: 0,
                offset: (off as u32 % num_constants as u32) as i32,
            },
            _ => Location {
                kind,
                size,
                dwarf_reg: reg,
                offset: off,
            },
        }
    })
}

/// A frame state: a CFA rule or none (an expression), saved registers in
/// register order (unique), slots anywhere an i32 reaches.
fn frame_state() -> impl Strategy<Value = FrameState> {
    // Multiples of 8 (stored scaled, as real frames have) or any i32.
    let offset = || {
        prop_oneof![
            (i32::MIN / 8..=i32::MAX / 8).prop_map(|o| o * 8),
            any::<i32>()
        ]
    };
    (
        prop::option::of((register(), offset())),
        any::<bool>(),
        prop::collection::btree_map(register(), offset(), 0..5),
    )
        .prop_map(|(cfa, stack_realigned, saved)| FrameState {
            cfa: cfa.map(|(register, offset)| Cfa { register, offset }),
            stack_realigned,
            saved: saved
                .into_iter()
                .map(|(dwarf_reg, offset)| FrameRegister { dwarf_reg, offset })
                .collect(),
        })
}

fn record(num_constants: usize) -> impl Strategy<Value = Record> {
    (
        (any::<u64>(), prop_oneof![Just(0u64), 0..300u64]),
        any::<u32>(),
        prop::collection::vec(location(num_constants), 0..6),
        prop::collection::vec((register(), any::<u8>()), 0..4),
        (0u8..4, prop::option::of(any::<u32>())),
        prop::option::of(frame_state()),
    )
        .prop_map(
            |((id, small), off, locations, live_outs, (kind, patchable_size), frame_state)| {
                Record {
                    // Small IDs are the usual ones.
                    id: if small > 0 { small } else { id },
                    instruction_offset: off,
                    patchable_size,
                    kind: RecordKind::from_u8(kind).unwrap(),
                    has_live_out_info: !live_outs.is_empty(),
                    locations,
                    live_outs: live_outs
                        .into_iter()
                        .map(|(dwarf_reg, size)| LiveOut { dwarf_reg, size })
                        .collect(),
                    frame_state,
                }
            },
        )
}

fn table() -> impl Strategy<Value = Table> {
    prop::collection::vec(any::<u64>(), 0..4).prop_flat_map(|constants| {
        let n = constants.len();
        let function = (
            prop_oneof![0u64..100_000, Just(u64::MAX)],
            prop::collection::vec(record(n), 0..5),
        )
            .prop_map(|(stack_size, records)| Function {
                stack_size,
                records,
                ..Function::default()
            });
        prop::collection::vec(function, 0..4).prop_map(move |functions| Table {
            constants: constants.clone(),
            functions,
        })
    })
}

/// The table as a flat table must describe it: records sorted per function.
fn sorted(mut t: Table) -> Table {
    for f in &mut t.functions {
        f.records.sort_by_key(|r| r.instruction_offset);
    }
    t
}

/// What LLVM's layout can say: no kinds, sizes or frame information.
fn as_llvm_says(mut t: Table) -> Table {
    for r in t.functions.iter_mut().flat_map(|f| &mut f.records) {
        r.frame_state = None;
        r.kind = RecordKind::Unknown;
        r.patchable_size = None;
        r.has_live_out_info = !r.live_outs.is_empty();
    }
    t
}

fn flat_round_trip<E: Endian>(t: &Table, e: E) -> Table {
    let out = write_flat(t, e, false).unwrap();
    let back = FlatStackMap::parse(&out.bytes, e).unwrap();
    assert_eq!(back.table_size() as usize, out.bytes.len());
    Table::from_flat(&back).unwrap()
}

proptest! {
    #[test]
    fn flat_writer_reader(t in table(), big in any::<bool>()) {
        let back = if big { flat_round_trip(&t, BigEndian) } else { flat_round_trip(&t, LittleEndian) };
        prop_assert_eq!(back, sorted(t));
    }

    #[test]
    fn llvm_writer_reader(t in table(), version in 2u8..=3, big in any::<bool>()) {
        // LLVM's versions 1 and 2 hold a location's size in a byte.
        let mut t = t;
        if version < 3 {
            for l in t.functions.iter_mut().flat_map(|f| &mut f.records).flat_map(|r| &mut r.locations) {
                l.size &= 0xff;
            }
        }
        let e = if big { RunTimeEndian::Big } else { RunTimeEndian::Little };
        let bytes = write_llvm(&t, e, version).unwrap();
        let map = LlvmStackMap::parse(&bytes, e).unwrap();
        prop_assert_eq!(map.size(), bytes.len());
        let back = Table::from_llvm(&map).unwrap();
        prop_assert_eq!(back, as_llvm_says(t));
    }

    #[test]
    fn llvm_to_flat(t in table()) {
        // v3 -> model -> flat -> model keeps every record.
        let bytes = write_llvm(&t, LittleEndian, 3).unwrap();
        let from_v3 = Table::from_llvm(&LlvmStackMap::parse(&bytes, LittleEndian).unwrap()).unwrap();
        prop_assert_eq!(flat_round_trip(&from_v3, LittleEndian), sorted(from_v3));
    }

    #[test]
    fn garbage_never_panics(data in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = LlvmStackMap::parse(&data, LittleEndian).map(|m| Table::from_llvm(&m));
        if let Ok(t) = FlatStackMap::parse(&data, BigEndian) {
            let _ = t.validate();
            let _ = Table::from_flat(&t);
        }
    }
}

/// Counts of a byte and over (0x7f, 0x80, 300 locations and live-outs)
/// round-trip: the count's reserved byte grows to two where needed, and
/// what follows moves with it.
#[test]
fn long_counts_round_trip() {
    for n in [0x7f, 0x80, 300] {
        let record = Record {
            id: 1,
            instruction_offset: 4,
            patchable_size: Some(8),
            kind: RecordKind::PatchPoint,
            has_live_out_info: true,
            locations: (0..n)
                .map(|i| Location {
                    kind: LocationKind::Indirect,
                    size: 8,
                    dwarf_reg: 7,
                    offset: i * 8,
                })
                .collect(),
            live_outs: (0..n)
                .map(|i| LiveOut {
                    dwarf_reg: i as u16,
                    size: 8,
                })
                .collect(),
            frame_state: Some(state(16)),
        };
        let t = Table {
            constants: vec![],
            functions: vec![Function {
                stack_size: 8,
                records: vec![
                    record.clone(),
                    Record {
                        id: 2,
                        instruction_offset: 9,
                        ..record
                    },
                ],
                ..Function::default()
            }],
        };
        assert_eq!(flat_round_trip(&t, LittleEndian), t, "{n}");
    }
}

/// Frame state of an x86-64 function with RBP saved at CFA-16, given the
/// CFA offset.
fn state(cfa_offset: i32) -> FrameState {
    FrameState::new(7, cfa_offset, [(6, -16), (16, -8)])
}

fn sample() -> Table {
    let loc = |kind, reg, offset| Location {
        kind,
        size: 8,
        dwarf_reg: reg,
        offset,
    };
    Table {
        constants: vec![1 << 40, u64::MAX],
        functions: vec![
            Function {
                stack_size: 40,
                size: 64,
                records: vec![
                    Record {
                        id: 7,
                        instruction_offset: 30,
                        patchable_size: Some(5),
                        kind: RecordKind::StatePoint,
                        has_live_out_info: false,
                        locations: vec![
                            loc(LocationKind::Constant, 0, -1),
                            loc(LocationKind::ConstantIndex, 0, 1),
                        ],
                        live_outs: vec![],
                        // Arguments pushed for the call: a larger CFA offset.
                        frame_state: Some(state(64)),
                    },
                    Record {
                        id: 8,
                        instruction_offset: 10,
                        patchable_size: Some(300),
                        kind: RecordKind::PatchPoint,
                        has_live_out_info: true,
                        locations: vec![
                            loc(LocationKind::Indirect, 7, 16),
                            loc(LocationKind::Direct, 6, -8),
                        ],
                        live_outs: vec![LiveOut {
                            dwarf_reg: 3,
                            size: 8,
                        }],
                        frame_state: Some(state(48)),
                    },
                ],
                ..Function::default()
            },
            Function {
                stack_size: u64::MAX,
                ..Function::default()
            },
        ],
    }
}

#[test]
fn every_prefix_of_a_flat_table_is_an_error() {
    let bytes = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    for n in 0..bytes.len() {
        let r = FlatStackMap::parse(&bytes[..n], LittleEndian).and_then(|t| t.validate());
        assert!(r.is_err(), "prefix of {n} bytes accepted");
    }
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    t.validate().unwrap();
    assert_eq!(Table::from_flat(&t).unwrap(), sorted(sample()));
}

#[test]
fn every_prefix_of_an_llvm_table_is_an_error() {
    for version in 1..=3 {
        let mut t = sample();
        if version == 1 {
            t.functions.truncate(1);
        }
        let bytes = write_llvm(&t, BigEndian, version).unwrap();
        for n in 0..bytes.len() {
            assert!(
                LlvmStackMap::parse(&bytes[..n], BigEndian).is_err(),
                "v{version}: prefix {n} accepted"
            );
        }
        assert_eq!(
            LlvmStackMap::parse(&bytes, BigEndian).unwrap().size(),
            bytes.len()
        );
    }
}

#[test]
fn flat_is_never_llvm_and_llvm_never_flat() {
    let flat = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    assert!(LlvmStackMap::parse(&flat, LittleEndian).is_err());
    for version in 1..=3 {
        let mut t = sample();
        t.functions.truncate(1);
        let llvm = write_llvm(&t, LittleEndian, version).unwrap();
        assert_eq!(
            FlatStackMap::parse(&llvm, LittleEndian).unwrap_err(),
            pcmap_reader::Error::BadMagic
        );
    }
}

#[test]
fn wrong_byte_order_is_rejected() {
    let flat = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    assert_eq!(
        FlatStackMap::parse(&flat, BigEndian).unwrap_err(),
        pcmap_reader::Error::WrongByteOrder
    );
}

/// Offset of the records array of a table without a PC map: after the
/// 24-byte header and the 16-byte frame records.
fn records_at(bytes: &[u8]) -> usize {
    24 + 16 * u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize
}

#[test]
fn binary_search_and_sorting() {
    let bytes = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    let f = t.frame_record(0).unwrap();
    let id = |off| {
        let (_, r) = t.find_record(&f, off).unwrap()?;
        Some(t.site(r.site).unwrap().id)
    };
    assert_eq!((id(30), id(10), id(11)), (Some(7), Some(8), None));
    // Unsort the records by hand: validate must notice.
    let mut bad = bytes.clone();
    let rec = records_at(&bytes);
    bad[rec..rec + 4].copy_from_slice(&40u32.to_le_bytes());
    let t = FlatStackMap::parse(&bad, LittleEndian).unwrap();
    assert!(matches!(
        t.validate(),
        Err(pcmap_reader::Error::NotSorted { .. })
    ));
    // A record past its function's end (64 bytes).
    let mut bad = bytes.clone();
    bad[rec + 8..rec + 12].copy_from_slice(&65u32.to_le_bytes());
    let t = FlatStackMap::parse(&bad, LittleEndian).unwrap();
    assert!(t.validate().is_err());
}

#[test]
fn identical_sites_and_frame_states_are_stored_once() {
    let mut t = sample();
    let r = t.functions[0].records[0].clone();
    t.functions[0].records.extend(std::iter::repeat_n(r, 50));
    let w = write_flat(&t, LittleEndian, false).unwrap();
    assert_eq!((w.sites, w.frame_states), (2, 2));
    let flat = FlatStackMap::parse(&w.bytes, LittleEndian).unwrap();
    assert_eq!(flat.num_records(), 52);
    let one = write_flat(&sample(), LittleEndian, false).unwrap();
    assert_eq!(w.bytes.len(), one.bytes.len() + 50 * 8);
    // The same frame state at another record: stored once, one Site each.
    let mut t = sample();
    t.functions[0].records[0].frame_state = Some(state(48));
    let w = write_flat(&t, LittleEndian, false).unwrap();
    assert_eq!((w.sites, w.frame_states), (2, 1));
    let flat = FlatStackMap::parse(&w.bytes, LittleEndian).unwrap();
    let states: Vec<_> = (0..2)
        .map(|i| {
            let site = flat.site(flat.record(i).unwrap().site).unwrap();
            site.frame_state.unwrap()
        })
        .collect();
    assert_eq!(states[0], states[1]);
}

#[test]
fn tables_walk_concatenated_sections() {
    let a = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    // The next table starts 8-aligned; a linker may pad with more zeros.
    let next = a.len().div_ceil(8) * 8 + 8;
    let mut section = a.clone();
    section.resize(next, 0);
    section.extend_from_slice(&a);
    let tables: Vec<_> = FlatStackMap::tables(&section, LittleEndian)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(tables.len(), 2);
    assert_eq!(tables[0].1.table_size() as usize, a.len());
    assert_eq!(tables[1].0, next);
}

/// Each record has its own frame state: the CFA rule at the record, saved
/// registers relative to the CFA, any i32 (no i16 limit as in version 1),
/// and a CFA that is an expression (no rule) says so.
#[test]
fn frame_states_are_per_record() {
    let mut t = sample();
    t.functions[0].records[1].frame_state = Some(FrameState {
        cfa: None,
        stack_realigned: true,
        saved: vec![FrameRegister {
            dwarf_reg: 29,
            offset: -40_000,
        }],
    });
    let bytes = write_flat(&t, BigEndian, false).unwrap().bytes;
    let flat = FlatStackMap::parse(&bytes, BigEndian).unwrap();
    flat.validate().unwrap();
    let f = flat.frame_record(0).unwrap();
    let fs = |offset| {
        let (_, r) = flat.find_record(&f, offset).unwrap().unwrap();
        flat.frame_state(flat.site(r.site).unwrap().frame_state.unwrap())
            .unwrap()
    };
    let at30 = fs(30);
    assert_eq!(
        at30.cfa,
        Some(Cfa {
            register: 7,
            offset: 64
        })
    );
    assert_eq!(at30.cfa.unwrap().cfa(0x1000), 0x1040);
    assert!(!at30.stack_realigned());
    let saved: Vec<_> = flat.saved_registers(&at30).map(Result::unwrap).collect();
    assert_eq!(saved, state(64).saved);
    let at10 = fs(10);
    assert_eq!(at10.cfa, None);
    assert!(at10.stack_realigned());
    assert_eq!(
        flat.saved_registers(&at10).next().unwrap().unwrap().offset,
        -40_000
    );
    assert_eq!(Table::from_flat(&flat).unwrap(), sorted(t));
}

#[test]
fn record_counts_follow_from_first_records() {
    let bytes = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    assert_eq!(t.frame_record(0).unwrap().num_records, 2);
    assert_eq!(t.frame_record(1).unwrap().num_records, 0);
    // Function 1's first record before function 0's: a negative count.
    let mut bad = bytes.clone();
    bad[24 + 12..24 + 16].copy_from_slice(&2u32.to_le_bytes());
    bad[40 + 12..40 + 16].copy_from_slice(&1u32.to_le_bytes());
    let t = FlatStackMap::parse(&bad, LittleEndian).unwrap();
    assert!(t.frame_record(0).is_err());
    assert!(t.validate().is_err());
}

#[test]
fn streaming_writer_checks_order_and_ownership() {
    use pcmap_reader::flat::{FlatWriter, FrameHead, RecordHead};
    let head = |off| RecordHead {
        id: 1,
        instruction_offset: off,
        patchable_size: None,
        kind: RecordKind::Unknown,
        has_live_out_info: false,
    };
    let no_locs = std::iter::empty;
    let no_live_outs = std::iter::empty;
    let mut w = FlatWriter::new(LittleEndian, false);
    w.record(&head(8), no_locs(), no_live_outs(), None).unwrap();
    assert!(matches!(
        w.record(&head(4), no_locs(), no_live_outs(), None),
        Err(pcmap_reader::Error::NotSorted { .. })
    ));
    // Records with no function after them.
    assert!(w.finish().is_err());
    let mut w = FlatWriter::new(LittleEndian, false);
    w.record(&head(8), no_locs(), no_live_outs(), None).unwrap();
    let frame = FrameHead {
        address: 0,
        size: 0,
        stack_size: 16,
        code: None,
    };
    w.function(&frame).unwrap();
    // A new function starts a new order.
    w.record(&head(4), no_locs(), no_live_outs(), None).unwrap();
    w.function(&frame).unwrap();
    let bytes = w.finish().unwrap().bytes;
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    t.validate().unwrap();
    assert_eq!(t.frame_record(1).unwrap().record_index, 1);
}

/// LLVM's UINT64_MAX stack size is stored as 0xFFFFFFFF and read back as
/// UINT64_MAX; a real stack size of 0xFFFFFFFF cannot be written.
#[test]
fn variable_stack_size_round_trips() {
    let bytes = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    assert!(t.frame_record(1).unwrap().variable_stack_size());
    assert_eq!(
        Table::from_flat(&t).unwrap().functions[1].stack_size,
        u64::MAX
    );
    let mut big = sample();
    big.functions[0].stack_size = u64::from(u32::MAX);
    assert_eq!(
        write_flat(&big, LittleEndian, false).unwrap_err(),
        pcmap_reader::Error::TooLarge("stack size")
    );
}
