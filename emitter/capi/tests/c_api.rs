//! The C API as a C or C++ program sees it: `pcmap.h` compiles cleanly as C11
//! and C++17 with `-Wall -Wextra -Werror -pedantic`, links with libpcmap
//! (the no_std C library `build-lib.sh` builds: static, and shared), and
//! `tests/c/api_probe.c` prints exactly what the tables written by
//! pcmap-reader's writer hold.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use pcmap_reader::flat::RecordKind;
use pcmap_reader::stackmap::{write_flat, FrameState, Function, Record, Table};
use pcmap_reader::{LittleEndian, LiveOut, Location, LocationKind};

/// Where the section is pretended to be loaded.
const SECTION_ADDRESS: u64 = 0x40_0000;
/// The registers api_probe.c decodes against: (DWARF number, value, save slot).
const REGISTERS: [(u16, u64, u64); 5] = [
    (7, 0x10000, 0),
    (6, 0x20000, 0),
    (31, 0x30000, 0),
    (1, 0x40000, 0),
    (29, 0x50000, 0x5008),
];

/// `target/<profile>`; the header is in `target/include`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

/// The host's libpcmap.a, built (or found up to date) by build-lib.sh: the
/// library C programs link, never a stale one.
fn static_library() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(repo.join("emitter/capi/build-lib.sh"))
        .arg("host")
        .output()
        .expect("emitter/capi/build-lib.sh runs");
    assert!(
        out.status.success(),
        "build-lib.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    repo.join(String::from_utf8(out.stdout).unwrap().trim())
}

fn loc(kind: LocationKind, dwarf_reg: u16, offset: i32) -> Location {
    Location {
        kind,
        size: 8,
        dwarf_reg,
        offset,
    }
}

/// The frame state of an x86-64 function whose CFA is RSP + `cfa_offset`,
/// with the return address at CFA - 8 (and RBP at CFA - 16 if `rbp`).
fn frame(cfa_offset: i32, rbp: bool) -> Option<FrameState> {
    let rbp = rbp.then_some((6, -16));
    Some(FrameState::new(
        7,
        cfa_offset,
        rbp.into_iter().chain([(16, -8)]),
    ))
}

/// Two functions with every location kind, live-outs, frame states that
/// differ between records (arguments pushed for a call), one whose CFA is
/// an expression and one record without any, a 8192-byte location and
/// register 65535.
fn first_table() -> Table {
    use LocationKind::*;
    let statepoint = |id, offset, locations, frame_state| Record {
        id,
        instruction_offset: offset,
        patchable_size: Some(5),
        kind: RecordKind::StatePoint,
        has_live_out_info: false,
        locations,
        live_outs: vec![],
        frame_state,
    };
    Table {
        constants: vec![0x1234_5678_9abc_def0, 7],
        functions: vec![
            Function {
                address: 0x1000,
                size: 0x80,
                stack_size: 40,
                records: vec![
                    // CFA = RSP + 48; the return address at CFA - 8 = RSP + 40.
                    statepoint(
                        1,
                        0x10,
                        vec![
                            loc(Constant, 0, -3),
                            loc(Indirect, 7, 16),
                            loc(Indirect, 7, 16),
                        ],
                        frame(48, true),
                    ),
                    // Two arguments pushed for this call: RSP is 16 lower.
                    statepoint(
                        2,
                        0x24,
                        vec![loc(Direct, 7, 8), loc(ConstantIndex, 0, 1)],
                        frame(64, true),
                    ),
                    statepoint(
                        3,
                        0x80,
                        vec![
                            loc(Register, 29, 0),
                            loc(Register, 3, 0),
                            Location {
                                kind: Register,
                                size: 8192,
                                dwarf_reg: 65535,
                                offset: 0,
                            },
                        ],
                        Some(FrameState {
                            cfa: None,
                            stack_realigned: true,
                            saved: vec![],
                        }),
                    ),
                ],
                code_offset: None,
            },
            Function {
                address: 0x1100,
                size: 0x40,
                stack_size: 0,
                records: vec![Record {
                    id: 0xABCD_EF00,
                    instruction_offset: 4,
                    patchable_size: Some(16),
                    kind: RecordKind::PatchPoint,
                    has_live_out_info: true,
                    locations: vec![loc(ConstantIndex, 0, 0), loc(Indirect, 6, -24)],
                    live_outs: vec![
                        LiveOut {
                            dwarf_reg: 7,
                            size: 8,
                        },
                        LiveOut {
                            dwarf_reg: 17,
                            size: 16,
                        },
                    ],
                    frame_state: frame(16, false),
                }],
                ..Function::default()
            },
        ],
    }
}

