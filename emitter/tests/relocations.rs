//! `ObjectFile::relocations_of` reads relocation sections through object's
//! typed ELF entries; on real objects it gives what object's generic
//! iterator (`ObjectSection::relocations`, resolved) gives, for every
//! section: both byte orders, RELA and CREL, COMDAT groups.

use std::path::{Path, PathBuf};
use std::process::Command;

use object::{Object, ObjectSection};
use pcmap::object::ObjectFile;

fn run(mut cmd: Command, out: &Path) -> Vec<u8> {
    let status = cmd.status().expect("the LLVM tool runs");
    assert!(status.success(), "{cmd:?}");
    std::fs::read(out).unwrap()
}

/// LLVM's stack map test input, compiled by `llc` for `triple`.
fn llc(version: u32, triple: &str, extra: &[&str], dir: &Path) -> Vec<u8> {
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lit-tests/stackmap/Inputs/sm.ll");
    let out = dir.join(format!("{triple}-{version}.o"));
    let mut cmd = Command::new(format!("llc-{version}"));
    cmd.args(["-filetype=obj", &format!("-mtriple={triple}")])
        .args(extra)
        .arg(input)
        .arg("-o")
        .arg(&out);
    run(cmd, &out)
}

/// C++ with inline functions and templates: a relocation section in each
/// COMDAT group.
fn cxx(dir: &Path) -> Vec<u8> {
    let src: PathBuf = dir.join("groups.cc");
    std::fs::write(
        &src,
        "inline int f(int x) { return x + 1; }\n\
         template <class T> T h(T t) { return t * 2 + f(1); }\n\
         int k() { return h(3) + h(4L) + f(2); }\n",
    )
    .unwrap();
    let out = dir.join("groups.o");
    let mut cmd = Command::new("clang-16");
    cmd.args(["-x", "c++", "-c", "-O0", "-ffunction-sections"])
        .arg(&src)
        .arg("-o")
        .arg(&out);
    run(cmd, &out)
}

#[test]
fn typed_relocations_are_objects_own() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let objects = [
        ("x86_64", llc(16, "x86_64-unknown-linux-gnu", &[], d)),
        ("aarch64", llc(16, "aarch64-unknown-linux-gnu", &[], d)),
        ("ppc64le", llc(16, "powerpc64le-unknown-linux-gnu", &[], d)),
        ("ppc64", llc(16, "powerpc64-unknown-linux-gnu", &[], d)),
        ("crel", llc(19, "x86_64-unknown-linux-gnu", &["--crel"], d)),
        ("groups", cxx(d)),
    ];
    for (what, data) in &objects {
        let o = ObjectFile::parse(data).unwrap();
        let mut relocated = 0;
        for section in o.file.sections() {
            let typed: Vec<_> = o.relocations_of(section.index()).collect();
            let generic: Vec<_> = section
                .relocations()
                .map(|(offset, r)| (offset, o.resolve(&r)))
                .collect();
            assert_eq!(typed, generic, "{what}: section {}", section.index().0);
            relocated += usize::from(!typed.is_empty());
        }
        assert!(
            relocated >= 2,
            "{what}: {relocated} sections with relocations"
        );
    }
}
