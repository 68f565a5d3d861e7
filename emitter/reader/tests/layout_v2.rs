//! Version 2 of the flat layout (docs/stackmap-v2.md) byte for byte: the
//! sizes the document promises, the canonical encodings, every value LLVM
//! can write, the header rules, and every corruption of a Site or
//! FrameState rejected with an error, never a panic.

use pcmap_reader::flat::{self, Cfa, FlatStackMap, FrameRegister, Match, Pc, RecordKind};
use pcmap_reader::llvm::LlvmStackMap;
use pcmap_reader::stackmap::{
    write_flat, write_flat_placed, write_flat_with, write_llvm, FrameState, Function, Record, Table,
};
use pcmap_reader::{BigEndian, Error, LittleEndian, LiveOut, Location, LocationKind};

fn record(id: u64, offset: u32, locations: Vec<Location>) -> Record {
    Record {
        patchable_size: Some(5),
        locations,
        ..Record::new(id, offset, RecordKind::StatePoint)
    }
}

fn one(records: Vec<Record>) -> Table {
    Table {
        constants: vec![],
        functions: vec![Function {
            size: 0x40,
            stack_size: 8,
            records,
            ..Function::default()
        }],
    }
}

/// The x86-64 frame state of a function that pushed RBP: CFA = RSP + 16,
/// RBP at CFA - 16, the return address at CFA - 8.
fn pushed_rbp() -> FrameState {
    FrameState::new(7, 16, [(6, -16), (16, -8)])
}

/// The document's example: one function, one record without locations is
/// smaller than LLVM's version 3 (64 bytes), frame state included.
#[test]
fn a_one_record_table_is_smaller_than_v3() {
    let mut r = record(1, 9, vec![]);
    r.frame_state = Some(pushed_rbp());
    let t = one(vec![r]);
    let v3 = write_llvm(&t, LittleEndian, 3).unwrap();
    assert_eq!(v3.len(), 64);
    let flat = write_flat(&t, LittleEndian, false).unwrap();
    // 24 header + 16 frame record + 8 record + Site (ID, head, patchable
    // size, frame state offset, 0 locations, 0 live-outs: 6) + FrameState
    // (flags, register, offset, count, 2 x (register, offset): 8; offsets
    // divided by 8, flag SCALED) = 62, padded to 64.
    assert_eq!(flat.bytes.len(), 64);
    let data = &flat.bytes[48..];
    assert_eq!(
        &data[..8],
        &[0x05, 0x07, 0x02, 0x02, 0x06, 0x7e, 0x10, 0x7f]
    );
    assert_eq!(&data[8..14], &[0x01, 0x17, 0x05, 0x00, 0x00, 0x00]);
    assert_eq!(&data[14..], &[0, 0]);
    // Without a frame state (no CFI): 24 + 16 + 8 + 5 = 53, padded to 56.
    let t = one(vec![record(1, 9, vec![])]);
    assert_eq!(write_flat(&t, LittleEndian, false).unwrap().bytes.len(), 56);
}

/// `Indirect [SP + 16]`, 8 bytes: 3 bytes (LLVM: 12). Fields equal to
/// their defaults (size 8, register 0, offset 0) are left out.
#[test]
fn locations_are_encoded_canonically() {
    let loc = |kind, size, dwarf_reg, offset| Location {
        kind,
        size,
        dwarf_reg,
        offset,
    };
    let cases: [(Location, &[u8]); 7] = [
        (loc(LocationKind::Indirect, 8, 7, 16), &[0x33, 0x07, 0x10]),
        (loc(LocationKind::Constant, 8, 0, 0), &[0x04]),
        (loc(LocationKind::Constant, 8, 0, -1), &[0x24, 0x7f]),
        (loc(LocationKind::Register, 4, 3, 0), &[0x19, 0x04, 0x03]),
        (loc(LocationKind::Direct, 8, 31, -64), &[0x32, 0x1f, 0x40]),
        (loc(LocationKind::ConstantIndex, 8, 0, 1), &[0x25, 0x01]),
        (
            loc(LocationKind::Register, 8192, 65535, 0),
            &[0x19, 0x80, 0x40, 0xff, 0xff, 0x03],
        ),
    ];
    for (l, bytes) in cases {
        let t = Table {
            constants: vec![1, 2],
            ..one(vec![record(1, 0, vec![l])])
        };
        let flat = write_flat(&t, LittleEndian, false).unwrap();
        // Site: ID 1, head, patchable size 5, 1 location, the location, 0
        // live-outs; the Data area starts after the constants.
        let data = &flat.bytes[48 + 16..];
        assert_eq!(&data[..4], &[0x01, 0x07, 0x05, 0x01], "{l:?}");
        assert_eq!(&data[4..4 + bytes.len()], bytes, "{l:?}");
        assert_eq!(data[4 + bytes.len()], 0, "{l:?}");
        let back = FlatStackMap::parse(&flat.bytes, LittleEndian).unwrap();
        back.validate().unwrap();
        assert_eq!(Table::from_flat(&back).unwrap(), t);
    }
}

