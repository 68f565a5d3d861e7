//! Kinds and patchable sizes from the IR an object was compiled from
//! (`pcmap emit --ir`), for objects the plugin did not describe.
//!
//! `.llvm_stackmaps` does not record a stackmap's shadow, a patchpoint's
//! `numBytes` or a statepoint's `numPatchBytes`; the IR does. We read every
//! site LLVM lowers to a record — calls of `llvm.experimental.stackmap`,
//! `patchpoint.*`, `gc.statepoint.*` and `deoptimize.*`, and calls and
//! invokes with a `"deopt"` operand bundle (statepoints whose ID and patch
//! bytes are the call's `"statepoint-id"` / `"statepoint-num-patch-bytes"`
//! attributes) — into the same [`SiteIndex`] the plugin's `.pcmap.sites`
//! gives, so that both paths match records by one rule
//! (`docs/stackmap-sites.md`). Bitcode is read through `llvm-dis-16`.
//!
//! The IR of a big module is tens to hundreds of megabytes, so the scan is
//! one forward pass over it, in cache-sized blocks: each checked to be
//! UTF-8, then its newlines, `@` and `"` found 64 bytes at a time
//! (`ir_text`). A line's function is the last `define` or `}` line before
//! it, tracked as lines end (no search backwards); only a line mentioning
//! an intrinsic or a deopt bundle is read further, and of those only the
//! statements calling a site's intrinsic or carrying a bundle are parsed.
//! The common shapes take short cuts, each giving what the general path
//! gives: a line without a mention is told by its first byte in the search
//! loop; a statement written `%x = ...` or `call ...` after ASCII blanks
//! skips the general trims and tests; a site's arguments as LLVM prints
//! them (`i64 ID, i32 N`) are read without re-checking each step. No
//! allocation per site.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use hashbrown::HashMap;
use memchr::{memchr, memmem, memrchr};
use pcmap_reader::sites::{Match, SiteIndex, SiteKind};

use super::ir_text;
use crate::error::{Error, Result};

/// LLVM's ID for a statepoint lowered from a `"deopt"` bundle without a
/// `"statepoint-id"` attribute (`StatepointDirectives::DeoptBundleStatepointID`).
pub const DEOPT_BUNDLE_STATEPOINT_ID: u64 = 0xABCD_EF0F;

/// The sites of one module's IR, indexed by function and ID.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IrSites {
    index: SiteIndex,
    sites: usize,
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

/// What the lines of a site contain: a stack map intrinsic's name, or a
/// deopt bundle.
const INTRINSIC_PREFIX: &str = "@llvm.experimental.";
const DEOPT_BUNDLE: &str = "\"deopt\"";
const ATTRIBUTE_GROUP: &str = "\nattributes #";

/// The intrinsics whose calls are sites, after [`INTRINSIC_PREFIX`].
const INTRINSICS: [(&str, Intrinsic); 4] = [
    ("stackmap(", Intrinsic::Site(SiteKind::StackMap)),
    ("patchpoint.", Intrinsic::Site(SiteKind::PatchPoint)),
    ("gc.statepoint.", Intrinsic::Site(SiteKind::StatePoint)),
    ("deoptimize.", Intrinsic::Deoptimize),
];

#[derive(Debug, Clone, Copy)]
enum Intrinsic {
    /// `(i64 ID, i32 BYTES, ...)`.
    Site(SiteKind),
    /// A statepoint by its deopt bundle, directed by attributes.
    Deoptimize,
}

/// What a line does to the current function.
enum Scope<'t> {
    Define(&'t str),
    End,
}

/// A site of a scan, the function by its number in [`Scan::functions`].
#[derive(Debug, Clone, Copy)]
enum ScanSite {
    /// A call of a stack map intrinsic: its ID, kind and bytes.
    Intrinsic {
        function: u32,
        id: u64,
        kind: SiteKind,
        bytes: u32,
    },
    /// A statepoint lowered from a deopt bundle, until the attribute groups
    /// (at the module's end) are known: the call's own
    /// `"statepoint-id"`/`"statepoint-num-patch-bytes"`, and its attribute
    /// groups (their range in [`Scan::group_refs`]).
    Deopt {
        function: u32,
        directives: Directives,
        groups: (u32, u32),
    },
}

/// `"statepoint-id"` and `"statepoint-num-patch-bytes"` as LLVM parses
/// them (`parseStatepointDirectivesFromAttrs`: unsigned decimal; anything
/// else is as if absent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Directives {
    id: Option<u64>,
    bytes: Option<u32>,
}

impl Directives {
    /// Reads `"key"="value"` pairs of `text` (attributes of a call or group).
    fn read(text: &str) -> Directives {
        // Both keys are quoted: most calls have no quoted attribute, and
        // need no search for either.
        if !text.as_bytes().contains(&b'"') {
            return Directives::default();
        }
        let value = |key: &str| {
            let at = text.find(key)? + key.len();
            let rest = text[at..].strip_prefix("=\"")?;
            let v = &rest[..rest.find('"')?];
            // getAsInteger(10): digits only, no sign; out of range is absent.
            (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())).then_some(v)
        };
        Directives {
            id: value("\"statepoint-id\"").and_then(|v| v.parse().ok()),
            bytes: value("\"statepoint-num-patch-bytes\"").and_then(|v| v.parse().ok()),
        }
    }

    /// `self`, with what `other` sets that `self` does not.
    fn or(self, other: Directives) -> Directives {
        Directives {
            id: self.id.or(other.id),
            bytes: self.bytes.or(other.bytes),
        }
    }
}

