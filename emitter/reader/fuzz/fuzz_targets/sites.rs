//! The plugin's `.pcmap.sites` description on arbitrary bytes: `Sites::parse`
//! and `SiteIndex::add_section` accept and refuse the same inputs, never
//! panic, and answer every lookup alike (the linear rule and the index).
//! What they accept round-trips through `Writer`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcmap_reader::sites::{SiteIndex, Sites, Writer};

fuzz_target!(|data: &[u8]| {
    let parsed = Sites::parse(data);
    let mut index = SiteIndex::default();
    let added = index.add_section(data);
    assert_eq!(parsed.is_ok(), added.is_ok(), "parse and add_section agree");
    // (A refused section adds no site; the names it met stay, harmless.)
    let Ok(sites) = parsed else { return };
    assert_eq!(sites.iter().count(), sites.len());
    assert_eq!(SiteIndex::of(&sites), index);
    let mut w = Writer::new(String::new()).unwrap();
    for s in &sites {
        let name = s.function.to_vec();
        for id in [s.id, s.id.wrapping_add(1)] {
            for f in [&name[..], b"", b"__unnamed_1"] {
                assert_eq!(sites.lookup(f, id), index.lookup(f, id), "{f:?} {id}");
            }
        }
        w.site(s.kind, s.id, s.bytes, &name).unwrap();
    }
    let text = w.finish().unwrap();
    let back = Sites::parse(text.as_bytes()).expect("written sites parse");
    let again: Vec<_> = back
        .iter()
        .map(|s| (s.kind, s.id, s.bytes, s.function.to_vec()))
        .collect();
    let first: Vec<_> = sites
        .iter()
        .map(|s| (s.kind, s.id, s.bytes, s.function.to_vec()))
        .collect();
    assert_eq!(again, first);
});