/// Every value LLVM's version 3 can hold: sizes and registers up to 65,535,
/// all five kinds, every small constant, large constants by index, the
/// largest ID and patchable size, live-out registers up to 65,535.
#[test]
fn every_llvm_value_round_trips() {
    use LocationKind::*;
    let loc = |kind, size, dwarf_reg, offset| Location {
        kind,
        size,
        dwarf_reg,
        offset,
    };
    let locations = vec![
        loc(Register, 8192, 65535, 0),
        loc(Register, 0, 0, 0),
        loc(Register, 65535, 1, 0),
        loc(Direct, 792, 7, i32::MIN),
        loc(Indirect, 3200, 31, i32::MAX),
        loc(Constant, 8, 0, i32::MIN),
        loc(Constant, 8, 0, i32::MAX),
        loc(Constant, 1, 0, -1),
        loc(ConstantIndex, 8, 0, 0),
        loc(ConstantIndex, 8, 0, 2),
    ];
    let mut r = record(u64::MAX, u32::MAX, locations);
    r.patchable_size = Some(u32::MAX);
    r.kind = RecordKind::PatchPoint;
    r.has_live_out_info = true;
    r.live_outs = vec![
        LiveOut {
            dwarf_reg: 65535,
            size: 255,
        },
        LiveOut {
            dwarf_reg: 0,
            size: 0,
        },
    ];
    r.frame_state = Some(FrameState {
        cfa: Some(Cfa {
            register: 65535,
            offset: i32::MIN,
        }),
        stack_realigned: true,
        saved: vec![FrameRegister {
            dwarf_reg: 65535,
            offset: i32::MAX,
        }],
    });
    let t = Table {
        constants: vec![0, u64::MAX, 1 << 63],
        functions: vec![Function {
            stack_size: u64::MAX,
            records: vec![r],
            ..Function::default()
        }],
    };
    for big in [false, true] {
        let back = if big {
            let b = write_flat(&t, BigEndian, false).unwrap().bytes;
            Table::from_flat(&FlatStackMap::parse(&b, BigEndian).unwrap()).unwrap()
        } else {
            let b = write_flat(&t, LittleEndian, false).unwrap().bytes;
            Table::from_flat(&FlatStackMap::parse(&b, LittleEndian).unwrap()).unwrap()
        };
        assert_eq!(back, t);
    }
    // And from LLVM's own layout, through the model.
    let v3 = write_llvm(&t, LittleEndian, 3).unwrap();
    let from_v3 = Table::from_llvm(&LlvmStackMap::parse(&v3, LittleEndian).unwrap()).unwrap();
    let flat = write_flat(&from_v3, LittleEndian, false).unwrap().bytes;
    let back = Table::from_flat(&FlatStackMap::parse(&flat, LittleEndian).unwrap()).unwrap();
    assert_eq!(back, from_v3);
    assert_eq!(back.functions[0].records[0].locations[0].size, 8192);
}

/// A version 2 table, its header changed by `edit`.
fn edited(edit: impl Fn(&mut Vec<u8>)) -> Result<(), Error> {
    let t = Table {
        constants: vec![7],
        ..one(vec![record(1, 8, vec![])])
    };
    let mut b = write_flat(&t, LittleEndian, false).unwrap().bytes;
    edit(&mut b);
    FlatStackMap::parse(&b, LittleEndian)?.validate()
}

