//! Flat tables built in memory (`stackmap::memory`, what a JIT calls) equal
//! the tables `pcmap emit --absolute` writes for the same module, byte for
//! byte, frame states included: on x86_64, AArch64 and PowerPC64 LE. The
//! object is linked twice by ld.lld with its code at one fixed address: as
//! llc wrote it (LLVM's table relocated, `.eh_frame` as loaded: what a
//! JIT's linker leaves), and after `pcmap emit --absolute` (the flat table
//! relocated).

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{ir_sites, plugin};

use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};
use pcmap::object::Target;
use pcmap::stackmap::memory::{flat_tables, MemoryFunction, MemoryModule};

const TEXT: u64 = 0x40_0000;

fn inputs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../lit-tests/stackmap/Inputs")
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("the tool runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn link(object: &Path, out: &Path) -> Vec<u8> {
    let lld = Path::new(
        &String::from_utf8(
            Command::new("llvm-config-16")
                .arg("--bindir")
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap()
        .trim_end(),
    )
    .join("ld.lld");
    run(Command::new(lld)
        .arg(object)
        .arg("-o")
        .arg(out)
        .arg(format!("--section-start=.text={TEXT:#x}"))
        .args(["-e", "0", "--unresolved-symbols=ignore-all", "--no-pie"]));
    std::fs::read(out).unwrap()
}

/// The in-memory table of a linked program, from what a JIT knows of it.
fn in_memory(prog: &[u8], target: Target, sites: Option<&[u8]>, eh_frame: bool) -> Vec<u8> {
    let file = object::File::parse(prog).unwrap();
    let text = file.section_by_name(".text").unwrap();
    let code = text.data().unwrap();
    let functions: Vec<MemoryFunction<'_>> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.section_index() == Some(text.index()))
        .map(|s| {
            let at = (s.address() - text.address()) as usize;
            MemoryFunction {
                name: s.name_bytes().unwrap(),
                address: s.address(),
                code: &code[at..at + s.size() as usize],
            }
        })
        .collect();
    let eh = file.section_by_name(".eh_frame").unwrap();
    let module = MemoryModule {
        target,
        stackmaps: file
            .section_by_name(".llvm_stackmaps")
            .unwrap()
            .data()
            .unwrap(),
        functions: &functions,
        eh_frame: eh_frame.then(|| (eh.data().unwrap(), eh.address())),
        sites,
    };
    flat_tables(&module).unwrap()
}

/// (name, address, size) of every function of a linked program.
fn functions(prog: &[u8]) -> Vec<(String, u64, u64)> {
    let file = object::File::parse(prog).unwrap();
    let mut v: Vec<_> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text)
        .map(|s| (s.name().unwrap().to_string(), s.address(), s.size()))
        .collect();
    v.sort();
    v
}

fn section<'a>(prog: &'a [u8], name: &str) -> &'a [u8] {
    let file = object::File::parse(prog).unwrap();
    let s = file.section_by_name(name).unwrap();
    let range = s.file_range().unwrap();
    &prog[range.0 as usize..(range.0 + range.1) as usize]
}

#[test]
fn in_memory_tables_equal_what_emit_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Statepoints (calls ending at records: frame states at pc - 1),
    // stackmaps and patchpoints of every location kind, realigned and
    // variable-sized frames.
    let gc = d.join("fs.ll");
    run(Command::new("opt-16")
        .args(["-passes=rewrite-statepoints-for-gc", "-S"])
        .arg(inputs().join("frame-state.ll"))
        .arg("-o")
        .arg(&gc));
    let targets = [
        ("x86_64-unknown-linux-gnu", Target::X86_64),
        ("aarch64-unknown-linux-gnu", Target::Aarch64),
        (
            "powerpc64le-unknown-linux-gnu",
            Target::PowerPc64 {
                big_endian: false,
                elfv1: false,
            },
        ),
    ];
    for ir_path in [inputs().join("sm.ll"), gc] {
        for (triple, target) in targets {
            let stem = format!(
                "{}-{triple}",
                ir_path.file_stem().unwrap().to_string_lossy()
            );
            let obj = d.join(format!("{stem}.o"));
            let status = Command::new("llc-16")
                .args(["-O2", "-filetype=obj", &format!("-mtriple={triple}")])
                .arg(&ir_path)
                .arg("-o")
                .arg(&obj)
                .output()
                .unwrap();
            if !status.status.success() {
                // frame-state.ll's statepoints do not compile for PowerPC
                // (LLVM 16 crashes on gc.statepoint there).
                assert!(matches!(target, Target::PowerPc64 { .. }), "{stem}");
                continue;
            }
            // What emit --ir reads: the plugin's description of the IR.
            let sites = ir_sites(&ir_path, &std::fs::read(&obj).unwrap());
            let emitted = d.join(format!("{stem}.flat.o"));
            run(Command::new(env!("CARGO_BIN_EXE_pcmap"))
                .args(["emit", "--absolute", "--llvm", "16", "--ir"])
                .arg(&ir_path)
                .arg(&obj)
                .arg("-o")
                .arg(&emitted));
            let jit = link(&obj, &d.join(format!("{stem}.jit")));
            let aot = link(&emitted, &d.join(format!("{stem}.aot")));
            // The same functions at the same addresses in both (PowerPC's
            // code differs where it reaches the TOC, placed elsewhere).
            assert_eq!(functions(&jit), functions(&aot), "{stem}");
            let want = section(&aot, "pcmap_stackmaps");
            let got = in_memory(&jit, target, Some(&sites), true);
            assert_eq!(got, want, "{stem}: the in-memory table differs");
            // Without .eh_frame the records have no frame states: the table
            // is smaller, and not what emit wrote.
            let bare = in_memory(&jit, target, Some(&sites), false);
            assert!(bare.len() < want.len(), "{stem}");
        }
    }
}

