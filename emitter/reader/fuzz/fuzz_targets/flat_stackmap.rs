//! The flat stack map reader (layout version 2) on arbitrary bytes: every
//! accessor, binary search, lookup (through the PC map when the header has
//! one), Site, location, live-out and frame state decode, and validation
//! either answers or errs, never panics. What it accepts round-trips through
//! the writer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcmap_reader::flat::{FlatStackMap, Match, Pc};
use pcmap_reader::stackmap::{write_flat, Table};
use pcmap_reader::LittleEndian;

fuzz_target!(|data: &[u8]| {
    for t in FlatStackMap::tables(data, LittleEndian) {
        let Ok((_, t)) = t else { break };
        for i in 0..t.num_frame_records().min(64) {
            if let Ok(f) = t.frame_record(i) {
                let _ = t.find_record(&f, 0);
                if let Ok(address) = t.function_address(i, 0x1000) {
                    for pc in [
                        address,
                        address.wrapping_add(8),
                        address.wrapping_add(f.size.into()),
                    ] {
                        for (pc, how) in [Pc::ReturnAddress(pc), Pc::Instruction(pc)]
                            .into_iter()
                            .flat_map(|pc| [(pc, Match::Exact), (pc, Match::AtOrAfter)])
                        {
                            if let Ok(Some((_, _, r))) = t.lookup_entries(pc, 0x1000, how) {
                                if let Ok(site) = t.site(r.site) {
                                    let _ = t.locations(&site).count();
                                    let _ = t.live_outs(&site).map(Iterator::count);
                                    if let Some(fs) = site.frame_state {
                                        if let Ok(fs) = t.frame_state(fs) {
                                            let _ = t.saved_registers(&fs).count();
                                        }
                                    }
                                }
                            }
                        }
                        let _ = t.pc_map_window(pc, 0x1000);
                    }
                }
            }
        }
        let pc = data
            .iter()
            .fold(0u64, |pc, &b| pc.rotate_left(8) ^ u64::from(b));
        let _ = t.lookup_entries(Pc::ReturnAddress(pc), 0x1000, Match::AtOrAfter);
        let _ = t.validate();
        // Sites anywhere in the Data area.
        for offset in (0..t.data_size()).step_by(7).take(64) {
            if let Ok(site) = t.site(offset) {
                let _ = t.locations(&site).count();
            }
            let _ = t.frame_state(offset);
        }
        let _ = t.function_containing(Pc::Instruction(pc), 0x1000);
        if let Ok(table) = Table::from_flat(&t) {
            let out = write_flat(&table, LittleEndian, t.absolute_addresses())
                .expect("a read table can be written");
            let back = FlatStackMap::parse(&out.bytes, LittleEndian).expect("written table parses");
            assert_eq!(
                Table::from_flat(&back).expect("written table is valid"),
                table
            );
        }
    }
});