#[test]
fn the_header_is_checked() {
    assert_eq!(edited(|_| {}), Ok(()));
    // Readers reject versions they do not know: version 1 tables too.
    for v in [0, 1, 3, 0xff] {
        assert_eq!(edited(|b| b[4] = v), Err(Error::UnsupportedFlatVersion(v)));
    }
    // Version 1's FUNCTION_INDEX, and unassigned flags.
    for flag in [0x04, 0x10, 0x80] {
        assert!(edited(|b| b[5] |= flag).is_err(), "flag {flag:#x}");
    }
    // A PC map flag without the 32-byte header; a 32-byte header without it.
    assert!(edited(|b| b[5] |= flat::PC_MAP).is_err());
    assert!(edited(|b| b[6] = 32).is_err());
    assert!(edited(|b| b[6] = 16).is_err());
    // Table sizes: not a multiple of 4, more than the bytes, less than the
    // arrays.
    let size = |b: &mut Vec<u8>, f: &dyn Fn(u32) -> u32| {
        let v = f(u32::from_le_bytes(b[8..12].try_into().unwrap()));
        b[8..12].copy_from_slice(&v.to_le_bytes());
    };
    assert!(edited(|b| size(b, &|s| s - 2)).is_err());
    assert!(edited(|b| size(b, &|s| s + 4)).is_err());
    assert!(edited(|b| size(b, &|_| 24 + 16)).is_err());
    // Counts that do not fit.
    for field in [12, 16, 20] {
        assert!(edited(|b| b[field + 3] = 0x10).is_err(), "count at {field}");
    }
}

/// The Data area of a one-record table, and what validating it after
/// `edit` says.
fn data_edited(r: Record, edit: impl Fn(&mut [u8])) -> Result<(), Error> {
    let t = Table {
        constants: vec![7],
        ..one(vec![r])
    };
    let mut b = write_flat(&t, LittleEndian, false).unwrap().bytes;
    // Header 24, 1 frame record, 1 record, 1 constant.
    edit(&mut b[24 + 16 + 8 + 8..]);
    FlatStackMap::parse(&b, LittleEndian)?.validate()
}

#[test]
fn every_malformed_site_and_frame_state_is_an_error() {
    let indirect = Location {
        kind: LocationKind::Indirect,
        size: 8,
        dwarf_reg: 7,
        offset: 16,
    };
    // Site: 01 head=(statepoint|size|fs) 05 fs N=1 [33 07 10] L=0
    let mut r = record(1, 8, vec![indirect]);
    r.frame_state = Some(pushed_rbp());
    let fs_len = 8;
    assert_eq!(data_edited(r.clone(), |_| {}), Ok(()));
    let site = fs_len;
    // Reserved bits of the site's head.
    for bit in [0x20, 0x40, 0x80] {
        assert!(data_edited(r.clone(), |d| d[site + 1] |= bit).is_err());
    }
    // Location kinds 0, 6 and 7; reserved location bits.
    for kind in [0, 6, 7] {
        assert!(matches!(
            data_edited(r.clone(), |d| d[site + 5] = 0x30 | kind),
            Err(Error::BadLocationKind { .. })
        ));
    }
    assert!(data_edited(r.clone(), |d| d[site + 5] |= 0x40).is_err());
    // A frame state offset past the Data area.
    assert!(data_edited(r.clone(), |d| d[site + 3] = 0x7f).is_err());
    // More locations than there are bytes; a count over 65535 (a ULEB of
    // 0x10000).
    assert!(data_edited(r.clone(), |d| d[site + 4] = 2).is_err());
    // A ULEB ID longer than ten bytes.
    let mut long = record(u64::MAX, 8, vec![]);
    long.patchable_size = None;
    assert!(data_edited(long.clone(), |d| d[9] = 0xff).is_err());
    // Frame state: reserved flags, saved registers out of order.
    assert!(data_edited(r.clone(), |d| d[0] |= 0x08).is_err());
    assert!(data_edited(r.clone(), |d| d[4] = 0x20).is_err());
    // Bytes after the last Site: only zero padding, fewer than 4.
    let tail_at = site + 9;
    assert!(data_edited(r.clone(), |d| d[tail_at] = 1).is_err());
}

#[test]
fn sizes_and_registers_beyond_u16_are_errors() {
    let loc = Location {
        kind: LocationKind::Register,
        size: 2,
        dwarf_reg: 3,
        offset: 0,
    };
    let t = one(vec![record(1, 0, vec![loc])]);
    let mut b = write_flat(&t, LittleEndian, false).unwrap().bytes;
    // Site: 01 17 05 01 [19 02 03] 00. Make the size 0x10000 (3 bytes) by
    // overwriting the register and the live-out count: 80 80 04.
    let d = 24 + 16 + 8;
    assert_eq!(
        &b[d..d + 8],
        &[0x01, 0x07, 0x05, 0x01, 0x19, 0x02, 0x03, 0x00]
    );
    b[d + 4] = 0x09;
    b[d + 5..d + 8].copy_from_slice(&[0x80, 0x80, 0x04]);
    let t = FlatStackMap::parse(&b, LittleEndian).unwrap();
    assert!(matches!(t.validate(), Err(Error::BadLeb128 { .. })));
}

