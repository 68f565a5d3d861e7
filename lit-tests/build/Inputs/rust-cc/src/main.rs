//! A Rust program whose C half (build.rs, the `cc` crate) was compiled
//! through `pcmap cc`: the C objects' module constructors hand their PC
//! tables to the SanitizerBinaryMetadata callbacks below, and main checks,
//! with pcmap-reader, that the tables name the C functions at their exact
//! addresses and put every atomic PC inside one of them. Exit status 1 on
//! any problem.

use std::sync::Mutex;

use pcmap_reader::pctable::PcTable;
use pcmap_reader::sanmd::{Sanmd, SanmdSection};
use pcmap_reader::LittleEndian;

extern "C" {
    fn c_bump(n: i64) -> i64;
    fn c_total() -> i64;
}

/// (kind, version, start, stop) of every table the constructors passed.
static TABLES: Mutex<Vec<(Sanmd, u32, usize, usize)>> = Mutex::new(Vec::new());

fn add(kind: Sanmd, version: u32, start: *const u8, stop: *const u8) {
    TABLES
        .lock()
        .unwrap()
        .push((kind, version, start as usize, stop as usize));
}

#[no_mangle]
pub extern "C" fn __sanitizer_metadata_covered_add(
    version: u32,
    start: *const u8,
    stop: *const u8,
) {
    add(Sanmd::Covered, version, start, stop);
}

#[no_mangle]
pub extern "C" fn __sanitizer_metadata_atomics_add(
    version: u32,
    start: *const u8,
    stop: *const u8,
) {
    add(Sanmd::Atomics, version, start, stop);
}

#[no_mangle]
pub extern "C" fn __sanitizer_metadata_covered_del(_: u32, _: *const u8, _: *const u8) {}

#[no_mangle]
pub extern "C" fn __sanitizer_metadata_atomics_del(_: u32, _: *const u8, _: *const u8) {}

/// Every entry of one table: (PC, function size; 0 for atomics).
fn entries(kind: Sanmd, version: u32, start: usize, stop: usize) -> Vec<(u64, u64)> {
    // SAFETY: the linker's __start_/__stop_ markers of a section of this
    // program, mapped for its whole life.
    let bytes = unsafe { std::slice::from_raw_parts(start as *const u8, stop - start) };
    let section = SanmdSection {
        kind,
        version,
        raw: false,
    };
    // x86_64: 4-byte PC fields (docs/pctables.md), little-endian.
    let layout = section.layout(4).expect("compact layout");
    let table = PcTable::new(bytes, LittleEndian, layout).expect("table");
    table
        .entries()
        .map(|e| {
            let e = e.expect("entry");
            (e.pc(start as u64), e.size.unwrap_or(0))
        })
        .collect()
}

fn main() {
    // SAFETY: plain C functions of csrc/counter.c.
    let bumped = unsafe {
        c_bump(3);
        c_bump(4);
        c_total()
    };
    println!("c_total={bumped}");
    let mut problems = usize::from(bumped != 7);
    let tables = TABLES.lock().unwrap().clone();
    let (mut covered, mut atomics) = (Vec::new(), Vec::new());
    for &(kind, version, start, stop) in &tables {
        println!("{kind:?} table: version {version}, {} bytes", stop - start);
        let list = entries(kind, version, start, stop);
        match kind {
            Sanmd::Covered => covered.extend(list),
            Sanmd::Atomics => atomics.extend(list),
        }
    }
    for (name, f) in [
        ("c_bump", c_bump as *const () as usize),
        ("c_total", c_total as *const () as usize),
    ] {
        let found = covered.iter().any(|&(pc, _)| pc == f as u64);
        println!("covered {name}: {}", if found { "yes" } else { "no" });
        problems += usize::from(!found);
    }
    let inside = atomics
        .iter()
        .filter(|&&(pc, _)| covered.iter().any(|&(f, size)| pc >= f && pc < f + size))
        .count();
    println!(
        "atomic PCs: {}, inside covered functions: {inside}",
        atomics.len()
    );
    problems += usize::from(atomics.is_empty() || inside != atomics.len());
    println!("{}", if problems == 0 { "OK" } else { "FAIL" });
    std::process::exit(i32::from(problems != 0));
}