/// The sites of a piece of IR text, before deopt bundles are resolved.
#[derive(Debug, Default)]
struct Scan {
    /// The sites in IR order (the index then gets each function's sites
    /// together).
    sites: Vec<ScanSite>,
    /// The symbols of the functions with sites, in order (each decoded
    /// once, not once per site), back to back: where each ends.
    functions: Vec<usize>,
    symbols: Vec<u8>,
    /// The attribute groups deopt sites name, back to back.
    group_refs: Vec<u32>,
    groups: HashMap<u32, Directives>,
}

impl ScanSite {
    fn function(&self) -> u32 {
        match *self {
            ScanSite::Intrinsic { function, .. } | ScanSite::Deopt { function, .. } => function,
        }
    }
}

impl Scan {
    /// The symbol of function number `n`.
    fn function(&self, n: u32) -> &[u8] {
        let n = n as usize;
        let start = n.checked_sub(1).map_or(0, |p| self.functions[p]);
        &self.symbols[start..self.functions[n]]
    }
}

impl IrSites {
    /// Reads and parses the IR at `path`: textual IR mapped (not copied:
    /// only the lines around sites are looked at; as with any mapping, the
    /// file must not be truncated while it is read), bitcode through
    /// `llvm-dis-16`.
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
        if map.starts_with(b"BC") || map.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
            let text = disassemble(path)?;
            return Ok(IrSites::parse(&text));
        }
        IrSites::parse_bytes(&map).map_err(|e| cannot(&e))
    }

    /// The sites of textual IR.
    pub fn parse(text: &str) -> IrSites {
        IrSites::parse_bytes(text.as_bytes()).expect("a str is UTF-8")
    }

    /// The sites of textual IR given as bytes, or where they are not UTF-8
    /// (the error `str::from_utf8` gives for the whole). Over [`MIN_SPLIT`]
    /// bytes, the two halves are scanned on two threads, each checking its
    /// half.
    pub fn parse_bytes(bytes: &[u8]) -> Result<IrSites, std::str::Utf8Error> {
        let (head, tail) = bytes.split_at(split_point(bytes));
        let (head, tail) = match head.is_empty() {
            true => (Ok(Scan::default()), Scanner::run(tail)),
            false => std::thread::scope(|s| {
                let tail = s.spawn(|| Scanner::run(tail));
                let head = Scanner::run(head);
                (head, tail.join().expect("IR scan thread panicked"))
            }),
        };
        match (head, tail) {
            (Ok(head), Ok(tail)) => Ok(IrSites::from_scans(head, tail)),
            // Report the offset in the whole text, as one check would.
            _ => Err(std::str::from_utf8(bytes).expect_err("a half is not UTF-8")),
        }
    }

    /// One index of two halves' scans, deopt bundles resolved with the
    /// attribute groups of both.
    fn from_scans(mut head: Scan, tail: Scan) -> IrSites {
        let mut groups = std::mem::take(&mut head.groups);
        groups.extend(tail.groups.iter());
        let mut out = IrSites::default();
        out.index.reserve(
            head.functions.len() + tail.functions.len(),
            head.sites.len() + tail.sites.len(),
        );
        // A run's (ID, kind, bytes), the deopt bundles' directives resolved.
        let mut entries = Vec::new();
        for scan in [&head, &tail] {
            // A function's sites come together: its name found once.
            for run in scan.sites.chunk_by(|a, b| a.function() == b.function()) {
                out.sites += run.len();
                let site = |&site: &ScanSite| match site {
                    ScanSite::Intrinsic {
                        id, kind, bytes, ..
                    } => (id, kind, bytes),
                    ScanSite::Deopt {
                        directives,
                        groups: (start, end),
                        ..
                    } => {
                        let refs = &scan.group_refs[start as usize..end as usize];
                        let directives = refs.iter().fold(directives, |acc, g| {
                            acc.or(groups.get(g).copied().unwrap_or_default())
                        });
                        (
                            directives.id.unwrap_or(DEOPT_BUNDLE_STATEPOINT_ID),
                            SiteKind::StatePoint,
                            directives.bytes.unwrap_or(0),
                        )
                    }
                };
                let function = scan.function(run[0].function());
                entries.clear();
                entries.extend(run.iter().map(site));
                out.index.add_function(function, entries.iter().copied());
                // LLVM 16 records a statepoint's ID in 32 bits
                // (llvm-project #85908, fixed in 19): its objects carry the
                // low half.
                let low = |&(id, kind, bytes): &(u64, SiteKind, u32)| {
                    let low = id & 0xFFFF_FFFF;
                    (kind == SiteKind::StatePoint && low != id).then_some((low, kind, bytes))
                };
                if entries.iter().any(|e| low(e).is_some()) {
                    out.index
                        .add_function(function, entries.iter().filter_map(low));
                }
            }
        }
        out
    }

    /// The sites, indexed as the plugin's are.
    pub fn index(&self) -> &SiteIndex {
        &self.index
    }

    /// How many sites the IR has.
    pub fn len(&self) -> usize {
        self.sites
    }

    pub fn is_empty(&self) -> bool {
        self.sites == 0
    }

    /// What the IR says about the records with ID `id` of the function
    /// whose symbol is `function` (empty: a function without a symbol).
    pub fn lookup(&self, function: &[u8], id: u64) -> Match {
        self.index.lookup(function, id)
    }
}

/// `llvm-dis-16`'s text of the bitcode at `path`.
fn disassemble(path: &Path) -> Result<String> {
    let err = |problem: String| Error::Ir {
        path: path.to_path_buf(),
        problem,
    };
    let tool = llvm_dis().ok_or_else(|| {
        err("bitcode, and llvm-dis-16 (LLVM 16's disassembler, package llvm-16) is not on PATH; install it or pass textual IR (.ll)".into())
    })?;
    let out = Command::new(&tool)
        .arg(path)
        .arg("-o")
        .arg("-")
        .output()
        .map_err(|e| err(format!("cannot run {}: {e}", tool.display())))?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        return Err(err(format!(
            "{} cannot read it: {}",
            tool.display(),
            msg.lines().next().unwrap_or("").trim()
        )));
    }
    let text = String::from_utf8(out.stdout).map_err(|e| err(format!("cannot read IR: {e}")))?;
    // llvm-dis-16 accepts a bare bitcode magic and prints nothing.
    if !text.contains("; ModuleID") {
        return Err(err(format!("{} read no module from it", tool.display())));
    }
    Ok(text)
}

