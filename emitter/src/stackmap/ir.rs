//! Kinds and patchable sizes from the IR an object was compiled from
//! (`pcmap emit --ir`), for objects the plugin did not describe.
//!
//! `.llvm_stackmaps` does not record a stackmap's shadow, a patchpoint's
//! `numBytes` or a statepoint's `numPatchBytes`; the IR does. One analysis
//! reads them: the plugin's `sites` pass (plugin/src/sites.rs, through
//! LLVM's own API). For `--ir` it runs under the `opt` of the LLVM that
//! compiled the object, with the plugin built for that LLVM (the command
//! chooses the pair), on the IR file as given (text or bitcode), and the
//! description it makes — the `.pcmap.sites` text the plugin leaves in an
//! object — is read back with `pcmap_reader::sites`, so both paths index
//! the same text by one rule (`docs/stackmap-sites.md`):
//!
//! ```text
//!  IR (.ll, .bc) ─▶ opt-N -load-pass-plugin=libpcmap_plugin-llvmN.so
//!                        -passes='pcmap<sites>,internalize,globaldce'
//!                        -mtriple=TARGET --data-layout=m:e -S
//!               ─▶ @__pcmap_sites = private constant [… x i8] c"pcmap-sites 1\0A…"
//!               ─▶ SiteIndex::add_section ─▶ emit (Source::Ir)
//! ```
//!
//! `internalize` and `globaldce` after the pass leave little else to print
//! (the description is kept by `llvm.compiler.used`): printing the whole
//! module would cost as much again as parsing it. `opt` runs while the
//! object is read ([`IrInput::describe_in_background`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use memchr::{memchr, memmem};
use pcmap_reader::sites::{SiteIndex, GLOBAL_NAME};

use crate::error::{Error, Result};
use crate::object::Target;

/// One LLVM release's `opt` and the plugin built for that release. They
/// come as a pair: a plugin loaded into another release's `opt` corrupts
/// its heap before it can complain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    /// The release's major version (16, 19, …), for messages.
    pub llvm: u32,
    /// Its `opt`.
    pub opt: PathBuf,
    /// The pcmap plugin built for it.
    pub plugin: PathBuf,
}

/// The IR's sites for `pcmap emit`: given, or being described on another
/// thread ([`IrInput::describe_in_background`]) while the object is read;
/// waited for when the first record needs them.
#[derive(Debug)]
pub struct IrInput(IrState);

#[derive(Debug)]
enum IrState {
    Given(SiteIndex),
    /// The describing thread until it is joined, then what it returned (an
    /// error as its message, returned to every caller).
    Describing(
        PathBuf,
        Mutex<Option<JoinHandle<Result<SiteIndex>>>>,
        OnceLock<Result<SiteIndex, String>>,
    ),
}

impl From<SiteIndex> for IrInput {
    fn from(sites: SiteIndex) -> Self {
        IrInput(IrState::Given(sites))
    }
}

impl IrInput {
    /// Starts [`describe`] of the IR at `path` for `target` with `tools`
    /// on another thread.
    pub fn describe_in_background(path: &Path, target: Target, tools: &Toolchain) -> IrInput {
        let path = path.to_path_buf();
        let (thread_path, tools) = (path.clone(), tools.clone());
        let describing = std::thread::spawn(move || index(&thread_path, target, &tools));
        IrInput(IrState::Describing(
            path,
            Mutex::new(Some(describing)),
            OnceLock::new(),
        ))
    }

    /// The sites, once described: the describing thread's error if it
    /// failed.
    pub fn sites(&self) -> Result<&SiteIndex> {
        let (path, describing, described) = match &self.0 {
            IrState::Given(sites) => return Ok(sites),
            IrState::Describing(path, describing, described) => (path, describing, described),
        };
        let described = described.get_or_init(|| {
            let thread = describing.lock().ok().and_then(|mut t| t.take());
            match thread.map(|t| t.join()) {
                Some(Ok(Ok(sites))) => Ok(sites),
                Some(Ok(Err(Error::Ir { problem, .. }))) => Err(problem),
                Some(Ok(Err(e))) => Err(e.to_string()),
                _ => Err("the thread describing the IR failed".into()),
            }
        });
        described.as_ref().map_err(|problem| Error::Ir {
            path: path.clone(),
            problem: problem.clone(),
        })
    }
}

/// The sites of the IR at `path`, indexed.
fn index(path: &Path, target: Target, tools: &Toolchain) -> Result<SiteIndex> {
    let text = describe(path, target, tools)?;
    let mut index = SiteIndex::default();
    index.add_section(&text).map_err(|e| Error::Ir {
        path: path.to_path_buf(),
        problem: format!("the plugin's description does not read back: {e}"),
    })?;
    Ok(index)
}

