//! Per-module counts, printed with `stats` / `PCMAP_STATS=1` as one line on
//! stderr that `pcmap verify --against` parses:
//!
//! ```text
//! pcmap-stats v1 encoding=compact covered=12 atomics=30 uar=2 recorded=0 module=src/a.c
//! ```
//!
//! Fields are `key=value`, in this order; `module` comes last and takes the
//! rest of the line (source file names may contain spaces). A new field would
//! be added before `module` and bump nothing; a changed meaning bumps `v1`.

use crate::encoding::Encoding;

pub const STATS_TAG: &str = "pcmap-stats v1";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Functions given a covered entry.
    pub covered: u64,
    /// Instructions given an atomics entry.
    pub atomics: u64,
    /// Functions whose feature mask has the UAR bit.
    pub uar: u64,
    /// Instructions given at least one generic (record rule) entry.
    pub recorded: u64,
}

impl Stats {
    pub fn line(&self, encoding: Encoding, module: &str) -> String {
        format!(
            "{STATS_TAG} encoding={} covered={} atomics={} uar={} recorded={} module={module}",
            encoding.name(),
            self.covered,
            self.atomics,
            self.uar,
            self.recorded
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_format() {
        let s = Stats {
            covered: 1,
            atomics: 2,
            uar: 3,
            recorded: 4,
        };
        assert_eq!(
            s.line(Encoding::Native, "a b.c"),
            "pcmap-stats v1 encoding=native covered=1 atomics=2 uar=3 recorded=4 module=a b.c"
        );
    }
}
