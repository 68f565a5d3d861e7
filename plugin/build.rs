//! Compiles the C++ half of the plugin (cpp/: the pass-plugin entry and the
//! LLVM routines the C API lacks) against the headers of the LLVM release
//! the `llvmN` feature names, and tells the Rust half which release that is.
//!
//! The release's `llvm-config` is `$LLVM_SYS_<N>…_PREFIX/bin/llvm-config`
//! when such a variable is set (llvm-sys's convention: `LLVM_SYS_160_PREFIX`,
//! `LLVM_SYS_191_PREFIX`), else `llvm-config-N` on `PATH`, else Debian's
//! `/usr/lib/llvm-N/bin/llvm-config`.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let mut majors: Vec<u32> = std::env::vars()
        .filter_map(|(k, _)| k.strip_prefix("CARGO_FEATURE_LLVM")?.parse().ok())
        .collect();
    majors.sort_unstable();
    let major = match majors[..] {
        [m] => m,
        [] => panic!("pcmap-plugin: enable one LLVM feature (llvm16, llvm19)"),
        _ => panic!(
            "pcmap-plugin: features {} exclude each other: one plugin is for one LLVM release (build one per feature)",
            majors.iter().map(|m| format!("llvm{m}")).collect::<Vec<_>>().join(", ")
        ),
    };
    let llvm_config = llvm_config(major);
    let query = |arg: &str| {
        let out = Command::new(&llvm_config)
            .arg(arg)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", llvm_config.display()));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let version = query("--version");
    if version.split('.').next() != Some(&major.to_string()) {
        panic!(
            "pcmap-plugin: feature llvm{major}, but {} is LLVM {version}",
            llvm_config.display()
        );
    }
    let includedir = query("--includedir");
    // LLVM's headers are system headers: their unused parameters are not
    // ours to fix, and -isystem keeps them from hiding warnings of our own,
    // which fail the build.
    cc::Build::new()
        .cpp(true)
        .file("cpp/entry.cc")
        .file("cpp/llvm_queries.cc")
        .flag(format!("-isystem{includedir}"))
        .flag("-std=c++17")
        .flag("-fno-rtti")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("pcmap-llvm-shim");
    // The Rust half's `LLVM_MAJOR`.
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(
        out.join("llvm_major.rs"),
        format!("/// The LLVM release this plugin is built for.\npub const LLVM_MAJOR: u32 = {major};\n"),
    )
    .expect("cannot write llvm_major.rs");
    // Lazy binding: an LLVM function of the plugin is looked up in the host
    // when first called, not when the host loads the plugin. Another
    // release's host lacks some (LLVM 19 inlines `Module::getDataLayout`,
    // say), and with immediate binding, Rust's default, its dlopen would
    // fail before the plugin's version guard could name the plugin to use.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,lazy");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-env-changed=PATH");
    for (k, _) in std::env::vars() {
        if k.starts_with(&format!("LLVM_SYS_{major}")) && k.ends_with("_PREFIX") {
            println!("cargo:rerun-if-env-changed={k}");
        }
    }
}

/// The `llvm-config` of LLVM `major` (see the module comment).
fn llvm_config(major: u32) -> PathBuf {
    let prefixed = std::env::vars().find_map(|(k, v)| {
        let rest = k.strip_prefix(&format!("LLVM_SYS_{major}"))?;
        (rest.ends_with("_PREFIX")
            && rest[..rest.len() - "_PREFIX".len()]
                .bytes()
                .all(|b| b.is_ascii_digit()))
        .then(|| PathBuf::from(v).join("bin/llvm-config"))
    });
    if let Some(p) = prefixed {
        return p;
    }
    let name = format!("llvm-config-{major}");
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(&name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(format!("/usr/lib/llvm-{major}/bin/llvm-config")))
}
