//! A JIT that uses pcmap's tables (x86-64; docs/patching.md):
//!
//! 1. LLVM 16's ORC LLJIT compiles IR with a patch point and a stack map;
//!    the memory manager records where `.llvm_stackmaps` and `.eh_frame`
//!    went, and the flat table is built in memory from them
//!    (`pcmap::stackmap::memory`), kinds and patchable sizes from the
//!    plugin's description of the IR's sites, then opened with the C API.
//! 2. An inline cache: patch point 1 starts as a call to the miss handler,
//!    which finds its record by ID (`pcmap_find_id`) and by the return
//!    address inside the region (`pcmap_find_patch_region`), patches the
//!    region to call the receiver type's method, and calls it. Later calls
//!    hit; a receiver of another type fails the method's guard and
//!    repatches.
//! 3. Live values: JIT code calls into the runtime just before stack map
//!    7; the runtime finds the record at its return address and decodes
//!    the caller's live values from the registers and stack of the running
//!    frame (`pcmap_decode`).
//!
//! Prints what happened; exits non-zero if anything is not as expected.

mod jit;
mod patch;

use std::mem::MaybeUninit;
use std::ptr;
use std::sync::atomic::{AtomicU32, Ordering};

use pcmap_capi::ffi::*;
use pcmap_capi::*;

/// A receiver: its type and two fields.
#[repr(C)]
pub struct Obj {
    ty: u64,
    a: i64,
    b: i64,
}

const CIRCLE: u64 = 1;
const RECT: u64 = 2;

const IR: &str = r#"
; A method call site with an inline cache: patch point 1 reserves 13 bytes
; and starts as a call of the miss handler with (receiver, site ID).
define i64 @area(ptr %obj) {
entry:
  %r = call i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 1, i32 13, ptr inttoptr (i64 MISS to ptr), i32 2, ptr %obj, i64 1)
  ret i64 %r
}

; Live values at stack map 7, right after a call into the runtime.
define i64 @live(i64 %a, i64 %b) {
entry:
  %x = mul i64 %a, 3
  %y = add i64 %b, 1000
  call void inttoptr (i64 CAPTURE to ptr)()
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 0, i64 %x, i64 %y, i64 42, i64 1099511627776)
  %s = add i64 %x, %y
  ret i64 %s
}

declare i64 @llvm.experimental.patchpoint.i64(i64, i32, ptr, i32, ...)
declare void @llvm.experimental.stackmap(i64, i32, ...)
"#;

/// The runtime's view of the JIT's code: the opened table and its ID
/// index, set once before JIT code runs (single-threaded example).
struct Runtime {
    table: pcmap_stackmaps,
    index: pcmap_id_index,
    /// The function the patch point is in, for printing offsets.
    area: u64,
    /// The patch encoding chosen for every site (see `patch`).
    near: bool,
    /// Live values decoded at stack map 7.
    live: Vec<u64>,
}

static mut RUNTIME: Option<Runtime> = None;
static HITS: AtomicU32 = AtomicU32::new(0);
static MISSES: AtomicU32 = AtomicU32::new(0);

fn runtime() -> &'static mut Runtime {
    // SAFETY: set in main before any JIT code runs; one thread.
    unsafe { (*ptr::addr_of_mut!(RUNTIME)).as_mut().expect("runtime set") }
}

core::arch::global_asm!(
    // The miss handler's entry: the patch point's call passes (receiver,
    // site ID); the return address (inside the patch region) is the third
    // argument.
    ".globl pcmap_jit_miss_entry",
    "pcmap_jit_miss_entry:",
    "    mov rdx, [rsp]",
    "    jmp {miss}",
    // Called by JIT code before a stack map: saves the callee-saved
    // registers (whose values are the caller's at its return address),
    // passes their slots and the return address (above them) to
    // `inspect_frame`.
    ".globl pcmap_jit_capture",
    "pcmap_jit_capture:",
    "    push rbp",
    "    push rbx",
    "    push r12",
    "    push r13",
    "    push r14",
    "    push r15",
    "    mov rdi, rsp",
    "    sub rsp, 8",
    "    call {inspect}",
    "    add rsp, 8",
    "    pop r15",
    "    pop r14",
    "    pop r13",
    "    pop r12",
    "    pop rbx",
    "    pop rbp",
    "    ret",
    miss = sym ic_miss,
    inspect = sym inspect_frame,
);

extern "C" {
    fn pcmap_jit_miss_entry();
    fn pcmap_jit_capture();
}

fn circle(o: &Obj) -> i64 {
    3 * o.a * o.a
}

fn rect(o: &Obj) -> i64 {
    o.a * o.b
}

