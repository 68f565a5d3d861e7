//! Stack map sites: the plugin's account of every call that LLVM lowers to a
//! stack map record, with the record's kind and patchable size, which
//! `.llvm_stackmaps` does not carry (`docs/stackmap-sites.md`).
//!
//! The plugin writes one record per module into the section `.pcmap.sites`
//! (`SHF_EXCLUDE`, not `SHF_ALLOC`: final links drop it, `ld -r`
//! concatenates it); `pcmap emit` reads it and removes it. A record is ASCII
//! text, one `\n`-terminated line per item:
//!
//! ```text
//! pcmap-sites 1                              header: format version 1
//! site stackmap 7 16 g                       site KIND ID BYTES FUNCTION
//! site patchpoint 5 40 some function name
//! site statepoint 2882400000 0 h
//! site stackmap 18446744073709551615 0 a%0Ab
//! end                                        ends the record
//! ```
//!
//! * `KIND` — `stackmap` (`llvm.experimental.stackmap`), `patchpoint`
//!   (`llvm.experimental.patchpoint.*`) or `statepoint`
//!   (`llvm.experimental.gc.statepoint.*`, a call with a `"deopt"` operand
//!   bundle, `llvm.experimental.deoptimize`).
//! * `ID` — the record's ID as `.llvm_stackmaps` stores it: unsigned
//!   decimal, `0..=2^64-1` (IR's `i64 -1` is `18446744073709551615`).
//! * `BYTES` — the stackmap's shadow, the patchpoint's `numBytes`, the
//!   statepoint's `numPatchBytes`: unsigned decimal `0..=2^32-1`.
//! * `FUNCTION` — the rest of the line, after exactly one space: the
//!   function's symbol name, bytes `0x20..=0x7e` other than `%` as they are,
//!   every other byte as `%XX` (two upper-case hex digits). Empty for a
//!   function whose symbol the compiler cannot name before it writes the
//!   object: one without an IR name (LLVM numbers it `__unnamed_N`) or a
//!   private one (a temporary `.L` label, in no symbol table).
//!
//! Numbers have no sign and no leading zeros. Records follow each other
//! directly (`ld -r` output); nothing else may sit between them. Sites are in
//! IR order and may repeat.
//!
//! [`Sites::parse`] checks a whole section once, in one pass without
//! allocating; iterating the checked sites cannot fail. [`Sites::lookup`]
//! applies the matching rule `pcmap emit` uses; [`Writer`] writes records.

use core::fmt;
#[cfg(feature = "alloc")]
use core::hash::BuildHasher;

/// The section holding the records.
pub const SECTION: &str = ".pcmap.sites";
/// The private IR constant the plugin places in [`SECTION`].
pub const GLOBAL_NAME: &str = "__pcmap_sites";
/// The one format version this module reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// First word of a record's header line.
pub const HEADER: &str = "pcmap-sites";
/// The shortest `site` line: a section holds at most one site per
/// `SHORTEST_SITE.len()` bytes.
#[cfg(feature = "alloc")]
const SHORTEST_SITE: &str = "site stackmap 0 0 \n";
/// Prefix LLVM's Mangler gives functions without an IR name.
pub const UNNAMED_PREFIX: &str = "__unnamed_";

/// The intrinsic (or lowering) a site comes from, and so the kind of record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SiteKind {
    /// `llvm.experimental.stackmap`: BYTES is the shadow.
    StackMap,
    /// `llvm.experimental.patchpoint.*`: BYTES is `numBytes`.
    PatchPoint,
    /// A statepoint: BYTES is `numPatchBytes` (0: the call itself).
    StatePoint,
}

impl SiteKind {
    /// Every kind, in keyword order.
    pub const ALL: [SiteKind; 3] = [
        SiteKind::StackMap,
        SiteKind::PatchPoint,
        SiteKind::StatePoint,
    ];

    /// The `KIND` word.
    pub const fn keyword(self) -> &'static str {
        match self {
            SiteKind::StackMap => "stackmap",
            SiteKind::PatchPoint => "patchpoint",
            SiteKind::StatePoint => "statepoint",
        }
    }
}

/// A `site` field, named in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `KIND`.
    Kind,
    /// `ID`.
    Id,
    /// `BYTES`.
    Bytes,
    /// `FUNCTION`.
    Function,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Kind => "KIND",
            Field::Id => "ID",
            Field::Bytes => "BYTES",
            Field::Function => "FUNCTION",
        }
    }
}

/// Why a `.pcmap.sites` section could not be read. Lines count from 1 over
/// the whole section (all records).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The data ends inside a record: a last line without `\n`, or no `end`.
    Truncated {
        /// Line number, from 1.
        line: usize,
    },
    /// A record that does not start with `pcmap-sites N`.
    NotARecord {
        /// Line number, from 1.
        line: usize,
    },
    /// A record of a format version this reader does not know.
    UnsupportedVersion {
        /// Line number, from 1.
        line: usize,
        /// The version read.
        version: u64,
    },
    /// A line inside a record that is neither `site …` nor `end`.
    UnknownLine {
        /// Line number, from 1.
        line: usize,
    },
    /// A malformed field of a `site` line.
    BadField {
        /// Line number, from 1.
        line: usize,
        /// Which field.
        field: Field,
    },
}

/// The sites reader's result: [`Error`] by default.
pub type Result<T, E = Error> = core::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Truncated { line } => {
                write!(f, "{SECTION}: line {line}: record ends without 'end'")
            }
            Error::NotARecord { line } => {
                write!(f, "{SECTION}: line {line}: expected '{HEADER} N'")
            }
            Error::UnsupportedVersion { line, version } => write!(
                f,
                "{SECTION}: line {line}: unknown version {version} (this reader knows {FORMAT_VERSION})"
            ),
            Error::UnknownLine { line } => {
                write!(f, "{SECTION}: line {line}: expected 'site …' or 'end'")
            }
            Error::BadField { line, field } => {
                write!(f, "{SECTION}: line {line}: bad {} field", field.name())
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// A function name as stored: escaped, checked, printable ASCII.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FunctionName<'a>(&'a [u8]);

impl<'a> FunctionName<'a> {
    /// The stored (escaped) text, printable ASCII: what messages show.
    pub fn escaped(self) -> &'a str {
        // Checked by the parser: bytes 0x20..=0x7e only.
        core::str::from_utf8(self.0).unwrap_or_default()
    }

    /// The symbol name's bytes, unescaped.
    pub fn bytes(self) -> Unescape<'a> {
        Unescape(self.0)
    }

    /// Whether the site's function has no name known before the object
    /// was written (empty `FUNCTION`: unnamed or private).
    pub fn is_unnamed(self) -> bool {
        self.0.is_empty()
    }

    /// Whether this is the symbol called `symbol`.
    pub fn matches(self, symbol: &[u8]) -> bool {
        self.bytes().eq(symbol.iter().copied())
    }

    #[cfg(feature = "alloc")]
    /// The name's bytes, owned.
    pub fn to_vec(self) -> alloc::vec::Vec<u8> {
        self.bytes().collect()
    }
}

