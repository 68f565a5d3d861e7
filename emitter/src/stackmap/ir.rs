//! Kinds and patchable sizes from the IR an object was compiled from
//! (`pcmap emit --ir`).
//!
//! `.llvm_stackmaps` does not record a stackmap's shadow, a patchpoint's
//! `numBytes` or a statepoint's `numPatchBytes`; the IR does. We read the
//! textual IR's calls of the three intrinsics (function, ID, kind, size) and
//! match them to records by function and ID, in order.
//!
//! The IR of a big module is tens of megabytes, so the scan is byte-level:
//! a vectorized search for the intrinsics' common prefix, and only around
//! each hit a look back for the `define` line of the function it is in. No
//! per-line work, no allocation per site.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use hashbrown::HashMap;
use memchr::{memchr, memmem, memrchr};
use pcmap_reader::flat::RecordKind;

use crate::error::{Error, Result};

/// One call of a stack map intrinsic in the IR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    pub kind: RecordKind,
    pub id: u64,
    /// Shadow bytes, `numBytes` or `numPatchBytes`.
    pub bytes: u32,
}

/// A function of the IR that calls stack map intrinsics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FunctionId(u32);

/// Sites by function, in textual order, indexed by (function, ID).
#[derive(Debug, Default, Clone)]
pub struct IrSites {
    functions: HashMap<String, FunctionId>,
    /// Every site, in textual order.
    sites: Vec<Site>,
    /// (function, ID, site) for every site, sorted: a function's entries
    /// are contiguous and binary searched by ID, and sites sharing an ID
    /// follow each other in textual order.
    index: Vec<(u32, u64, u32)>,
    /// Each function's range of `index`.
    ranges: Vec<(u32, u32)>,
}

/// The IR's sites for `pcmap emit`: given, or being read on other threads
/// ([`IrInput::read_in_background`]) while the object is read, so that the
/// two overlap; waited for when the first record needs them.
#[derive(Debug)]
pub struct IrInput(IrState);

#[derive(Debug)]
enum IrState {
    Given(IrSites),
    /// The reading thread until it is joined, then what it returned (an
    /// error as its message, returned to every caller).
    Reading(
        PathBuf,
        Mutex<Option<JoinHandle<Result<IrSites>>>>,
        OnceLock<Result<IrSites, String>>,
    ),
}

impl From<IrSites> for IrInput {
    fn from(sites: IrSites) -> Self {
        IrInput(IrState::Given(sites))
    }
}

impl IrInput {
    /// Starts [`IrSites::read_file`] of `path` on another thread.
    pub fn read_in_background(path: &Path) -> IrInput {
        let path = path.to_path_buf();
        let thread_path = path.clone();
        let reading = std::thread::spawn(move || IrSites::read_file(&thread_path));
        IrInput(IrState::Reading(
            path,
            Mutex::new(Some(reading)),
            OnceLock::new(),
        ))
    }

    /// The sites, once read: the reading thread's error if it failed.
    pub fn sites(&self) -> Result<&IrSites> {
        let (path, reading, read) = match &self.0 {
            IrState::Given(sites) => return Ok(sites),
            IrState::Reading(path, reading, read) => (path, reading, read),
        };
        let read = read.get_or_init(|| {
            let thread = reading.lock().ok().and_then(|mut t| t.take());
            match thread.map(|t| t.join()) {
                Some(Ok(Ok(sites))) => Ok(sites),
                Some(Ok(Err(Error::Ir { problem, .. }))) => Err(problem),
                Some(Ok(Err(e))) => Err(e.to_string()),
                _ => Err("the IR reading thread failed".into()),
            }
        });
        read.as_ref().map_err(|problem| Error::Ir {
            path: path.clone(),
            problem: problem.clone(),
        })
    }
}

/// What every intrinsic name below starts with.
const PREFIX: &str = "@llvm.experimental.";

const INTRINSICS: [(&str, RecordKind); 3] = [
    ("@llvm.experimental.stackmap(", RecordKind::StackMap),
    ("@llvm.experimental.patchpoint.", RecordKind::PatchPoint),
    ("@llvm.experimental.gc.statepoint.", RecordKind::StatePoint),
];

/// What a line does to the current function.
enum Scope<'t> {
    Define(&'t str),
    End,
}

