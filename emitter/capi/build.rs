//! Generates the C header with cbindgen and installs it as
//! `target/include/pcmap.h`, next to the profile directories, so C code
//! includes one header whichever profile built the library.

use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("emitter/capi/cbindgen.toml");
    let header = out_dir.join("pcmap.h");
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate pcmap.h")
        .write_to_file(&header);
    let include = target_dir(&crate_dir).join("include");
    std::fs::create_dir_all(&include).expect("create target/include");
    std::fs::copy(&header, include.join("pcmap.h")).expect("install pcmap.h");
}

/// The workspace's cargo target directory: `CARGO_TARGET_DIR` when set, else
/// `target/` at the workspace root (this crate is `emitter/capi`). Deriving it
/// from `OUT_DIR` is guesswork that depends on `--target` and on files cargo
/// creates later in a first build.
fn target_dir(crate_dir: &std::path::Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => crate_dir.join("../../target"),
    }
}
