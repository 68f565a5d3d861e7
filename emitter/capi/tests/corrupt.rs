//! Corrupt sections: every truncation and every single-byte change of a real
//! section is opened, validated, searched and walked through the API without
//! a panic or an out-of-bounds read (the slices end where the data ends).

use pcmap_capi::decode::{self, List};
use pcmap_capi::section::{find, find_site, CSection, OpenedSection};
use pcmap_capi::{pcmap_status, Section};
use pcmap_reader::flat::{Match, RecordKind};
use pcmap_reader::stackmap::{write_flat, FrameState, Function, Record, Table};
use pcmap_reader::{BigEndian, LittleEndian, Location, LocationKind};

fn table() -> Table {
    let record = |id, offset| Record {
        id,
        instruction_offset: offset,
        patchable_size: Some(4),
        kind: RecordKind::StatePoint,
        has_live_out_info: false,
        locations: vec![
            Location {
                kind: LocationKind::Indirect,
                size: 8,
                dwarf_reg: 31,
                offset: 16,
            },
            Location {
                kind: LocationKind::ConstantIndex,
                size: 8,
                dwarf_reg: 0,
                offset: 0,
            },
        ],
        live_outs: vec![],
        frame_state: Some(FrameState::new(31, 32, [(29, -32), (30, -24)])),
    };
    Table {
        constants: vec![42],
        functions: vec![
            Function {
                address: 0x100,
                size: 0x40,
                records: vec![record(1, 8), record(2, 0x20)],
                ..Function::default()
            },
            Function {
                address: 0x200,
                size: 0x40,
                records: vec![record(3, 4)],
                ..Function::default()
            },
        ],
    }
}

/// Everything a runtime might do with a section; errors are fine, panics not.
fn exercise(bytes: &[u8]) {
    let s = Section::new(bytes, 0);
    let Ok(m) = OpenedSection::open(bytes, 0) else {
        return;
    };
    let _ = s.validate();
    for pc in [0x108, 0x120, 0x204, 0x1000] {
        if let Ok(Some((_, r))) = find(&s, pc, Match::Exact) {
            for i in 0..=u32::from(r.num_locations) {
                let _ = decode::decode(&r, i, &[]);
                let _ = decode::location(&r, i);
            }
            for i in 0..3 {
                let _ = decode::live_out(&r, i);
            }
            if let Ok(mut c) = decode::cursor(&r, List::LiveOuts) {
                while let Ok(Some(_)) = decode::live_out_next(&mut c) {}
            }
            let _ = decode::find_frame_register(&r, 30);
            if let Ok(mut c) = decode::cursor(&r, List::Locations) {
                while let Ok(Some(l)) = decode::location_next(&mut c) {
                    let _ = decode::decode_location(&r, &l, &[]);
                }
            }
            if let Ok(mut c) = decode::cursor(&r, List::FrameRegisters) {
                while let Ok(Some(_)) = decode::frame_register_next(&mut c) {}
            }
        }
        let _ = find(&s, pc, Match::AtOrAfter);
        if let Ok(Some(site)) = find_site(&s, pc, Match::Exact) {
            let _ = s.site_record(&site);
            let _ = s.site_function(&site);
        }
    }
    for i in 0..=m.num_functions {
        let _ = s.nth_function(i);
    }
}

#[test]
fn truncated_and_corrupted_sections_never_panic() {
    for bytes in [
        write_flat(&table(), LittleEndian, true).unwrap().bytes,
        write_flat(&table(), BigEndian, false).unwrap().bytes,
    ] {
        let good = Section::new(&bytes, 0);
        assert!(OpenedSection::open(&bytes, 0).is_ok() && good.validate().is_ok());
        for len in 0..bytes.len() {
            exercise(&bytes[..len]);
        }
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] = value;
                exercise(&bad);
            }
        }
    }
}