impl fmt::Display for FunctionName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.escaped())
    }
}

impl fmt::Debug for FunctionName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.escaped())
    }
}

/// The bytes of a checked [`FunctionName`], `%XX` decoded.
#[derive(Clone, Debug)]
pub struct Unescape<'a>(&'a [u8]);

impl Iterator for Unescape<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        if first == b'%' {
            if let [hi, lo, rest @ ..] = rest {
                if let (Some(hi), Some(lo)) = (hex_digit(*hi), hex_digit(*lo)) {
                    self.0 = rest;
                    return Some(hi << 4 | lo);
                }
            }
        }
        // Unreachable for checked names; a lone byte otherwise.
        self.0 = rest;
        Some(first)
    }
}

/// One site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site<'a> {
    /// Which intrinsic.
    pub kind: SiteKind,
    /// The ID given to the intrinsic.
    pub id: u64,
    /// Shadow, `numBytes` or `numPatchBytes`.
    pub bytes: u32,
    /// The function the site is in.
    pub function: FunctionName<'a>,
}

/// The sites of a whole `.pcmap.sites` section, checked.
#[derive(Clone, Copy, Debug)]
pub struct Sites<'a> {
    data: &'a [u8],
    sites: usize,
    records: usize,
}

/// What the sites say about the records of one function with one ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// Every such site has this kind and size.
    Agree {
        /// The kind byte read.
        kind: SiteKind,
        /// Bytes reserved.
        bytes: u32,
    },
    /// Such sites differ in kind or size: which one a record is, is unknown.
    Disagree,
    /// No such site: the section does not describe this record.
    Missing,
}

impl<'a> Sites<'a> {
    /// Checks every record of `data` (a whole section).
    pub fn parse(data: &'a [u8]) -> Result<Sites<'a>> {
        let mut cursor = Cursor::new(data);
        let (mut sites, mut records) = (0, 0);
        while let Some(item) = cursor.next_item()? {
            match item {
                Item::Site(..) => sites += 1,
                Item::End => records += 1,
            }
        }
        Ok(Sites {
            data,
            sites,
            records,
        })
    }

    /// Number of sites (of all records).
    pub fn len(&self) -> usize {
        self.sites
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.sites == 0
    }

    /// Number of records (modules) in the section.
    pub fn records(&self) -> usize {
        self.records
    }

    /// Every site, record after record, in order.
    pub fn iter(&self) -> Iter<'a> {
        Iter(Cursor::new(self.data))
    }

    /// The matching rule for records with ID `id` of the function whose
    /// symbol is `function` (empty for a function without a symbol): the
    /// function's sites with that ID. A function without a symbol (private),
    /// and one whose symbol starts with `__unnamed_` (LLVM's name for a
    /// function without an IR name) but has no such site under that name,
    /// take the sites with that ID of every function the section lists
    /// without a name. Linear in the number of sites.
    pub fn lookup(&self, function: &[u8], id: u64) -> Match {
        Match::rule(
            function,
            || self.agreement(|s| s.id == id && s.function.matches(function)),
            || self.agreement(|s| s.id == id && s.function.is_unnamed()),
        )
    }

    fn agreement(&self, mut select: impl FnMut(&Site<'a>) -> bool) -> Match {
        self.iter()
            .filter(|s| select(s))
            .fold(Match::Missing, |m, s| m.with(s.kind, s.bytes))
    }
}

impl Match {
    /// What the candidates say once one more, of `kind` and `bytes`, joins.
    pub fn with(self, kind: SiteKind, bytes: u32) -> Match {
        match self {
            Match::Missing => Match::Agree { kind, bytes },
            Match::Agree { kind: k, bytes: b } if k == kind && b == bytes => self,
            _ => Match::Disagree,
        }
    }

    /// What the candidates of `self` and of `other` say together (an
    /// entry that is not one candidate's answer makes them disagree).
    #[cfg(feature = "alloc")]
    fn merge(self, other: Match) -> Match {
        match other {
            Match::Agree { kind, bytes } => self.with(kind, bytes),
            _ => Match::Disagree,
        }
    }

    /// The matching rule: the sites of `function` (`named`), or for a
    /// function without a symbol or with LLVM's `__unnamed_` one and no
    /// sites of its own, the sites listed without a name (`unnamed`).
    fn rule(
        function: &[u8],
        named: impl FnOnce() -> Match,
        unnamed: impl FnOnce() -> Match,
    ) -> Match {
        if !function.is_empty() {
            let m = named();
            if m != Match::Missing || !function.starts_with(UNNAMED_PREFIX.as_bytes()) {
                return m;
            }
        }
        unnamed()
    }
}

/// The sites of one or more sources by function and ID: the same rule as
/// [`Sites::lookup`], one hash lookup per function
/// ([`function_sites`](Self::function_sites)) and a binary search per ID.
/// Sites are appended as they come; the first lookup sorts them by
/// function and ID (sites come function by function, IDs mostly in
/// order: nearly linear), so each function's IDs lie together in memory (a
/// table of 200,000 sites looked up in a hash table per record cost a
/// cache miss per record) and nothing is allocated per function.
#[cfg(feature = "alloc")]
#[derive(Debug, Default)]
pub struct SiteIndex {
    /// Function symbol (unescaped; empty: no name) → its number, hashed
    /// by its name in `names`.
    functions: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    /// The names by number: objects list functions in the order the
    /// plugin saw them, so the function after the last one looked up is
    /// checked first (no hash lookup, no cache miss). Back to back, not
    /// one allocation each: there are tens of thousands.
    names: Names,
    /// Every site added: (function number, ID, what it says).
    added: alloc::vec::Vec<(u32, u64, Match)>,
    /// The function of the last site added: sites come function by
    /// function, so most need no lookup of their name.
    last: Option<u32>,
    /// `added` sorted and merged (one entry per function and ID), and
    /// each function's range in it; made by the first lookup.
    sorted: core::cell::OnceCell<Sorted>,
    /// The number of the last function [`function_sites`](Self::function_sites) found.
    hint: core::sync::atomic::AtomicU32,
}

#[cfg(feature = "alloc")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Sorted {
    entries: alloc::vec::Vec<(u64, Match)>,
    /// By function number: its entries' start and end.
    ranges: alloc::vec::Vec<(u32, u32)>,
}

