//! LLVM 16's ORC LLJIT with a memory manager that records where each
//! section went (the stack map section and `.eh_frame` among them), and an
//! object transform that keeps a copy of each object (its symbol table
//! gives function sizes). Then the flat table, built in memory.

use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;

use llvm_sys::core::{
    LLVMCreateMemoryBufferWithMemoryRangeCopy, LLVMGetBufferSize, LLVMGetBufferStart,
};
use llvm_sys::error::*;
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::orc2::ee::*;
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use object::{Object, ObjectSymbol, SymbolKind};
use pcmap::object::Target;
use pcmap::stackmap::ir::{self, Toolchain};
use pcmap::stackmap::memory::{flat_tables, MemoryFunction, MemoryModule};

/// A region sections are carved from; code regions become read + execute
/// when LLVM finalizes the object.
struct Region {
    base: *mut u8,
    size: usize,
    used: usize,
}

impl Region {
    /// `size` bytes mapped read + write, near `hint` if the kernel agrees
    /// (code within ±2 GiB of the host's functions can call them with a
    /// 32-bit displacement).
    fn map(size: usize, hint: usize) -> Region {
        // SAFETY: a fresh anonymous private mapping; no existing memory is
        // touched (no MAP_FIXED).
        let base = unsafe {
            libc::mmap(
                hint as *mut c_void,
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap failed");
        Region {
            base: base.cast(),
            size,
            used: 0,
        }
    }

    fn take(&mut self, size: usize, align: usize) -> *mut u8 {
        let start = (self.base as usize + self.used).next_multiple_of(align.max(16));
        let end = start + size;
        assert!(end <= self.base as usize + self.size, "JIT region full");
        self.used = end - self.base as usize;
        start as *mut u8
    }
}

/// A section LLVM's linker placed.
#[derive(Debug, Clone)]
pub struct Placed {
    pub name: String,
    pub address: usize,
    pub size: usize,
}

/// What the memory manager and the object transform saw.
pub struct Seen {
    code: Region,
    data: Region,
    pub sections: Vec<Placed>,
    pub objects: Vec<Vec<u8>>,
}

impl Seen {
    fn section(&self, name: &str) -> Option<&Placed> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The bytes of a placed section.
    pub fn bytes(&self, s: &Placed) -> &[u8] {
        // SAFETY: a section LLVM's linker wrote into our regions, which stay
        // mapped (and are never freed) while `self` lives.
        unsafe { std::slice::from_raw_parts(s.address as *const u8, s.size) }
    }

    /// The code region: the range patches go to.
    pub fn code_region(&self) -> (usize, usize) {
        (self.code.base as usize, self.code.size)
    }
}

extern "C" fn create_context(ctx: *mut c_void) -> *mut c_void {
    ctx
}

extern "C" fn notify_terminating(_: *mut c_void) {}

fn name_of(name: *const c_char) -> String {
    if name.is_null() {
        return String::new();
    }
    // SAFETY: LLVM passes a NUL-terminated section name.
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

extern "C" fn allocate_code(
    opaque: *mut c_void,
    size: libc::uintptr_t,
    align: libc::c_uint,
    _id: libc::c_uint,
    name: *const c_char,
) -> *mut u8 {
    // SAFETY: `opaque` is the `Seen` that `Jit::new` leaked.
    let seen = unsafe { &mut *opaque.cast::<Seen>() };
    let p = seen.code.take(size, align as usize);
    seen.sections.push(Placed {
        name: name_of(name),
        address: p as usize,
        size,
    });
    p
}

extern "C" fn allocate_data(
    opaque: *mut c_void,
    size: libc::uintptr_t,
    align: libc::c_uint,
    _id: libc::c_uint,
    name: *const c_char,
    _read_only: LLVMBool,
) -> *mut u8 {
    // SAFETY: as in `allocate_code`.
    let seen = unsafe { &mut *opaque.cast::<Seen>() };
    let p = seen.data.take(size, align as usize);
    seen.sections.push(Placed {
        name: name_of(name),
        address: p as usize,
        size,
    });
    p
}

/// Code becomes read + execute (W^X: a patch makes its page writable for
/// the write only).
extern "C" fn finalize(opaque: *mut c_void, _err: *mut *mut c_char) -> LLVMBool {
    // SAFETY: as in `allocate_code`.
    let seen = unsafe { &mut *opaque.cast::<Seen>() };
    // SAFETY: the code region is our mapping.
    let r = unsafe {
        libc::mprotect(
            seen.code.base.cast(),
            seen.code.size,
            libc::PROT_READ | libc::PROT_EXEC,
        )
    };
    LLVMBool::from(r != 0)
}

extern "C" fn create_layer(
    ctx: *mut c_void,
    es: LLVMOrcExecutionSessionRef,
    _triple: *const c_char,
) -> LLVMOrcObjectLayerRef {
    // SAFETY: LLVM's C API; the callbacks match its signatures.
    unsafe {
        LLVMOrcCreateRTDyldObjectLinkingLayerWithMCJITMemoryManagerLikeCallbacks(
            es,
            ctx,
            create_context,
            notify_terminating,
            allocate_code,
            allocate_data,
            finalize,
            None,
        )
    }
}

extern "C" fn keep_object(ctx: *mut c_void, obj: *mut LLVMMemoryBufferRef) -> LLVMErrorRef {
    // SAFETY: `ctx` is the leaked `Seen`; `obj` a valid buffer LLVM owns.
    unsafe {
        let seen = &mut *ctx.cast::<Seen>();
        let start = LLVMGetBufferStart(*obj).cast::<u8>();
        let size = LLVMGetBufferSize(*obj);
        seen.objects
            .push(std::slice::from_raw_parts(start, size).to_vec());
    }
    ptr::null_mut()
}

fn check(e: LLVMErrorRef, what: &str) -> Result<(), String> {
    if e.is_null() {
        return Ok(());
    }
    // SAFETY: `e` is an error LLVM returned; its message is freed once.
    unsafe {
        let m = LLVMGetErrorMessage(e);
        let s = CStr::from_ptr(m).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(m);
        Err(format!("{what}: {s}"))
    }
}

/// The JIT and what it saw.
pub struct Jit {
    jit: LLVMOrcLLJITRef,
    pub seen: &'static mut Seen,
}

impl Jit {
    /// An LLJIT whose code goes near `hint`.
    pub fn new(hint: usize) -> Result<Jit, String> {
        let seen = Box::leak(Box::new(Seen {
            code: Region::map(1 << 20, hint),
            data: Region::map(1 << 20, hint),
            sections: Vec::new(),
            objects: Vec::new(),
        }));
        let ctx: *mut Seen = seen;
        // SAFETY: LLVM's C API, used as documented; `ctx` lives forever.
        unsafe {
            LLVM_InitializeNativeTarget();
            LLVM_InitializeNativeAsmPrinter();
            let builder = LLVMOrcCreateLLJITBuilder();
            LLVMOrcLLJITBuilderSetObjectLinkingLayerCreator(builder, create_layer, ctx.cast());
            let mut jit = ptr::null_mut();
            check(LLVMOrcCreateLLJIT(&mut jit, builder), "creating the JIT")?;
            LLVMOrcObjectTransformLayerSetTransform(
                LLVMOrcLLJITGetObjTransformLayer(jit),
                keep_object,
                ctx.cast(),
            );
            Ok(Jit {
                jit,
                seen: &mut *ctx,
            })
        }
    }

    /// Parses textual IR and adds it to the main dylib.
    pub fn add_ir(&mut self, ir: &str) -> Result<(), String> {
        // SAFETY: LLVM's C API; the module is handed to ORC, which owns it.
        unsafe {
            let tsc = LLVMOrcCreateNewThreadSafeContext();
            let ctx = LLVMOrcThreadSafeContextGetContext(tsc);
            let name = CString::new("module").unwrap();
            let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
                ir.as_ptr().cast(),
                ir.len(),
                name.as_ptr(),
            );
            let mut module = ptr::null_mut();
            let mut msg = ptr::null_mut();
            if LLVMParseIRInContext(ctx, buf, &mut module, &mut msg) != 0 {
                let m = CStr::from_ptr(msg).to_string_lossy().into_owned();
                return Err(format!("parsing the IR: {m}"));
            }
            let tsm = LLVMOrcCreateNewThreadSafeModule(module, tsc);
            LLVMOrcDisposeThreadSafeContext(tsc);
            let jd = LLVMOrcLLJITGetMainJITDylib(self.jit);
            check(
                LLVMOrcLLJITAddLLVMIRModule(self.jit, jd, tsm),
                "adding the IR",
            )
        }
    }

    /// The address of function `name`, compiling and linking it.
    pub fn lookup(&self, name: &str) -> Result<u64, String> {
        let c = CString::new(name).unwrap();
        let mut address = 0;
        // SAFETY: LLVM's C API.
        let e = unsafe { LLVMOrcLLJITLookup(self.jit, &mut address, c.as_ptr()) };
        check(e, &format!("looking {name} up"))?;
        Ok(address)
    }

    /// The flat stack map table of everything compiled so far, built in
    /// memory from the stack map section and `.eh_frame` as the linker left
    /// them, each function's address (looked up) and size (from the
    /// object's symbol table), and the plugin's description of the sites
    /// ([`describe_sites`]).
    pub fn flat_table(&self, sites: &[u8]) -> Result<Vec<u8>, String> {
        let seen = &*self.seen;
        let stackmaps = seen
            .section(".llvm_stackmaps")
            .ok_or("no .llvm_stackmaps section was allocated")?;
        let mut names = Vec::new();
        for obj in &seen.objects {
            let file = object::File::parse(&obj[..]).map_err(|e| e.to_string())?;
            for s in file.symbols() {
                if s.kind() == SymbolKind::Text && s.is_definition() {
                    names.push((s.name().map_err(|e| e.to_string())?.to_string(), s.size()));
                }
            }
        }
        let mut functions = Vec::new();
        for (name, size) in &names {
            let address = self.lookup(name)?;
            // SAFETY: the function's code, `size` bytes (its symbol's), in
            // our code region, readable.
            let code = unsafe { std::slice::from_raw_parts(address as *const u8, *size as usize) };
            functions.push(MemoryFunction {
                name: name.as_bytes(),
                address,
                code,
            });
        }
        let eh = seen
            .section(".eh_frame")
            .map(|s| (seen.bytes(s), s.address as u64));
        let module = MemoryModule {
            target: Target::X86_64,
            stackmaps: seen.bytes(stackmaps),
            functions: &functions,
            eh_frame: eh,
            sites: Some(sites),
        };
        flat_tables(&module).map_err(|e| format!("{e:#}"))
    }
}

/// The plugin's description of the sites of `ir` (`.pcmap.sites`: each
/// stack map's and patch point's kind and patchable size), from its `sites`
/// pass run by LLVM 16's `opt`, as `pcmap emit --ir` runs it. A JIT built on
/// LLVM's C++ API runs the pass in its own pipeline (`PassPlugin::Load`)
/// and takes `.pcmap.sites` from its object instead; LLVM's C API cannot
/// load a pass plugin. The plugin is the one built beside this program.
pub fn describe_sites(ir: &str) -> Result<Vec<u8>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let tools = Toolchain {
        llvm: 16,
        opt: "opt-16".into(),
        plugin: exe.with_file_name("libpcmap_plugin.so"),
    };
    let dir = tempfile::tempdir().map_err(|e| format!("a temporary directory: {e}"))?;
    let path = dir.path().join("module.ll");
    std::fs::write(&path, ir).map_err(|e| format!("{}: {e}", path.display()))?;
    ir::describe(&path, Target::X86_64, &tools).map_err(|e| e.to_string())
}
