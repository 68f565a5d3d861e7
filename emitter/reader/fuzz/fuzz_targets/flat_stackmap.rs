//! The flat stack map reader on arbitrary bytes: every accessor, binary
//! search and validation either answers or errs, never panics. What it
//! accepts round-trips through the writer.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcmap_reader::flat::FlatStackMap;
use pcmap_reader::write::{write_flat, Table};
use pcmap_reader::LittleEndian;

fuzz_target!(|data: &[u8]| {
    for t in FlatStackMap::tables(data, LittleEndian) {
        let Ok((_, t)) = t else { break };
        for i in 0..t.num_frame_records().min(64) {
            if let Ok(f) = t.frame_record(i) {
                let _ = t.find_record(&f, 0);
                let _ = t.function_address(i, 0x1000);
            }
        }
        if let Ok(table) = Table::from_flat(&t) {
            let out = write_flat(&table, LittleEndian, t.absolute_addresses()).expect("a read table can be written");
            let back = FlatStackMap::parse(&out.bytes, LittleEndian).expect("written table parses");
            assert_eq!(Table::from_flat(&back).expect("written table is valid"), table);
        }
    }
});
