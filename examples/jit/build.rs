//! Links LLVM 16's shared library (llvm-sys is built with
//! `no-llvm-linking`, as the plugin needs it).
use std::process::Command;

fn main() {
    let prefix = std::env::var("LLVM_SYS_160_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-16".into());
    let config = format!("{prefix}/bin/llvm-config");
    let libdir = Command::new(&config)
        .arg("--libdir")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| format!("{prefix}/lib"));
    println!("cargo:rustc-link-search=native={libdir}");
    println!("cargo:rustc-link-lib=dylib=LLVM-16");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{libdir}");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_160_PREFIX");
}