/// A second object's table: one function with a big frame.
fn second_table() -> Table {
    Table {
        constants: vec![],
        functions: vec![Function {
            address: 0x2000,
            size: 0x100,
            stack_size: 4096,
            records: vec![Record {
                id: 9,
                instruction_offset: 0x30,
                patchable_size: None,
                kind: RecordKind::StackMap,
                has_live_out_info: false,
                locations: vec![loc(LocationKind::Direct, 31, 4000)],
                live_outs: vec![],
                // No CFI at this record.
                frame_state: None,
            }],
            ..Function::default()
        }],
    }
}

/// The two tables as a linker concatenates them: the second 8-aligned,
/// after 8 more bytes of padding.
fn section() -> Vec<u8> {
    let mut bytes = write_flat(&first_table(), LittleEndian, true)
        .unwrap()
        .bytes;
    bytes.resize(bytes.len().next_multiple_of(8) + 8, 0);
    bytes.extend(
        write_flat(&second_table(), LittleEndian, true)
            .unwrap()
            .bytes,
    );
    bytes
}

/// What api_probe must print for `section()`, from the model.
fn expected() -> String {
    let tables = [first_table(), second_table()];
    let functions: Vec<(&Table, &Function)> = tables
        .iter()
        .flat_map(|t| t.functions.iter().map(move |f| (t, f)))
        .collect();
    let nrec: usize = functions.iter().map(|(_, f)| f.records.len()).sum();
    let mut out = String::new();
    writeln!(
        out,
        "tables=2 functions={} records={nrec} validate=success",
        functions.len()
    )
    .unwrap();
    for (t, f) in &functions {
        writeln!(
            out,
            "function address={:#x} size={} stack_size={} records={}",
            f.address,
            f.size,
            f.stack_size,
            f.records.len()
        )
        .unwrap();
        for r in &f.records {
            use pcmap_reader::flat::{frame_state_flags, site_head};
            let mut flags = 0;
            if r.patchable_size.is_some() {
                flags |= site_head::PATCHABLE_SIZE_KNOWN;
            }
            if r.has_live_out_info {
                flags |= site_head::HAS_LIVE_OUT_INFO;
            }
            if r.frame_state.is_some() {
                flags |= site_head::HAS_FRAME_STATE;
            }
            writeln!(
                out,
                "  record id={} address={:#x} kind={} flags={flags} patchable={} locations={} live_outs={} find=same",
                r.id,
                f.address + u64::from(r.instruction_offset),
                r.kind as u8,
                r.patchable_size.unwrap_or(0),
                r.locations.len(),
                r.live_outs.len()
            )
            .unwrap();
            if let Some(fs) = &r.frame_state {
                let mut flags = 0;
                if fs.cfa.is_some() {
                    flags |= frame_state_flags::CFA_RULE;
                }
                if fs.stack_realigned {
                    flags |= frame_state_flags::STACK_REALIGNED;
                }
                write!(out, "    frame flags={flags}").unwrap();
                if let Some(cfa) = fs.cfa {
                    write!(out, " cfa={}{:+}", cfa.register, cfa.offset).unwrap();
                }
                writeln!(out).unwrap();
                for reg in &fs.saved {
                    writeln!(out, "    saves reg={} offset={}", reg.dwarf_reg, reg.offset).unwrap();
                }
                writeln!(out, "    frame_registers end=not found").unwrap();
            }
            for l in &r.locations {
                write!(
                    out,
                    "    location kind={} size={} reg={} offset={}",
                    l.kind as u8, l.size, l.dwarf_reg, l.offset
                )
                .unwrap();
                let reg = REGISTERS.iter().find(|g| g.0 == l.dwarf_reg);
                let at = |base: u64| base.wrapping_add(l.offset as i64 as u64);
                let (value, address) = match (l.kind, reg) {
                    (LocationKind::Register, Some(g)) => (Some(g.1), (g.2 != 0).then_some(g.2)),
                    (LocationKind::Direct, Some(g)) => (Some(at(g.1)), None),
                    (LocationKind::Indirect, Some(g)) => (None, Some(at(g.1))),
                    (LocationKind::Constant, _) => (Some(l.offset as i64 as u64), None),
                    (LocationKind::ConstantIndex, _) => {
                        (Some(t.constants[l.offset as usize]), None)
                    }
                    (_, None) => {
                        writeln!(
                            out,
                            " decode=location names a register the caller did not supply"
                        )
                        .unwrap();
                        continue;
                    }
                };
                let show = |v: Option<u64>| match v {
                    Some(v) => format!("{v:#x}"),
                    None => "-0x0".to_string(),
                };
                writeln!(out, " value={} address={}", show(value), show(address)).unwrap();
            }
            writeln!(out, "    locations end=not found").unwrap();
            for lo in &r.live_outs {
                writeln!(out, "    live_out reg={} size={}", lo.dwarf_reg, lo.size).unwrap();
            }
        }
    }
    // pcmap_find_function: the first table (in section order) with a
    // function holding the PC's byte: a return address's is the byte
    // before it (the end is in, the start is not), an instruction's is
    // its own (the start is in, the end is not); size 0 holds every byte
    // up to the next function.
    let holding = |byte: u64| {
        tables.iter().find_map(|t| {
            let f = t.functions.iter().rev().find(|f| f.address <= byte)?;
            (f.size == 0 || byte - f.address < u64::from(f.size)).then_some(f)
        })
    };
    for (_, f) in &functions {
        let a = f.address;
        let size = u64::from(f.size);
        for pc in [a - 1, a, a + size / 2, a + size, a + size + 1] {
            for (kind, byte) in [("return", pc - 1), ("instruction", pc)] {
                match holding(byte) {
                    Some(g) => writeln!(
                        out,
                        "find_function({pc:#x}, {kind})={:#x} size={} records={}",
                        g.address,
                        g.size,
                        g.records.len()
                    ),
                    None => writeln!(out, "find_function({pc:#x}, {kind})=not found"),
                }
                .unwrap();
            }
        }
    }
    writeln!(
        out,
        "find_function(kind 2)=invalid argument (NULL pointer or reversed range)"
    )
    .unwrap();
    writeln!(out, "function_at(end)=stack map index out of range").unwrap();
    writeln!(out, "find_site(0)=not found").unwrap();
    out
}

