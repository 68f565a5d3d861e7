//! Compiles cpp/llvm_queries.cc, the few LLVM C++ routines the pass needs and
//! the C API does not offer, against the same LLVM 16 headers llvm-sys uses.

use std::process::Command;

fn main() {
    let prefix = std::env::var("LLVM_SYS_160_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-16".into());
    let llvm_config = format!("{prefix}/bin/llvm-config");
    let includedir = Command::new(&llvm_config)
        .arg("--includedir")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|e| panic!("cannot run {llvm_config}: {e}"));
    // LLVM's headers are system headers: their unused parameters are not
    // ours to fix, and -isystem keeps them from hiding warnings of our own,
    // which fail the build.
    cc::Build::new()
        .cpp(true)
        .file("cpp/llvm_queries.cc")
        .flag(format!("-isystem{includedir}"))
        .flag("-std=c++17")
        .flag("-fno-rtti")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("pcmap-llvm-queries");
    println!("cargo:rerun-if-changed=cpp/llvm_queries.cc");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_160_PREFIX");
}
