//! Lookups through the function index and the PC map of a valid table that
//! the input corrupts: the input is a list of (offset, byte) edits applied
//! to a table of 80 functions written by the writer, then a PC to look up.
//! Random bytes rarely pass the header checks (`flat_stackmap`); edits of a
//! real table reach the map's window, the frame record checks and the
//! fallback searches. Every lookup answers or errs, never panics; a lookup
//! whose table still validates gives the frame-record search's answer.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pcmap_reader::flat::{FlatStackMap, Match, RecordKind};
use pcmap_reader::stackmap::{write_flat_with, Function, Record, Table};
use pcmap_reader::LittleEndian;

const FUNCTIONS: u64 = 80;
const BASE: u64 = 0x1000;

/// The table at address 0, relocated as a linker would.
fn table() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let functions: Vec<Function> = (0..FUNCTIONS)
            .map(|f| Function {
                address: BASE + 0x40 * f,
                code_offset: Some(0x40 * f),
                size: 0x30,
                records: (0..(f % 4) as u32)
                    .map(|r| Record {
                        id: f * 10 + u64::from(r),
                        instruction_offset: 8 * (r + 1) - (r % 2) * 4,
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
        let t = Table {
            constants: vec![],
            functions,
        };
        let w = write_flat_with(&t, LittleEndian, false, true).unwrap();
        let mut b = w.bytes;
        for (i, f) in t.functions.iter().enumerate() {
            let at = w.address_offsets[i];
            b[at..at + 8].copy_from_slice(&(f.address as i64 - at as i64).to_le_bytes());
            let at = w.index_offsets[i];
            b[at..at + 4].copy_from_slice(&((f.address as i64 - at as i64) as i32).to_le_bytes());
        }
        b
    })
}

fuzz_target!(|data: &[u8]| {
    let good = table();
    let mut bytes = good.to_vec();
    let (edits, pc) = data.split_at(data.len() - data.len() % 3);
    for e in edits.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([e[0], e[1]])) % bytes.len();
        bytes[at] = e[2];
    }
    let pc = pc
        .iter()
        .fold(BASE, |pc, &b| pc.wrapping_add(u64::from(b) * 4));
    let Ok(t) = FlatStackMap::parse(&bytes, LittleEndian) else {
        return;
    };
    // Answers are specified for valid tables whose functions ascend.
    let n = t.num_frame_records();
    let ascending = (1..n).all(|i| {
        matches!((t.function_address(i - 1, 0), t.function_address(i, 0)), (Ok(a), Ok(b)) if a < b)
    });
    let valid = ascending && t.validate().is_ok();
    let plain = plain(&bytes, &t);
    for pc in [
        pc,
        pc.wrapping_sub(4),
        pc.wrapping_add(0x40 * FUNCTIONS / 2),
    ] {
        for how in [Match::Exact, Match::AtOrAfter] {
            let got = t.lookup(pc, 0, how);
            let _ = t.lookup_entries(pc, 0, how);
            if valid {
                // The same table without index and map: the frame-record search.
                let expected = FlatStackMap::parse(&plain, LittleEndian)
                    .unwrap()
                    .lookup(pc, 0, how);
                assert_eq!(got.ok(), expected.ok(), "pc {pc:#x} {how:?}");
            }
        }
        let _ = t.function_containing(pc, 0);
        let _ = t.pc_map_window(pc, 0);
    }
});

/// The table in `bytes` (parsed as `t`) with the index and map flags
/// cleared and the table cut before them.
fn plain(bytes: &[u8], t: &FlatStackMap<'_, LittleEndian>) -> Vec<u8> {
    let end = t.parsed_header().bounds[6] as usize;
    let mut b = bytes[..end].to_vec();
    b[5] &= !(pcmap_reader::flat::FUNCTION_INDEX | pcmap_reader::flat::PC_MAP);
    b[8..12].copy_from_slice(&(end as u32).to_le_bytes());
    b
}