/// Compiles api_probe with `compiler` and `std`, links `library`
/// (libpcmap.a, or libpcmap.so found through the run path).
fn build_probe(compiler: &str, lang: &str, std: &str, library: &Path, out: &Path) {
    let dir = profile_dir();
    let include = dir.parent().unwrap().join("include");
    let status = Command::new(compiler)
        .args([
            "-x",
            lang,
            std,
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-I",
        ])
        .arg(&include)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/api_probe.c"))
        .args(["-x", "none"])
        .arg(library)
        .arg(format!(
            "-Wl,-rpath,{}",
            library.parent().unwrap().display()
        ))
        .arg("-o")
        .arg(out)
        .status()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(
        status.success(),
        "{compiler} {std} failed to build api_probe"
    );
}

fn run_probe(probe: &Path, section: &Path) -> String {
    let out = Command::new(probe)
        .arg(section)
        .arg(format!("{SECTION_ADDRESS:#x}"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "api_probe failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn c11_and_cxx17_programs_read_what_was_written() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("section.bin");
    std::fs::write(&file, section()).unwrap();
    let want = expected();
    let archive = static_library();
    let shared = archive.with_file_name("libpcmap.so");
    for (compiler, lang, std, library) in [
        ("gcc", "c", "-std=c11", &archive),
        ("g++", "c++", "-std=c++17", &archive),
        ("gcc", "c", "-std=c11", &shared),
    ] {
        let kind = library.extension().unwrap().to_string_lossy();
        let probe = tmp.path().join(format!("probe-{lang}-{kind}"));
        build_probe(compiler, lang, std, library, &probe);
        let got = run_probe(&probe, &file);
        assert_eq!(
            got,
            want,
            "{compiler} {std} with {}: api_probe output differs",
            library.display()
        );
    }
}

#[test]
fn a_corrupt_section_is_an_error_for_c_too() {
    let tmp = tempfile::tempdir().unwrap();
    let probe = tmp.path().join("probe");
    build_probe("gcc", "c", "-std=c11", &static_library(), &probe);
    let mut bytes = section();
    bytes[0] = b'X';
    let file = tmp.path().join("bad.bin");
    std::fs::write(&file, &bytes).unwrap();
    let out = Command::new(&probe).arg(&file).arg("0").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "error open: not a flat stack map table (bad magic)\n"
    );
}

/// A compact covered table (version 2, 4-byte PCs), not in address order:
/// (offset of the entry, function address, size, mask, stack-args size).
/// Bytes: PC delta, ULEB128 size, ULEB128 mask, ULEB128 stack args if bit 2.
const COVERED: [(u64, u64, u64, u64, Option<u64>); 3] = [
    (0, 0x1000, 0x40, 3, None),
    (6, 0x200, 0x100, 5, Some(16)),
    (14, 0x800, 0x10, 1, None),
];
const TABLE_ADDRESS: u64 = 0x7000_0000;

fn covered_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    for (offset, pc, size, mask, args) in COVERED {
        assert_eq!(out.len() as u64, offset);
        out.extend_from_slice(&((pc as i64 - offset as i64) as i32).to_le_bytes());
        for v in [Some(size), Some(mask), args].into_iter().flatten() {
            let mut b = [0; pcmap_reader::pctable::MAX_ULEB128_LEN];
            let n = pcmap_reader::pctable::write_uleb128(v, &mut b);
            out.extend_from_slice(&b[..n]);
        }
    }
    out
}