/// LLVM 16's `llvm-dis`: `llvm-dis-16` on PATH, or in `llvm-config-16 --bindir`.
fn llvm_dis() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("llvm-dis-16"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let out = Command::new("llvm-config-16")
            .arg("--bindir")
            .output()
            .ok()?;
        let dir = String::from_utf8(out.stdout).ok()?;
        let p = Path::new(dir.trim()).join("llvm-dis");
        p.is_file().then_some(p)
    })
}

/// One forward pass over IR text, line by line: each line's scope (a
/// `define` opens a function, a `}` closes it) applied as it ends, and a
/// line holding a mention of an intrinsic or a deopt bundle read for a
/// site in the function then open. Lines, `@` and `"` are found by one
/// vectorized search; nothing is looked up backwards but the lines of a
/// statement split over several.
struct Scanner<'t> {
    out: Scan,
    /// Where the current line starts, where its first mention of an
    /// intrinsic is, and whether it mentions an intrinsic or a deopt bundle.
    line: usize,
    intrinsic: Option<usize>,
    hit: bool,
    /// The function open, and the one whose symbol `out.functions` holds
    /// last (told apart by address: two functions may share a name).
    function: Option<&'t str>,
    numbered: Option<&'t str>,
    /// Every attribute group (at the `\n` before it).
    groups: Vec<usize>,
    /// The text checked so far, and where the block being scanned starts.
    text: &'t str,
    block: usize,
}

impl ir_text::Found for Scanner<'_> {
    #[inline(always)]
    fn found(&mut self, at: usize) {
        self.found_at(self.text, self.block + at);
    }
}

impl<'t> Scanner<'t> {
    /// Text is read in blocks this large, each checked to be UTF-8 and
    /// scanned while it is in cache: one pass over the text's memory (the
    /// IR of a big module is over a hundred megabytes).
    const BLOCK: usize = 128 << 10;

    /// The sites of the IR `bytes`, or the error of checking it is UTF-8.
    fn run(bytes: &'t [u8]) -> Result<Scan, std::str::Utf8Error> {
        let mut s = Scanner {
            out: Scan::default(),
            line: 0,
            intrinsic: None,
            hit: false,
            function: None,
            numbered: None,
            groups: Vec::new(),
            text: "",
            block: 0,
        };
        let mut text = "";
        let mut start = 0;
        while start < bytes.len() {
            // A block ends after a newline (never inside a character),
            // or at the end.
            let end = match bytes.get(start + Self::BLOCK..) {
                Some(rest) => {
                    memchr(b'\n', rest).map_or(bytes.len(), |i| start + Self::BLOCK + i + 1)
                }
                None => bytes.len(),
            };
            let block = &bytes[start..end];
            if !ir_text::is_ascii(block) {
                std::str::from_utf8(block)?;
            }
            // SAFETY: `bytes[..end]` is UTF-8: every block up to `end` was
            // checked, and each ends after a newline or at the end of
            // `bytes`, so no character straddles two.
            text = unsafe { std::str::from_utf8_unchecked(&bytes[..end]) };
            (s.text, s.block) = (text, start);
            ir_text::each_of3(block, [b'\n', b'@', b'"'], &mut s);
            start = end;
        }
        s.end_line(text, bytes.len());
        for at in std::mem::take(&mut s.groups) {
            s.group(text, at);
        }
        Ok(s.out)
    }

    /// A newline, `@` or `"` at `at`.
    #[inline(always)]
    fn found_at(&mut self, text: &'t str, at: usize) {
        let bytes = text.as_bytes();
        match bytes[at] {
            b'\n' => {
                // A line without a mention matters only if it may open or
                // close a function or be an attribute group (told here:
                // most lines are neither).
                if self.hit || may_scope(&bytes[self.line..at]) {
                    self.end_line(text, at);
                }
                self.line = at + 1;
            }
            b'@' if self.intrinsic.is_none()
                && bytes[at..].starts_with(INTRINSIC_PREFIX.as_bytes()) =>
            {
                self.intrinsic = Some(at);
                self.hit = true;
            }
            b'"' if !self.hit && bytes[at..].starts_with(DEOPT_BUNDLE.as_bytes()) => {
                self.hit = true;
            }
            _ => {}
        }
    }

    /// The line from `self.line` to `end` is complete: its scope applied,
    /// its site read.
    fn end_line(&mut self, text: &'t str, end: usize) {
        let (start, intrinsic, hit) = (self.line, self.intrinsic.take(), self.hit);
        self.hit = false;
        // An attribute group, after a newline (`group` reads it at the end).
        let b = text.as_bytes();
        if b.get(start) == Some(&b'a')
            && start > 0
            && b[start - 1..end].starts_with(ATTRIBUTE_GROUP.as_bytes())
        {
            self.groups.push(start - 1);
        }
        if hit {
            // A statement in its commonest forms, `%x = ...` or `call `
            // after ASCII blanks: no scope, no declaration.
            let b = &text.as_bytes()[start..end];
            let blanks = b.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
            match b.get(blanks) {
                Some(b'%') => {}
                Some(b'c') if b[blanks..].starts_with(b"call ") => {}
                _ => return self.any_line(text, start, end, intrinsic, hit),
            }
            return self.statement(text, start + blanks, end, intrinsic);
        }
        self.scope_line(&text[start..end]);
    }