#[cfg(feature = "alloc")]
impl Sorted {
    /// Appends the sites of `all` (grouped by function: each function's
    /// sites together), one entry per function and ID, in ID order. Each
    /// function's sites are copied as they come, a site merged into the
    /// one before it when their IDs are equal; sorted and merged in place
    /// only if an ID comes down. One loop, no call per function: there
    /// are tens of thousands, of a few sites each.
    fn add_grouped(&mut self, all: &[(u32, u64, Match)]) {
        let mut sites = all.iter().peekable();
        while let Some(&(f, id, m)) = sites.next() {
            let start = self.entries.len();
            self.entries.push((id, m));
            // The ID of the last entry.
            let (mut last, mut ascending) = (id, true);
            while let Some(&(_, id, m)) = sites.next_if(|s| s.0 == f) {
                if id == last {
                    if let Some(e) = self.entries.last_mut() {
                        e.1 = e.1.merge(m);
                    }
                    continue;
                }
                ascending &= id > last;
                last = id;
                self.entries.push((id, m));
            }
            if !ascending {
                self.sort_and_merge(start);
            }
            self.ranges[f as usize] = (start as u32, self.entries.len() as u32);
        }
    }

    /// Sorts the entries from `start` on by ID and merges equal IDs into
    /// the first of them.
    fn sort_and_merge(&mut self, start: usize) {
        let tail = &mut self.entries[start..];
        tail.sort_unstable_by_key(|e| e.0);
        let mut kept = 0;
        for i in 1..tail.len() {
            match tail[i].0 == tail[kept].0 {
                true => tail[kept].1 = tail[kept].1.merge(tail[i].1),
                false => {
                    kept += 1;
                    tail[kept] = tail[i];
                }
            }
        }
        self.entries.truncate(start + kept + 1);
    }
}

/// Names by number, back to back.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, Default)]
struct Names {
    bytes: alloc::vec::Vec<u8>,
    /// Where each name ends in `bytes`.
    ends: alloc::vec::Vec<usize>,
}

#[cfg(feature = "alloc")]
impl Names {
    fn get(&self, n: u32) -> Option<&[u8]> {
        let n = n as usize;
        let end = *self.ends.get(n)?;
        let start = match n {
            0 => 0,
            _ => self.ends[n - 1],
        };
        self.bytes.get(start..end)
    }

    fn push(&mut self, name: &[u8]) {
        self.bytes.extend_from_slice(name);
        self.ends.push(self.bytes.len());
    }
}

/// The sites of one function, for [`SiteIndex::function_sites`].
#[cfg(feature = "alloc")]
#[derive(Clone, Debug)]
pub struct FunctionSites<'i> {
    named: Option<&'i [(u64, Match)]>,
    /// The sites listed without a name, when the rule falls back to them.
    unnamed: Option<&'i [(u64, Match)]>,
    /// The rule applies the fallback only where the named sites have no
    /// such ID (a function named `__unnamed_N`).
    fallback: bool,
    /// Where in `named` and `unnamed` the last ID looked up was, plus one:
    /// a function's records mostly come in the order of its sites' IDs,
    /// so that the next one is compared first (no binary search).
    next: [core::cell::Cell<u32>; 2],
}

#[cfg(feature = "alloc")]
impl FunctionSites<'_> {
    /// [`Sites::lookup`]'s answer for this function and `id`.
    pub fn lookup(&self, id: u64) -> Match {
        let get = |ids: Option<&[(u64, Match)]>, next: &core::cell::Cell<u32>| {
            let Some(ids) = ids else {
                return Match::Missing;
            };
            let at = match ids.get(next.get() as usize) {
                Some(e) if e.0 == id => next.get() as usize,
                _ => match ids.binary_search_by_key(&id, |e| e.0) {
                    Ok(i) => i,
                    Err(_) => return Match::Missing,
                },
            };
            next.set(at as u32 + 1);
            ids[at].1
        };
        match self.named {
            Some(_) => {
                let m = get(self.named, &self.next[0]);
                match (m, self.fallback) {
                    (Match::Missing, true) => get(self.unnamed, &self.next[1]),
                    _ => m,
                }
            }
            None => get(self.unnamed, &self.next[1]),
        }
    }
}

#[cfg(feature = "alloc")]
impl SiteIndex {
    /// The sites of a checked section.
    pub fn of(sites: &Sites<'_>) -> SiteIndex {
        let mut index = SiteIndex::default();
        let mut name = alloc::vec::Vec::new();
        for s in sites {
            name.clear();
            name.extend(s.function.bytes());
            index.add(&name, s.id, s.kind, s.bytes);
        }
        index
    }

    /// Adds the sites of a whole `.pcmap.sites` section, checking it as
    /// [`Sites::parse`] does, in one pass (parsing, then iterating, reads
    /// the text twice). On an error nothing is added.
    pub fn add_section(&mut self, data: &[u8]) -> Result<()> {
        let before = self.added.len();
        // At most a site per shortest line: room for all at once (growing
        // by doubling copies megabytes, into fresh pages, several times)
        // without reading the section once more to count its lines. Pages
        // never written cost nothing.
        let most = data.len() / SHORTEST_SITE.len();
        self.added.reserve(most);
        // At most a new function a site: the table of functions never
        // grows while adding (each growth rehashes every name so far).
        let hasher = &self.hasher;
        let names = &self.names;
        self.functions
            .reserve(most, |&f| hasher.hash_one(names.get(f).unwrap_or_default()));
        let mut cursor = Cursor::new(data);
        let mut unescaped = alloc::vec::Vec::new();
        // The last site's `FUNCTION` as stored, and its function: sites
        // come function by function, so most need no lookup of their name.
        let mut last: Option<(&[u8], u32)> = None;
        loop {
            match cursor.next_item() {
                Ok(Some(Item::Site(s, escaped))) => {
                    // A text other than the last site's: another function
                    // (or the same one escaped otherwise), looked up.
                    let f = match last {
                        Some((stored, f)) if stored == s.function.0 => f,
                        // Most names have no escape: their bytes are the symbol's.
                        _ if !escaped => self.number_other(s.function.0),
                        _ => {
                            unescaped.clear();
                            unescaped.extend(s.function.bytes());
                            self.number_other(&unescaped)
                        }
                    };
                    last = Some((s.function.0, f));
                    self.added
                        .push((f, s.id, Match::Missing.with(s.kind, s.bytes)));
                }
                Ok(Some(Item::End)) => {}
                Ok(None) => break,
                Err(e) => {
                    // Functions named stay named: harmless without sites.
                    self.added.truncate(before);
                    self.sorted = core::cell::OnceCell::new();
                    return Err(e);
                }
            }
        }
        self.sorted = core::cell::OnceCell::new();
        Ok(())
    }

