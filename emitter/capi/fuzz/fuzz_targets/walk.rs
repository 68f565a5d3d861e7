//! The C API's stack walk over a stack and a table the input both shape
//! (x86-64 rules: the walk uses the host's). The input is
//!
//! ```text
//! flags  start function  start record  SP word  RBP word  RBX word  N  N × (u16 offset, byte) table edits  stack words (tag, u16)…
//! ```
//!
//! Each stack word is a tag and a 16-bit number: tag 0 makes it an address
//! in the stack (its base + the number), 1 a code address (the first
//! function's + the number), 2 the number itself, 3 all ones. The stack is
//! a heap allocation of exactly its words, and the table one of exactly its
//! bytes, so AddressSanitizer (`FUZZ_SANITIZER=address`) catches any read
//! outside either: the walk must read the stack only in the bounds it is
//! given.
//!
//! What must hold: no panic, no read out of bounds, every walk ends, and
//! the cursor with a cache (cold, then warm, in a cache of two entries that
//! records evict from each other) and the collector (without a cache, then
//! cold and warm) give what the cursor without a cache gives: each frame's
//! PC, depth, where it is (record or not), its roots, and the status the
//! walk ends with; the slots collector (`pcmap_walk_collect_slots`, a
//! 32-slot buffer, so `full` runs often) gives the addresses of those
//! roots, up to the first frame with a root that has none, where it stops
//! with `PCMAP_STOP_NO_SLOT`.
#![no_main]
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pcmap_capi::ffi::pcmap_open;
use pcmap_capi::status::pcmap_status::{self, PCMAP_OK, PCMAP_STOP_NO_SLOT};
use pcmap_capi::types::{pcmap_registers, pcmap_stackmaps, pcmap_value};
use pcmap_capi::walk::*;
use pcmap_capi::{
    PCMAP_WALK_AT_RECORD, PCMAP_WALK_CACHE_ENTRY_SIZE, PCMAP_WALK_FRAME_POINTER_CHAIN,
};
use pcmap_reader::flat::{Cfa, FrameRegister, RecordKind};
use pcmap_reader::stackmap::{write_flat_placed, FrameState, Function, Record, Table};
use pcmap_reader::{LittleEndian, Location, LocationKind};

const FUNCTIONS: u64 = 24;
const BASE: u64 = 0x1000;
const SPACING: u64 = 0x40;
/// x86-64 DWARF registers.
const RBX: u16 = 3;
const RBP: u16 = 6;
const RSP: u16 = 7;
const RETURN_ADDRESS: u16 = 16;