    /// [`end_line`](Self::end_line) of a line without a mention: only its
    /// scope.
    #[inline(always)]
    fn scope_line(&mut self, line: &'t str) {
        // A function's end as LLVM prints it: no trim, no parse.
        if line == "}" {
            self.function = None;
            return;
        }
        self.scope(trim_start(line));
    }

    /// Applies the scope of `line` (trimmed at the start) if it opens or
    /// closes a function: whether it does.
    #[inline(always)]
    fn scope(&mut self, line: &'t str) -> bool {
        // Only these lines can open or close a function.
        if !matches!(line.as_bytes().first(), Some(b'd' | b'}')) {
            return false;
        }
        match scope_of(line) {
            Some(Scope::Define(name)) => self.function = Some(name),
            Some(Scope::End) => self.function = None,
            None => return false,
        }
        true
    }

    /// [`end_line`](Self::end_line) of any line.
    #[inline(always)]
    fn any_line(
        &mut self,
        text: &'t str,
        start: usize,
        end: usize,
        intrinsic: Option<usize>,
        hit: bool,
    ) {
        let line = trim_start(&text[start..end]);
        if self.scope(line) {
            return;
        }
        if !hit || line.starts_with("declare ") {
            return;
        }
        let Some(name) = self.function else { return };
        let statement = is_statement(line) || start == 0;
        let mention = if statement {
            // The line's first mention is the statement's.
            intrinsic.map(|at| at - (end - line.len()))
        } else {
            None
        };
        // Most mentions of intrinsics (a statepoint's gc.relocate and
        // gc.result calls) are no site: the intrinsic a statement calls
        // first decides.
        let called = match mention.map(|at| (at, intrinsic_of(&line.as_bytes()[at..]))) {
            Some((_, None)) => return,
            Some((at, Some((after, called)))) => Some((at + after, called)),
            None => None,
        };
        let number = self.number(name);
        if statement {
            site(line, called, number, &mut self.out);
        } else {
            // A call split over lines (hand-written IR): from its first line.
            let statement = statement_of(text, start, end);
            let called = match occurrences(statement.as_bytes(), INTRINSIC_PREFIX).next() {
                Some(at) => match intrinsic_of(&statement.as_bytes()[at..]) {
                    Some((after, called)) => Some((at + after, called)),
                    None => return,
                },
                None => None,
            };
            site(&statement, called, number, &mut self.out);
        }
    }

    /// The site of the statement from `first` (after the line's blanks) to
    /// `end`, which mentions an intrinsic first at `intrinsic` or else a
    /// deopt bundle, read as [`any_line`](Self::any_line) would: a statement is
    /// neither a scope nor a declaration.
    #[inline(always)]
    fn statement(&mut self, text: &'t str, first: usize, end: usize, intrinsic: Option<usize>) {
        let Some(name) = self.function else { return };
        let called = match intrinsic {
            Some(at) => match intrinsic_of(&text.as_bytes()[at..]) {
                Some((after, called)) => Some((at - first + after, called)),
                None => return,
            },
            None => None,
        };
        let number = self.number(name);
        // After ASCII blanks: a character boundary.
        site(&text[first..end], called, number, &mut self.out);
    }

    /// The number of function `name` in `out.functions`: the last one,
    /// or `name`'s symbol added.
    #[inline(always)]
    fn number(&mut self, name: &'t str) -> u32 {
        let out = &mut self.out;
        if self.numbered.is_none_or(|n| !std::ptr::eq(n, name)) {
            symbol_of(name, &mut out.symbols);
            out.functions.push(out.symbols.len());
            self.numbered = Some(name);
        }
        out.functions.len() as u32 - 1
    }

    /// The attribute group whose line follows the newline at `at`.
    fn group(&mut self, text: &str, at: usize) {
        let bytes = text.as_bytes();
        let line_end = memchr(b'\n', &bytes[at + 1..]).map_or(bytes.len(), |i| at + 1 + i);
        let line = &text[at + ATTRIBUTE_GROUP.len()..line_end];
        let Some((number, rest)) = line.split_once(' ') else {
            return;
        };
        if let Ok(n) = number.parse() {
            self.out.groups.insert(n, Directives::read(rest));
        }
    }
}

/// Whether `line`, which mentions nothing, may open or close a function
/// or be an attribute group: its first byte after ASCII blanks tells most
/// lines apart.
#[inline(always)]
fn may_scope(line: &[u8]) -> bool {
    let first = line
        .iter()
        .find(|&&c| !(c.is_ascii_whitespace() || c == 0x0B));
    matches!(first, Some(b'd' | b'}' | b'a' | 0x80..))
}

/// The statement whose last line is `text[start..end]`: that line, or if
/// it does not start a statement, the lines before it up to the one that
/// does (at most 8), joined.
fn statement_of(text: &str, start: usize, end: usize) -> std::borrow::Cow<'_, str> {
    let line = trim_start(&text[start..end]);
    if is_statement(line) || start == 0 {
        return line.into();
    }
    let bytes = text.as_bytes();
    let mut first = start;
    for _ in 0..8 {
        if first == 0 {
            break;
        }
        first = memrchr(b'\n', &bytes[..first - 1]).map_or(0, |i| i + 1);
        let l = trim_start(&text[first..]);
        if is_statement(l) {
            return text[first..end]
                .split('\n')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
                .into();
        }
    }
    line.into()
}

/// Whether `line` (trimmed at the start) starts a statement: `%x = ...`
/// or a call.
fn is_statement(line: &str) -> bool {
    line.starts_with('%') || call_of(line).is_some()
}

