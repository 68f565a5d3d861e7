//! LLVM's `.llvm_stackmaps` reader on arbitrary bytes, both byte orders: any
//! input is read or rejected, never a panic or an out-of-bounds access.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcmap_reader::llvm::LlvmStackMap;
use pcmap_reader::stackmap::Table;
use pcmap_reader::{BigEndian, LittleEndian};

fuzz_target!(|data: &[u8]| {
    for t in LlvmStackMap::tables(data, LittleEndian).flatten() {
        let _ = Table::from_llvm(&t);
    }
    for t in LlvmStackMap::tables(data, BigEndian).flatten() {
        let _ = Table::from_llvm(&t);
    }
});
