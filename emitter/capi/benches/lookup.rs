//! Finding the stack map record of a return address: the flat layout read in
//! place (this crate, over pcmap-reader) against the approach of seed 004:
//! parse LLVM's `.llvm_stackmaps` (version 3) at start-up and build a hash
//! table keyed by safepoint address. The baseline is implemented here; it is
//! the thing being compared against.
//!
//! For tables of 1,000, 100,000 and 1,000,000 records (8 per function, each
//! a statepoint with its 3 header constants and 2 relocated pointers):
//! * `first_lookup`: open + one lookup (flat) vs parse + build + one lookup;
//! * `lookup`: one lookup of a random return address, tables ready: through
//!   the C API (`flat`, `pcmap_find`: the function and record written out
//!   whole, the record's Site and frame state decoded; `flat_site`,
//!   `pcmap_find_site`: indices, Site offset and stack size, what a
//!   collector needs to walk the frame and find its roots) and through the
//!   Rust crate (`flat_rust`, `FlatStackMap::lookup_hit`: the stack size
//!   and ID read, as the hash table's lookup reads them, the ID decoded from
//!   the record's Site; `flat_rust_site`: the stack size and Site offset,
//!   the equivalent of the hash table's record pointer).
//!
//! `scripts/bench-runtime` runs this and prints the figures.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, BenchmarkId, Criterion};
use std::mem::MaybeUninit;

use pcmap_capi::ffi::{pcmap_find, pcmap_find_site, pcmap_open};
use pcmap_capi::{pcmap_function, pcmap_record, pcmap_site, pcmap_stackmaps, pcmap_status};
use pcmap_reader::flat::{FlatStackMap, Match, Pc, RecordKind};
use pcmap_reader::llvm::{LlvmRecord, LlvmStackMap};
use pcmap_reader::stackmap::{write_flat_placed, write_llvm, FrameState, Function, Record, Table};
use pcmap_reader::{LittleEndian, Location, LocationKind};

const SIZES: [usize; 3] = [1_000, 100_000, 1_000_000];
const RECORDS_PER_FUNCTION: usize = 8;
/// Bytes between records (call sites) and between functions.
const RECORD_SPACING: u32 = 24;
const FUNCTION_ALIGN: u64 = 16;
const TEXT_START: u64 = 0x40_0000;
/// Random return addresses looked up per benchmark.
const LOOKUPS: usize = 4096;

/// A table of `n` statepoint records whose roots are in stack slots.
fn table(n: usize) -> Table {
    let constant = |v| Location {
        kind: LocationKind::Constant,
        size: 8,
        dwarf_reg: 0,
        offset: v,
    };
    let slot = |off| Location {
        kind: LocationKind::Indirect,
        size: 8,
        dwarf_reg: 7,
        offset: off,
    };
    let mut functions = Vec::new();
    let mut address = TEXT_START;
    for f in 0..n.div_ceil(RECORDS_PER_FUNCTION) {
        let count = RECORDS_PER_FUNCTION.min(n - f * RECORDS_PER_FUNCTION);
        let records: Vec<Record> = (0..count)
            .map(|r| Record {
                id: 0xABCD_EF00,
                instruction_offset: (r as u32 + 1) * RECORD_SPACING,
                patchable_size: Some(5),
                kind: RecordKind::StatePoint,
                has_live_out_info: false,
                // Offsets vary with the record, so lists are not all shared.
                locations: vec![
                    constant(0),
                    constant(0),
                    constant(0),
                    slot(8 * (r as i32 + f as i32 % 7)),
                    slot(8 * (r as i32 + 1)),
                ],
                live_outs: vec![],
                // What `pcmap emit` finds in an x86-64 function that
                // pushed RBP and keeps a 40-byte frame below it.
                frame_state: Some(FrameState::new(7, 56, [(6, -16), (16, -8)])),
            })
            .collect();
        let size = (count as u32 + 1) * RECORD_SPACING;
        functions.push(Function {
            address,
            size,
            stack_size: 40,
            records,
            // One code section: `pcmap emit` writes a PC map.
            code_offset: Some(address),
        });
        address += u64::from(size).next_multiple_of(FUNCTION_ALIGN);
    }
    Table {
        constants: vec![],
        functions,
    }
}

/// Every record's absolute address, shuffled (xorshift: no dependency).
fn return_addresses(t: &Table) -> Vec<u64> {
    let all: Vec<u64> = t
        .functions
        .iter()
        .flat_map(|f| {
            f.records
                .iter()
                .map(move |r| f.address + u64::from(r.instruction_offset))
        })
        .collect();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..LOOKUPS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            all[(x % all.len() as u64) as usize]
        })
        .collect()
}

/// What seed 004's runtime keeps per safepoint: the frame size and the
/// record (whose locations are the roots).
#[derive(Clone, Copy)]
struct Safepoint<'a> {
    stack_size: u64,
    record: LlvmRecord<'a, LittleEndian>,
}