/// The site of the statement `line` of function number `function`, if it
/// has one; `called` is the site intrinsic it calls first (where its name
/// ends in `line`, after its [`intrinsic_of`] prefix), none if it mentions
/// none.
fn site(line: &str, called: Option<(usize, Intrinsic)>, function: u32, out: &mut Scan) {
    // Intrinsics cannot have their address taken: a mention in a body is a
    // call.
    if let Some((at, intrinsic)) = called {
        let after = &line.as_bytes()[at..];
        // `stackmap(` ends at the argument list; the others have a type
        // suffix first (`patchpoint.i64(`, `statepoint.p0(`,
        // `statepoint.p0f_isVoidf(`).
        let args = match intrinsic {
            Intrinsic::Site(SiteKind::StackMap) => after,
            // A few bytes on: no vectorized search.
            _ => match after.iter().position(|&c| c == b'(') {
                Some(open) => &after[open + 1..],
                None => return,
            },
        };
        match intrinsic {
            Intrinsic::Site(kind) => {
                if let Some((id, bytes)) = parse_args(args) {
                    out.sites.push(ScanSite::Intrinsic {
                        function,
                        id,
                        kind,
                        bytes,
                    });
                }
            }
            Intrinsic::Deoptimize => {
                let site = deopt_site(line, bundle_start(line), function, &mut out.group_refs);
                out.sites.push(site);
            }
        }
        return;
    }
    // Any other call with a deopt bundle, but inline asm and intrinsics.
    let Some(call) = call_of(line) else { return };
    let Some(bundles) = bundle_start(call) else {
        return;
    };
    // `contains(call, " asm ", 3) || contains(call, "@llvm.", 0)` in one
    // search.
    let b = call.as_bytes();
    if ir_text::any_of2(b, [b'm', b'@'], |at| match b[at] {
        b'm' => at >= 3 && b[at - 3..].starts_with(b" asm "),
        _ => b[at..].starts_with(b"@llvm."),
    }) {
        return;
    }
    let site = deopt_site(call, Some(bundles), function, &mut out.group_refs);
    out.sites.push(site);
}

/// The site intrinsic that `mention` (from its `@`) names after
/// [`INTRINSIC_PREFIX`], if its calls are sites, and where that name's
/// prefix ends in `mention`.
#[inline(always)]
fn intrinsic_of(mention: &[u8]) -> Option<(usize, Intrinsic)> {
    // The names differ in their first four letters: one comparison of
    // those, then of the whole name, of a known length (no call).
    #[inline(always)]
    fn named(after: &[u8], (name, intrinsic): (&str, Intrinsic)) -> Option<(usize, Intrinsic)> {
        let name = name.as_bytes();
        (after.get(..name.len()) == Some(name))
            .then_some((INTRINSIC_PREFIX.len() + name.len(), intrinsic))
    }
    let after = mention.get(INTRINSIC_PREFIX.len()..)?;
    let head = u32::from_le_bytes(after.get(..4)?.try_into().ok()?);
    let word = |name: &str| u32::from_le_bytes(name.as_bytes()[..4].try_into().unwrap());
    // Each name compared in its own arm: a comparison of a known length,
    // inlined (one indexed by `k` calls `memcmp`).
    match head {
        h if h == word(INTRINSICS[0].0) => named(after, INTRINSICS[0]),
        h if h == word(INTRINSICS[1].0) => named(after, INTRINSICS[1]),
        h if h == word(INTRINSICS[2].0) => named(after, INTRINSICS[2]),
        h if h == word(INTRINSICS[3].0) => named(after, INTRINSICS[3]),
        _ => None,
    }
}

/// Where `needle` occurs in `line`, in order: each of its first byte in
/// turn (`@`, `"`: few on a line), the rest compared there. On a line a
/// vectorized substring search costs more in setting up than it saves.
fn occurrences<'l>(line: &'l [u8], needle: &'l str) -> impl Iterator<Item = usize> + 'l {
    let needle = needle.as_bytes();
    memchr::memchr_iter(needle[0], line).filter(move |&at| line[at..].starts_with(needle))
}

/// Where the operand bundle list holding a `"deopt"` bundle opens: the
/// `[` that encloses `"deopt" (`, found by matching brackets backwards.
fn bundle_start(call: &str) -> Option<usize> {
    let b = call.as_bytes();
    let hit = occurrences(b, DEOPT_BUNDLE).find(|&at| {
        b[at + DEOPT_BUNDLE.len()..]
            .iter()
            .find(|c| !c.is_ascii_whitespace())
            == Some(&b'(')
    })?;
    let (mut parens, mut brackets) = (0i32, 0i32);
    for at in (0..hit).rev() {
        match b[at] {
            b')' => parens += 1,
            b'(' => parens -= 1,
            b']' => brackets += 1,
            b'[' if brackets == 0 && parens == 0 => return Some(at),
            b'[' => brackets -= 1,
            _ => {}
        }
    }
    None
}

/// The call on `line` from `call`/`invoke` on, if the line is one.
fn call_of(line: &str) -> Option<&str> {
    // The commonest form, then what every other starts with.
    if line.starts_with("call ") {
        return Some(line);
    }
    if !matches!(
        line.as_bytes().first(),
        Some(b'%' | b'c' | b'i' | b't' | b'm' | b'n')
    ) {
        return None;
    }
    // `%x = call`, `tail call`, `musttail call`, `notail call`, `invoke`.
    // Only a line starting with `%` can be `%x = ...` (no search of the
    // others for " = ").
    let rest = match line.starts_with('%').then(|| assignment(line)) {
        Some(Some(rhs)) => rhs,
        _ => line,
    };
    let rest = rest
        .strip_prefix("tail ")
        .or_else(|| rest.strip_prefix("musttail "))
        .or_else(|| rest.strip_prefix("notail "))
        .unwrap_or(rest);
    (rest.starts_with("call ") || rest.starts_with("invoke ")).then_some(rest)
}

