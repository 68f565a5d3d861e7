//! What the integration tests share: LLVM 16's `opt` and the plugin built
//! beside them, the plugin's description of an IR file's sites (what
//! `pcmap emit --ir` reads), and LLVM's stack map test input compiled.

use std::path::{Path, PathBuf};
use std::process::Command;

use pcmap::stackmap::ir::{self, Toolchain};

/// The plugin's library, built beside this test (`target/<profile>`).
pub fn plugin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(Path::parent).unwrap();
    let lib = profile.join("libpcmap_plugin.so");
    assert!(
        lib.exists(),
        "{} not built (cargo build --workspace)",
        lib.display()
    );
    lib
}

/// LLVM 16's `opt` with that plugin.
pub fn llvm16() -> Toolchain {
    Toolchain {
        llvm: 16,
        opt: PathBuf::from("opt-16"),
        plugin: plugin(),
    }
}

/// The plugin's `.pcmap.sites` text for the IR at `ir` compiled into
/// `object` (for its target), as LLVM 16 sees it.
pub fn ir_sites(ir: &Path, object: &[u8]) -> Vec<u8> {
    let target = pcmap::object::ObjectFile::parse(object).unwrap().target;
    ir::describe(ir, target, &llvm16()).unwrap_or_else(|e| panic!("{e}"))
}

/// LLVM's stack map test input (stack maps, patch points, statepoints).
pub fn sm_ll() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../lit-tests/stackmap/Inputs/sm.ll")
}

/// [`sm_ll`] compiled by `llc-VERSION` for `triple`, with `extra` options,
/// in `dir`.
pub fn sm_object(version: u32, triple: &str, extra: &[&str], dir: &Path) -> Vec<u8> {
    let out = dir.join(format!("{triple}-{version}.o"));
    let status = Command::new(format!("llc-{version}"))
        .args(["-filetype=obj", &format!("-mtriple={triple}")])
        .args(extra)
        .arg(sm_ll())
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("llc-{version}: {e}"));
    assert!(
        status.success(),
        "llc-{version} -mtriple={triple} {extra:?}"
    );
    std::fs::read(out).unwrap()
}
