//! Per-module counts, printed with `stats` / `PCMAP_STATS=1` as one line on
//! stderr that `pcmap verify --against` parses. The line's format is
//! `pcmap_reader::stats`'s.

use pcmap_reader::stats::{Stats, StatsLine};

use crate::encoding::Encoding;

/// The counts of a module before the pass counted anything (every field
/// the plugin counts is known: zero).
pub fn empty() -> Stats {
    Stats {
        fences: Some(0),
        ..Stats::default()
    }
}

/// The line reporting `stats` of `module`.
pub fn line(stats: Stats, encoding: Encoding, module: &str) -> String {
    StatsLine {
        encoding: encoding.name(),
        stats,
        module,
    }
    .to_string()
}
