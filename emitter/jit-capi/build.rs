//! Generates the C header with cbindgen and installs it as
//! `target/include/pcmap_jit.h`, beside libpcmap's `pcmap.h`.

use std::path::{Path, PathBuf};

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("emitter/jit-capi/cbindgen.toml");
    let header = out_dir.join("pcmap_jit.h");
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate pcmap_jit.h")
        .write_to_file(&header);
    let include = target_dir(&crate_dir).join("include");
    std::fs::create_dir_all(&include).expect("create target/include");
    std::fs::copy(&header, include.join("pcmap_jit.h")).expect("install pcmap_jit.h");
}

/// The workspace's cargo target directory (as emitter/capi/build.rs).
fn target_dir(crate_dir: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => crate_dir.join("../../target"),
    }
}
