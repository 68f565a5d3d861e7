//! Return codes of every C API function, and their messages.

use core::ffi::{c_char, c_int};

use pcmap_reader::Error;

/// What a `pcmap_*` call returns: `PCMAP_OK` (0), `PCMAP_NOT_FOUND` (1) for a
/// lookup that found nothing, or a negative error.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum pcmap_status {
    /// Success.
    PCMAP_OK = 0,
    /// No record or entry matches (not an error: e.g. a PC outside managed code).
    PCMAP_NOT_FOUND = 1,
    /// A required pointer argument was NULL, or a range was reversed.
    PCMAP_ERR_ARGUMENT = -1,
    /// The section does not start with a flat stack map table ("\x7fSMF").
    PCMAP_ERR_BAD_MAGIC = -2,
    /// A table of a layout version this library does not read.
    PCMAP_ERR_VERSION = -3,
    /// A field lies past the end of its table or section.
    PCMAP_ERR_TRUNCATED = -4,
    /// A header, offset, kind or flag contradicts the rest of the table.
    PCMAP_ERR_CORRUPT = -5,
    /// An index past the end of the array it refers to.
    PCMAP_ERR_OUT_OF_RANGE = -6,
    /// Records or functions not sorted by address (found by `pcmap_validate`).
    PCMAP_ERR_NOT_SORTED = -7,
    /// A location names a DWARF register the caller did not supply.
    PCMAP_ERR_NO_REGISTER = -8,
    /// The registry holds `PCMAP_REGISTRY_CAPACITY` images already.
    PCMAP_ERR_REGISTRY_FULL = -20,
    /// The section is registered already.
    PCMAP_ERR_REGISTERED = -21,
    /// A walk through the registry reached a PC in no registered image
    /// while the registry has refused an image's section (a corrupt one,
    /// another layout version, the registry full: `pcmap_registry_info`):
    /// the frame may be managed, by the image whose tables were refused.
    PCMAP_ERR_IMAGE_REFUSED = -22,
    /// A frame's record has no known kind (stack map, patch point or
    /// statepoint), so which of its locations are roots is not known: an
    /// object compiled by llc without the plugin's site descriptions.
    /// Finish the object with them, or with `pcmap emit --ir`.
    PCMAP_ERR_UNKNOWN_KIND = -10,
    /// `pcmap_open`: the table's function addresses are 0, as a
    /// relocatable object holds them until linked (its relocations give
    /// them). Open the linked program's section (or resolve the object's
    /// relocations first, as `pcmap dump` does).
    PCMAP_ERR_UNRELOCATED = -11,
    /// A walk reached a frame whose PC is in no function of the tables:
    /// the end of the managed stack (not an error).
    PCMAP_STOP_UNMANAGED = 2,
    /// A walk reached a managed frame with no record at its PC: its frame
    /// state is not known.
    PCMAP_STOP_NO_RECORD = 3,
    /// The frame's record has no frame state (no CFI described it).
    PCMAP_STOP_NO_FRAME_STATE = 4,
    /// The frame's CFA is not register + offset (a DWARF expression).
    PCMAP_STOP_NO_CFA_RULE = 5,
    /// The frame's CFA register is not known in this frame
    /// (`pcmap_cursor.stop_register`).
    PCMAP_STOP_REGISTER_UNKNOWN = 6,
    /// AArch64: the frame state does not say where x30 was saved.
    PCMAP_STOP_RETURN_ADDRESS_NOT_SAVED = 7,
    /// The return address is 0 or the frame pointer chain ended.
    PCMAP_STOP_END_OF_STACK = 8,
    /// The CFA is not above the stack pointer, a stack read fell outside
    /// the bounds given (or was misaligned), or the frame limit was hit.
    PCMAP_ERR_BAD_STACK = -9,
    /// `pcmap_walk_collect_slots`: a root of the frame is not in memory
    /// (a `Direct` location, a constant, a register saved nowhere), so it
    /// has no slot to give.
    PCMAP_STOP_NO_SLOT = 9,
}

use pcmap_status::*;

impl From<Error> for pcmap_status {
    fn from(e: Error) -> Self {
        match e {
            Error::Truncated { .. } => PCMAP_ERR_TRUNCATED,
            Error::BadMagic => PCMAP_ERR_BAD_MAGIC,
            Error::UnsupportedVersion(_) | Error::UnsupportedFlatVersion(_) => PCMAP_ERR_VERSION,
            Error::IndexOutOfRange { .. } => PCMAP_ERR_OUT_OF_RANGE,
            Error::NotSorted { .. } | Error::FunctionsNotSorted { .. } => PCMAP_ERR_NOT_SORTED,
            Error::Unrelocated => PCMAP_ERR_UNRELOCATED,
            _ => PCMAP_ERR_CORRUPT,
        }
    }
}