    /// One more site, of the function whose symbol is `function` (empty:
    /// none known).
    pub fn add(&mut self, function: &[u8], id: u64, kind: SiteKind, bytes: u32) {
        self.add_function(function, [(id, kind, bytes)]);
    }

    /// Sites of the function whose symbol is `function`, as
    /// [`add`](Self::add) adds each, the function found once for all.
    pub fn add_function(
        &mut self,
        function: &[u8],
        sites: impl IntoIterator<Item = (u64, SiteKind, u32)>,
    ) {
        let f = self.number(function);
        self.added.extend(
            sites
                .into_iter()
                .map(|(id, kind, bytes)| (f, id, Match::Missing.with(kind, bytes))),
        );
        self.sorted = core::cell::OnceCell::new();
    }

    /// Room for `functions` more functions and `sites` more sites, added
    /// without growing the tables on the way.
    pub fn reserve(&mut self, functions: usize, sites: usize) {
        let (names, hasher) = (&self.names, &self.hasher);
        self.functions.reserve(functions, |&f| {
            hasher.hash_one(names.get(f).unwrap_or_default())
        });
        self.added.reserve(sites);
    }

    /// The number of the function whose symbol is `function`, numbered now
    /// if it has none yet.
    fn number(&mut self, function: &[u8]) -> u32 {
        match self.last {
            Some(f) if self.names.get(f) == Some(function) => f,
            _ => self.number_other(function),
        }
    }

    /// [`number`](Self::number) for a function other than the last one
    /// numbered (`add_section` knows it is: it compared the text first).
    fn number_other(&mut self, function: &[u8]) -> u32 {
        let next = self.functions.len() as u32;
        let (names, hasher) = (&mut self.names, &self.hasher);
        let hash = hasher.hash_one(function);
        let f = *self
            .functions
            .entry(
                hash,
                |&f| names.get(f) == Some(function),
                |&f| hasher.hash_one(names.get(f).unwrap_or_default()),
            )
            .or_insert_with(|| {
                names.push(function);
                next
            })
            .get();
        self.last = Some(f);
        f
    }

    /// `added` ordered by function, then ID, merged into `Sorted`. Sites
    /// come grouped by function (one run each, IDs mostly ascending): the
    /// runs are copied straight from `added`, only a run whose IDs do not
    /// strictly ascend then sorted and merged where it was copied.
    /// Otherwise (sites of one function in several runs: the IR's deopt
    /// bundles after its intrinsics) they are grouped by function in one
    /// counting pass first. Equal keys merge in any order (`with` is
    /// commutative).
    fn sorted(&self) -> &Sorted {
        self.sorted.get_or_init(|| {
            let mut sorted = Sorted {
                entries: alloc::vec::Vec::with_capacity(self.added.len()),
                ranges: alloc::vec![(0, 0); self.functions.len()],
            };
            if self.added.is_sorted_by_key(|e| e.0) {
                sorted.add_grouped(&self.added);
            } else {
                let mut starts = alloc::vec![0usize; self.functions.len() + 1];
                for e in &self.added {
                    starts[e.0 as usize + 1] += 1;
                }
                for f in 1..starts.len() {
                    starts[f] += starts[f - 1];
                }
                let mut all = alloc::vec![(0, 0, Match::Missing); self.added.len()];
                for &e in &self.added {
                    let at = &mut starts[e.0 as usize];
                    all[*at] = e;
                    *at += 1;
                }
                sorted.add_grouped(&all);
            }
            sorted
        })
    }

    /// The sites the rule gives the function whose symbol is `function`
    /// (empty: none): look it up once for all its records.
    pub fn function_sites(&self, function: &[u8]) -> FunctionSites<'_> {
        use core::sync::atomic::Ordering::Relaxed;
        let sorted = self.sorted();
        let hint = self.hint.load(Relaxed).wrapping_add(1);
        let ids = |f: &[u8]| {
            let n = match self.names.get(hint) {
                Some(name) if name == f => hint,
                _ => self.find(f)?,
            };
            self.hint.store(n, Relaxed);
            let (start, end) = sorted.ranges[n as usize];
            Some(&sorted.entries[start as usize..end as usize])
        };
        let named = match function.is_empty() {
            true => None,
            false => ids(function),
        };
        let fallback = function.is_empty() || function.starts_with(UNNAMED_PREFIX.as_bytes());
        FunctionSites {
            named,
            unnamed: if fallback { ids(&[]) } else { None },
            fallback,
            next: Default::default(),
        }
    }

    /// [`Sites::lookup`]'s answer.
    pub fn lookup(&self, function: &[u8], id: u64) -> Match {
        self.function_sites(function).lookup(id)
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// The number of the function whose symbol is `name`.
    fn find(&self, name: &[u8]) -> Option<u32> {
        let hash = self.hasher.hash_one(name);
        self.functions
            .find(hash, |&f| self.names.get(f) == Some(name))
            .copied()
    }
}

/// Equal when they say the same of every function and ID (however the
/// functions were numbered).
#[cfg(feature = "alloc")]
impl PartialEq for SiteIndex {
    fn eq(&self, other: &SiteIndex) -> bool {
        let (mine, theirs) = (self.sorted(), other.sorted());
        fn ids(s: &Sorted, f: u32) -> &[(u64, Match)] {
            let (start, end) = s.ranges[f as usize];
            &s.entries[start as usize..end as usize]
        }
        self.functions.len() == other.functions.len()
            && self.functions.iter().all(|&f| {
                self.names
                    .get(f)
                    .and_then(|name| other.find(name))
                    .is_some_and(|g| ids(mine, f) == ids(theirs, g))
            })
    }
}

#[cfg(feature = "alloc")]
impl Eq for SiteIndex {}

#[cfg(feature = "alloc")]
impl Clone for SiteIndex {
    fn clone(&self) -> SiteIndex {
        SiteIndex {
            functions: self.functions.clone(),
            hasher: self.hasher.clone(),
            names: self.names.clone(),
            added: self.added.clone(),
            last: self.last,
            sorted: core::cell::OnceCell::new(),
            hint: core::sync::atomic::AtomicU32::new(0),
        }
    }
}

impl<'a> IntoIterator for &Sites<'a> {
    type Item = Site<'a>;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The sites of checked data.
#[derive(Clone, Debug)]
pub struct Iter<'a>(Cursor<'a>);

impl<'a> Iterator for Iter<'a> {
    type Item = Site<'a>;