/// What follows the first ` = ` of `line` (as `split_once(" = ")`): each
/// `=` in turn, its neighbours compared.
fn assignment(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    memchr::memchr_iter(b'=', b)
        .find(|&at| at > 0 && b[at - 1] == b' ' && b.get(at + 1) == Some(&b' '))
        .map(|at| &line[at + 2..])
}

/// A deopt-bundle statepoint: the call's attributes sit between its
/// argument list and its operand bundles (from `bundles`, its
/// [`bundle_start`]). The groups it names go onto `group_refs`.
fn deopt_site(
    call: &str,
    bundles: Option<usize>,
    function: u32,
    group_refs: &mut Vec<u32>,
) -> ScanSite {
    let bundles = bundles.unwrap_or(call.len());
    let before = &call[..bundles];
    // `)` is ASCII: a character boundary. (Short: no vectorized search.)
    let attrs = before
        .bytes()
        .rposition(|c| c == b')')
        .map_or("", |i| &before[i + 1..]);
    let start = group_refs.len() as u32;
    // Most calls have no attribute (a blank or two): nothing to read.
    if attrs.bytes().all(|c| c == b' ') {
        return ScanSite::Deopt {
            function,
            directives: Directives::default(),
            groups: (start, start),
        };
    }
    if attrs.as_bytes().contains(&b'#') {
        group_refs.extend(
            attrs
                .split_whitespace()
                .filter_map(|w| w.strip_prefix('#')?.parse::<u32>().ok()),
        );
    }
    ScanSite::Deopt {
        function,
        directives: Directives::read(attrs),
        groups: (start, group_refs.len() as u32),
    }
}

/// The symbol an IR function's name gives, onto `out`: `\01` (use
/// verbatim) dropped, `\XX` escapes of quoted names decoded; none (empty)
/// for a numbered function, whose symbol LLVM names `__unnamed_N`.
fn symbol_of(name: &str, out: &mut Vec<u8>) {
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return;
    }
    let b = name.as_bytes();
    // Most names have no escape: copied whole. (Most are short: looked
    // through byte by byte, cheaper than `contains`' search call.)
    #[allow(clippy::manual_contains)]
    let escaped = match b.len() {
        0..=32 => b.iter().any(|&c| c == b'\\'),
        _ => b.contains(&b'\\'),
    };
    if !escaped {
        out.extend_from_slice(b.strip_prefix(&[1]).unwrap_or(b));
        return;
    }
    let first = out.len();
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'\\', Some(hi), Some(lo)) => {
                out.push(hi << 4 | lo);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    if out.get(first) == Some(&1) {
        out.remove(first);
    }
}

/// Below this many bytes of IR, a second thread costs more than it saves.
const MIN_SPLIT: usize = 1 << 20;

/// Where to cut the IR in two halves scanned on two threads (the scan is
/// most of `emit --ir`'s extra time): at a line starting with `define`
/// near the middle, so no function is split and each half starts outside
/// any; 0 (all in the tail) for small or oddly shaped text.
fn split_point(bytes: &[u8]) -> usize {
    if bytes.len() < MIN_SPLIT {
        return 0;
    }
    memmem::find(&bytes[bytes.len() / 2..], b"\ndefine ").map_or(0, |i| bytes.len() / 2 + i + 1)
}

/// Whether `line` (trimmed at the start) opens or closes a function. A
/// private function opens a scope without a symbol (an empty name).
fn scope_of(line: &str) -> Option<Scope<'_>> {
    if let Some(rest) = line.strip_prefix("define ") {
        // `@` and `(` are ASCII: byte searches find them at char boundaries.
        let b = rest.as_bytes();
        // Both near the start: no vectorized search.
        let position = |b: &[u8], c: u8| b.iter().position(|&x| x == c);
        let name = position(b, b'@')
            .and_then(|at| Some((at, at + 1 + position(&b[at + 1..], b'(')?)))
            .map(|(at, open)| (&rest[..at], &rest[at + 1..open]))
            .map(|(linkage, name)| {
                // The words split only if one could be `private`.
                if linkage.as_bytes().windows(7).any(|w| w == b"private")
                    && linkage.split_whitespace().any(|w| w == "private")
                {
                    // Numbered, so that symbol_of names it nothing.
                    "0"
                } else {
                    trim_quotes(name)
                }
            });
        return Some(match name {
            Some(n) => Scope::Define(n),
            None => Scope::End,
        });
    }
    (line == "}").then_some(Scope::End)
}

/// `name.trim_matches('"')`: `"` is ASCII, never inside a character.
fn trim_quotes(name: &str) -> &str {
    let b = name.as_bytes();
    let start = b.iter().take_while(|&&c| c == b'"').count();
    let end = b.len() - b[start..].iter().rev().take_while(|&&c| c == b'"').count();
    &name[start..end]
}

/// `line` without leading whitespace, as `str::trim_start`: ASCII
/// whitespace skipped byte by byte, the Unicode-aware trim only when a
/// non-ASCII character follows it (the IR's lines are nearly all ASCII).
fn trim_start(line: &str) -> &str {
    let b = line.as_bytes();
    // char::is_whitespace's ASCII members: is_ascii_whitespace and \x0B.
    let n = b
        .iter()
        .take_while(|&&c| c.is_ascii_whitespace() || c == 0x0B)
        .count();
    match b.get(n) {
        Some(&c) if !c.is_ascii() => line.trim_start(),
        _ => &line[n..],
    }
}