/// The same with kinds and sizes from the plugin's `.pcmap.sites` (what a
/// JIT whose IR went through the plugin has in its object) instead of the
/// IR: the table emit writes from the same object.
#[test]
fn in_memory_tables_from_the_plugins_sites_equal_what_emit_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (triple, target) in [
        ("x86_64-unknown-linux-gnu", Target::X86_64),
        ("aarch64-unknown-linux-gnu", Target::Aarch64),
    ] {
        let bc = d.join(format!("{triple}.bc"));
        run(Command::new("opt-16")
            .arg(format!("-mtriple={triple}"))
            .arg(format!("-load-pass-plugin={}", plugin().display()))
            .arg("-passes=pcmap<sites>")
            .arg(inputs().join("sm.ll"))
            .arg("-o")
            .arg(&bc));
        let obj = d.join(format!("{triple}.o"));
        run(Command::new("llc-16")
            .args(["-O2", "-filetype=obj", &format!("-mtriple={triple}")])
            .arg(&bc)
            .arg("-o")
            .arg(&obj));
        let emitted = d.join(format!("{triple}.flat.o"));
        run(Command::new(env!("CARGO_BIN_EXE_pcmap"))
            .args(["emit", "--absolute"])
            .arg(&obj)
            .arg("-o")
            .arg(&emitted));
        let jit = link(&obj, &d.join(format!("{triple}.jit")));
        let aot = link(&emitted, &d.join(format!("{triple}.aot")));
        let object_bytes = std::fs::read(&obj).unwrap();
        let sites = section(&object_bytes, pcmap_reader::sites::SECTION);

        let got = in_memory(&jit, target, Some(sites), true);
        assert_eq!(got, section(&aot, "pcmap_stackmaps"), "{triple}");
        // Without a description every kind and size is unknown: not the same.
        let bare = in_memory(&jit, target, None, true);
        assert_ne!(bare, got, "{triple}");
    }
}

/// Bad input is an error naming the section and the problem, never a
/// table: a function the table names but the JIT did not give, a
/// truncated section, a corrupt `.eh_frame`.
#[test]
fn bad_input_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let obj = d.join("sm.o");
    run(Command::new("llc-16")
        .args(["-O2", "-filetype=obj", "-mtriple=x86_64-unknown-linux-gnu"])
        .arg(inputs().join("sm.ll"))
        .arg("-o")
        .arg(&obj));
    let prog = link(&obj, &d.join("sm"));
    let file = object::File::parse(&prog[..]).unwrap();
    let stackmaps = file
        .section_by_name(".llvm_stackmaps")
        .unwrap()
        .data()
        .unwrap();
    let module = MemoryModule {
        target: Target::X86_64,
        stackmaps,
        functions: &[],
        eh_frame: None,
        sites: None,
    };
    let e = flat_tables(&module).unwrap_err().to_string();
    assert!(e.starts_with(".llvm_stackmaps: function 0 at 0x"), "{e}");
    assert!(e.contains("none of the functions given"), "{e}");
    let e = flat_tables(&MemoryModule {
        stackmaps: &stackmaps[..stackmaps.len() - 3],
        ..module
    })
    .unwrap_err()
    .to_string();
    assert!(e.starts_with(".llvm_stackmaps: "), "{e}");
    let e = flat_tables(&MemoryModule {
        eh_frame: Some((&[1, 2, 3, 4, 5], 0x1000)),
        ..module
    })
    .unwrap_err()
    .to_string();
    assert!(e.starts_with(".eh_frame: "), "{e}");
}
