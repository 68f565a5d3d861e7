//! `ObjectFile::relocations_of` reads relocation sections through object's
//! typed ELF entries; on real objects it gives what object's generic
//! iterator (`ObjectSection::relocations`, resolved) gives, for every
//! section: both byte orders, RELA and CREL, COMDAT groups.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use object::{Object, ObjectSection};
use pcmap::object::ObjectFile;

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
    let status = Command::new("clang-16")
        .args(["-x", "c++", "-c", "-O0", "-ffunction-sections"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("clang-16 runs");
    assert!(status.success(), "clang-16 groups.cc");
    std::fs::read(out).unwrap()
}

#[test]
fn typed_relocations_are_objects_own() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let objects = [
        (
            "x86_64",
            common::sm_object(16, "x86_64-unknown-linux-gnu", &[], d),
        ),
        (
            "aarch64",
            common::sm_object(16, "aarch64-unknown-linux-gnu", &[], d),
        ),
        (
            "ppc64le",
            common::sm_object(16, "powerpc64le-unknown-linux-gnu", &[], d),
        ),
        (
            "ppc64",
            common::sm_object(16, "powerpc64-unknown-linux-gnu", &[], d),
        ),
        (
            "crel",
            common::sm_object(19, "x86_64-unknown-linux-gnu", &["--crel"], d),
        ),
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
