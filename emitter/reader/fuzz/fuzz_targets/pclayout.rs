//! The plugin's `.pcmap.layout` description (`pclayout::parse`) on
//! arbitrary bytes: parsed or refused, never a panic. What it accepts is
//! usable (each section's raw and final layouts build) and round-trips:
//! written again with `write_record` (one record per PC width), it parses
//! to the same sections.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcmap_reader::pclayout::{parse, write_record};

fuzz_target!(|data: &[u8]| {
    let Ok(sections) = parse(data) else { return };
    for s in &sections {
        s.raw().expect("an accepted section has a raw layout");
        s.final_layout()
            .expect("an accepted section has a final layout");
    }
    let mut text = String::new();
    for width in [4, 8] {
        let these: Vec<_> = sections
            .iter()
            .filter(|s| s.pc_width == width)
            .cloned()
            .collect();
        if !these.is_empty() {
            text += &write_record("fuzz-unknown-linux", None, width, &these)
                .expect("an accepted section can be written");
        }
    }
    let mut back = parse(text.as_bytes()).expect("a written record parses");
    let mut sections = sections;
    back.sort_by(|a, b| a.requested.cmp(&b.requested));
    sections.sort_by(|a, b| a.requested.cmp(&b.requested));
    assert_eq!(back, sections);
});
