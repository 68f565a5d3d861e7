//! Lookups through the PC map of a valid table that the input corrupts: the
//! input is a list of (offset, byte) edits applied to a table of 80
//! functions written by the writer (Sites and frame states included), then
//! a PC to look up. Random bytes rarely pass the header checks
//! (`flat_stackmap`); edits of a real table reach the map's window, the
//! frame record checks, the fallback search and the Site decoding. Every
//! lookup answers or errs, never panics; a lookup whose table still
//! validates gives the answer of the same table without a map.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pcmap_reader::flat::{Cfa, FlatStackMap, FrameRegister, Match, Pc, RecordKind};
use pcmap_reader::stackmap::{write_flat, write_flat_placed, FrameState, Function, Record, Table};
use pcmap_reader::{LittleEndian, Location, LocationKind};

const FUNCTIONS: u64 = 80;
const BASE: u64 = 0x1000;

/// The table at address 0, relocated as a linker would.
fn table() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let slot = |offset| Location {
            kind: LocationKind::Indirect,
            size: 8,
            dwarf_reg: 7,
            offset,
        };
        let functions: Vec<Function> = (0..FUNCTIONS)
            .map(|f| Function {
                address: BASE + 0x40 * f,
                code_offset: Some(0x40 * f),
                size: 0x30,
                stack_size: 16,
                records: (0..(f % 4) as u32)
                    .map(|r| Record {
                        id: f * 10 + u64::from(r),
                        instruction_offset: 8 * (r + 1) - (r % 2) * 4,
                        patchable_size: Some(5),
                        kind: RecordKind::StatePoint,
                        has_live_out_info: false,
                        locations: vec![slot(8 * r as i32), slot(16)],
                        live_outs: vec![],
                        frame_state: (r != 2).then(|| FrameState {
                            cfa: Some(Cfa {
                                register: 7,
                                offset: 24 + 16 * (r as i32 % 2),
                            }),
                            stack_realigned: false,
                            saved: vec![FrameRegister {
                                dwarf_reg: 16,
                                offset: -8,
                            }],
                        }),
                    })
                    .collect(),
            })
            .collect();
        let t = Table {
            constants: vec![],
            functions,
        };
        write_flat_placed(&t, LittleEndian, false, true, 0).unwrap()
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
    // Answers are specified for valid tables whose functions ascend
    // (validate does not compare address fields of 0: unrelocated).
    let n = t.num_frame_records();
    let ascending = (1..n).all(|i| {
        matches!((t.function_address(i - 1, 0), t.function_address(i, 0)), (Ok(a), Ok(b)) if a < b)
    });
    let plain = (ascending && t.validate().is_ok())
        .then(|| plain(&t))
        .flatten();
    for pc in [
        pc,
        pc.wrapping_sub(4),
        pc.wrapping_add(0x40 * FUNCTIONS / 2),
    ] {
        for (pc, how) in [Pc::ReturnAddress(pc), Pc::Instruction(pc)]
            .into_iter()
            .flat_map(|pc| [(pc, Match::Exact), (pc, Match::AtOrAfter)])
        {
            let got = t.lookup(pc, 0, how);
            if let Ok(Some(hit)) = t.lookup_hit(pc, 0, how) {
                if let Ok(site) = t.site(hit.site_offset()) {
                    let _ = t.locations(&site).count();
                    if let Some(fs) = site.frame_state.and_then(|o| t.frame_state(o).ok()) {
                        let _ = t.saved_registers(&fs).count();
                    }
                }
            }
            if let Some(plain) = &plain {
                // The same functions without a map: a frame-record search.
                let expected = FlatStackMap::parse(plain, LittleEndian)
                    .unwrap()
                    .lookup(pc, 0, how);
                assert_eq!(got.ok(), expected.ok(), "pc {pc:?} {how:?}");
            }
        }
        let _ = t.function_containing(Pc::ReturnAddress(pc), 0);
        let _ = t.function_containing(Pc::Instruction(pc), 0);
        let _ = t.pc_map_window(pc, 0);
    }
});

/// The table `t` (valid) written again without a PC map, its functions at
/// the same addresses (absolute, so that moving the frame records does not
/// move them).
fn plain(t: &FlatStackMap<'_, LittleEndian>) -> Option<Vec<u8>> {
    let mut model = Table::from_flat(t).ok()?;
    for (i, f) in model.functions.iter_mut().enumerate() {
        f.address = t.function_address(i as u32, 0).ok()?;
    }
    Some(write_flat(&model, LittleEndian, true).ok()?.bytes)
}