/// A method entry the cache calls: checks the receiver's type (the guard),
/// else takes the miss path, which repatches the site.
extern "C" fn circle_area(obj: *const Obj, site: u64) -> i64 {
    // SAFETY: the JIT code passes the receiver main gave it.
    let o = unsafe { &*obj };
    if o.ty != CIRCLE {
        println!("  guard of circle_area failed (type {})", o.ty);
        return ic_miss(obj, site, 0);
    }
    HITS.fetch_add(1, Ordering::Relaxed);
    println!("  hit: circle_area");
    circle(o)
}

extern "C" fn rect_area(obj: *const Obj, site: u64) -> i64 {
    // SAFETY: as in circle_area.
    let o = unsafe { &*obj };
    if o.ty != RECT {
        println!("  guard of rect_area failed (type {})", o.ty);
        return ic_miss(obj, site, 0);
    }
    HITS.fetch_add(1, Ordering::Relaxed);
    println!("  hit: rect_area");
    rect(o)
}

/// The record of patch point `site` (by ID) and, when called from the
/// region, the same record by the return address `ret`.
fn site_record(site: u64, ret: u64) -> pcmap_record {
    let rt = runtime();
    let mut r = MaybeUninit::<pcmap_record>::uninit();
    // SAFETY: the table and index are open; `r` is writable.
    let s = unsafe {
        pcmap_find_id(
            &rt.table,
            &rt.index,
            site,
            0,
            ptr::null_mut(),
            r.as_mut_ptr(),
        )
    };
    assert_eq!(s, pcmap_status::PCMAP_OK, "no record with ID {site}");
    // SAFETY: written on OK.
    let r = unsafe { r.assume_init() };
    if ret != 0 {
        let mut by_pc = MaybeUninit::<pcmap_record>::uninit();
        // SAFETY: as above.
        let s =
            unsafe { pcmap_find_patch_region(&rt.table, ret, ptr::null_mut(), by_pc.as_mut_ptr()) };
        assert_eq!(
            s,
            pcmap_status::PCMAP_OK,
            "return address in no patch region"
        );
        // SAFETY: written on OK.
        let by_pc = unsafe { by_pc.assume_init() };
        assert_eq!(by_pc.address, r.address, "ID and return address disagree");
        println!(
            "  return address area+{:#x} is in the patch region of record ID {} (area+{:#x}, {} bytes)",
            ret - rt.area,
            by_pc.id,
            by_pc.instruction_offset,
            by_pc.patchable_size
        );
    }
    r
}

/// The miss handler: resolves the receiver's method, patches the site to
/// call it, and calls it.
extern "C" fn ic_miss(obj: *const Obj, site: u64, ret: u64) -> i64 {
    MISSES.fetch_add(1, Ordering::Relaxed);
    // SAFETY: as in circle_area.
    let o = unsafe { &*obj };
    println!("  miss at site {site} (receiver type {})", o.ty);
    let r = site_record(site, ret);
    assert!(
        r.flags & PCMAP_RECORD_PATCHABLE_SIZE_KNOWN != 0 && r.kind == PCMAP_KIND_PATCHPOINT,
        "site {site} is not a patch point of known size"
    );
    let (target, name): (extern "C" fn(*const Obj, u64) -> i64, &str) = match o.ty {
        CIRCLE => (circle_area, "circle_area"),
        _ => (rect_area, "rect_area"),
    };
    let rt = runtime();
    let how = patch::patch_call(r.address, r.patchable_size, target as usize as u64, rt.near)
        .unwrap_or_else(|e| panic!("patching site {site}: {e}"));
    println!(
        "  patched area+{:#x} ({} bytes) to call {name}: {how}",
        r.instruction_offset, r.patchable_size
    );
    match o.ty {
        CIRCLE => circle(o),
        _ => rect(o),
    }
}

/// DWARF numbers of the registers `pcmap_jit_capture` saves, in its order.
const SAVED: [u16; 6] = [15, 14, 13, 12, 3, 6];