/// In both byte orders (the host's is searched by other code than the
/// other one), with the table headers parsed per lookup and kept by `open`.
#[test]
fn lookups_find_exactly_the_records() {
    for bytes in [
        write_flat(&table(), LittleEndian, true).unwrap().bytes,
        write_flat(&table(), BigEndian, true).unwrap().bytes,
    ] {
        let plain = Section::new(&bytes, 0);
        let m = OpenedSection::open(&bytes, 0).unwrap();
        let kept = m.section();
        assert_eq!(kept.kept.len(), 1);
        for s in [plain, kept] {
            let id = |pc| find(&s, pc, Match::Exact).unwrap().map(|(_, r)| r.id);
            assert_eq!(
                (id(0x108), id(0x120), id(0x204)),
                (Some(1), Some(2), Some(3))
            );
            // The lean lookup finds the same records, and expands to them.
            for pc in [0x108, 0x120, 0x204] {
                let (f, r) = find(&s, pc, Match::Exact).unwrap().unwrap();
                let site = find_site(&s, pc, Match::Exact).unwrap().unwrap();
                assert_eq!(
                    (site.function, site.record, site.site, site.stack_size),
                    (f.index, r.index, r.site, f.stack_size)
                );
                let again = s.site_record(&site).unwrap();
                assert_eq!((again.id, again.address), (r.id, r.address));
                assert_eq!(s.site_function(&site).unwrap().address, f.address);
                // Its frame state: the CFA rule and saved registers.
                assert_eq!((r.cfa_register, r.cfa_offset), (31, 32));
                let lr = decode::find_frame_register(&r, 30).unwrap().unwrap();
                assert_eq!(lr.offset, -24);
            }
            for miss in [0, 0x100, 0x107, 0x109, 0x141, 0x1ff, 0x205, u64::MAX] {
                assert_eq!(id(miss), None, "pc {miss:#x}");
                assert_eq!(find_site(&s, miss, Match::Exact).unwrap(), None);
            }
        }
    }
    assert_eq!(
        pcmap_status::from(OpenedSection::open(&[], 0).unwrap_err()),
        pcmap_status::PCMAP_ERR_BAD_MAGIC
    );
}

/// A table as a relocatable object holds it (every function's address
/// field 0, for the linker to fill) is refused, not read as a program's
/// code at the table's own address.
#[test]
fn an_unrelocated_table_is_refused() {
    for absolute in [false, true] {
        let mut w = write_flat(&table(), LittleEndian, absolute).unwrap();
        let width = if absolute { 8 } else { 4 };
        for &at in &w.address_offsets {
            w.bytes[at..at + width].fill(0);
        }
        let mut m = std::mem::MaybeUninit::uninit();
        // SAFETY: the bytes are readable, `m` writable.
        let st = unsafe {
            pcmap_capi::ffi::pcmap_open(m.as_mut_ptr(), w.bytes.as_ptr().cast(), w.bytes.len(), 0)
        };
        assert_eq!(st, pcmap_status::PCMAP_ERR_UNRELOCATED);
        let e = OpenedSection::open(&w.bytes, 0).unwrap_err();
        assert!(e.to_string().contains("unrelocated"), "{e}");
    }
}

mod pctables {
    use pcmap_capi::pcmap_status::{self, *};
    use pcmap_capi::pctable::*;
    use pcmap_reader::pctable::{write_uleb128, MAX_ULEB128_LEN};

    /// Compact covered entries: (PC delta, size, mask, stack args).
    fn covered() -> Vec<u8> {
        let mut out = Vec::new();
        for (delta, size, mask, args) in [
            (0x100i32, 0x40u64, 1u64, None),
            (0x80, 300, 5, Some(24u64)),
            (-0x20, 8, 3, None),
        ] {
            out.extend_from_slice(&delta.to_le_bytes());
            for v in [Some(size), Some(mask), args].into_iter().flatten() {
                let mut b = [0; MAX_ULEB128_LEN];
                let n = write_uleb128(v, &mut b);
                out.extend_from_slice(&b[..n]);
            }
        }
        out
    }

    fn open(bytes: &[u8], kind: u32, version: u32, width: u8) -> Option<pcmap_pctable> {
        let mut t = core::mem::MaybeUninit::uninit();
        // SAFETY: `t` is writable and `bytes` readable for its length (a
        // dangling but non-NULL pointer for the empty slice).
        let s = unsafe {
            pcmap_pctable_open(
                t.as_mut_ptr(),
                kind,
                version,
                bytes.as_ptr().cast(),
                bytes.len(),
                0x1000,
                width,
            )
        };
        // SAFETY: written when the status is OK.
        (s == PCMAP_OK).then(|| unsafe { t.assume_init() })
    }

