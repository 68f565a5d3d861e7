//! A record of unknown kind (an object llc compiled without the plugin's
//! site descriptions, finished without `--ir`) gives the walk a status of
//! its own, `PCMAP_ERR_UNKNOWN_KIND`, naming the cause and the fix, from
//! every route that needs the record's roots; the step itself does not
//! need the kind. x86-64 rules: the walk walks the host's stacks.
#![cfg(target_arch = "x86_64")]

use std::ffi::{c_void, CStr};
use std::mem::MaybeUninit;

use pcmap_capi::ffi::pcmap_open;
use pcmap_capi::status::pcmap_status::{self, *};
use pcmap_capi::status::pcmap_strerror;
use pcmap_capi::types::{pcmap_registers, pcmap_stackmaps};
use pcmap_capi::walk::*;
use pcmap_capi::PCMAP_WALK_CACHE_ENTRY_SIZE;
use pcmap_reader::flat::{Cfa, FrameRegister, RecordKind};
use pcmap_reader::stackmap::{write_flat_placed, FrameState, Function, Record, Table};
use pcmap_reader::{LittleEndian, Location, LocationKind};

/// One function at 0x1000 with one record at +8 of `kind`, CFA = RSP + 16,
/// a root in a stack slot.
fn table(kind: RecordKind) -> Vec<u8> {
    let record = Record {
        id: 7,
        instruction_offset: 8,
        patchable_size: Some(0),
        kind,
        has_live_out_info: false,
        locations: vec![Location {
            kind: LocationKind::Indirect,
            size: 8,
            dwarf_reg: 7,
            offset: 0,
        }],
        live_outs: vec![],
        frame_state: Some(FrameState {
            cfa: Some(Cfa {
                register: 7,
                offset: 16,
            }),
            stack_realigned: false,
            saved: vec![FrameRegister {
                dwarf_reg: 16,
                offset: -8,
            }],
        }),
    };
    let t = Table {
        constants: vec![],
        functions: vec![Function {
            address: 0x1000,
            code_offset: Some(0),
            size: 0x20,
            stack_size: 8,
            records: vec![record],
        }],
    };
    write_flat_placed(&t, LittleEndian, true, false, 0).unwrap()
}

unsafe extern "C" fn visit_root(_: *mut c_void, _: *const pcmap_root) {}
unsafe extern "C" fn visit_frame(_: *mut c_void, _: *const pcmap_walk_frame) {}

/// Each route's status at a frame of the record, on a stack whose return
/// address is 0x9000 (unmanaged).
fn statuses(kind: RecordKind) -> [pcmap_status; 4] {
    let bytes = table(kind);
    let mut maps = MaybeUninit::<pcmap_stackmaps>::uninit();
    // SAFETY: the bytes outlive every use of `maps`; `maps` is writable.
    let s = unsafe { pcmap_open(maps.as_mut_ptr(), bytes.as_ptr().cast(), bytes.len(), 0) };
    assert_eq!(s, PCMAP_OK);
    // SAFETY: written on OK.
    let maps = unsafe { maps.assume_init() };
    let stack = [0x1111u64, 0x9000, 0, 0];
    let sp = stack.as_ptr() as u64;
    let (low, high) = (sp, sp + 32);
    let mut regs = pcmap_registers::from(pcmap_reader::walk::Registers::default());
    regs.pc = 0x1008;
    regs.known = 1 << 7;
    regs.value[7] = sp;
    let mut walk = MaybeUninit::<pcmap_walk>::uninit();
    let mut memory = vec![0u64; 2 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
    let mut cache = MaybeUninit::<pcmap_walk_cache>::uninit();
    let mut slots = [pcmap_root_slot::default(); 32];
    let mut buffer = pcmap_slot_buffer {
        slots: slots.as_mut_ptr(),
        capacity: 32,
        count: 0,
        frames: 0,
        full: None,
        ctx: std::ptr::null_mut(),
    };
    let null = std::ptr::null_mut();
    // SAFETY: every pointer is to a live local; the stack is `stack`,
    // inside the bounds given.
    unsafe {
        let s = pcmap_walk_cache_init(
            cache.as_mut_ptr(),
            memory.as_mut_ptr().cast(),
            memory.len() * 8,
        );
        assert_eq!(s, PCMAP_OK);
        assert_eq!(
            pcmap_walk_init(walk.as_mut_ptr(), &maps, &regs, low, high, 0),
            PCMAP_OK
        );
        let roots = pcmap_walk_roots(walk.as_ptr(), Some(visit_root), null);
        // The step needs no kind: it goes on to the unmanaged caller.
        assert_eq!(pcmap_walk_step(walk.as_mut_ptr()), PCMAP_OK);
        [
            roots,
            pcmap_walk_collect(
                std::ptr::null_mut(),
                &maps,
                &regs,
                low,
                high,
                0,
                Some(visit_frame),
                null,
            ),
            pcmap_walk_collect(
                cache.as_mut_ptr(),
                &maps,
                &regs,
                low,
                high,
                0,
                Some(visit_frame),
                null,
            ),
            pcmap_walk_collect_slots(cache.as_mut_ptr(), &maps, &regs, low, high, 0, &mut buffer),
        ]
    }
}

#[test]
fn a_record_of_unknown_kind_has_a_status_of_its_own() {
    assert_eq!(
        statuses(RecordKind::Unknown),
        [PCMAP_ERR_UNKNOWN_KIND; 4],
        "roots, collect (no cache, cache), slots"
    );
    // The same record as a stack map walks to the end.
    assert_eq!(
        statuses(RecordKind::StackMap),
        [
            PCMAP_OK,
            PCMAP_STOP_UNMANAGED,
            PCMAP_STOP_UNMANAGED,
            PCMAP_STOP_UNMANAGED
        ]
    );
    // SAFETY: a static NUL-terminated string.
    let message = unsafe { CStr::from_ptr(pcmap_strerror(PCMAP_ERR_UNKNOWN_KIND as i32)) };
    let message = message.to_str().unwrap();
    assert!(
        message.contains("no known kind") && message.contains("--ir"),
        "{message}"
    );
}