/// Called (through `pcmap_jit_capture`) by JIT code: `slots` holds the
/// caller's r15, r14, r13, r12, rbx, rbp, then its return address.
extern "C" fn inspect_frame(slots: *const u64) {
    let rt = runtime();
    // SAFETY: `pcmap_jit_capture` passes 7 readable slots on its stack.
    let slots = unsafe { std::slice::from_raw_parts(slots, 7) };
    let pc = slots[6];
    let sp = slots.as_ptr() as u64 + 7 * 8;
    let mut regs: Vec<pcmap_register> = SAVED
        .iter()
        .zip(slots)
        .map(|(&dwarf_reg, v)| pcmap_register {
            dwarf_reg,
            value: *v,
            address: v as *const u64 as u64,
        })
        .collect();
    regs.push(pcmap_register {
        dwarf_reg: 7,
        value: sp,
        address: 0,
    });
    let mut f = MaybeUninit::<pcmap_function>::uninit();
    let mut r = MaybeUninit::<pcmap_record>::uninit();
    // SAFETY: the table is open; outputs writable.
    let s = unsafe { pcmap_find(&rt.table, pc, f.as_mut_ptr(), r.as_mut_ptr()) };
    assert_eq!(s, pcmap_status::PCMAP_OK, "no record at the return address");
    // SAFETY: written on OK.
    let (f, r) = unsafe { (f.assume_init(), r.assume_init()) };
    println!(
        "  record ID {} at live+{:#x} (the return address), {} locations",
        r.id, r.instruction_offset, r.num_locations
    );
    let _ = f;
    for i in 0..r.num_locations {
        let mut loc = MaybeUninit::<pcmap_location>::uninit();
        let mut v = MaybeUninit::<pcmap_value>::uninit();
        // SAFETY: `r` is this library's; outputs writable; `regs` readable.
        let (s1, s2) = unsafe {
            (
                pcmap_location_at(&r, i.into(), loc.as_mut_ptr()),
                pcmap_decode(&r, i.into(), regs.as_ptr(), regs.len(), v.as_mut_ptr()),
            )
        };
        assert_eq!((s1, s2), (pcmap_status::PCMAP_OK, pcmap_status::PCMAP_OK));
        // SAFETY: written on OK.
        let (loc, v) = unsafe { (loc.assume_init(), v.assume_init()) };
        let value = if v.has_value {
            v.value
        } else {
            // SAFETY: an Indirect location: a stack slot of the running
            // caller's frame, 8 bytes.
            unsafe { *(v.address as *const u64) }
        };
        let kind = match loc.kind {
            PCMAP_LOCATION_REGISTER => format!("register {}", loc.dwarf_reg),
            PCMAP_LOCATION_DIRECT => format!("address {} + {}", loc.dwarf_reg, loc.offset),
            PCMAP_LOCATION_INDIRECT => format!("[{} + {}]", loc.dwarf_reg, loc.offset),
            PCMAP_LOCATION_CONSTANT => "constant".to_string(),
            _ => "large constant".to_string(),
        };
        println!("  location {i}: {kind} = {value}");
        rt.live.push(value);
    }
}