/// The plugin's description of the sites of the IR at `path` (textual IR
/// or bitcode) compiled for `target`: the `.pcmap.sites` text it would
/// leave in the object (empty where the IR has no site). Errors name
/// `path` and say in one line what `opt` said.
pub fn describe(path: &Path, target: Target, tools: &Toolchain) -> Result<Vec<u8>> {
    let err = |problem: String| Error::Ir {
        path: path.to_path_buf(),
        problem,
    };
    // opt names a missing file in words of its own, after its name.
    std::fs::File::open(path).map_err(|e| err(format!("cannot read IR: {e}")))?;
    let opt = format!("LLVM {}'s opt", tools.llvm);
    let out = Command::new(&tools.opt)
        .arg(format!("-load-pass-plugin={}", tools.plugin.display()))
        .arg("-passes=pcmap<sites>,internalize,globaldce")
        .arg(format!("-internalize-public-api-list={GLOBAL_NAME}"))
        // As llc compiled it: the object's target (the IR may name another:
        // the plugin describes ELF targets only), and names as the object
        // has them. The plugin's follow the data layout's mangling; the
        // object's are ELF's (`m:e`, no prefix) whatever the IR's `target
        // datalayout` says, since llc replaces it with the target's.
        // Nothing else of the layout matters to the pass.
        .arg(format!("-mtriple={}", target.llvm_triple()))
        .arg("--data-layout=m:e")
        .args(["-S", "-o", "-"])
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| err(format!("cannot run {opt} ({}): {e}", tools.opt.display())))?;
    if !out.status.success() {
        return Err(err(format!(
            "{opt} with the pcmap plugin failed on it: {}",
            first_error(&out.stderr, path)
        )));
    }
    description(&out.stdout).map_err(|problem| {
        err(format!(
            "{opt} with the pcmap plugin printed {problem} (is {} the plugin for LLVM {}?)",
            tools.plugin.display(),
            tools.llvm
        ))
    })
}

/// The line of `opt`'s error output that says what is wrong (the first
/// naming an error, else the first), without `opt`'s name and the file's
/// before it: `2:1: error: expected instruction opcode`.
fn first_error(stderr: &[u8], path: &Path) -> String {
    let text = String::from_utf8_lossy(stderr);
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let line = lines
        .clone()
        .find(|l| l.contains("error:"))
        .or_else(|| lines.next())
        .unwrap_or("no message, a failure exit status");
    // "opt-16: FILE:2:1: error: …" → "2:1: error: …".
    let file = format!("{}:", path.display());
    let after = match line.find(&file) {
        Some(at) => &line[at + file.len()..],
        None => line,
    };
    after.trim_start().to_string()
}

/// The description in `opt`'s printed module: the bytes of the
/// `@__pcmap_sites` constant, empty if there is none (the pass writes none
/// for IR without sites); else what is wrong, in words.
fn description(printed: &[u8]) -> Result<Vec<u8>, String> {
    let head = format!("@{GLOBAL_NAME} = ");
    let line = memmem::find_iter(printed, head.as_bytes())
        .find(|&at| at == 0 || printed[at - 1] == b'\n')
        .map(|at| {
            let rest = &printed[at..];
            &rest[..memchr(b'\n', rest).unwrap_or(rest.len())]
        });
    let Some(line) = line else {
        return Ok(Vec::new());
    };
    let no_string = || format!("no string for @{GLOBAL_NAME}");
    let start = memmem::find(line, b" c\"").ok_or_else(no_string)? + 3;
    let quoted = &line[start..];
    let end = memchr(b'"', quoted).ok_or_else(no_string)?;
    unescape(&quoted[..end]).ok_or_else(|| format!("a malformed string for @{GLOBAL_NAME}"))
}