    /// Iterates, counts, indexes and searches; returns the entries the
    /// iteration decoded. Errors are fine, panics and bad reads are not.
    fn exercise(t: &pcmap_pctable, well_formed: bool) -> Vec<pcmap_pctable_entry> {
        let mut got = Vec::new();
        let mut cursor = 0;
        let mut e = pcmap_pctable_entry::default();
        let last = loop {
            // SAFETY: `t` was opened on bytes alive for this call; the
            // outputs are locals.
            let s = unsafe { pcmap_pctable_next(t, &mut cursor, &mut e) };
            if s != PCMAP_OK {
                break s;
            }
            assert!(e.offset < t.size as u64 && cursor <= t.size as u64);
            got.push(e);
        };
        let mut n = 0;
        // SAFETY: as above.
        let counted = unsafe { pcmap_pctable_count(t, &mut n) };
        assert_eq!(counted == PCMAP_OK, last == PCMAP_NOT_FOUND);
        let mut index = vec![pcmap_pctable_entry::default(); got.len()];
        let mut indexed = 0;
        // SAFETY: `index` holds `index.len()` writable entries.
        let s = unsafe { pcmap_pctable_index(t, index.as_mut_ptr(), index.len(), &mut indexed) };
        if s == PCMAP_OK {
            assert_eq!(indexed, got.len());
            // Linear search and the index agree on every entry's PC.
            for g in &got {
                for pc in [g.pc, g.pc.wrapping_add(1), g.pc.wrapping_sub(1)] {
                    let mut a = pcmap_pctable_entry::default();
                    let mut b = pcmap_pctable_entry::default();
                    // SAFETY: as above.
                    let sa = unsafe { pcmap_pctable_find(t, pc, &mut a) };
                    // SAFETY: `index` holds `indexed` entries.
                    let sb =
                        unsafe { pcmap_pctable_index_find(index.as_ptr(), indexed, pc, &mut b) };
                    // Corrupt sizes may make ranges overlap; then the two
                    // may disagree (documented), but never fail to return.
                    if well_formed {
                        assert_eq!((sa, a), (sb, b), "pc {pc:#x}");
                    }
                }
            }
        }
        got
    }

    #[test]
    fn truncated_and_corrupted_pc_tables_never_panic() {
        let bytes = covered();
        let t = open(&bytes, PCMAP_PCTABLE_COVERED, 2, 4).unwrap();
        let good = exercise(&t, true);
        assert_eq!(good.len(), 3);
        assert_eq!(
            (good[1].pc, good[1].size, good[1].stack_args),
            (0x1000 + 6 + 0x80, 300, 24)
        );
        for len in 0..bytes.len() {
            if let Some(t) = open(&bytes[..len], PCMAP_PCTABLE_COVERED, 2, 4) {
                assert!(exercise(&t, false).len() <= 3);
            }
        }
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] = value;
                for (kind, version, width) in [
                    (PCMAP_PCTABLE_COVERED, 2, 4),
                    (PCMAP_PCTABLE_COVERED, 1, 4),
                    (PCMAP_PCTABLE_ATOMICS, 2, 8),
                    (PCMAP_PCTABLE_COVERED, 0x10002, 0),
                ] {
                    if let Some(t) = open(&bad, kind, version, width) {
                        exercise(&t, false);
                    }
                }
            }
        }
    }

    #[test]
    fn open_rejects_what_it_cannot_read() {
        let bytes = covered();
        let status = |kind, version, width| {
            let mut t = core::mem::MaybeUninit::uninit();
            // SAFETY: `t` is writable and `bytes` holds at least 10 bytes.
            unsafe {
                pcmap_pctable_open(
                    t.as_mut_ptr(),
                    kind,
                    version,
                    bytes.as_ptr().cast(),
                    10,
                    0,
                    width,
                )
            }
        };
        assert_eq!(status(PCMAP_PCTABLE_COVERED, 3, 4), PCMAP_ERR_VERSION);
        assert_eq!(status(PCMAP_PCTABLE_COVERED, 0, 4), PCMAP_ERR_VERSION);
        assert_eq!(status(2, 2, 4), PCMAP_ERR_ARGUMENT);
        assert_eq!(status(PCMAP_PCTABLE_COVERED, 2, 2), PCMAP_ERR_ARGUMENT);
        // Fixed-size entries (version 1 atomics: 4 or 8 bytes) must divide
        // the 10 bytes; version 1 covered entries vary (UAR stack args).
        assert_eq!(status(PCMAP_PCTABLE_ATOMICS, 1, 4), PCMAP_ERR_TRUNCATED);
        assert_eq!(status(PCMAP_PCTABLE_COVERED, 1, 4), PCMAP_OK);
        assert_eq!(
            status(PCMAP_PCTABLE_ATOMICS, 0x10001, 0),
            PCMAP_ERR_TRUNCATED
        );
        assert_eq!(status(PCMAP_PCTABLE_COVERED, 2, 4), PCMAP_OK);
    }

    #[test]
    fn an_unsorted_index_is_reported() {
        let e = |pc| pcmap_pctable_entry {
            pc,
            size: 4,
            ..Default::default()
        };
        let index = [e(0x10), e(0x30), e(0x20)];
        assert_eq!(index_find(&index, 0x12), Ok(Some(index[0])));
        assert_eq!(
            index_find(&index, 0x31),
            Err(pcmap_status::PCMAP_ERR_NOT_SORTED)
        );
        assert_eq!(index_find(&index[..2], 0x34), Ok(None));
        assert_eq!(index_find(&[], 0x34), Ok(None));
    }
}
