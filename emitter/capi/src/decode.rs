//! The entries of a record or function, and decoding a location into a value
//! for one frame, given the registers the caller recovered for that frame.

use pcmap_reader::LocationKind;

use crate::status::pcmap_status::{self, *};
use crate::types::{
    pcmap_frame_register, pcmap_function, pcmap_live_out, pcmap_location, pcmap_record,
    pcmap_register, pcmap_value,
};

/// `first + index` if `index < count`.
fn entry(first: u32, index: u32, count: u32) -> Result<u32, pcmap_status> {
    if index >= count {
        return Err(PCMAP_ERR_OUT_OF_RANGE);
    }
    first.checked_add(index).ok_or(PCMAP_ERR_OUT_OF_RANGE)
}

pub fn location(r: &pcmap_record, index: u32) -> Result<pcmap_location, pcmap_status> {
    let t = r.table.open()?;
    let i = entry(r.location_index, index, r.num_locations.into())?;
    Ok(t.location(i)?.into())
}

pub fn live_out(r: &pcmap_record, index: u32) -> Result<pcmap_live_out, pcmap_status> {
    let t = r.table.open()?;
    let i = entry(r.live_out_index, index, r.num_live_outs.into())?;
    Ok(t.live_out(i)?.into())
}

pub fn frame_register(
    f: &pcmap_function,
    index: u32,
) -> Result<pcmap_frame_register, pcmap_status> {
    let t = f.table.open()?;
    let i = entry(f.frame_register_index, index, f.num_frame_registers.into())?;
    let reg = t.frame_register(i)?;
    // The table stores the slot relative to the CFA; the C API's offset is
    // relative to the frame base register (CFA = base + cfa_offset).
    Ok(pcmap_frame_register {
        dwarf_reg: reg.dwarf_reg,
        offset: reg
            .offset
            .checked_add(f.cfa_offset)
            .ok_or(pcmap_status::PCMAP_ERR_CORRUPT)?,
    })
}

/// The frame register entry of `dwarf_reg`, if the function saved it.
pub fn find_frame_register(
    f: &pcmap_function,
    dwarf_reg: u16,
) -> Result<Option<pcmap_frame_register>, pcmap_status> {
    for i in 0..u32::from(f.num_frame_registers) {
        let reg = frame_register(f, i)?;
        if reg.dwarf_reg == dwarf_reg {
            return Ok(Some(reg));
        }
    }
    Ok(None)
}

/// Location `index` of `r` in the frame whose registers are `regs`.
pub fn decode(
    r: &pcmap_record,
    index: u32,
    regs: &[pcmap_register],
) -> Result<pcmap_value, pcmap_status> {
    let t = r.table.open()?;
    let i = entry(r.location_index, index, r.num_locations.into())?;
    let loc = t.location(i)?;
    let reg = || {
        regs.iter()
            .find(|g| g.dwarf_reg == loc.dwarf_reg)
            .ok_or(PCMAP_ERR_NO_REGISTER)
    };
    // Register arithmetic wraps like the machine's: offsets are signed.
    let at = |base: u64| base.wrapping_add(loc.offset as i64 as u64);
    let mut v = pcmap_value::default();
    match loc.kind {
        LocationKind::Register => {
            let g = reg()?;
            v.value = g.value;
            v.has_value = true;
            v.address = g.address;
            v.has_address = g.address != 0;
        }
        LocationKind::Direct => {
            v.value = at(reg()?.value);
            v.has_value = true;
        }
        LocationKind::Indirect => {
            v.address = at(reg()?.value);
            v.has_address = true;
        }
        LocationKind::Constant => {
            v.value = loc.offset as i64 as u64;
            v.has_value = true;
        }
        LocationKind::ConstantIndex => {
            v.value = t.constant(loc.offset as u32)?;
            v.has_value = true;
        }
    }
    Ok(v)
}
