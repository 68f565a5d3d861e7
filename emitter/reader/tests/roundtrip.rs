//! Writer/reader pairs: what a writer writes, its reader reads back the same;
//! every prefix of a table is rejected with an error, never a panic.

use pcmap_reader::flat::{FlatStackMap, FrameRegister, RecordKind};
use pcmap_reader::llvm::LlvmStackMap;
use pcmap_reader::stackmap::{write_flat, write_llvm, Function, Record, Table};
use pcmap_reader::{
    BigEndian, Endian, LittleEndian, LiveOut, Location, LocationKind, RunTimeEndian,
};
use proptest::prelude::*;

fn location(num_constants: usize) -> impl Strategy<Value = Location> {
    (1u8..=5, 1u16..=64, any::<u16>(), any::<i32>()).prop_map(move |(k, size, reg, off)| {
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

fn record(num_constants: usize) -> impl Strategy<Value = Record> {
    (
        any::<u64>(),
        any::<u32>(),
        prop::collection::vec(location(num_constants), 0..6),
        prop::collection::vec((any::<u16>(), any::<u8>()), 0..4),
    )
        .prop_map(|(id, off, locations, live_outs)| Record {
            id,
            instruction_offset: off,
            patchable_size: None,
            kind: RecordKind::Unknown,
            has_live_out_info: !live_outs.is_empty(),
            locations,
            live_outs: live_outs
                .into_iter()
                .map(|(dwarf_reg, size)| LiveOut { dwarf_reg, size })
                .collect(),
        })
}

fn table() -> impl Strategy<Value = Table> {
    prop::collection::vec(any::<u64>(), 0..4).prop_flat_map(|constants| {
        let n = constants.len();
        let function = (
            prop_oneof![0u64..100_000, Just(u64::MAX)],
            prop::collection::vec(record(n), 0..5),
            any::<u16>(),
            any::<i32>(),
            prop::collection::vec((any::<u16>(), any::<i16>()), 0..4),
        )
            .prop_map(|(stack_size, records, base, cfa_offset, regs)| Function {
                stack_size,
                records,
                frame_base_register: base,
                cfa_offset,
                frame_registers: regs
                    .into_iter()
                    .map(|(dwarf_reg, off)| FrameRegister {
                        dwarf_reg,
                        offset: off.into(),
                    })
                    .collect(),
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

/// What LLVM's layout can say: no frame information.
fn without_frame_info(mut t: Table) -> Table {
    for f in &mut t.functions {
        f.frame_base_register = 0;
        f.cfa_offset = 0;
        f.frame_registers.clear();
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
        let e = if big { RunTimeEndian::Big } else { RunTimeEndian::Little };
        let bytes = write_llvm(&t, e, version).unwrap();
        let map = LlvmStackMap::parse(&bytes, e).unwrap();
        prop_assert_eq!(map.size(), bytes.len());
        let back = Table::from_llvm(&map).unwrap();
        prop_assert_eq!(back, without_frame_info(t));
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
                frame_registers: vec![FrameRegister {
                    dwarf_reg: 6,
                    offset: 0,
                }],
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
    assert!(FlatStackMap::parse(&bytes, LittleEndian)
        .unwrap()
        .validate()
        .is_ok());
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

#[test]
fn binary_search_and_sorting() {
    let bytes = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    let f = t.frame_record(0).unwrap();
    assert_eq!(t.find_record(&f, 30).unwrap().unwrap().1.id, 7);
    assert_eq!(t.find_record(&f, 10).unwrap().unwrap().1.id, 8);
    assert!(t.find_record(&f, 11).unwrap().is_none());
    // Unsort the records by hand: validate must notice.
    let mut bad = bytes.clone();
    let rec = u32::from_le_bytes(bad[16..20].try_into().unwrap()) as usize;
    bad[rec + 8..rec + 12].copy_from_slice(&100u32.to_le_bytes());
    let t = FlatStackMap::parse(&bad, LittleEndian).unwrap();
    assert!(matches!(
        t.validate(),
        Err(pcmap_reader::Error::NotSorted { .. })
    ));
}

#[test]
fn identical_lists_are_stored_once() {
    let mut t = sample();
    let r = t.functions[0].records[0].clone();
    t.functions[0].records.extend(std::iter::repeat_n(r, 50));
    let bytes = write_flat(&t, LittleEndian, false).unwrap().bytes;
    let flat = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    assert_eq!(flat.num_locations(), 4);
    assert_eq!(flat.num_records(), 52);
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

#[test]
fn frame_registers_are_cfa_relative_i16_and_uniqued() {
    let mut t = sample();
    let regs = vec![
        FrameRegister {
            dwarf_reg: 31,
            offset: -8,
        },
        FrameRegister {
            dwarf_reg: 65,
            offset: 16,
        },
    ];
    for (f, base) in t.functions.iter_mut().zip([31, 1]) {
        f.frame_base_register = base;
        f.cfa_offset = 144;
        f.frame_registers = regs.clone();
    }
    let bytes = write_flat(&t, BigEndian, false).unwrap().bytes;
    let flat = FlatStackMap::parse(&bytes, BigEndian).unwrap();
    flat.validate().unwrap();
    // Two functions, one list.
    assert_eq!(flat.num_frame_registers(), 2);
    let f = flat.frame_record(1).unwrap();
    assert_eq!((f.cfa_register(), f.cfa_offset), (1, 144));
    assert_eq!(f.cfa(0x1000), 0x1090);
    let lr = flat
        .frame_registers_of(&f)
        .unwrap()
        .nth(1)
        .unwrap()
        .unwrap();
    assert_eq!(lr.offset, 16);
    assert_eq!(lr.offset_from_base(&f), 160);
    // A slot further than an i16 from the CFA cannot be written.
    t.functions[0].frame_registers[0].offset = -40_000;
    assert_eq!(
        write_flat(&t, BigEndian, false).unwrap_err(),
        pcmap_reader::Error::TooLarge("frame register offset")
    );
}

#[test]
fn record_counts_follow_from_record_indices() {
    let bytes = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    assert_eq!(t.frame_record(0).unwrap().num_records, 2);
    assert_eq!(t.frame_record(1).unwrap().num_records, 0);
    // Function 1's record index before function 0's: a negative count.
    let frames = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut bad = bytes.clone();
    let second = frames + pcmap_reader::flat::FRAME_RECORD_SIZE + 28;
    bad[frames + 28..frames + 32].copy_from_slice(&2u32.to_le_bytes());
    bad[second..second + 4].copy_from_slice(&1u32.to_le_bytes());
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
    w.record(&head(8), no_locs(), no_live_outs()).unwrap();
    assert!(matches!(
        w.record(&head(4), no_locs(), no_live_outs()),
        Err(pcmap_reader::Error::NotSorted { .. })
    ));
    // Records with no function after them.
    assert!(w.finish().is_err());
    let mut w = FlatWriter::new(LittleEndian, false);
    w.record(&head(8), no_locs(), no_live_outs()).unwrap();
    let frame = FrameHead {
        address: 0,
        size: 0,
        stack_size: 16,
        flags: 0,
        frame_base_register: 7,
        cfa_offset: 24,
        frame_registers: &[],
        code: None,
    };
    w.function(&frame).unwrap();
    // A new function starts a new order.
    w.record(&head(4), no_locs(), no_live_outs()).unwrap();
    w.function(&frame).unwrap();
    let bytes = w.finish().unwrap().bytes;
    let t = FlatStackMap::parse(&bytes, LittleEndian).unwrap();
    t.validate().unwrap();
    assert_eq!(t.frame_record(1).unwrap().record_index, 1);
}

/// Found by the flat_stackmap fuzz target: a frame record with stack size
/// 0xFFFFFFFF but no HAS_VARIABLE_SIZE_ALLOCA (or the flag with another size)
/// was accepted, and could not be written back.
#[test]
fn variable_stack_size_and_its_flag_agree() {
    let bytes = write_flat(&sample(), LittleEndian, false).unwrap().bytes;
    let frames = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut bad = bytes.clone();
    bad[frames + 12..frames + 16].copy_from_slice(&u32::MAX.to_le_bytes());
    let t = FlatStackMap::parse(&bad, LittleEndian).unwrap();
    assert!(t.validate().is_err());
    assert!(Table::from_flat(&t).is_err());
    let mut bad = bytes.clone();
    bad[frames + 16] |= pcmap_reader::flat::HAS_VARIABLE_SIZE_ALLOCA;
    assert!(FlatStackMap::parse(&bad, LittleEndian)
        .unwrap()
        .validate()
        .is_err());
    // Function 1 is variable-sized: flag and size agree.
    FlatStackMap::parse(&bytes, LittleEndian)
        .unwrap()
        .validate()
        .unwrap();
}
