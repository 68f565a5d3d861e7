//! The plugin's statistics line (`PCMAP_STATS=1`, `pcmap<stats>`): one line
//! per module on stderr, written by the plugin with [`StatsLine`]'s
//! `Display`, summed by `pcmap verify --against` with [`StatsLine::parse`].
//!
//! ```text
//! pcmap-stats v1 encoding=compact covered=12 atomics=30 uar=2 recorded=0 fences=1 module=src/a.c
//! └─ TAG ─────┘ └ fields, `key=value`, in this order ────────────────────────┘ └ last, rest of line ┘
//! ```
//!
//! `covered`: functions given a covered entry; `atomics`: instructions given
//! an atomics entry; `uar`: functions whose mask has the UAR bit;
//! `recorded`: instructions given at least one generic (record rule) entry;
//! `fences`: the IR `fence` instructions among the `atomics` (absent from
//! older lines: unknown).
//! `module` takes the rest of the line (source names may hold spaces). A new
//! field goes before `module` and bumps nothing (readers skip keys they do
//! not know); a changed meaning bumps `v1`.

use core::fmt;

/// Starts every statistics line, before its version.
pub const TAG: &str = "pcmap-stats";
/// The version this module writes and reads.
pub const VERSION: &str = "v1";

/// The counts of one module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Covered functions.
    pub covered: u64,
    /// Atomic instructions tagged.
    pub atomics: u64,
    /// Functions with the UAR feature.
    pub uar: u64,
    /// Instructions the `record=` rules tagged.
    pub recorded: u64,
    /// IR fences among the tagged atomics; `None` when a line does not say.
    pub fences: Option<u64>,
}

/// One line: a module's counts, its encoding and its source file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatsLine<'a> {
    /// `native` or `compact`.
    pub encoding: &'a str,
    /// The counts.
    pub stats: Stats,
    /// The module's source file name.
    pub module: &'a str,
}

/// Why a statistics line could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsError {
    /// `pcmap-stats` of another version.
    UnknownVersion,
    /// A count the line must carry is missing or not a number.
    Missing(&'static str),
}

impl fmt::Display for StatsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatsError::UnknownVersion => {
                write!(f, "unknown statistics version (expected {TAG} {VERSION})")
            }
            StatsError::Missing(key) => write!(f, "no {key}=N"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for StatsError {}

const MODULE: &str = "module=";

impl<'a> StatsLine<'a> {
    /// Reads `line`: `None` if it is not a statistics line at all (other
    /// output of the compiler), an error if it is one this reader cannot
    /// read. `covered` and `atomics` are required, the other counts read as
    /// 0 when absent.
    pub fn parse(line: &'a str) -> Option<Result<StatsLine<'a>, StatsError>> {
        let rest = line.strip_prefix(TAG)?.strip_prefix(' ')?;
        let Some(fields) = rest.strip_prefix(VERSION).and_then(|r| r.strip_prefix(' ')) else {
            return Some(Err(StatsError::UnknownVersion));
        };
        // The first ` module=` ends the fields (a name may hold anything).
        let at = match fields.strip_prefix(MODULE) {
            Some(_) => Some(0),
            None => fields.find(" module=").map(|at| at + 1),
        };
        let (fields, module) = match at {
            Some(at) => (&fields[..at], &fields[at + MODULE.len()..]),
            None => (fields, ""),
        };
        let value = |key: &str| {
            fields
                .split(' ')
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        };
        let count = |key: &'static str| value(key).and_then(|v| v.parse().ok());
        let required = |key: &'static str| count(key).ok_or(StatsError::Missing(key));
        Some((|| {
            Ok(StatsLine {
                encoding: value("encoding").unwrap_or(""),
                stats: Stats {
                    covered: required("covered")?,
                    atomics: required("atomics")?,
                    uar: count("uar").unwrap_or(0),
                    recorded: count("recorded").unwrap_or(0),
                    fences: count("fences"),
                },
                module,
            })
        })())
    }
}

impl fmt::Display for StatsLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.stats;
        write!(
            f,
            "{TAG} {VERSION} encoding={} covered={} atomics={} uar={} recorded={} ",
            self.encoding, s.covered, s.atomics, s.uar, s.recorded
        )?;
        if let Some(fences) = s.fences {
            write!(f, "fences={fences} ")?;
        }
        write!(f, "{MODULE}{}", self.module)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn written_as_read() {
        let l = StatsLine {
            encoding: "native",
            stats: Stats {
                covered: 1,
                atomics: 2,
                uar: 3,
                recorded: 4,
                fences: Some(1),
            },
            module: "a b.c",
        };
        let text = l.to_string();
        assert_eq!(
            text,
            "pcmap-stats v1 encoding=native covered=1 atomics=2 uar=3 recorded=4 fences=1 module=a b.c"
        );
        assert_eq!(StatsLine::parse(&text), Some(Ok(l)));
        // A line of an older plugin does not count fences.
        let old = StatsLine::parse("pcmap-stats v1 covered=1 atomics=2 module=m");
        assert_eq!(old.unwrap().unwrap().stats.fences, None);
    }

    #[test]
    fn other_lines_and_errors() {
        assert_eq!(StatsLine::parse("warning: x"), None);
        assert_eq!(StatsLine::parse("pcmap-statsx v1"), None);
        assert_eq!(
            StatsLine::parse("pcmap-stats v2 atomics=1"),
            Some(Err(StatsError::UnknownVersion))
        );
        assert_eq!(
            StatsLine::parse("pcmap-stats v1 covered=1 module=x"),
            Some(Err(StatsError::Missing("atomics")))
        );
        assert_eq!(
            StatsLine::parse("pcmap-stats v1 covered=1 atomics=x"),
            Some(Err(StatsError::Missing("atomics")))
        );
        // A module name that looks like a field is still the module.
        let l = StatsLine::parse("pcmap-stats v1 covered=1 atomics=2 module=atomics=9")
            .unwrap()
            .unwrap();
        assert_eq!((l.stats.atomics, l.module), (2, "atomics=9"));
        let l = StatsLine::parse("pcmap-stats v1 submodule=x covered=1 atomics=2 module=m")
            .unwrap()
            .unwrap();
        assert_eq!(l.module, "m");
    }
}
