//! The PC-table decoder (`pctable::PcTable`) on arbitrary bytes, under a
//! layout the input's first bytes choose (PC width, entry kind, constant
//! encoding and widths, stack-arguments bit, byte order): every entry
//! decodes or errs, never panics. Entries tile the section (each starts
//! where the previous ended, has a PC field, and is found again by
//! `entry_at`); a fixed-size layout decodes entries of exactly that size.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pcmap_reader::pctable::{ConstantEncoding, EntryKind, Layout, PcTable};
use pcmap_reader::{BigEndian, Endian, LittleEndian};

fuzz_target!(|data: &[u8]| {
    let Some((&[shape, widths_lo, widths_hi, bit], bytes)) = data.split_first_chunk::<4>() else {
        return;
    };
    let pc_width = if shape & 1 == 0 { 4 } else { 8 };
    let kind = if shape & 2 == 0 {
        EntryKind::Function
    } else {
        EntryKind::Instruction
    };
    let encoding = if shape & 4 == 0 {
        ConstantEncoding::Fixed
    } else {
        ConstantEncoding::Uleb128
    };
    // Up to 8 constants of 1..=8 bytes (3 bits each from 2 bytes: 5).
    let count = usize::from(shape >> 5);
    let packed = u16::from_le_bytes([widths_lo, widths_hi]);
    let aux: Vec<u8> = (0..count.min(5))
        .map(|i| ((packed >> (3 * i)) & 7) as u8 + 1)
        .collect();
    let Ok(mut layout) = Layout::new(pc_width, kind, encoding, &aux) else {
        panic!("a valid layout was refused: {pc_width} {kind:?} {aux:?}");
    };
    if bit != 0 {
        layout = layout.with_stack_args(1 << (bit % 64));
    }
    if shape & 8 == 0 {
        check(bytes, LittleEndian, layout);
    } else {
        check(bytes, BigEndian, layout);
    }
});

fn check<E: Endian>(bytes: &[u8], endian: E, layout: Layout) {
    let Ok(table) = PcTable::new(bytes, endian, layout) else {
        return;
    };
    let mut next = 0;
    for entry in table.entries() {
        let Ok(e) = entry else { break };
        assert_eq!(e.offset, next, "entries tile the section");
        assert!(e.len >= usize::from(layout.pc_width()));
        assert!(e.offset + e.len <= bytes.len());
        if let Some(size) = layout.fixed_entry_size() {
            assert_eq!(e.len, size);
        }
        assert_eq!(e.constants().len(), layout.aux().len());
        assert_eq!(table.entry_at(e.offset), Ok(e));
        let _ = e.pc(0x1000);
        next = e.offset + e.len;
    }
    // Arbitrary offsets decode or err.
    for offset in (0..bytes.len()).step_by(3).take(64) {
        let _ = table.entry_at(offset);
    }
}