/// Atomic PCs, version 2 | pointer-sized: 8-byte deltas.
fn atomics_bytes() -> Vec<u8> {
    [(0i64, 0x1004i64), (8, 0x204)]
        .iter()
        .flat_map(|(offset, pc)| (pc - offset).to_le_bytes())
        .collect()
}

fn run_pctable_probe(probe: &Path, args: &[&str], table: &Path, pcs: &[u64]) -> (i32, String) {
    let out = Command::new(probe)
        .arg("--pctable")
        .args(args)
        .arg(table)
        .arg(format!("{TABLE_ADDRESS:#x}"))
        .args(pcs.iter().map(|pc| format!("{:#x}", TABLE_ADDRESS + pc)))
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn c11_and_cxx17_programs_read_pc_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let covered = tmp.path().join("covered.bin");
    let atomics = tmp.path().join("atomics.bin");
    let truncated = tmp.path().join("truncated.bin");
    let bytes = covered_bytes();
    std::fs::write(&covered, &bytes).unwrap();
    std::fs::write(&atomics, atomics_bytes()).unwrap();
    // Ends inside the second entry's ULEB128 size. (The probe then indexes
    // into 0 entries: out of range before the truncation is reached.)
    std::fs::write(&truncated, &bytes[..11]).unwrap();

    let a = TABLE_ADDRESS;
    let entry = |what: &str, (offset, pc, size, mask, args): (u64, u64, u64, u64, Option<u64>)| {
        let args = args.map_or("-0".to_string(), |s| s.to_string());
        format!(
            "{what} pc={:#x} size={size} features={mask} stack_args={args} offset={offset}\n",
            a + pc
        )
    };
    let mut want_covered = format!("pctable kind=0 version=2 pc_width=4 size={}\n", bytes.len());
    for e in COVERED {
        want_covered += &entry("entry", e);
    }
    want_covered += &format!("next=not found at {}\ncount=success 3\n", bytes.len());
    want_covered += "index(small)=stack map index out of range\nindex=success 3\n";
    for i in [1, 2, 0] {
        want_covered += &entry("sorted", COVERED[i]);
    }
    let pcs = [0x1000, 0x103f, 0x1040, 0x250, 0x1ff, 0x80f, 0];
    for (pc, hit) in pcs.iter().zip([0x1000, 0x1000, 0, 0x200, 0, 0x800, 0]) {
        want_covered += &if hit == 0 {
            format!("find {:#x}: not found index: not found\n", a + pc)
        } else {
            format!(
                "find {:#x}: success pc={:#x} index: success pc={:#x} same\n",
                a + pc,
                a + hit,
                a + hit
            )
        };
    }

    let want_atomics = format!(
        "pctable kind=1 version=65538 pc_width=8 size=16\n\
         entry pc={:#x} size=0 features=0 stack_args=-0 offset=0\n\
         entry pc={:#x} size=0 features=0 stack_args=-0 offset=8\n\
         next=not found at 16\ncount=success 2\n\
         index(small)=stack map index out of range\nindex=success 2\n\
         sorted pc={:#x} size=0 features=0 stack_args=-0 offset=8\n\
         sorted pc={:#x} size=0 features=0 stack_args=-0 offset=0\n\
         find {:#x}: success pc={:#x} index: success pc={:#x} same\n\
         find {:#x}: not found index: not found\n",
        a + 0x1004,
        a + 0x204,
        a + 0x204,
        a + 0x1004,
        a + 0x204,
        a + 0x204,
        a + 0x204,
        a + 0x205,
    );
    let want_truncated = format!(
        "pctable kind=0 version=2 pc_width=4 size=11\n{}\
         next=truncated stack map: field past the end of the table at 6\n\
         count=truncated stack map: field past the end of the table 0\n\
         index=stack map index out of range 0\n",
        entry("entry", COVERED[0])
    );

    let archive = static_library();
    for (compiler, lang, std) in [("gcc", "c", "-std=c11"), ("g++", "c++", "-std=c++17")] {
        let probe = tmp.path().join(format!("probe-{lang}"));
        build_probe(compiler, lang, std, &archive, &probe);
        let ctx = format!("{compiler} {std}");
        // Width 0: the target's default (4 on the hosts we test on).
        let got = run_pctable_probe(&probe, &["covered", "2", "0"], &covered, &pcs);
        assert_eq!(got, (0, want_covered.clone()), "{ctx}: covered");
        let got = run_pctable_probe(
            &probe,
            &["atomics", "65538", "0"],
            &atomics,
            &[0x204, 0x205],
        );
        assert_eq!(got, (0, want_atomics.clone()), "{ctx}: atomics");
        let got = run_pctable_probe(&probe, &["covered", "2", "4"], &truncated, &[]);
        assert_eq!(got, (0, want_truncated.clone()), "{ctx}: truncated");
        // Wrong version, bad width: open fails.
        let got = run_pctable_probe(&probe, &["covered", "3", "0"], &covered, &[]);
        assert_eq!(
            got,
            (
                1,
                "error open: unsupported stack map layout version\n".into()
            )
        );
        let got = run_pctable_probe(&probe, &["atomics", "2", "5"], &atomics, &[]);
        assert_eq!(
            got,
            (
                1,
                "error open: invalid argument (NULL pointer or reversed range)\n".into()
            )
        );
    }
}