/// With absolute addresses the frame records' i32 fields are 0 and the
/// Addresses array (8-aligned, after the records) holds the addresses.
#[test]
fn absolute_addresses() {
    let mut t = one(vec![record(1, 8, vec![]), record(2, 16, vec![])]);
    t.functions[0].address = 0x40_1000;
    t.functions.push(Function {
        address: 0x40_2000,
        size: 0x10,
        stack_size: 16,
        records: vec![record(3, 4, vec![])],
        ..Function::default()
    });
    let w = write_flat(&t, BigEndian, true).unwrap();
    let flat = FlatStackMap::parse(&w.bytes, BigEndian).unwrap();
    flat.validate().unwrap();
    assert_eq!(w.address_offsets, vec![24 + 32 + 24, 24 + 32 + 24 + 8]);
    assert_eq!(flat.function_address(1, 0xdead).unwrap(), 0x40_2000);
    let found = flat
        .lookup(Pc::ReturnAddress(0x40_2004), 0xdead, Match::Exact)
        .unwrap()
        .unwrap();
    assert_eq!((found.function, found.record), (1, 2));
    // A self-relative field set in an absolute table.
    let mut bad = w.bytes.clone();
    bad[24 + 3] = 1;
    assert!(FlatStackMap::parse(&bad, BigEndian)
        .unwrap()
        .validate()
        .is_err());
}

/// A table placed anywhere (as a JIT or a linker does) reads back every
/// function's address, both ways of storing it; a self-relative field that
/// cannot reach its function is an error, not a wrapped value.
#[test]
fn placed_tables_resolve_their_functions() {
    let mut t = one(vec![record(1, 8, vec![])]);
    t.functions[0].address = 0x7f00_0000_1000;
    t.functions.push(Function {
        address: 0x7f00_0000_2000,
        size: 0x10,
        records: vec![record(2, 4, vec![])],
        ..Function::default()
    });
    for absolute in [false, true] {
        for at in [0x7f00_0010_0000u64, 0x7eff_fff0_0000] {
            let b = write_flat_placed(&t, LittleEndian, absolute, false, at).unwrap();
            let flat = FlatStackMap::parse(&b, LittleEndian).unwrap();
            flat.validate().unwrap();
            for (i, f) in t.functions.iter().enumerate() {
                assert_eq!(flat.function_address(i as u32, at).unwrap(), f.address);
            }
        }
    }
    let far = write_flat_placed(&t, LittleEndian, false, false, 0x1000).map(|_| ());
    assert_eq!(
        far,
        Err(Error::TooLarge("self-relative function address (±2 GiB)"))
    );
    let mut w = write_flat(&t, LittleEndian, true).unwrap();
    assert!(w.place(LittleEndian, 0, &[1]).is_err());
}

/// Functions out of address order fail validation (lookups binary search
/// them) but a dump can still read them; unrelocated (0) fields are not
/// compared.
#[test]
fn functions_must_ascend() {
    let mut t = one(vec![record(1, 8, vec![])]);
    t.functions.push(t.functions[0].clone());
    let b = write_flat(&t, LittleEndian, false).unwrap().bytes;
    FlatStackMap::parse(&b, LittleEndian)
        .unwrap()
        .validate()
        .unwrap();
    let mut bad = b.clone();
    // Function 0 at +0x100 from its field, function 1 at its own field + 0
    // would be unrelocated: give it -0x100.
    bad[24..28].copy_from_slice(&0x100i32.to_le_bytes());
    bad[40..44].copy_from_slice(&(-0x100i32).to_le_bytes());
    let table = FlatStackMap::parse(&bad, LittleEndian).unwrap();
    assert!(matches!(
        table.validate(),
        Err(Error::FunctionsNotSorted { .. })
    ));
    assert!(table.check_entries().is_ok());
    assert_eq!(Table::from_flat(&table).unwrap().functions.len(), 2);
}

