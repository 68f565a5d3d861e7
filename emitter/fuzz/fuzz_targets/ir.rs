//! The IR scan of `pcmap emit --ir` (`stackmap::ir`) on arbitrary text:
//! seeds are the IR of the tests (`seeds/ir/`), the dictionary
//! (`dicts/ir.dict`) the words the scan looks for.
//!
//! It must not panic, and
//! - bytes that are not UTF-8 are refused with `str::from_utf8`'s error
//!   for the whole (the offset of the first bad byte), whatever block the
//!   scan checks it in;
//! - text is read alike as bytes (`parse_bytes`, checked block by block)
//!   and as a `str` (`parse`);
//! - a final newline changes nothing: the last line is read whole either
//!   way.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcmap::stackmap::ir::IrSites;

fuzz_target!(|data: &[u8]| {
    let sites = IrSites::parse_bytes(data);
    let text = match std::str::from_utf8(data) {
        Ok(text) => text,
        Err(e) => {
            assert_eq!(sites, Err(e), "not UTF-8: the error for the whole");
            return;
        }
    };
    let sites = sites.expect("UTF-8 text is read");
    assert_eq!(IrSites::parse(text), sites, "bytes and str read alike");
    if !text.ends_with('\n') {
        let ended = IrSites::parse(&format!("{text}\n"));
        assert_eq!(ended, sites, "a final newline changes nothing");
    }
});
