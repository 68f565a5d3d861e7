//! Patching an x86-64 patch region, as docs/patching.md says: the new
//! call ends where LLVM's did (13 bytes in: `movabs r11, imm64` is 10
//! bytes, `call r11` 3), so a frame whose call from the region has not
//! returned yet returns to an instruction boundary; the page is made
//! writable for the write only (W^X). x86 keeps instruction fetch coherent
//! with stores, so no cache maintenance is needed (on AArch64 and PowerPC
//! it is).

/// Where LLVM's call in a patch region returns: `movabs r11` + `call r11`.
pub const LLVM_CALL_END: u32 = 13;

/// The bytes of a call of `target` for a region at `at` of `size` bytes:
/// `call rel32` and an 8-byte nop (boundaries at 5 and 13) when `near`,
/// else `movabs r11, target; call r11` (boundary at 13); nops to the end.
/// A site keeps one form: both keep 13 a boundary, and each keeps its own
/// call's return address one.
pub fn encode(at: u64, size: u32, target: u64, near: bool) -> Result<Vec<u8>, String> {
    if size < LLVM_CALL_END {
        return Err(format!(
            "{size} bytes: fewer than the {LLVM_CALL_END} a call takes"
        ));
    }
    let mut b = Vec::with_capacity(size as usize);
    if near {
        let rel = target.wrapping_sub(at + 5) as i64;
        let rel = i32::try_from(rel).map_err(|_| "target beyond a 32-bit call".to_string())?;
        b.push(0xE8);
        b.extend_from_slice(&rel.to_le_bytes());
        // nopl 0x0(%rax,%rax,1): one 8-byte instruction, 5..13.
        b.extend_from_slice(&[0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00]);
    } else {
        b.extend_from_slice(&[0x49, 0xBB]);
        b.extend_from_slice(&target.to_le_bytes());
        b.extend_from_slice(&[0x41, 0xFF, 0xD3]);
    }
    // The rest: one-byte nops (any boundary is one).
    b.resize(size as usize, 0x90);
    Ok(b)
}

/// Writes a call of `target` into the patch region at `at` (`size` bytes);
/// what it wrote, in words.
pub fn patch_call(at: u64, size: u32, target: u64, near: bool) -> Result<String, String> {
    let bytes = encode(at, size, target, near)?;
    // SAFETY: the region is JIT code of ours (a patch point's reserved
    // bytes, `size` of them); no other thread runs it (one thread), and the
    // frame that may return into it returns to offset 13, a boundary of
    // both forms.
    unsafe { write_code(at as usize, &bytes)? };
    Ok(match near {
        true => format!("call rel32 + nop8 ({})", hex(&bytes[..13])),
        false => format!("movabs r11 + call r11 ({})", hex(&bytes[..13])),
    })
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Copies `bytes` to code at `at`: pages writable (not executable) for
/// the copy, then read + execute again.
///
/// # Safety
/// `at..at + bytes.len()` is mapped code of ours that no thread executes
/// during the write.
unsafe fn write_code(at: usize, bytes: &[u8]) -> Result<(), String> {
    let page = 4096;
    let start = at & !(page - 1);
    let end = (at + bytes.len()).next_multiple_of(page);
    if libc::mprotect(
        start as *mut _,
        end - start,
        libc::PROT_READ | libc::PROT_WRITE,
    ) != 0
    {
        return Err("mprotect(RW) failed".into());
    }
    std::ptr::copy_nonoverlapping(bytes.as_ptr(), at as *mut u8, bytes.len());
    if libc::mprotect(
        start as *mut _,
        end - start,
        libc::PROT_READ | libc::PROT_EXEC,
    ) != 0
    {
        return Err("mprotect(RX) failed".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_keep_13_a_boundary() {
        let near = encode(0x1000, 16, 0x2000, true).unwrap();
        assert_eq!(near[0], 0xE8);
        assert_eq!(
            i32::from_le_bytes(near[1..5].try_into().unwrap()),
            0x2000 - 0x1005
        );
        assert_eq!(&near[5..8], &[0x0F, 0x1F, 0x84]);
        assert_eq!(&near[13..], &[0x90; 3]);
        let far = encode(0x1000, 13, 0x1122_3344_5566_7788, false).unwrap();
        assert_eq!(
            far,
            [0x49, 0xBB, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x41, 0xFF, 0xD3]
        );
        assert!(encode(0, 12, 0, false).is_err());
        assert!(encode(0, 13, 1 << 40, true).is_err());
    }
}