    fn next(&mut self) -> Option<Site<'a>> {
        loop {
            // Checked by `Sites::parse`: never an error here.
            match self.0.next_item().ok()?? {
                Item::Site(s, _) => return Some(s),
                Item::End => {}
            }
        }
    }
}

enum Item<'a> {
    /// A site, and whether its `FUNCTION` holds an escape (`%`): only
    /// the index (`alloc`) asks.
    Site(
        Site<'a>,
        #[cfg_attr(not(feature = "alloc"), allow(dead_code))] bool,
    ),
    End,
}

/// Reads lines in turn; `in_record` says whether a header was read and its
/// `end` not yet.
#[derive(Clone, Debug)]
struct Cursor<'a> {
    rest: &'a [u8],
    line: usize,
    in_record: bool,
}

impl<'a> Cursor<'a> {
    fn new(data: &'a [u8]) -> Self {
        Cursor {
            rest: data,
            line: 0,
            in_record: false,
        }
    }

    /// The next line without its `\n`; `None` at the end of the data.
    fn next_line(&mut self) -> Result<Option<&'a [u8]>> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        self.line += 1;
        let Some(end) = self.rest.iter().position(|&b| b == b'\n') else {
            return Err(Error::Truncated { line: self.line });
        };
        let line = &self.rest[..end];
        self.rest = &self.rest[end + 1..];
        Ok(Some(line))
    }

    /// The next site or `end`, past any header; `None` after the last record.
    /// Inlined: a `site` line (almost every line) is read in the caller's
    /// loop, its result not passed back through memory; every other line
    /// and every error is read out of line.
    #[inline(always)]
    fn next_item(&mut self) -> Result<Option<Item<'a>>> {
        if self.in_record {
            if let Some(fields) = self.rest.strip_prefix(b"site ") {
                // Read field by field up to its `\n`, the line not
                // delimited first: sections hold hundreds of thousands.
                self.line += 1;
                return match site(fields) {
                    Ok((site, len, escaped)) => {
                        self.rest = &fields[len..];
                        Ok(Some(Item::Site(site, escaped)))
                    }
                    Err(field) => Err(self.bad_site(fields, field)),
                };
            }
        }
        self.next_other()
    }

    /// The error of the `site` line `fields` (after `site `), of which
    /// `field` is the first bad field.
    #[cold]
    #[inline(never)]
    fn bad_site(&self, fields: &[u8], field: Field) -> Error {
        let line = self.line;
        match fields.contains(&b'\n') {
            // A line without its `\n` is told as such first.
            false => Error::Truncated { line },
            true => Error::BadField { line, field },
        }
    }

    /// [`next_item`](Self::next_item) at a line other than `site …`.
    #[inline(never)]
    fn next_other(&mut self) -> Result<Option<Item<'a>>> {
        let Some(line) = self.next_line()? else {
            return match self.in_record {
                true => Err(Error::Truncated { line: self.line }),
                false => Ok(None),
            };
        };
        let line_no = self.line;
        if !self.in_record {
            let version = line
                .strip_prefix(HEADER.as_bytes())
                .and_then(|v| v.strip_prefix(b" "))
                .and_then(decimal)
                .ok_or(Error::NotARecord { line: line_no })?;
            if version != u64::from(FORMAT_VERSION) {
                return Err(Error::UnsupportedVersion {
                    line: line_no,
                    version,
                });
            }
            self.in_record = true;
            // The record's first line: a site, `end` or an error (a
            // header here is an unknown line: no deeper recursion).
            return self.next_item();
        }
        if line == b"end" {
            self.in_record = false;
            return Ok(Some(Item::End));
        }
        Err(Error::UnknownLine { line: line_no })
    }
}

/// `KIND ID BYTES FUNCTION\n` (after `site `): the site, the length read
/// (its `\n` included) and whether `FUNCTION` holds an escape; else the
/// first field that is bad (or not ended). Each field is read from where
/// the one before it ended, to the space (or `\n`) that ends it.
#[inline(always)]
fn site(s: &[u8]) -> Result<(Site<'_>, usize, bool), Field> {
    let (kind, at) = kind_field(s).ok_or(Field::Kind)?;
    let (id, at) = decimal_field(s, at).ok_or(Field::Id)?;
    let (bytes, at) = decimal_field(s, at).ok_or(Field::Bytes)?;
    let bytes = u32::try_from(bytes).map_err(|_| Field::Bytes)?;
    let (end, escaped) = function_field(s, at).ok_or(Field::Function)?;
    let site = Site {
        kind,
        id,
        bytes,
        function: FunctionName(&s[at..end]),
    };
    Ok((site, end + 1, escaped))
}

/// The `KIND` field that starts `s`: the kind, and where the field after
/// it starts. The first byte (and the fourth, `stackmap` or `statepoint`)
/// tells the one keyword the field can be, which is then compared whole.
fn kind_field(s: &[u8]) -> Option<(SiteKind, usize)> {
    // Each keyword compared where it is named: a compare of known length.
    fn word(s: &[u8], kind: SiteKind, word: &[u8]) -> Option<(SiteKind, usize)> {
        s.starts_with(word).then_some((kind, word.len()))
    }
    match (s.first()?, s.get(3)) {
        (b'p', _) => word(s, SiteKind::PatchPoint, b"patchpoint "),
        (b's', Some(b'c')) => word(s, SiteKind::StackMap, b"stackmap "),
        (b's', _) => word(s, SiteKind::StatePoint, b"statepoint "),
        _ => None,
    }
}

/// The decimal field at `s[at..]`: its value, and where the field after
/// its space starts.
#[inline(always)]
fn decimal_field(s: &[u8], at: usize) -> Option<(u64, usize)> {
    let (n, digits) = decimal_prefix(s.get(at..)?)?;
    let end = at + digits;
    (s.get(end) == Some(&b' ')).then_some((n, end + 1))
}

/// The `FUNCTION` field at `s[at..]`: where the `\n` that ends it is, and
/// whether it holds a `%`. Printable ASCII, and every `%` followed by two
/// upper-case hex digits.
#[inline(always)]
fn function_field(s: &[u8], at: usize) -> Option<(usize, bool)> {
    let (mut i, mut escaped) = (at, false);
    loop {
        i += plain_prefix(s.get(i..)?)?;
        match s[i] {
            b'\n' => return Some((i, escaped)),
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                if !hex.iter().all(|&c| hex_digit(c).is_some()) {
                    return None;
                }
                (i, escaped) = (i + 3, true);
            }
            _ => return None,
        }
    }
}

/// An unsigned decimal `u64` without sign or leading zeros, the whole of `s`.
fn decimal(s: &[u8]) -> Option<u64> {
    decimal_prefix(s).and_then(|(n, digits)| (digits == s.len()).then_some(n))
}