/// The table at address 0: functions whose frames are SP-based, RBP-based
/// (RBP saved) or save RBX, with statepoints and stack maps whose roots are
/// in SP- and RBP-relative slots, in RBX, or Direct.
fn table() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let loc = |kind, dwarf_reg, offset| Location {
            kind,
            size: 8,
            dwarf_reg,
            offset,
        };
        let constant = |v| loc(LocationKind::Constant, 0, v);
        let functions: Vec<Function> = (0..FUNCTIONS)
            .map(|f| {
                let (cfa, saved) = match f % 3 {
                    0 => ((RSP, 16 + 16 * (f as i32 % 2)), vec![]),
                    1 => ((RBP, 16), vec![(RBP, -16)]),
                    _ => ((RSP, 24), vec![(RBX, -16)]),
                };
                Function {
                    address: BASE + SPACING * f,
                    code_offset: Some(SPACING * f),
                    size: 0x30,
                    stack_size: 16,
                    records: (0..(f % 4) as u32 + 1)
                        .map(|r| {
                            let statepoint = (f + u64::from(r)) % 2 == 0;
                            let slots = [
                                loc(LocationKind::Indirect, RSP, 8 * r as i32),
                                loc(LocationKind::Indirect, RBP, -24),
                                loc(LocationKind::Register, RBX, 0),
                                loc(LocationKind::Direct, RSP, 16),
                            ];
                            let mut locations = Vec::new();
                            if statepoint {
                                // Calling convention, flags, no deopt
                                // values; then (base, derived) pairs.
                                locations.extend([constant(0), constant(0), constant(0)]);
                                locations.extend([slots[0], slots[0], slots[1], slots[0]]);
                                if f % 3 == 2 {
                                    locations.extend([slots[2], slots[2]]);
                                }
                            } else {
                                locations.extend(&slots[..2 + (f as usize % 3 == 2) as usize]);
                                locations.push(slots[3]);
                            }
                            Record {
                                id: f * 10 + u64::from(r),
                                instruction_offset: 8 * (r + 1),
                                patchable_size: Some(0),
                                kind: if statepoint {
                                    RecordKind::StatePoint
                                } else {
                                    RecordKind::StackMap
                                },
                                has_live_out_info: false,
                                locations,
                                live_outs: vec![],
                                frame_state: Some(FrameState {
                                    cfa: Some(Cfa {
                                        register: cfa.0,
                                        offset: cfa.1,
                                    }),
                                    stack_realigned: false,
                                    saved: saved
                                        .iter()
                                        .chain(&[(RETURN_ADDRESS, -8)])
                                        .map(|&(dwarf_reg, offset)| FrameRegister {
                                            dwarf_reg,
                                            offset,
                                        })
                                        .collect(),
                                }),
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        let t = Table {
            constants: vec![],
            functions,
        };
        write_flat_placed(&t, LittleEndian, false, true, 0).unwrap()
    })
}

/// What a walk saw.
#[derive(Debug, Default, PartialEq)]
struct Seen {
    /// (PC, depth, roots) per frame with a record (the frames the
    /// collector visits).
    frames: Vec<(u64, u32, Vec<Root>)>,
    status: Option<pcmap_status>,
}

/// A root, its fields compared one by one (the struct has padding).
#[derive(Debug, PartialEq)]
struct Root([(u64, u64, bool, bool); 2], u16, u16);

fn root(r: &pcmap_root) -> Root {
    let v = |v: &pcmap_value| (v.value, v.address, v.has_value, v.has_address);
    Root([v(&r.base), v(&r.derived)], r.base_index, r.derived_index)
}

unsafe extern "C" fn visit_root(ctx: *mut c_void, r: *const pcmap_root) {
    // SAFETY: ctx is the `Vec<Root>` `cursor_walk` passes, r the library's.
    unsafe { (*ctx.cast::<Vec<Root>>()).push(root(&*r)) }
}

unsafe extern "C" fn visit_frame(ctx: *mut c_void, f: *const pcmap_walk_frame) {
    // SAFETY: ctx is the `Seen` `collect_walk` passes; f and its roots are
    // the library's, valid during the call.
    unsafe {
        let seen = &mut *ctx.cast::<Seen>();
        let f = &*f;
        let roots = std::slice::from_raw_parts(f.roots, f.num_roots as usize);
        let pc = (*f.regs).pc;
        // A frame of more than 32 roots comes in several calls.
        match seen.frames.last_mut() {
            Some(last) if last.0 == pc && last.1 == f.depth => {
                last.2.extend(roots.iter().map(root))
            }
            _ => seen
                .frames
                .push((pc, f.depth, roots.iter().map(root).collect())),
        }
    }
}

struct Stack {
    words: Vec<u64>,
    low: u64,
    high: u64,
}

/// The cursor's walk: the frames with a record (as the collector visits
/// them), and every frame's (PC, depth, `PCMAP_WALK_AT_*`).
fn cursor_walk(
    maps: &pcmap_stackmaps,
    regs: &pcmap_registers,
    stack: &Stack,
    flags: u32,
    cache: *mut pcmap_walk_cache,
) -> (Seen, Vec<(u64, u32, u32)>) {
    let mut seen = Seen::default();
    let mut all = Vec::new();
    // SAFETY: all-zero is a valid `pcmap_walk` (integers and raw pointers);
    // init fills it.
    let mut w: pcmap_walk = unsafe { MaybeUninit::zeroed().assume_init() };
    // SAFETY: maps was opened over the live table, regs and the stack bounds
    // are ours, the cache (or NULL) was set up by pcmap_walk_cache_init.
    let mut status =
        unsafe { pcmap_walk_init_cached(&mut w, maps, regs, stack.low, stack.high, flags, cache) };
    while status == PCMAP_OK {
        all.push((w.regs.pc, w.depth, w.at));
        assert!(all.len() < 100_000, "the walk does not end");
        if w.at == PCMAP_WALK_AT_RECORD {
            let mut roots = Vec::new();
            // SAFETY: w was filled by init/step; visit_root takes a Vec<Root>.
            let r = unsafe {
                pcmap_walk_roots(&w, Some(visit_root), (&mut roots as *mut Vec<Root>).cast())
            };
            if r != PCMAP_OK {
                // The collector stops at a frame whose roots fail.
                status = r;
                break;
            }
            seen.frames.push((w.regs.pc, w.depth, roots));
        }
        // SAFETY: as for init.
        status = unsafe { pcmap_walk_step(&mut w) };
    }
    seen.status = Some(status);
    (seen, all)
}

fn collect_walk(
    maps: &pcmap_stackmaps,
    regs: &pcmap_registers,
    stack: &Stack,
    flags: u32,
    cache: *mut pcmap_walk_cache,
) -> Seen {
    let mut seen = Seen::default();
    // SAFETY: as in cursor_walk; visit_frame takes a Seen.
    let status = unsafe {
        pcmap_walk_collect(
            cache,
            maps,
            regs,
            stack.low,
            stack.high,
            flags,
            Some(visit_frame),
            (&mut seen as *mut Seen).cast(),
        )
    };
    seen.status = Some(status);
    seen
}

unsafe extern "C" fn full(ctx: *mut c_void, slots: *const pcmap_root_slot, count: u32) {
    // SAFETY: ctx is the `Vec` `slots_walk` passes; slots are the buffer's
    // first `count`.
    unsafe {
        let got = &mut *ctx.cast::<Vec<(u64, u64)>>();
        let slots = std::slice::from_raw_parts(slots, count as usize);
        got.extend(slots.iter().map(|s| (s.base, s.derived)));
    }
}

/// The slots collector's slots, frames and status.
fn slots_walk(
    maps: &pcmap_stackmaps,
    regs: &pcmap_registers,
    stack: &Stack,
    flags: u32,
    cache: *mut pcmap_walk_cache,
) -> (Vec<(u64, u64)>, u32, pcmap_status) {
    let mut got: Vec<(u64, u64)> = Vec::new();
    let mut memory = [pcmap_root_slot {
        base: 0,
        derived: 0,
    }; 32];
    let mut out = pcmap_slot_buffer {
        slots: memory.as_mut_ptr(),
        capacity: memory.len() as u32,
        count: 0,
        frames: 0,
        full: Some(full),
        ctx: (&mut got as *mut Vec<(u64, u64)>).cast(),
    };
    // SAFETY: as in cursor_walk; `full` takes the Vec.
    let status = unsafe {
        pcmap_walk_collect_slots(cache, maps, regs, stack.low, stack.high, flags, &mut out)
    };
    got.extend(
        memory[..out.count as usize]
            .iter()
            .map(|s| (s.base, s.derived)),
    );
    (got, out.frames, status)
}

/// What the slots collector must give, from the cursor's walk.
fn slots_wanted(want: &Seen) -> (Vec<(u64, u64)>, u32, Option<pcmap_status>) {
    let mut slots = Vec::new();
    for (frames, (_, _, roots)) in want.frames.iter().enumerate() {
        let has = |v: &(u64, u64, bool, bool)| v.3.then_some(v.1);
        let frame: Option<Vec<(u64, u64)>> = roots
            .iter()
            .map(|r| Some((has(&r.0[0])?, has(&r.0[1])?)))
            .collect();
        match frame {
            Some(f) => slots.extend(f),
            None => return (slots, frames as u32, Some(PCMAP_STOP_NO_SLOT)),
        }
    }
    (slots, want.frames.len() as u32, want.status)
}

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<7>() else {
        return;
    };
    let [flags, function, record, sp, rbp, rbx, edits] = *head;
    let (edits, words) = rest.split_at((usize::from(edits) * 3).min(rest.len()));
    let mut bytes = table().to_vec();
    for e in edits.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([e[0], e[1]])) % bytes.len();
        bytes[at] = e[2];
    }
    let mut stack = Stack {
        words: vec![0; words.len() / 3],
        low: 0,
        high: 0,
    };
    if stack.words.is_empty() {
        return;
    }
    stack.low = stack.words.as_ptr() as u64;
    stack.high = stack.low + 8 * stack.words.len() as u64;
    for (w, b) in stack.words.iter_mut().zip(words.chunks_exact(3)) {
        let n = u64::from(u16::from_le_bytes([b[1], b[2]]));
        *w = match b[0] % 4 {
            0 => stack.low.wrapping_add(n),
            1 => BASE.wrapping_add(n),
            2 => n,
            _ => u64::MAX,
        };
    }

    let mut maps: pcmap_stackmaps = unsafe {
        // SAFETY: all-zero is a valid `pcmap_stackmaps` (integers, raw
        // pointers, arrays of them); pcmap_open fills it.
        MaybeUninit::zeroed().assume_init()
    };
    // SAFETY: `bytes` outlives every walk below.
    if unsafe { pcmap_open(&mut maps, bytes.as_ptr().cast(), bytes.len(), 0) } != PCMAP_OK {
        return;
    }
    let word = |i: u8| stack.low + 8 * u64::from(i) % (stack.high - stack.low + 8);
    let mut regs = pcmap_registers {
        pc: BASE + SPACING * (u64::from(function) % FUNCTIONS) + 8 * u64::from(record % 5),
        known: 1 << RSP | 1 << RBP | 1 << RBX,
        saved: 1 << RBX,
        value: [0; pcmap_capi::PCMAP_REGISTER_SLOTS],
        address: [0; pcmap_capi::PCMAP_REGISTER_SLOTS],
    };
    regs.value[usize::from(RSP)] = word(sp);
    regs.value[usize::from(RBP)] = word(rbp);
    regs.value[usize::from(RBX)] = stack.words[usize::from(rbx) % stack.words.len()];
    regs.address[usize::from(RBX)] = word(rbx);
    let flags = u32::from(flags) & PCMAP_WALK_FRAME_POINTER_CHAIN;

    let (want, all) = cursor_walk(&maps, &regs, &stack, flags, std::ptr::null_mut());

    // Two entries: records evict each other.
    let mut memory = vec![0u64; 2 * PCMAP_WALK_CACHE_ENTRY_SIZE / 8];
    // SAFETY: all-zero is a valid cache struct; init fills it.
    let mut cache: pcmap_walk_cache = unsafe { MaybeUninit::zeroed().assume_init() };
    // SAFETY: `memory` is 8-aligned, outlives the cache's use.
    let r =
        unsafe { pcmap_walk_cache_init(&mut cache, memory.as_mut_ptr().cast(), memory.len() * 8) };
    assert_eq!(r, PCMAP_OK);
    for pass in ["cold", "warm"] {
        let (got, got_all) = cursor_walk(&maps, &regs, &stack, flags, &mut cache);
        assert_eq!(got_all, all, "cursor with the cache, {pass}: frames");
        assert_eq!(got, want, "cursor with the cache, {pass}");
    }
    let got = collect_walk(&maps, &regs, &stack, flags, std::ptr::null_mut());
    assert_eq!(got, want, "collect without a cache");
    // SAFETY: the cache was set up above.
    unsafe { pcmap_walk_cache_flush(&mut cache) };
    for pass in ["cold", "warm"] {
        let got = collect_walk(&maps, &regs, &stack, flags, &mut cache);
        assert_eq!(got, want, "collect, {pass}");
    }
    let slots = slots_wanted(&want);
    let got = slots_walk(&maps, &regs, &stack, flags, std::ptr::null_mut());
    assert_eq!((got.0, got.1, Some(got.2)), slots, "slots without a cache");
    // SAFETY: the cache was set up above.
    unsafe { pcmap_walk_cache_flush(&mut cache) };
    for pass in ["cold", "warm"] {
        let got = slots_walk(&maps, &regs, &stack, flags, &mut cache);
        assert_eq!((got.0, got.1, Some(got.2)), slots, "slots, {pass}");
    }
});
