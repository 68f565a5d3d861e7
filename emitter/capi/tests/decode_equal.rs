//! The Rust crate's decoder (`pcmap_reader::walk::decode`, a frame's
//! `Registers`) and the C API's (`pcmap_decode_location`, a list of
//! `pcmap_register`s) give the same answer for every location kind but
//! `ConstantIndex` (a table's, checked by c_api.rs), every DWARF register
//! 0-70 of each architecture and signed offsets, over register sets where
//! some registers are unknown, some have save slots and some only a value.

use pcmap_capi::ffi::pcmap_decode_location;
use pcmap_capi::{pcmap_location, pcmap_record, pcmap_register};
use pcmap_capi::{pcmap_status, pcmap_value};
use pcmap_reader::walk::{
    decode, AArch64, Arch, DecodeError, PowerPc64ElfV1, PowerPc64ElfV2, Registers, X86_64,
};
use pcmap_reader::{Location, LocationKind};

/// A deterministic random stream (xorshift64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A frame's registers both ways: slots the walk tracks, each unknown,
/// known by value, or known with a save slot.
fn registers<A: Arch>(rng: &mut Rng) -> (Registers, Vec<pcmap_register>) {
    let mut regs = Registers::default();
    let mut list = Vec::new();
    for dwarf in 0..=70u16 {
        if A::slot(dwarf).is_none() {
            continue;
        }
        let value = rng.next();
        match rng.next() % 3 {
            0 => {}
            1 => {
                regs.set::<A>(dwarf, value, None);
                list.push(pcmap_register {
                    dwarf_reg: dwarf,
                    value,
                    address: 0,
                });
            }
            _ => {
                // Save slots are never 0 (the C API's "not saved").
                let address = rng.next() | 8;
                regs.set::<A>(dwarf, value, Some(address));
                list.push(pcmap_register {
                    dwarf_reg: dwarf,
                    value,
                    address,
                });
            }
        }
    }
    (regs, list)
}

/// What `pcmap_decode_location` says of `loc`.
fn c_decode(loc: &Location, regs: &[pcmap_register]) -> Result<pcmap_value, pcmap_status> {
    // SAFETY: every field of pcmap_record is an integer or a raw pointer,
    // for which all-zero bytes are valid; only ConstantIndex reads the
    // record's table, and no location here is one.
    let record: pcmap_record = unsafe { std::mem::zeroed() };
    let l = pcmap_location {
        kind: loc.kind as u8,
        dwarf_reg: loc.dwarf_reg,
        size: loc.size,
        offset: loc.offset,
    };
    let mut out = pcmap_value::default();
    // SAFETY: all pointers are to live values; `regs` has `regs.len()`
    // entries.
    let s = unsafe { pcmap_decode_location(&record, &l, regs.as_ptr(), regs.len(), &mut out) };
    if s == pcmap_status::PCMAP_OK {
        Ok(out)
    } else {
        Err(s)
    }
}

/// Every location of every kind but `ConstantIndex`, over eight random
/// register sets of architecture `A`: how many were compared.
fn compare<A: Arch>(rng: &mut Rng) -> usize {
    let mut compared = 0;
    for _ in 0..8 {
        let (regs, list) = registers::<A>(rng);
        for kind in [
            LocationKind::Register,
            LocationKind::Direct,
            LocationKind::Indirect,
            LocationKind::Constant,
        ] {
            for dwarf_reg in 0..=70u16 {
                for offset in [0, 8, -8, -4096, 65536, i32::MIN, i32::MAX] {
                    let loc = Location {
                        kind,
                        size: 8,
                        dwarf_reg,
                        offset,
                    };
                    let rust = decode::<A>(&loc, &regs, |_| unreachable!());
                    let c = c_decode(&loc, &list);
                    let arch = A::NAME;
                    match (rust, c) {
                        (Ok(r), Ok(c)) => {
                            assert_eq!(r.value(), c.has_value.then_some(c.value), "{loc:?}");
                            assert_eq!(
                                r.address(),
                                c.has_address.then_some(c.address),
                                "{arch} {loc:?}"
                            );
                        }
                        (Err(DecodeError::RegisterUnknown(r)), Err(c)) => {
                            assert_eq!(r, dwarf_reg);
                            assert_eq!(c, pcmap_status::PCMAP_ERR_NO_REGISTER, "{loc:?}");
                        }
                        (r, c) => panic!("{arch} {loc:?}: Rust {r:?}, C {c:?}"),
                    }
                    compared += 1;
                }
            }
        }
    }
    compared
}

#[test]
fn the_rust_decoder_equals_pcmap_decode() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let compared = compare::<X86_64>(&mut rng)
        + compare::<AArch64>(&mut rng)
        + compare::<PowerPc64ElfV2>(&mut rng)
        + compare::<PowerPc64ElfV1>(&mut rng);
    assert!(compared > 20_000, "{compared}");
}