/// Folds a `Result` with `pcmap_status` errors into a status.
pub(crate) fn status(r: Result<(), pcmap_status>) -> pcmap_status {
    match r {
        Ok(()) => PCMAP_OK,
        Err(s) => s,
    }
}

/// A static, NUL-terminated English message for `status` (any value: unknown
/// codes get "unknown pcmap status"). Never NULL.
#[no_mangle]
pub extern "C" fn pcmap_strerror(status: c_int) -> *const c_char {
    let msg: &'static [u8] = match status {
        0 => b"success\0",
        1 => b"not found\0",
        -1 => b"invalid argument (NULL pointer or reversed range)\0",
        -2 => b"not a flat stack map table (bad magic)\0",
        -3 => b"unsupported stack map layout version\0",
        -4 => b"truncated stack map: field past the end of the table\0",
        -5 => b"corrupt stack map: inconsistent header, offset or kind\0",
        -6 => b"stack map index out of range\0",
        -7 => b"stack map not sorted by address\0",
        -8 => b"location names a register the caller did not supply\0",
        -20 => b"image registry full\0",
        -21 => b"stack map section already registered\0",
        -22 => b"stack walk: PC in no registered image, and the registry refused an image's tables (pcmap_registry_info): the frame may be managed\0",
        -10 => b"stack walk: a record has no known kind (no site description): finish the object with the plugin's descriptions or pcmap emit --ir\0",
        -11 => b"unrelocated stack map: function addresses are 0 until linked (a relocatable object's table)\0",
        -9 => b"stack walk: CFA not above SP, read outside the stack, or too many frames\0",
        2 => b"stack walk: frame outside the stack maps' functions (end of the managed stack)\0",
        3 => b"stack walk: no record at the frame's PC\0",
        4 => b"stack walk: the record has no frame state\0",
        5 => b"stack walk: the frame's CFA is not register + offset\0",
        6 => b"stack walk: the CFA register is not known in this frame\0",
        7 => b"stack walk: the return address was not saved\0",
        8 => b"stack walk: end of the stack\0",
        9 => b"stack walk: a root of the frame has no slot (not in memory)\0",
        _ => b"unknown pcmap status\0",
    };
    msg.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_own_message() {
        let all = [
            PCMAP_OK,
            PCMAP_NOT_FOUND,
            PCMAP_ERR_ARGUMENT,
            PCMAP_ERR_BAD_MAGIC,
            PCMAP_ERR_VERSION,
            PCMAP_ERR_TRUNCATED,
            PCMAP_ERR_CORRUPT,
            PCMAP_ERR_OUT_OF_RANGE,
            PCMAP_ERR_NOT_SORTED,
            PCMAP_ERR_NO_REGISTER,
            PCMAP_ERR_REGISTRY_FULL,
            PCMAP_ERR_REGISTERED,
            PCMAP_ERR_IMAGE_REFUSED,
            PCMAP_ERR_UNKNOWN_KIND,
            PCMAP_ERR_UNRELOCATED,
            PCMAP_ERR_BAD_STACK,
            PCMAP_STOP_UNMANAGED,
            PCMAP_STOP_NO_RECORD,
            PCMAP_STOP_NO_FRAME_STATE,
            PCMAP_STOP_NO_CFA_RULE,
            PCMAP_STOP_REGISTER_UNKNOWN,
            PCMAP_STOP_RETURN_ADDRESS_NOT_SAVED,
            PCMAP_STOP_END_OF_STACK,
            PCMAP_STOP_NO_SLOT,
        ];
        // SAFETY: pcmap_strerror returns a static NUL-terminated string.
        let unknown = unsafe { core::ffi::CStr::from_ptr(pcmap_strerror(99)) };
        let mut seen = std::collections::HashSet::new();
        for s in all {
            // SAFETY: as above.
            let m = unsafe { core::ffi::CStr::from_ptr(pcmap_strerror(s as c_int)) };
            assert_ne!(m, unknown, "{s:?} has no message");
            assert!(seen.insert(m.to_owned()), "{s:?} shares a message");
        }
    }
}