/// What a table with a PC map and many functions costs next to LLVM's, at
/// the shapes the issue names.
#[test]
fn flat_is_smaller_than_v3_for_small_and_many_functions() {
    let slot = |offset| Location {
        kind: LocationKind::Indirect,
        size: 8,
        dwarf_reg: 7,
        offset,
    };
    for records_per_function in 1..=4u32 {
        let functions = (0..2000u32)
            .map(|f| Function {
                address: 0,
                size: 0x40,
                stack_size: 24,
                code_offset: Some(u64::from(f) * 0x40),
                records: (0..records_per_function)
                    .map(|r| {
                        let mut rec = record(
                            u64::from(f * 4 + r),
                            8 * (r + 1),
                            vec![slot(8 * r as i32), slot(16)],
                        );
                        rec.frame_state = Some(pushed_rbp());
                        rec
                    })
                    .collect(),
            })
            .collect();
        let t = Table {
            constants: vec![],
            functions,
        };
        let v3 = write_llvm(&t, LittleEndian, 3).unwrap().len();
        let flat = write_flat_with(&t, LittleEndian, false, true).unwrap();
        let parsed = FlatStackMap::parse(&flat.bytes, LittleEndian).unwrap();
        assert!(parsed.has_pc_map());
        let ratio = flat.bytes.len() as f64 / v3 as f64;
        assert!(ratio < 0.7, "{records_per_function} per function: {ratio}");
    }
}

/// A table of 70 functions with a PC map, frame states and every location
/// kind, at address 0, relocated as a linker would.
fn mapped(absolute: bool) -> (Table, Vec<u8>) {
    use LocationKind::*;
    let loc = |kind, dwarf_reg, offset| Location {
        kind,
        size: 8,
        dwarf_reg,
        offset,
    };
    let functions = (0..70u32)
        .map(|f| Function {
            address: 0x1000 + 0x40 * u64::from(f),
            code_offset: Some(0x40 * u64::from(f)),
            size: 0x30,
            stack_size: 16,
            records: (0..f % 3)
                .map(|r| {
                    let mut rec = record(
                        u64::from(f),
                        8 * (r + 1),
                        vec![
                            loc(Indirect, 7, 8 * r as i32),
                            loc(ConstantIndex, 0, 0),
                            loc(Constant, 0, -3),
                        ],
                    );
                    rec.frame_state = (r != 1).then(pushed_rbp);
                    rec
                })
                .collect(),
        })
        .collect();
    let t = Table {
        constants: vec![42],
        functions,
    };
    let b = write_flat_placed(&t, LittleEndian, absolute, true, 0).unwrap();
    (t, b)
}

/// Everything a reader does with a table: errors are fine, panics (and,
/// in the tests' overflow-checked build, arithmetic overflows) are not. A
/// table that still validates reads back into a model that writes again.
fn exercise(bytes: &[u8]) {
    let Ok(t) = FlatStackMap::parse(bytes, LittleEndian) else {
        return;
    };
    let valid = t.validate().is_ok();
    let pcs = (0..70u64)
        .step_by(3)
        .flat_map(|f| [8, 16, 20].map(|o| 0x1000 + 0x40 * f + o));
    for pc in pcs {
        for (pc, how) in [Pc::ReturnAddress(pc), Pc::Instruction(pc)]
            .into_iter()
            .flat_map(|pc| [(pc, Match::Exact), (pc, Match::AtOrAfter)])
        {
            if let Ok(Some(hit)) = t.lookup_hit(pc, 0, how) {
                if let Ok(site) = t.site(hit.site_offset()) {
                    let _ = t.locations(&site).count();
                    let _ = t.live_outs(&site).map(Iterator::count);
                    if let Some(fs) = site.frame_state.and_then(|o| t.frame_state(o).ok()) {
                        let _ = t.saved_registers(&fs).count();
                    }
                }
            }
        }
    }
    let model = Table::from_flat(&t);
    if valid {
        let model = model.unwrap();
        let again = write_flat(&model, LittleEndian, t.absolute_addresses()).unwrap();
        let back = FlatStackMap::parse(&again.bytes, LittleEndian).unwrap();
        assert_eq!(Table::from_flat(&back).unwrap(), model);
    }
}

#[test]
fn every_truncation_and_single_byte_corruption_is_survived() {
    for absolute in [false, true] {
        let (t, good) = mapped(absolute);
        let parsed = FlatStackMap::parse(&good, LittleEndian).unwrap();
        parsed.validate().unwrap();
        assert!(parsed.has_pc_map());
        let back = Table::from_flat(&parsed).unwrap();
        assert_eq!(back.functions.len(), t.functions.len());
        for len in 0..good.len() {
            exercise(&good[..len]);
            assert!(FlatStackMap::parse(&good[..len], LittleEndian)
                .and_then(|t| t.validate())
                .is_err());
        }
        for at in 0..good.len() {
            for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[at] = value;
                exercise(&bad);
            }
        }
    }
}
