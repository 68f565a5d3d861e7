//! Generates the C header with cbindgen: `target/include/pcmap.h`, next to the
//! profile directories, so C code includes one header whichever profile built
//! the library.

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
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out (or one level
    // deeper with --target); install into the target directory's include/.
    if let Some(target_dir) = target_dir(&out_dir) {
        let include = target_dir.join("include");
        std::fs::create_dir_all(&include).expect("create target/include");
        std::fs::copy(&header, include.join("pcmap.h")).expect("install pcmap.h");
    }
}

/// The cargo target directory containing `out_dir`.
fn target_dir(out_dir: &std::path::Path) -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(dir));
    }
    // .../target/<profile>/build/<pkg>/out or .../target/<triple>/<profile>/build/<pkg>/out
    let build = out_dir
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "build"))?;
    let profile = build.parent()?;
    let parent = profile.parent()?;
    if parent.join("CACHEDIR.TAG").exists() {
        Some(parent.to_path_buf())
    } else {
        parent.parent().map(PathBuf::from)
    }
}