impl IrSites {
    /// Reads and parses the textual IR at `path`. The file is mapped, not
    /// copied: the IR of a big module is tens of megabytes and only the
    /// lines around intrinsic calls are looked at. (As with any mapping, the
    /// file must not be truncated while it is read.)
    pub fn read_file(path: &Path) -> Result<IrSites> {
        let cannot = |e: &dyn std::fmt::Display| Error::Ir {
            path: path.to_path_buf(),
            problem: format!("cannot read IR: {e}"),
        };
        let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
        let len = file.metadata().map_err(|e| cannot(&e))?.len();
        if len == 0 {
            return Ok(IrSites::default());
        }
        // SAFETY: read-only mapping of a file we do not write; see above.
        // Populated: every page is read, and mapping them all in one call
        // is cheaper than faulting them in one by one.
        let map =
            unsafe { memmap2::MmapOptions::new().populate().map(&file) }.map_err(|e| cannot(&e))?;
        if map.starts_with(b"BC") {
            return Err(Error::Ir {
                path: path.to_path_buf(),
                problem: "bitcode; pass textual IR (.ll)".into(),
            });
        }
        // Each half is checked on the thread that scans it.
        let (head, tail) = map.split_at(split_point(&map));
        let (head, tail) = std::thread::scope(|s| {
            let tail = s.spawn(|| std::str::from_utf8(tail).map(IrSites::scan));
            let head = std::str::from_utf8(head).map(IrSites::scan);
            (head, tail.join().expect("IR scan thread panicked"))
        });
        match (head, tail) {
            (Ok(head), Ok(tail)) => Ok(head.merge(tail)),
            // Report the offset in the whole file, as one check would.
            _ => Err(cannot(
                &std::str::from_utf8(&map).expect_err("a half is not UTF-8"),
            )),
        }
    }

    pub fn parse(text: &str) -> IrSites {
        let (head, tail) = text.split_at(split_point(text.as_bytes()));
        let (head, tail) = std::thread::scope(|s| {
            let tail = s.spawn(|| IrSites::scan(tail));
            (
                IrSites::scan(head),
                tail.join().expect("IR scan thread panicked"),
            )
        });
        head.merge(tail)
    }

    /// Appends the sites of `tail`, the text after `self`'s, and indexes all.
    fn merge(mut self, tail: IrSites) -> IrSites {
        // In the tail's order of first sites, as one scan would number them.
        let mut names = vec![""; tail.functions.len()];
        for (name, id) in &tail.functions {
            names[id.0 as usize] = name;
        }
        let tail_ids: Vec<u32> = names.iter().map(|n| self.intern(n).0).collect();
        let base = self.sites.len() as u32;
        self.sites.extend_from_slice(&tail.sites);
        self.index.extend(
            tail.index
                .iter()
                .map(|&(f, id, site)| (tail_ids[f as usize], id, base + site)),
        );
        self.finish()
    }

    /// Sorts the index and notes each function's range of it.
    fn finish(mut self) -> IrSites {
        // Usually sorted already (IDs ascend in a function): a linear pass.
        self.index.sort();
        self.ranges = vec![(0, 0); self.functions.len()];
        let mut start = 0;
        for (i, e) in self.index.iter().enumerate() {
            if i + 1 == self.index.len() || self.index[i + 1].0 != e.0 {
                self.ranges[e.0 as usize] = (start, i as u32 + 1);
                start = i as u32 + 1;
            }
        }
        self
    }