/// The bytes of an IR string constant's text as LLVM prints it: printable
/// ASCII but `\` and `"` as itself, every other byte as `\` and two hex
/// digits (`printEscapedString`).
fn unescape(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = memchr(b'\\', rest) {
        out.extend_from_slice(&rest[..at]);
        let hex = rest.get(at + 1..at + 3)?;
        let digit = |d: u8| (d as char).to_digit(16);
        out.push((digit(hex[0])? * 16 + digit(hex[1])?) as u8);
        rest = &rest[at + 3..];
    }
    out.extend_from_slice(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcmap_reader::sites::{Match, SiteKind};

    #[test]
    fn strings_as_llvm_prints_them() {
        assert_eq!(
            unescape(br"pcmap-sites 1\0Asite stackmap 7 0 a\5Cb\22c %25\0A").unwrap(),
            b"pcmap-sites 1\nsite stackmap 7 0 a\\b\"c %25\n"
        );
        assert_eq!(unescape(br"\ff\00").unwrap(), [0xFF, 0]);
        for bad in [&br"\"[..], br"\0", br"\0G", br"x\g0"] {
            assert_eq!(unescape(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_description_line_or_none() {
        let printed = b"; ModuleID = 'x'\n@x.__pcmap_sites = global i8 0\n@__pcmap_sites = private constant [6 x i8] c\"ab\\0Acd\\0A\", section \".pcmap.sites\"\n@y = global i8 0\n";
        assert_eq!(description(printed).unwrap(), b"ab\ncd\n");
        assert_eq!(
            description(b"; ModuleID = 'x'\n@y = global i8 0\n").unwrap(),
            b""
        );
        assert!(description(b"@__pcmap_sites = private constant i8 0\n").is_err());
        assert!(description(b"@__pcmap_sites = private constant [1 x i8] c\"\\4\"\n").is_err());
    }

    #[test]
    fn opts_error_line_without_the_names() {
        let p = Path::new("/tmp/x.ll");
        let stderr = b"opt-16: /tmp/x.ll:2:1: error: expected instruction opcode\n\xff\n^\n";
        assert_eq!(
            first_error(stderr, p),
            "2:1: error: expected instruction opcode"
        );
        assert_eq!(
            first_error(b"\n  Segmentation fault\n", p),
            "Segmentation fault"
        );
        assert_eq!(first_error(b"", p), "no message, a failure exit status");
    }

    /// LLVM 16's `opt` and the plugin built beside this test
    /// (`target/<profile>`, `cargo build --workspace`).
    fn llvm16() -> Toolchain {
        let exe = std::env::current_exe().unwrap();
        let profile = exe.parent().and_then(Path::parent).unwrap();
        let plugin = profile.join("libpcmap_plugin.so");
        assert!(
            plugin.exists(),
            "{} not built (cargo build --workspace)",
            plugin.display()
        );
        Toolchain {
            llvm: 16,
            opt: PathBuf::from("opt-16"),
            plugin,
        }
    }

    fn sites_of(ir: &str) -> Result<SiteIndex> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.ll");
        std::fs::write(&path, ir).unwrap();
        index(&path, Target::X86_64, &llvm16())
    }

    fn agree(kind: SiteKind, bytes: u32) -> Match {
        Match::Agree { kind, bytes }
    }

    /// Every kind of site, names as the ELF object's symbols have them, IDs
    /// as LLVM 16 records them: the plugin's analysis, read back.
    #[test]
    fn the_plugins_sites_of_an_ir_file() {
        // A Mach-O target in the IR: the object's names are ELF's.
        let s = sites_of(
            r#"
target datalayout = "e-m:o-i64:64-i128:128-n32:64-S128"
target triple = "arm64-apple-macosx14.0.0"
declare void @llvm.experimental.stackmap(i64, i32, ...)
declare i64 @llvm.experimental.patchpoint.i64(i64, i32, ptr, i32, ...)
declare token @llvm.experimental.gc.statepoint.p0(i64, i32, ptr, i32, i32, ...)
declare void @g()
define i64 @"f g\22"(i64 %a) gc "statepoint-example" {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 8, i64 %a)
  %r = call anyregcc i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 11, i32 300, ptr null, i32 0)
  %t = call token (i64, i32, ptr, i32, i32, ...) @llvm.experimental.gc.statepoint.p0(i64 4294967301, i32 4, ptr elementtype(void ()) @g, i32 0, i32 0, i32 0, i32 0)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 -1, i32 0)
  call void @g() #0 [ "deopt"(i32 1) ]
  call void @g() [ "deopt"() ]
  call void asm sideeffect "nop", ""() [ "deopt"() ]
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 4)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 8)
  ret i64 %r
}
define private void @p() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 9, i32 4)
  ret void
}
attributes #0 = { "statepoint-id"="12" "statepoint-num-patch-bytes"="16" }
"#,
        )
        .unwrap();
        let f = b"f g\"";
        assert_eq!(s.lookup(f, 7), agree(SiteKind::StackMap, 8));
        assert_eq!(s.lookup(f, 11), agree(SiteKind::PatchPoint, 300));
        // LLVM 16 records a statepoint's low 32 bits.
        assert_eq!(s.lookup(f, 5), agree(SiteKind::StatePoint, 4));
        assert_eq!(s.lookup(f, u64::MAX), agree(SiteKind::StackMap, 0));
        assert_eq!(s.lookup(f, 12), agree(SiteKind::StatePoint, 16));
        assert_eq!(s.lookup(f, 0xABCD_EF0F), agree(SiteKind::StatePoint, 0));
        // Same ID, different sizes: unknown, never one of them.
        assert_eq!(s.lookup(f, 6), Match::Disagree);
        assert_eq!(s.lookup(f, 99), Match::Missing);
        // A private function has no symbol.
        assert_eq!(s.lookup(b"", 9), agree(SiteKind::StackMap, 4));
        assert_eq!(s.lookup(b"p", 9), Match::Missing);
    }

    #[test]
    fn ir_without_sites_and_ir_opt_refuses() {
        let s = sites_of("define void @f() {\n  ret void\n}\n").unwrap();
        assert_eq!(s.lookup(b"f", 0), Match::Missing);
        let e = sites_of("define void @f() {\n  bogus\n}\n").unwrap_err();
        let text = e.to_string();
        assert!(text.ends_with("in.ll: LLVM 16's opt with the pcmap plugin failed on it: 2:3: error: expected instruction opcode"), "{text}");
        let e = index(Path::new("/nonexistent/x.ll"), Target::X86_64, &llvm16()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/nonexistent/x.ll: cannot read IR: No such file or directory (os error 2)"
        );
    }
}