/// Parses the v3 section and builds the safepoint table.
fn build_hash_table(v3: &[u8]) -> HashMap<u64, Safepoint<'_>> {
    let map = LlvmStackMap::parse(v3, LittleEndian).unwrap();
    let mut table = HashMap::with_capacity(map.num_records() as usize);
    let mut records = map.records();
    for f in map.functions() {
        let f = f.unwrap();
        for _ in 0..f.record_count.unwrap() {
            let record = records.next().unwrap().unwrap();
            let address = f.address + u64::from(record.instruction_offset);
            table.insert(
                address,
                Safepoint {
                    stack_size: f.stack_size,
                    record,
                },
            );
        }
    }
    table
}

/// Bytes the hash table allocates (hashbrown: one control byte per bucket
/// plus the group padding, and the entries).
fn hash_table_bytes(t: &HashMap<u64, Safepoint<'_>>) -> usize {
    const GROUP_WIDTH: usize = 16;
    let buckets = (t.capacity() * 8 / 7).next_power_of_two();
    buckets * (std::mem::size_of::<(u64, Safepoint<'_>)>() + 1) + GROUP_WIDTH
}

/// Opens `flat` as a C runtime does (`pcmap_open`).
fn flat_open(flat: &[u8]) -> pcmap_stackmaps {
    let mut m = MaybeUninit::uninit();
    // SAFETY: `flat` is readable, `m` writable.
    let s = unsafe { pcmap_open(m.as_mut_ptr(), flat.as_ptr().cast(), flat.len(), 0) };
    assert_eq!(s, pcmap_status::PCMAP_OK);
    // SAFETY: `pcmap_open` returned OK, so it wrote `m`.
    unsafe { m.assume_init() }
}

/// One `pcmap_find_site` as a collector calls it: the Site offset (with
/// the stack size).
fn flat_find_site(m: &pcmap_stackmaps, pc: u64) -> u32 {
    let mut site = MaybeUninit::<pcmap_site>::uninit();
    // SAFETY: `m` was opened and its section outlives it; `site` writable.
    let s = unsafe { pcmap_find_site(m, pc, site.as_mut_ptr()) };
    assert_eq!(s, pcmap_status::PCMAP_OK);
    // SAFETY: written on OK.
    let site = unsafe { site.assume_init() };
    black_box(site.stack_size);
    site.site
}

/// One `pcmap_find` as a C runtime calls it: the record's ID.
fn flat_find(m: &pcmap_stackmaps, pc: u64) -> u64 {
    let mut f = MaybeUninit::<pcmap_function>::uninit();
    let mut r = MaybeUninit::<pcmap_record>::uninit();
    // SAFETY: `m` was opened and its section outlives it; outputs writable.
    let s = unsafe { pcmap_find(m, pc, f.as_mut_ptr(), r.as_mut_ptr()) };
    assert_eq!(s, pcmap_status::PCMAP_OK);
    // SAFETY: written on OK.
    unsafe { r.assume_init().id }
}

fn benches(c: &mut Criterion) {
    for n in SIZES {
        let t = table(n);
        // What `pcmap emit` writes (self-relative, with the PC map), placed as a
        // linker would for a table at address 0.
        let flat = write_flat_placed(&t, LittleEndian, false, true, 0).unwrap();
        let v3 = write_llvm(&t, LittleEndian, 3).unwrap();
        let pcs = return_addresses(&t);
        let hashed = build_hash_table(&v3);
        eprintln!(
            "records {n}: flat section {} bytes (no other memory), v3 section {} bytes, hash table {} bytes ({} entries)",
            flat.len(),
            v3.len(),
            hash_table_bytes(&hashed),
            hashed.len()
        );

        let mut g = c.benchmark_group("first_lookup");
        if n >= 100_000 {
            g.sample_size(10).measurement_time(Duration::from_secs(8));
        }
        g.bench_with_input(BenchmarkId::new("flat", n), &n, |b, _| {
            b.iter(|| {
                let m = flat_open(black_box(&flat));
                flat_find(&m, black_box(pcs[0]))
            })
        });
        g.bench_with_input(BenchmarkId::new("v3_hash", n), &n, |b, _| {
            b.iter(|| {
                let table = build_hash_table(black_box(&v3));
                table[&black_box(pcs[0])].record.id
            })
        });
        g.finish();

        let mut g = c.benchmark_group("lookup");
        let section = flat_open(&flat);
        let mut i = 0;
        g.bench_with_input(BenchmarkId::new("flat", n), &n, |b, _| {
            b.iter(|| {
                i = (i + 1) % LOOKUPS;
                flat_find(&section, black_box(pcs[i]))
            })
        });
        let mut i = 0;
        g.bench_with_input(BenchmarkId::new("flat_site", n), &n, |b, _| {
            b.iter(|| {
                i = (i + 1) % LOOKUPS;
                flat_find_site(&section, black_box(pcs[i]))
            })
        });
        let parsed = FlatStackMap::parse(&flat, LittleEndian).unwrap();
        let data = parsed.data();
        let mut i = 0;
        g.bench_with_input(BenchmarkId::new("flat_rust", n), &n, |b, _| {
            b.iter(|| {
                i = (i + 1) % LOOKUPS;
                let hit = parsed.lookup_hit(Pc::ReturnAddress(black_box(pcs[i])), 0, Match::Exact);
                let hit = hit.unwrap().unwrap();
                black_box(hit.stack_size());
                data.site(hit.site_offset()).unwrap().id
            })
        });
        let mut i = 0;
        g.bench_with_input(BenchmarkId::new("flat_rust_site", n), &n, |b, _| {
            b.iter(|| {
                i = (i + 1) % LOOKUPS;
                let hit = parsed.lookup_hit(Pc::ReturnAddress(black_box(pcs[i])), 0, Match::Exact);
                let hit = hit.unwrap().unwrap();
                black_box(hit.stack_size());
                hit.site_offset()
            })
        });
        let mut i = 0;
        g.bench_with_input(BenchmarkId::new("v3_hash", n), &n, |b, _| {
            b.iter(|| {
                i = (i + 1) % LOOKUPS;
                let sp = hashed[&black_box(pcs[i])];
                black_box(sp.stack_size);
                sp.record.id
            })
        });
        g.finish();
    }
}

/// `pcmap_find_site` over every PC of `pcs`, out of line so that callgrind
/// can count it (`--toggle-collect=*site_pass*`): the sum of the Site
/// offsets and stack sizes, to compare answers between builds.
#[inline(never)]
fn site_pass(m: &pcmap_stackmaps, pcs: &[u64]) -> u64 {
    let mut sum = 0u64;
    for &pc in pcs {
        let mut site = MaybeUninit::<pcmap_site>::uninit();
        // SAFETY: `m` was opened and its section outlives it; `site` writable.
        let s = unsafe { pcmap_find_site(m, black_box(pc), site.as_mut_ptr()) };
        assert_eq!(s, pcmap_status::PCMAP_OK);
        // SAFETY: written on OK.
        let site = unsafe { site.assume_init() };
        let fields = [
            site.table,
            site.function.into(),
            site.record.into(),
            site.site.into(),
            site.stack_size.into(),
        ];
        for v in fields {
            sum = sum.wrapping_mul(31).wrapping_add(v);
        }
    }
    sum
}

/// The hash table's lookups over every PC of `pcs`, as `site_pass`.
#[inline(never)]
fn hash_pass(t: &HashMap<u64, Safepoint<'_>>, pcs: &[u64]) -> u64 {
    let mut sum = 0u64;
    for &pc in pcs {
        let sp = t[&black_box(pc)];
        sum = sum.wrapping_add(sp.stack_size ^ sp.record.id);
    }
    sum
}

/// `PCMAP_BENCH_LOOP=<passes>`: instead of criterion, the best of
/// `passes` passes of the 4,096 lookups, `pcmap_find_site` and the hash
/// table interleaved (steadier than criterion on a shared machine); with
/// 1 pass, for callgrind, the flat side only. `PCMAP_BENCH_RECORDS=<n>`:
/// that size only.
fn loop_mode(passes: usize) {
    let only: Option<usize> = std::env::var("PCMAP_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok());
    for n in SIZES.into_iter().filter(|&n| only.is_none_or(|o| o == n)) {
        let t = table(n);
        let flat = write_flat_placed(&t, LittleEndian, false, true, 0).unwrap();
        let pcs = return_addresses(&t);
        let section = flat_open(&flat);
        if passes <= 1 {
            println!("records {n}: checksum {:x}", site_pass(&section, &pcs));
            continue;
        }
        let v3 = write_llvm(&t, LittleEndian, 3).unwrap();
        let hashed = build_hash_table(&v3);
        let (mut best_flat, mut best_hash) = (f64::MAX, f64::MAX);
        let mut sum = 0;
        for _ in 0..passes {
            let start = std::time::Instant::now();
            sum = site_pass(&section, &pcs);
            best_flat = best_flat.min(start.elapsed().as_secs_f64());
            let start = std::time::Instant::now();
            black_box(hash_pass(&hashed, &pcs));
            best_hash = best_hash.min(start.elapsed().as_secs_f64());
        }
        let per = |t: f64| t * 1e9 / LOOKUPS as f64;
        println!(
            "records {n}: pcmap_find_site {:.1} ns, hash table {:.1} ns, ratio {:.2}, checksum {sum:x}",
            per(best_flat),
            per(best_hash),
            best_flat / best_hash
        );
    }
}

criterion_group!(lookup, benches);

fn main() {
    if let Some(passes) = std::env::var("PCMAP_BENCH_LOOP")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        loop_mode(passes);
        return;
    }
    lookup();
    Criterion::default().configure_from_args().final_summary();
}