/// The number the digits `s` starts with, and how many there are: none,
/// a leading zero, or a value over `u64::MAX` (so more than 20 digits) is
/// no number. Stops at the first byte that shows it is none. Inlined:
/// each `site` line reads two.
#[inline(always)]
fn decimal_prefix(s: &[u8]) -> Option<(u64, usize)> {
    let digit = |c: &u8| c.wrapping_sub(b'0');
    let (mut n, mut len) = (0u64, 0);
    // Up to 19 digits: under 10^19, no overflow to check.
    for d in s.iter().take(19).map(digit) {
        if d > 9 {
            break;
        }
        (n, len) = (n * 10 + u64::from(d), len + 1);
    }
    match len {
        0 => return None,
        _ if len > 1 && s[0] == b'0' => return None,
        19 => {
            // A 20th digit may still fit; a 21st never does.
            if let Some(d) = s.get(19).map(digit).filter(|&d| d <= 9) {
                n = n.checked_mul(10)?.checked_add(u64::from(d))?;
                len = 20;
                if s.get(20).is_some_and(u8::is_ascii_digit) {
                    return None;
                }
            }
        }
        _ => {}
    }
    Some((n, len))
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// A byte stored as it is in `FUNCTION`.
fn is_plain(b: u8) -> bool {
    (0x20..=0x7e).contains(&b) && b != b'%'
}

/// Where the first byte of `s` that is not [plain](is_plain) is, if any.
/// Eight bytes at a time while eight remain (every name's bytes are read
/// once per site, hundreds of thousands of sites), then byte by byte.
#[inline(always)]
fn plain_prefix(s: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    let mut at = 0;
    while let Some(word) = s.get(at..at + 8) {
        let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
        // Per byte b, the high bit of: b < 0x20 (b + 0x60 and b under
        // 0x80), b > 0x7e (b + 1 or b from 0x80), b == '%' (b ^ '%' + 0x7f
        // under 0x80). A sum carries into the byte above only from a byte
        // of 0x80 or more, itself flagged: the lowest flag is exact (the
        // highest byte's carry wraps out).
        let under_space = !(x.wrapping_add(ONES * (0x80 - 0x20)) | x);
        let over_tilde = x.wrapping_add(ONES) | x;
        let pct = x ^ (ONES * u64::from(b'%'));
        let is_pct = !(pct.wrapping_add(ONES * 0x7f) | pct);
        let bad = (under_space | over_tilde | is_pct) & (ONES * 0x80);
        if bad != 0 {
            // Little-endian: the lowest flagged byte comes first.
            return Some(at + bad.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    Some(at + s[at..].iter().position(|&b| !is_plain(b))?)
}

/// Writes one record: the header on [`Writer::new`], a line per
/// [`Writer::site`], `end` on [`Writer::finish`].
#[derive(Debug)]
pub struct Writer<W: fmt::Write> {
    out: W,
}

impl<W: fmt::Write> Writer<W> {
    /// A writer to `out`; writes the record's first line.
    pub fn new(mut out: W) -> Result<Self, fmt::Error> {
        writeln!(out, "{HEADER} {FORMAT_VERSION}")?;
        Ok(Writer { out })
    }

    /// One site of the function whose symbol name is `function` (any bytes;
    /// empty for a function without an IR name).
    pub fn site(&mut self, kind: SiteKind, id: u64, bytes: u32, function: &[u8]) -> fmt::Result {
        write!(self.out, "site {} {id} {bytes} ", kind.keyword())?;
        for &b in function {
            if is_plain(b) {
                fmt::Write::write_char(&mut self.out, char::from(b))?;
            } else {
                write!(self.out, "%{b:02X}")?;
            }
        }
        self.out.write_char('\n')
    }

    /// Ends the record; returns the output.
    pub fn finish(mut self) -> Result<W, fmt::Error> {
        self.out.write_str("end\n")?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use std::string::String;
    use std::vec::Vec;

    fn record(sites: &[(SiteKind, u64, u32, &[u8])]) -> String {
        let mut w = Writer::new(String::new()).unwrap();
        for &(kind, id, bytes, f) in sites {
            w.site(kind, id, bytes, f).unwrap();
        }
        w.finish().unwrap()
    }

    fn owned(s: &Sites<'_>) -> Vec<(SiteKind, u64, u32, Vec<u8>)> {
        s.iter()
            .map(|s| (s.kind, s.id, s.bytes, s.function.to_vec()))
            .collect()
    }

    #[test]
    fn documented_example() {
        let text = "pcmap-sites 1\nsite stackmap 7 16 g\nsite patchpoint 5 40 some function name\n\
                    site statepoint 2882400000 0 h\nsite stackmap 18446744073709551615 0 a%0Ab\nend\n";
        let s = Sites::parse(text.as_bytes()).unwrap();
        assert_eq!((s.len(), s.records()), (4, 1));
        assert_eq!(
            owned(&s),
            [
                (SiteKind::StackMap, 7, 16, b"g".to_vec()),
                (SiteKind::PatchPoint, 5, 40, b"some function name".to_vec()),
                (SiteKind::StatePoint, 2_882_400_000, 0, b"h".to_vec()),
                (SiteKind::StackMap, u64::MAX, 0, b"a\nb".to_vec()),
            ]
        );
        let built = record(&[
            (SiteKind::StackMap, 7, 16, b"g"),
            (SiteKind::PatchPoint, 5, 40, b"some function name"),
            (SiteKind::StatePoint, 2_882_400_000, 0, b"h"),
            (SiteKind::StackMap, u64::MAX, 0, b"a\nb"),
        ]);
        assert_eq!(built, text);
        assert_eq!(s.iter().nth(3).unwrap().function.escaped(), "a%0Ab");
    }

    #[test]
    fn odd_names_round_trip() {
        let names: [&[u8]; 10] = [
            b"",
            b" leading and trailing ",
            b"100%",
            b"%41",
            b"line\nbreak\r\n",
            b"\x00nul\x01\x7f\xff",
            "ünïcødé_名前".as_bytes(),
            b"_ZN4core3ptr13drop_in_place17h0123456789abcdefE",
            b"site stackmap 1 2 f",
            b"end",
        ];
        let sites: Vec<(SiteKind, u64, u32, &[u8])> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (SiteKind::ALL[i % 3], i as u64, i as u32, *n))
            .collect();
        let text = record(&sites);
        assert!(text
            .bytes()
            .all(|b| b == b'\n' || (0x20..=0x7e).contains(&b)));
        let s = Sites::parse(text.as_bytes()).unwrap();
        let back = owned(&s);
        assert_eq!(back.len(), names.len());
        for ((_, _, _, got), want) in back.iter().zip(names) {
            assert_eq!(got, want);
        }
        assert!(s.iter().next().unwrap().function.is_unnamed());
        assert_eq!(s.iter().nth(2).unwrap().function.escaped(), "100%25");
        assert!(s.iter().nth(3).unwrap().function.matches(b"%41"));
        assert!(!s.iter().nth(3).unwrap().function.matches(b"A"));
    }

    #[test]
    fn concatenated_records_and_empty_section() {
        let a = record(&[(SiteKind::StackMap, 1, 8, b"f")]);
        let b = record(&[]);
        let c = record(&[(SiteKind::PatchPoint, 2, 16, b"g")]);
        let all = [a, b, c].concat();
        let s = Sites::parse(all.as_bytes()).unwrap();
        assert_eq!((s.len(), s.records()), (2, 3));
        assert_eq!(s.iter().map(|s| s.id).collect::<Vec<_>>(), [1, 2]);
        let empty = Sites::parse(b"").unwrap();
        assert!(empty.is_empty() && empty.records() == 0);
    }

    #[test]
    fn errors_name_the_line_and_field() {
        let cases: [(&str, Error); 23] = [
            (
                "pcmap-sites 1\nsite stackmap 1 2 f\n",
                Error::Truncated { line: 2 },
            ),
            // A `site` line without its `\n`: truncated, whatever its
            // fields hold (a bad field is told only on an ended line).
            (
                "pcmap-sites 1\nsite stackmap 1 2 f",
                Error::Truncated { line: 2 },
            ),
            (
                "pcmap-sites 1\nsite stackmap x 2 f",
                Error::Truncated { line: 2 },
            ),
            (
                "pcmap-sites 1\nsite stackmap 1 2 f%4",
                Error::Truncated { line: 2 },
            ),
            ("pcmap-sites 1\nend", Error::Truncated { line: 2 }),
            ("pcmap-sites 1\n", Error::Truncated { line: 1 }),
            ("\n", Error::NotARecord { line: 1 }),
            ("pcmap-layout 1\nend\n", Error::NotARecord { line: 1 }),
            ("pcmap-sites\nend\n", Error::NotARecord { line: 1 }),
            ("pcmap-sites 01\nend\n", Error::NotARecord { line: 1 }),
            (
                "pcmap-sites 2\nend\n",
                Error::UnsupportedVersion {
                    line: 1,
                    version: 2,
                },
            ),
            ("pcmap-sites 1\nend\n\0", Error::Truncated { line: 3 }),
            ("pcmap-sites 1\nend\nend\n", Error::NotARecord { line: 3 }),
            ("pcmap-sites 1\nsites x\n", Error::UnknownLine { line: 2 }),
            ("pcmap-sites 1\nend \n", Error::UnknownLine { line: 2 }),
            (
                "pcmap-sites 1\nsite stackmaps 1 2 f\nend\n",
                Error::BadField {
                    line: 2,
                    field: Field::Kind,
                },
            ),
            (
                "pcmap-sites 1\nsite stackmap -1 2 f\nend\n",
                Error::BadField {
                    line: 2,
                    field: Field::Id,
                },
            ),
            (
                "pcmap-sites 1\nsite stackmap 18446744073709551616 2 f\nend\n",
                Error::BadField {
                    line: 2,
                    field: Field::Id,
                },
            ),
            (
                "pcmap-sites 1\nsite stackmap +1 2 f\nend\n",
                Error::BadField {
                    line: 2,
                    field: Field::Id,
                },
            ),
            (
                "pcmap-sites 1\nsite stackmap 1 4294967296 f\nend\n",
                Error::BadField {
                    line: 2,
                    field: Field::Bytes,
                },
            ),
            (
                "pcmap-sites 1\nsite stackmap 1 2\nend\n",
                Error::BadField {
                    line: 2,
                    field: Field::Bytes,
                },
            ),
            (
                "pcmap-sites 1\nsite stackmap 1 2 a%0ab\nend\n",
                Error::BadField {
                    line: 2,
                    field: Field::Function,
                },
            ),
            (
                "pcmap-sites 1\nsite stackmap 1 2 tab\there\nend\n",
                Error::BadField {
                    line: 2,
                    field: Field::Function,
                },
            ),
        ];
        for (text, want) in cases {
            assert_eq!(Sites::parse(text.as_bytes()).unwrap_err(), want, "{text:?}");
        }
        for bad in [
            &b"pcmap-sites 1\nsite stackmap 1 2 \xc3\xa9\nend\n"[..],
            b"pcmap-sites 1\nsite stackmap 1 2 %4\nend\n",
        ] {
            assert!(matches!(
                Sites::parse(bad),
                Err(Error::BadField {
                    line: 2,
                    field: Field::Function
                })
            ));
        }
        let e = Sites::parse(b"pcmap-sites 1\nsite stackmap x 2 f\nend\n").unwrap_err();
        assert_eq!(std::format!("{e}"), ".pcmap.sites: line 2: bad ID field");
    }

    #[test]
    fn matching_rule() {
        let text = [
            record(&[
                (SiteKind::StackMap, 1, 8, b"f"),
                (SiteKind::StackMap, 1, 8, b"f"),
                (SiteKind::StackMap, 2, 8, b"f"),
                (SiteKind::StackMap, 2, 16, b"f"),
                (SiteKind::PatchPoint, 3, 8, b"f"),
                (SiteKind::StackMap, 3, 8, b"f"),
                (SiteKind::StatePoint, 1, 0, b"g"),
                (SiteKind::StackMap, 9, 4, b""),
            ]),
            record(&[
                (SiteKind::StackMap, 4, 8, b""),
                (SiteKind::StackMap, 4, 12, b""),
                (SiteKind::StackMap, 5, 4, b"__unnamed_1"),
                (SiteKind::StackMap, 5, 8, b""),
            ]),
        ]
        .concat();
        let s = Sites::parse(text.as_bytes()).unwrap();
        let agree = |kind, bytes| Match::Agree { kind, bytes };
        assert_eq!(s.lookup(b"f", 1), agree(SiteKind::StackMap, 8));
        assert_eq!(s.lookup(b"f", 2), Match::Disagree);
        assert_eq!(s.lookup(b"f", 3), Match::Disagree);
        assert_eq!(s.lookup(b"g", 1), agree(SiteKind::StatePoint, 0));
        assert_eq!(s.lookup(b"g", 2), Match::Missing);
        assert_eq!(s.lookup(b"h", 1), Match::Missing);
        // Functions listed without a name answer only for LLVM's names of
        // unnamed functions and for functions without a symbol.
        assert_eq!(s.lookup(b"f", 9), Match::Missing);
        assert_eq!(s.lookup(b"", 9), agree(SiteKind::StackMap, 4));
        assert_eq!(s.lookup(b"", 4), Match::Disagree);
        assert_eq!(s.lookup(b"", 1), Match::Missing);
        assert_eq!(s.lookup(b"__unnamed_2", 9), agree(SiteKind::StackMap, 4));
        assert_eq!(s.lookup(b"__unnamed_2", 4), Match::Disagree);
        // A function named so in the IR answers by its name first.
        assert_eq!(s.lookup(b"__unnamed_1", 5), agree(SiteKind::StackMap, 4));
        assert_eq!(s.lookup(b"__unnamed_3", 5), agree(SiteKind::StackMap, 8));
        assert_eq!(s.lookup(b"__unnamed_1", 6), Match::Missing);
        // The index answers every question as the linear rule does.
        let index = SiteIndex::of(&s);
        for f in [
            &b"f"[..],
            b"g",
            b"h",
            b"",
            b"__unnamed_1",
            b"__unnamed_2",
            b"__unnamed_3",
        ] {
            for id in 0..12 {
                assert_eq!(index.lookup(f, id), s.lookup(f, id), "{f:?} {id}");
            }
        }
    }

    #[test]
    fn hostile_input_is_bounded() {
        // One line of 8 MiB without a newline; a record of 1M lines that
        // never ends; a valid record of 200,000 sites and one byte more:
        // each is one linear pass and one error.
        let long = std::vec![b'%'; 8 << 20];
        assert_eq!(
            Sites::parse(&long).err(),
            Some(Error::Truncated { line: 1 })
        );
        let mut lines = String::from("pcmap-sites 1\n");
        lines.push_str(&"site stackmap 1 1 %25%25\n".repeat(1 << 20));
        assert_eq!(
            Sites::parse(lines.as_bytes()).err(),
            Some(Error::Truncated {
                line: 1 + (1 << 20)
            })
        );
        lines.push_str("site stackmap 1 1 %2\nend\n");
        assert_eq!(
            Sites::parse(lines.as_bytes()).err(),
            Some(Error::BadField {
                line: 2 + (1 << 20),
                field: Field::Function
            })
        );
        let many: Vec<(SiteKind, u64, u32, &[u8])> = (0..200_000)
            .map(|i| (SiteKind::StackMap, i, 4, &b"f"[..]))
            .collect();
        let mut big = record(&many).into_bytes();
        assert_eq!(Sites::parse(&big).unwrap().len(), 200_000);
        big.push(b'x');
        assert_eq!(
            Sites::parse(&big).err(),
            Some(Error::Truncated { line: 200_003 })
        );
    }

    proptest! {
        /// Eight bytes at a time, the first byte not plain is the one a
        /// byte-by-byte search finds.
        #[test]
        fn plain_prefix_is_the_bytewise_search(
            bytes in proptest::collection::vec(
                prop_oneof![0x20u8..=0x7e, Just(b'%'), Just(b'\n'), any::<u8>()],
                0..40,
            ),
        ) {
            let plain = |b: &u8| is_plain(*b);
            for start in 0..bytes.len().min(9) {
                let s = &bytes[start..];
                prop_assert_eq!(plain_prefix(s), s.iter().position(|b| !plain(b)));
            }
        }

        /// The index, built by `of`, by `add_section` in one pass or by
        /// `add_function` a run of sites at a time, answers every question
        /// as the linear rule does, whatever the order of
        /// functions and IDs (functions coming back, IDs descending) and of
        /// the questions (the next-function hint).
        #[test]
        fn index_answers_as_the_rule(
            sites in proptest::collection::vec((0usize..3, 0u64..6, 0u32..3, 0usize..6), 0..40),
            questions in proptest::collection::vec((0usize..7, 0u64..7), 0..60),
        ) {
            const NAMES: [&[u8]; 7] = [b"f", b"g", b"", b"__unnamed_1", b"h%", b"__unnamed_2", b"k"];
            let sites: Vec<(SiteKind, u64, u32, &[u8])> = sites
                .iter()
                .map(|&(k, id, bytes, f)| (SiteKind::ALL[k], id, bytes, NAMES[f]))
                .collect();
            let text = [record(&sites[..sites.len() / 2]), record(&sites[sites.len() / 2..])].concat();
            let s = Sites::parse(text.as_bytes()).unwrap();
            let of = SiteIndex::of(&s);
            let mut one_pass = SiteIndex::default();
            one_pass.add_section(text.as_bytes()).unwrap();
            prop_assert_eq!(&of, &one_pass);
            // A function's consecutive sites added at once, room reserved
            // (too little: the tables still grow).
            let mut runs = SiteIndex::default();
            runs.reserve(2, sites.len() / 2);
            for run in sites.chunk_by(|a, b| a.3 == b.3) {
                runs.add_function(run[0].3, run.iter().map(|&(k, id, b, _)| (id, k, b)));
            }
            prop_assert_eq!(&of, &runs);
            for (f, id) in questions.iter().copied().chain((0..7).flat_map(|f| (0..7).map(move |id| (f, id)))) {
                let want = s.lookup(NAMES[f], id);
                prop_assert_eq!(of.lookup(NAMES[f], id), want);
                prop_assert_eq!(one_pass.function_sites(NAMES[f]).lookup(id), want);
            }
            // One function's sites asked many IDs in turn (the next-ID
            // hint), in the questions' order then ascending.
            for name in NAMES {
                let sites = one_pass.function_sites(name);
                for id in questions.iter().map(|q| q.1).chain(0..7) {
                    prop_assert_eq!(sites.lookup(id), s.lookup(name, id));
                }
            }
        }

        #[test]
        fn any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            if let Ok(s) = Sites::parse(&bytes) {
                prop_assert_eq!(s.iter().count(), s.len());
            }
        }

        #[test]
        fn written_records_read_back(
            sites in proptest::collection::vec(
                (0usize..3, any::<u64>(), any::<u32>(), proptest::collection::vec(any::<u8>(), 0..24)),
                0..16,
            )
        ) {
            let sites: Vec<(SiteKind, u64, u32, &[u8])> = sites
                .iter()
                .map(|(k, id, b, f)| (SiteKind::ALL[*k], *id, *b, f.as_slice()))
                .collect();
            let text = record(&sites);
            let parsed = Sites::parse(text.as_bytes()).unwrap();
            let back = owned(&parsed);
            prop_assert_eq!(back.len(), sites.len());
            for (got, want) in back.iter().zip(&sites) {
                prop_assert_eq!((got.0, got.1, got.2, got.3.as_slice()), *want);
            }
        }
    }
}
