//! The C half of the program, compiled by the `cc` crate with whatever `CC`
//! says: `pcmap cc clang-16` in the test.
fn main() {
    println!("cargo:rerun-if-changed=csrc");
    cc::Build::new()
        .file("csrc/counter.c")
        .flag("-O2")
        .compile("counter");
}