    /// The sites of `text`, not yet indexed (see [`finish`](Self::finish)).
    fn scan(text: &str) -> IrSites {
        let mut sites = IrSites::default();
        let bytes = text.as_bytes();
        let finder = memmem::Finder::new(PREFIX);
        let mut function: Option<&str> = None;
        let mut fid: Option<FunctionId> = None;
        // Lines before `cursor` have been accounted for.
        let mut cursor = 0;
        while let Some(hit) = finder.find(&bytes[cursor..]).map(|i| cursor + i) {
            let line_start = memrchr(b'\n', &bytes[..hit]).map_or(0, |i| i + 1);
            let line_end = memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |i| hit + i);
            if let Some(scope) = last_scope(text, cursor, line_start) {
                function = match scope {
                    Scope::Define(name) => Some(name),
                    Scope::End => None,
                };
                fid = None;
            }
            cursor = line_end;
            let line = text[line_start..line_end].trim_start();
            match scope_of(line) {
                Some(Scope::Define(name)) => {
                    function = Some(name);
                    fid = None;
                    continue;
                }
                Some(Scope::End) => {
                    function = None;
                    continue;
                }
                None if line.starts_with("declare ") => continue,
                None => {}
            }
            let Some(name) = function else { continue };
            // The hit is the line's first mention: a call has one callee.
            let call = &text[hit..line_end];
            // The names differ right after the prefix: one comparison.
            let next = call.as_bytes().get(PREFIX.len());
            let Some(&(intrinsic, kind)) = INTRINSICS
                .iter()
                .find(|(i, _)| i.as_bytes().get(PREFIX.len()) == next)
            else {
                continue;
            };
            let Some(after) = call.strip_prefix(intrinsic) else {
                continue;
            };
            // `stackmap(` ends at the argument list; the others have a
            // type suffix first (`patchpoint.i64(`, `statepoint.p0(`).
            let args = match kind {
                RecordKind::StackMap => after,
                _ => match after.split_once('(') {
                    Some((_, a)) => a,
                    None => continue,
                },
            };
            if let Some(site) = parse_args(kind, args) {
                let f = *fid.get_or_insert_with(|| sites.intern(name));
                sites.index.push((f.0, site.id, sites.sites.len() as u32));
                sites.sites.push(site);
            }
        }
        sites
    }

    fn intern(&mut self, name: &str) -> FunctionId {
        let n = FunctionId(self.functions.len() as u32);
        *self.functions.entry(name.to_string()).or_insert(n)
    }

    /// The function called `name`, if it has sites.
    pub fn function(&self, name: &str) -> Option<FunctionId> {
        self.functions.get(name).copied()
    }

    /// Every site of the function called `name`, in textual order.
    pub fn sites_of(&self, name: &str) -> Vec<Site> {
        let Some(f) = self.function(name) else {
            return Vec::new();
        };
        let (start, end) = self.ranges[f.0 as usize];
        let mut at: Vec<u32> = self.index[start as usize..end as usize]
            .iter()
            .map(|e| e.2)
            .collect();
        at.sort_unstable();
        at.into_iter().map(|i| self.sites[i as usize]).collect()
    }

    /// The site for the `nth` record with `id` in `function` (records in
    /// instruction order): the only size used for that ID, or the nth site.
    pub fn lookup(&self, function: &str, id: u64, nth: usize) -> Result<Site, String> {
        self.lookup_in(self.function(function), function, id, nth)
    }

    /// [`lookup`](Self::lookup) with the function already found (`name` is
    /// for the message).
    pub fn lookup_in(
        &self,
        function: Option<FunctionId>,
        name: &str,
        id: u64,
        nth: usize,
    ) -> Result<Site, String> {
        let same: &[(u32, u64, u32)] = match function {
            Some(f) => {
                let (start, end) = self.ranges[f.0 as usize];
                let range = &self.index[start as usize..end as usize];
                // Where the ID would be if the function's IDs were
                // consecutive (as a JIT numbers them): checked, else a
                // binary search. This runs once per record.
                let guess = range
                    .first()
                    .map_or(usize::MAX, |e| id.wrapping_sub(e.1) as usize);
                let first = match range.get(guess) {
                    Some(e) if e.1 == id && (guess == 0 || range[guess - 1].1 != id) => guess,
                    _ => range.partition_point(|e| e.1 < id),
                };
                // Usually one site per ID: a short scan.
                let n = range[first..].iter().take_while(|e| e.1 == id).count();
                &range[first..first + n]
            }
            None => &[],
        };
        let site = |e: &(u32, u64, u32)| self.sites[e.2 as usize];
        let Some(first) = same.first().map(site) else {
            return Err(format!(
                "no stack map intrinsic with ID {id} in function {name} of the IR"
            ));
        };
        if same.iter().all(|e| site(e) == first) {
            return Ok(first);
        }
        same.get(nth)
            .map(site)
            .ok_or_else(|| format!("more records with ID {id} in {name} than IR sites"))
    }
}

/// Where to cut the IR in two halves scanned on two threads (the scan is
/// most of `emit --ir`'s extra time): at a line starting with `define`
/// near the middle, so no function is split and each half starts outside
/// any; 0 (all in the tail) for small or oddly shaped text.
fn split_point(bytes: &[u8]) -> usize {
    /// Below this, a thread costs more than it saves.
    const MIN_SPLIT: usize = 1 << 20;
    if bytes.len() < MIN_SPLIT {
        return 0;
    }
    memmem::find(&bytes[bytes.len() / 2..], b"\ndefine ").map_or(0, |i| bytes.len() / 2 + i + 1)
}

/// Whether `line` (trimmed at the start) opens or closes a function.
fn scope_of(line: &str) -> Option<Scope<'_>> {
    if let Some(rest) = line.strip_prefix("define ") {
        let name = rest
            .split_once('@')
            .and_then(|(_, r)| r.split_once('('))
            .map(|(name, _)| name.trim_matches('"'));
        return Some(match name {
            Some(n) => Scope::Define(n),
            None => Scope::End,
        });
    }
    (line == "}").then_some(Scope::End)
}

/// The last line of `text[from..to]` that opens or closes a function,
/// looking backwards from `to` (a line start).
fn last_scope(text: &str, from: usize, to: usize) -> Option<Scope<'_>> {
    let bytes = text.as_bytes();
    let mut end = to;
    while end > from {
        // The line ending at `end - 1` (a newline) starts after the previous one.
        let start = memrchr(b'\n', &bytes[from..end - 1]).map_or(from, |i| from + i + 1);
        let line = text[start..end - 1].trim_start();
        if let Some(scope) = scope_of(line) {
            return Some(scope);
        }
        end = start;
    }
    None
}