/// `i64 ID, i32 N, ...` at the start of an argument list: the ID as the
/// record stores it (written negative in IR: two's complement) and N.
fn parse_args(b: &[u8]) -> Option<(u64, u32)> {
    // As LLVM prints them (`i64 ID, i32 N` then `,` or `)`), few enough
    // digits not to overflow: read at once; any other spelling below.
    if let Some(rest) = b.strip_prefix(b"i64 ") {
        let (negative, rest) = match rest.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, rest),
        };
        let (id, n) = leading_digits(rest);
        if (1..=18).contains(&n) {
            if let Some(rest) = rest[n..].strip_prefix(b", i32 ") {
                let (bytes, m) = leading_digits(rest);
                if (1..=9).contains(&m) && matches!(rest.get(m), Some(b',' | b')')) {
                    let id = if negative { id.wrapping_neg() } else { id };
                    return Some((id, bytes as u32));
                }
            }
        }
    }
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
    Some((id as u64, u32::try_from(bytes).ok()?))
}

/// The value of the decimal digits `b` starts with (wrapping) and how many.
#[inline(always)]
fn leading_digits(b: &[u8]) -> (u64, usize) {
    let mut n: u64 = 0;
    let mut at = 0;
    while let Some(&c) = b.get(at) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        n = n.wrapping_mul(10).wrapping_add(u64::from(d));
        at += 1;
    }
    (n, at)
}

/// `TYPE [-]DIGITS` after spaces at `at`: the number and where it ends.
fn typed_number(b: &[u8], at: usize, ty: &[u8]) -> Option<(i64, usize)> {
    let at = skip_spaces(b, at);
    if !b.get(at..)?.starts_with(ty) {
        return None;
    }
    let mut at = skip_spaces(b, at + ty.len());
    let negative = b.get(at) == Some(&b'-');
    if negative || b.get(at) == Some(&b'+') {
        at += 1;
    }
    // Wrapping: checked again below when over 19 digits (10^19 > 2^63).
    let start = at;
    let (mut n, digits) = leading_digits(&b[at..]);
    at += digits;
    match digits {
        0 => return None,
        1..=19 => {}
        _ => {
            n = b[start..at].iter().try_fold(0u64, |n, d| {
                n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
            })?
        }
    }
    // i64 in IR: -2^63..=2^63-1, and unsigned spellings up to 2^64-1.
    let v = if negative {
        0i64.checked_sub_unsigned(n)?
    } else {
        n as i64
    };
    Some((v, at))
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

    fn agree(kind: SiteKind, bytes: u32) -> Match {
        Match::Agree { kind, bytes }
    }

    #[test]
    fn reads_every_site() {
        let ir = r#"
declare void @llvm.experimental.stackmap(i64, i32, ...)
define i64 @"f"(i64 %a) {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 8, i64 %a)
  %r = call anyregcc i64 (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.i64(i64 11, i32 300, ptr null, i32 0)
  %t = call token (i64, i32, ptr, i32, i32, ...) @llvm.experimental.gc.statepoint.p0(i64 2882400000, i32 0, ptr elementtype(void ()) @g, i32 0, i32 0, i32 0, i32 0)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 -1, i32 0)
  %u = call token (i64, i32, void ()*, i32, i32, ...) @llvm.experimental.gc.statepoint.p0f_isVoidf(i64 4294967301, i32 4, void ()* @g, i32 0, i32 0, i32 0, i32 0)
  ret i64 %r
}
"#;
        let s = IrSites::parse(ir);
        assert_eq!(s.lookup(b"f", 7), agree(SiteKind::StackMap, 8));
        assert_eq!(s.lookup(b"f", 11), agree(SiteKind::PatchPoint, 300));
        assert_eq!(s.lookup(b"f", 2882400000), agree(SiteKind::StatePoint, 0));
        assert_eq!(s.lookup(b"f", u64::MAX), agree(SiteKind::StackMap, 0));
        // A statepoint's ID as LLVM 16 and as LLVM 19 record it.
        assert_eq!(s.lookup(b"f", 4294967301), agree(SiteKind::StatePoint, 4));
        assert_eq!(s.lookup(b"f", 5), agree(SiteKind::StatePoint, 4));
        assert_eq!(s.lookup(b"f", 99), Match::Missing);
        assert_eq!(s.len(), 5);
    }

    #[test]
    fn attribute_groups_wherever_their_line_ends() {
        // A group is a line starting `attributes #` after a newline:
        // the last line, with a final newline or without; one mentioning
        // a deopt bundle; not one indented.
        let ir = r#"define void @f() {
  call void @g() #0 [ "deopt"() ]
  call void @g() #1 [ "deopt"() ]
  call void @g() #2 [ "deopt"() ]
}
  attributes #1 = { "statepoint-id"="21" }
