//! Corrupt sections: every truncation and every single-byte change of a real
//! section is opened, validated, searched and walked through the API without
//! a panic or an out-of-bounds read (the slices end where the data ends).

use pcmap_capi::{decode, pcmap_status, Section};
use pcmap_reader::flat::RecordKind;
use pcmap_reader::write::{write_flat, Function, Record, Table};
use pcmap_reader::{BigEndian, LittleEndian, Location, LocationKind};

fn table() -> Table {
    let record = |id, offset| Record {
        id,
        instruction_offset: offset,
        patchable_size: Some(4),
        kind: RecordKind::StatePoint,
        has_live_out_info: false,
        locations: vec![
            Location {
                kind: LocationKind::Indirect,
                size: 8,
                dwarf_reg: 31,
                offset: 16,
            },
            Location {
                kind: LocationKind::ConstantIndex,
                size: 8,
                dwarf_reg: 0,
                offset: 0,
            },
        ],
        live_outs: vec![],
    };
    Table {
        constants: vec![42],
        functions: vec![
            Function {
                address: 0x100,
                size: 0x40,
                records: vec![record(1, 8), record(2, 0x20)],
                ..Function::default()
            },
            Function {
                address: 0x200,
                size: 0x40,
                records: vec![record(3, 4)],
                ..Function::default()
            },
        ],
    }
}

/// Everything a runtime might do with a section; errors are fine, panics not.
fn exercise(bytes: &[u8]) {
    let s = Section::new(bytes, 0);
    let Ok(m) = s.open() else { return };
    let _ = s.validate();
    for pc in [0x108, 0x120, 0x204, 0x1000] {
        if let Ok(Some((f, r))) = s.find(pc) {
            for i in 0..=u32::from(r.num_locations) {
                let _ = decode::decode(&r, i, &[]);
                let _ = decode::location(&r, i);
            }
            let _ = decode::find_frame_register(&f, 16);
        }
        let _ = s.find_at_or_after(pc);
    }
    for i in 0..=m.num_functions {
        let _ = s.function_at(i);
    }
}

#[test]
fn truncated_and_corrupted_sections_never_panic() {
    for bytes in [
        write_flat(&table(), LittleEndian, true).unwrap().bytes,
        write_flat(&table(), BigEndian, false).unwrap().bytes,
    ] {
        let good = Section::new(&bytes, 0);
        assert!(good.open().is_ok() && good.validate().is_ok());
        for len in 0..bytes.len() {
            exercise(&bytes[..len]);
        }
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] = value;
                exercise(&bad);
            }
        }
    }
}

#[test]
fn lookups_find_exactly_the_records() {
    let bytes = write_flat(&table(), LittleEndian, true).unwrap().bytes;
    let s = Section::new(&bytes, 0);
    let id = |pc| s.find(pc).unwrap().map(|(_, r)| r.id);
    assert_eq!(
        (id(0x108), id(0x120), id(0x204)),
        (Some(1), Some(2), Some(3))
    );
    for miss in [0, 0x100, 0x107, 0x109, 0x141, 0x1ff, 0x205, u64::MAX] {
        assert_eq!(id(miss), None, "pc {miss:#x}");
    }
    assert_eq!(
        Section::new(&[], 0).open().unwrap_err(),
        pcmap_status::PCMAP_ERR_BAD_MAGIC
    );
}