/// `i64 ID, i32 N, ...` at the start of an argument list.
fn parse_args(kind: RecordKind, args: &str) -> Option<Site> {
    let b = args.as_bytes();
    let (id, at) = typed_number(b, 0, b"i64")?;
    let at = skip_spaces(b, at);
    if b.get(at) != Some(&b',') {
        return None;
    }
    let (bytes, at) = typed_number(b, at + 1, b"i32")?;
    // More arguments, or none (`stackmap(i64 5, i32 0)`).
    if !matches!(b.get(skip_spaces(b, at)), Some(b',' | b')')) {
        return None;
    }
    let bytes = u32::try_from(bytes).ok()?;
    Some(Site { kind, id, bytes })
}

/// `TYPE DIGITS` after spaces at `at`: the number and where it ends. Like
/// `str::parse::<u64>` on the trimmed text, without allocating.
fn typed_number(b: &[u8], at: usize, ty: &[u8]) -> Option<(u64, usize)> {
    let at = skip_spaces(b, at);
    if !b.get(at..)?.starts_with(ty) {
        return None;
    }
    let mut at = skip_spaces(b, at + ty.len());
    if b.get(at) == Some(&b'+') {
        at += 1;
    }
    let start = at;
    let mut n: u64 = 0;
    while let Some(d) = b.get(at).filter(|c| c.is_ascii_digit()) {
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        at += 1;
    }
    (at > start).then_some((n, at))
}

fn skip_spaces(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(|c| c.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sites() {
        let ir = r#"
declare void @llvm.experimental.stackmap(i64, i32, ...)
define i64 @"f"(i64 %a) {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 8, i64 %a)
  %r = call anyregcc i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 11, i32 300, ptr null, i32 0)
  %t = call token (i64, i32, ptr, i32, i32, ...) @llvm.experimental.gc.statepoint.p0(i64 2882400000, i32 0, ptr elementtype(void ()) @g, i32 0, i32 0, i32 0, i32 0)
  ret i64 %r
}
"#;
        let s = IrSites::parse(ir);
        let f = &s.sites_of("f");
        assert_eq!(
            f[0],
            Site {
                kind: RecordKind::StackMap,
                id: 7,
                bytes: 8
            }
        );
        assert_eq!(
            f[1],
            Site {
                kind: RecordKind::PatchPoint,
                id: 11,
                bytes: 300
            }
        );
        assert_eq!(
            f[2],
            Site {
                kind: RecordKind::StatePoint,
                id: 2882400000,
                bytes: 0
            }
        );
        assert!(s.lookup("f", 99, 0).is_err());
    }

    #[test]
    fn sites_without_operands_duplicates_and_scopes() {
        let ir = r#"
define void @g() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 5, i32 0)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 4, i64 1)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 8, i64 1)
}
declare void @llvm.experimental.stackmap(i64, i32, ...)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 9, i32 0)
"#;
        let s = IrSites::parse(ir);
        assert_eq!(s.lookup("g", 5, 0).unwrap().bytes, 0);
        // Same ID, different sizes: matched in order.
        assert_eq!(s.lookup("g", 6, 0).unwrap().bytes, 4);
        assert_eq!(s.lookup("g", 6, 1).unwrap().bytes, 8);
        assert!(s.lookup("g", 6, 2).is_err());
        // After the closing brace no function is open.
        assert_eq!(s.sites_of("g").len(), 3);
        assert!(s.lookup("g", 9, 0).is_err());
    }
    #[test]
    fn halves_scanned_apart_give_one_scan() {
        // Over MIN_SPLIT: parse cuts at a `define` near the middle.
        let mut ir = String::from("declare void @llvm.experimental.stackmap(i64, i32, ...)\n");
        let mut f = 0;
        while ir.len() < 3 << 20 {
            ir.push_str(&format!("define void @f{f}() {{\n"));
            for id in 0..40 {
                ir.push_str(&format!(
                    "  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 {}, i32 {}, i64 1)\n",
                    id % 30,
                    (f + id) % 7
                ));
            }
            ir.push_str("}\n");
            // The same name again further on: its sites join the first's.
            if f == 3 {
                f = 0;
            }
            f += 1;
        }
        assert!(split_point(ir.as_bytes()) > 0);
        let halves = IrSites::parse(&ir);
        let whole = IrSites::scan(&ir).finish();
        assert_eq!(halves.functions, whole.functions);
        assert_eq!(halves.sites, whole.sites);
        assert_eq!(halves.index, whole.index);
        assert_eq!(halves.ranges, whole.ranges);
    }
}