/// Every record of the table, as the C API gives it.
fn print_table(m: &pcmap_stackmaps, functions: &[(&str, u64)]) {
    for i in 0..m.num_functions {
        let mut f = MaybeUninit::<pcmap_function>::uninit();
        // SAFETY: `m` is open.
        let s = unsafe { pcmap_function_at(m, i, f.as_mut_ptr()) };
        assert_eq!(s, pcmap_status::PCMAP_OK);
        // SAFETY: written on OK.
        let f = unsafe { f.assume_init() };
        let name = functions
            .iter()
            .find(|n| n.1 == f.address)
            .map_or("?", |n| n.0);
        println!("  function {name}: {} bytes", f.size);
        for k in 0..f.num_records {
            let mut r = MaybeUninit::<pcmap_record>::uninit();
            // SAFETY: `f` is this library's.
            let s = unsafe { pcmap_record_at(&f, k, r.as_mut_ptr()) };
            assert_eq!(s, pcmap_status::PCMAP_OK);
            // SAFETY: written on OK.
            let r = unsafe { r.assume_init() };
            let kind = match r.kind {
                PCMAP_KIND_STACKMAP => "stackmap",
                PCMAP_KIND_PATCHPOINT => "patchpoint",
                PCMAP_KIND_STATEPOINT => "statepoint",
                _ => "unknown kind",
            };
            let cfa = match r.frame_flags & PCMAP_FRAME_CFA_RULE {
                0 => "no CFA rule".to_string(),
                _ => format!("CFA = reg {} + {}", r.cfa_register, r.cfa_offset),
            };
            println!(
                "    record ID {} {kind} at +{:#x}, patchable size {}, {cfa}",
                r.id, r.instruction_offset, r.patchable_size
            );
        }
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("pcmap-jit: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let miss = pcmap_jit_miss_entry as *const () as usize;
    let ir = IR.replace("MISS", &miss.to_string()).replace(
        "CAPTURE",
        &(pcmap_jit_capture as *const () as usize).to_string(),
    );
    // Code near the runtime's functions (within a 32-bit call's reach) if
    // the kernel places it there.
    let hint = (miss & !0xF_FFFF).saturating_sub(0x1000_0000);
    let mut jit = jit::Jit::new(hint)?;
    jit.add_ir(&ir)?;
    let area = jit.lookup("area")?;
    let live = jit.lookup("live")?;
    println!("compiled area and live with LLVM 16's ORC JIT");
    for s in &jit.seen.sections {
        if s.name == ".llvm_stackmaps" || s.name == ".eh_frame" {
            println!("  memory manager: {} ({} bytes)", s.name, s.size);
        }
    }

    let sites = jit::describe_sites(&ir)?;
    let table = jit.flat_table(&sites)?;
    let mut m = MaybeUninit::<pcmap_stackmaps>::uninit();
    // SAFETY: `table` lives until the end of `run` (the JIT code runs
    // before then); absolute addresses, so the address given is not used.
    let s = unsafe {
        pcmap_open(
            m.as_mut_ptr(),
            table.as_ptr().cast(),
            table.len(),
            table.as_ptr() as u64,
        )
    };
    if s != pcmap_status::PCMAP_OK {
        return Err(format!("pcmap_open: {s:?}"));
    }
    // SAFETY: written on OK.
    let m = unsafe { m.assume_init() };
    // SAFETY: `m` is open.
    let s = unsafe { pcmap_validate(&m) };
    if s != pcmap_status::PCMAP_OK {
        return Err(format!("pcmap_validate: {s:?}"));
    }
    println!(
        "flat table built in memory: {} bytes, {} functions, {} records",
        table.len(),
        m.num_functions,
        m.num_records
    );
    print_table(&m, &[("area", area), ("live", live)]);

    let mut size = 0usize;
    // SAFETY: `m` is open.
    let s = unsafe { pcmap_id_index_size(&m, &mut size) };
    assert_eq!(s, pcmap_status::PCMAP_OK);
    let mut buffer = vec![0u64; size.div_ceil(8)];
    let mut index = MaybeUninit::<pcmap_id_index>::uninit();
    // SAFETY: `buffer` holds `size` bytes, 8-aligned; it lives as long as
    // the runtime uses the index (to the end of `run`).
    let s =
        unsafe { pcmap_id_index_build(&m, buffer.as_mut_ptr().cast(), size, index.as_mut_ptr()) };
    assert_eq!(s, pcmap_status::PCMAP_OK);

    let (code, code_size) = jit.seen.code_region();
    let methods = [
        circle_area as *const () as usize,
        rect_area as *const () as usize,
    ];
    // `--far` takes the 64-bit form even where a 32-bit call reaches.
    let far = std::env::args().any(|a| a == "--far");
    let near = !far
        && methods.iter().all(|&t| {
            let reach = |a: usize| (a as i64 - t as i64).unsigned_abs() < 0x7000_0000;
            reach(code) && reach(code + code_size)
        });
    // SAFETY: one thread; no JIT code runs yet.
    unsafe {
        *ptr::addr_of_mut!(RUNTIME) = Some(Runtime {
            table: m,
            // SAFETY: written on OK above.
            index: index.assume_init(),
            area,
            near,
            live: Vec::new(),
        });
    }
    println!(
        "patches will use {}",
        if near {
            "call rel32 (the code is within 2 GiB of the methods)"
        } else {
            "movabs r11 + call r11 (the code is far from the methods)"
        }
    );

    // SAFETY: `area` is JIT code of this signature.
    let area_fn: extern "C" fn(*const Obj) -> i64 = unsafe { std::mem::transmute(area as usize) };
    let calls = [
        Obj {
            ty: CIRCLE,
            a: 2,
            b: 0,
        },
        Obj {
            ty: CIRCLE,
            a: 3,
            b: 0,
        },
        Obj {
            ty: CIRCLE,
            a: 1,
            b: 0,
        },
        Obj {
            ty: RECT,
            a: 4,
            b: 5,
        },
        Obj {
            ty: RECT,
            a: 2,
            b: 3,
        },
    ];
    let mut ok = true;
    for (n, o) in calls.iter().enumerate() {
        match o.ty {
            CIRCLE => println!("call {}: area(circle r={})", n + 1, o.a),
            _ => println!("call {}: area(rect {}x{})", n + 1, o.a, o.b),
        }
        let got = area_fn(o);
        let want = if o.ty == CIRCLE { circle(o) } else { rect(o) };
        println!("  = {got}");
        ok &= got == want;
    }
    let (hits, misses) = (HITS.load(Ordering::Relaxed), MISSES.load(Ordering::Relaxed));
    println!("inline cache: {hits} hits, {misses} misses");
    ok &= (hits, misses) == (3, 2);

    println!("call live(6, 5)");
    // SAFETY: `live` is JIT code of this signature.
    let live_fn: extern "C" fn(i64, i64) -> i64 = unsafe { std::mem::transmute(live as usize) };
    let sum = live_fn(6, 5);
    println!("  = {sum}");
    let values = runtime().live.clone();
    ok &= sum == 18 + 1005 && values == [18, 1005, 42, 1 << 40];
    drop(buffer);
    drop(table);
    if !ok {
        return Err("results differ from what was expected".into());
    }
    println!("all as expected");
    Ok(())
}
