//! The rewrite keeps C++ objects with COMDAT groups intact, and the check of
//! every written object catches the corruptions the rewrite once made.

use std::path::{Path, PathBuf};
use std::process::Command;

use object::read::elf::{FileHeader, SectionHeader};
use object::{Object, ObjectSection};

// Only the plugin's path is used here.
#[allow(dead_code)]
mod common;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `lit-tests/emit/Inputs/comdat.cc` through clang-16 and the plugin.
fn cxx_object(triple: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("comdat.o");
    let plugin = common::plugin();
    let status = Command::new("clang-16")
        .arg(format!("--target={triple}"))
        .args(["-std=c++17", "-O2", "-c", "-w"])
        .arg(format!("-fpass-plugin={}", plugin.display()))
        .arg(repo().join("lit-tests/emit/Inputs/comdat.cc"))
        .arg("-o")
        .arg(&out)
        // LLVM 16 warns of !pcsections it drops on PowerPC (docs/plugin.md).
        .stderr(std::process::Stdio::null())
        .status()
        .expect("clang-16 runs");
    assert!(status.success());
    std::fs::read(out).unwrap()
}

/// Where section `name`'s header field at `field` (bytes into the ELF64
/// section header) is in the file.
fn header_field(data: &[u8], name: &str, field: usize) -> usize {
    let file = object::File::parse(data).unwrap();
    let index = file.section_by_name(name).unwrap().index().0;
    let object::File::Elf64(elf) = &file else {
        panic!("ELF64")
    };
    let h = elf.elf_header();
    let e = elf.endian();
    h.e_shoff(e) as usize + index * usize::from(h.e_shentsize(e)) + field
}

fn put_u32(data: &mut [u8], at: usize, v: u32) {
    data[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn cxx_groups_survive_and_the_check_catches_broken_indices() {
    let raw = cxx_object("x86_64-unknown-linux-gnu");
    let (out, _) = pcmap::emit::emit(&raw, &Default::default()).unwrap();
    pcmap::object::check::written(&out).unwrap();

    // Every group keeps its members, by name.
    let members = |data: &[u8]| -> Vec<Vec<String>> {
        let file = object::File::parse(data).unwrap();
        let object::File::Elf64(elf) = &file else {
            panic!("ELF64")
        };
        let e = elf.endian();
        elf.elf_section_table()
            .iter()
            .filter_map(|sh| sh.group(e, data).unwrap())
            .map(|(_, m)| {
                m.iter()
                    .map(|i| {
                        let s = file
                            .section_by_index(object::SectionIndex(i.get(e) as usize))
                            .unwrap();
                        // LLVM 16's names for the plugin's requests (`!C`
                        // kept, covered entries in `sanmd_covered`) as
                        // emit renames them.
                        match s.name().unwrap() {
                            "sanmd_covered" => "sanmd_covered2".to_string(),
                            ".relasanmd_covered" => ".relasanmd_covered2".to_string(),
                            n => n.replace("!C", ""),
                        }
                    })
                    .collect()
            })
            .collect()
    };
    let groups = members(&out);
    assert!(groups.len() >= 2, "{groups:?}");
    assert_eq!(members(&raw), groups);

    // What emit once wrote: a relocation section in a group applying to
    // itself (sh_info at byte 44 of a section header).
    let file = object::File::parse(&*out).unwrap();
    let rela = file
        .sections()
        .find(|s| s.name() == Ok(".rela.text.startup"))
        .unwrap()
        .index()
        .0;
    let mut bad = out.clone();
    put_u32(
        &mut bad,
        header_field(&out, ".rela.text.startup", 44),
        rela as u32,
    );
    let e = pcmap::object::check::written(&bad).unwrap_err().to_string();
    assert!(e.contains(".rela.text.startup"), "{e}");

    // A group member index that names no section.
    let mut bad = out.clone();
    let at = header_field(&out, ".group", 24); // sh_offset
    let offset = u64::from_le_bytes(bad[at..at + 8].try_into().unwrap()) as usize;
    put_u32(&mut bad, offset + 4, 0xffff);
    assert!(pcmap::object::check::written(&bad).is_err());

    // A group member that is not in a group.
    let mut bad = out.clone();
    put_u32(&mut bad, offset + 4, 2);
    assert!(pcmap::object::check::written(&bad).is_err());

    // A relocation naming a symbol that does not exist.
    let mut bad = out.clone();
    let at = header_field(&out, ".rela.text.startup", 24);
    let offset = u64::from_le_bytes(bad[at..at + 8].try_into().unwrap()) as usize;
    put_u32(&mut bad, offset + 12, 0xfff_ffff);
    assert!(pcmap::object::check::written(&bad).is_err());
}

#[test]
fn cxx_objects_emit_on_every_target() {
    for triple in ["aarch64-unknown-linux-gnu", "powerpc64le-unknown-linux-gnu"] {
        let raw = cxx_object(triple);
        let (out, _) = pcmap::emit::emit(&raw, &Default::default()).unwrap();
        pcmap::object::check::written(&out).unwrap();
    }
}