attributes #2 = { "deopt"="x" "statepoint-id"="22" }
attributes #0 = { "statepoint-id"="20" }"#;
        let sp = agree(SiteKind::StatePoint, 0);
        for text in [ir.to_string(), format!("{ir}\n")] {
            let s = IrSites::parse(&text);
            assert_eq!(s.lookup(b"f", 20), sp);
            assert_eq!(s.lookup(b"f", 22), sp);
            assert_eq!(s.lookup(b"f", 21), Match::Missing);
            assert_eq!(s.lookup(b"f", DEOPT_BUNDLE_STATEPOINT_ID), sp);
        }
    }

    #[test]
    fn deopt_bundles_are_statepoints_directed_by_attributes() {
        let ir = r#"
define void @caller() gc "statepoint-example" {
  call void @f() [ "deopt"(i32 1) ]
  call void @f() #0 [ "deopt"(i32 2) ]
  %x = call i32 @h(i32 1) "statepoint-id"="9" [ "gc-transition"(), "deopt"() ]
  invoke void @f() #1 [ "deopt"() ]
          to label %a unwind label %b
  call void asm sideeffect "nop", ""() [ "deopt"() ]
  call void @llvm.some.intrinsic() [ "deopt"() ]
  call void (...) @llvm.experimental.deoptimize.isVoid(i32 3) #2 [ "deopt"() ]
  ret void
}
define void @handwritten(ptr %p) {
  call void @foo() ["deopt" (<8 x i32> %val)]
  call void @foo(i32 1) #0 [ "gc-transition"([2 x i32] zeroinitializer), "deopt" (i32 2) ]
  %t = call token (i64, i32, ptr, i32, i32, ...)
      @llvm.experimental.gc.statepoint.p0(i64 0, i32 0, ptr elementtype(void ()) @f, i32 0, i32 0, i32 0, i32 0) ["gc-live" (ptr addrspace(1) %ptr), "deopt" (i32 1)]
  ret void
}
attributes #0 = { "statepoint-id"="12" "statepoint-num-patch-bytes"="16" }
attributes #1 = { "statepoint-id"="-1" "statepoint-num-patch-bytes"="+8" }
attributes #2 = { "statepoint-id"="13" }
"#;
        let s = IrSites::parse(ir);
        let sp = |b| agree(SiteKind::StatePoint, b);
        // No attributes: LLVM's default ID, no patch bytes; "-1"/"+8" do
        // not parse, so they are the defaults too.
        assert_eq!(s.lookup(b"caller", DEOPT_BUNDLE_STATEPOINT_ID), sp(0));
        assert_eq!(s.lookup(b"caller", 12), sp(16));
        assert_eq!(s.lookup(b"caller", 9), sp(0));
        assert_eq!(s.lookup(b"caller", 13), sp(0));
        // Inline asm and other intrinsics are not statepoints.
        assert_eq!(s.len(), 5 + 3);
        // Bundles as hand-written tests spell them, calls over two lines.
        assert_eq!(s.lookup(b"handwritten", DEOPT_BUNDLE_STATEPOINT_ID), sp(0));
        assert_eq!(s.lookup(b"handwritten", 12), sp(16));
        assert_eq!(s.lookup(b"handwritten", 0), sp(0));
    }

    #[test]
    fn names_scopes_and_shared_ids() {
        let ir = r#"
define void @g() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 5, i32 0)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 4, i64 1)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 6, i32 8, i64 1)
}
define private void @p() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 4)
}
define internal void @"\01quoted\22"() {
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 8, i32 4)
}
declare void @llvm.experimental.stackmap(i64, i32, ...)
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 9, i32 0)
"#;
        let s = IrSites::parse(ir);
        assert_eq!(s.lookup(b"g", 5), agree(SiteKind::StackMap, 0));
        // Same ID, different sizes: unknown, never one of them.
        assert_eq!(s.lookup(b"g", 6), Match::Disagree);
        // A private function has no symbol.
        assert_eq!(s.lookup(b"", 7), agree(SiteKind::StackMap, 4));
        assert_eq!(s.lookup(b"p", 7), Match::Missing);
        assert_eq!(s.lookup(b"quoted\"", 8), agree(SiteKind::StackMap, 4));
        // After the closing brace no function is open.
        assert_eq!(s.lookup(b"g", 9), Match::Missing);
        assert_eq!(s.len(), 5);
    }

    #[test]
    fn trims_as_str_does() {
        for line in [
            "",
            "  ",
            "define",
            " \t\x0b\x0c\r define @f()",
            "\u{a0}}",
            " \u{2003} }",
            "  é }",
            "\u{85}x",
            "}",
        ] {
            assert_eq!(trim_start(line), line.trim_start(), "{line:?}");
        }
    }

    #[test]
    fn blocks_are_seams_of_nothing() {
        // The first block ends at the newline at BLOCK: the attribute
        // group starts the next one, a non-ASCII comment is in the first.
        let mut ir = String::from(
            "define void @f() {\n  call void @g() #0 [ \"deopt\"() ]\n}\n; \u{e9}\u{2003}\n",
        );
        let fill = Scanner::BLOCK - ir.len() - 2;
        ir.push_str(&format!("; {}\n", "x".repeat(fill)));
        assert_eq!(ir.as_bytes()[Scanner::BLOCK], b'\n');
        ir.push_str("attributes #0 = { \"statepoint-id\"=\"7\" }\n");
        ir.push_str("define void @h() {\n\u{2003} call void (i64, i32, ...) @llvm.experimental.stackmap(i64 3, i32 4)\n}");
        let s = IrSites::parse(&ir);
        assert_eq!(s.lookup(b"f", 7), agree(SiteKind::StatePoint, 0));
        assert_eq!(s.lookup(b"h", 3), agree(SiteKind::StackMap, 4));
        assert_eq!(s.len(), 2);
        assert_eq!(IrSites::parse_bytes(ir.as_bytes()), Ok(s));
        // Not UTF-8 in the second block: the error of checking the whole.
        let mut bytes = ir.into_bytes();
        let at = bytes.len() - 3;
        bytes[at] = 0xFF;
        assert_eq!(
            IrSites::parse_bytes(&bytes),
            Err(std::str::from_utf8(&bytes).unwrap_err())
        );
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
            ir.push_str("  call void @x() #0 [ \"deopt\"() ]\n}\n");
            // The same name again further on: its sites join the first's.
            if f == 3 {
                f = 0;
            }
            f += 1;
        }
        ir.push_str("attributes #0 = { \"statepoint-id\"=\"77\" }\n");
        assert!(split_point(ir.as_bytes()) > 0);
        let halves = IrSites::parse(&ir);
        let whole = IrSites::from_scans(Scan::default(), Scanner::run(ir.as_bytes()).unwrap());
        assert_eq!(halves, whole);
        assert_eq!(halves.lookup(b"f1", 77), agree(SiteKind::StatePoint, 0));
    }
}
