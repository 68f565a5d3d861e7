//! A section's relocations, resolved and kept sorted by the offset they
//! apply to.

use super::section::CodeLoc;

/// A relocation, resolved: its type, the symbol it names, and the place that
/// symbol plus the addend is (when the symbol is defined in a section).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    pub r_type: u32,
    pub symbol: Option<object::SymbolIndex>,
    pub target: Option<CodeLoc>,
}

/// The relocations of one section by the offset they apply to: sorted by
/// offset, found by binary search. Tables are read front to back, so
/// successive lookups land beside each other in memory (a hash map of
/// 100,000 relocations cost a cache miss per lookup). Of several
/// relocations at one offset, the last in the section counts.
#[derive(Debug, Default, Clone)]
pub struct Relocations(Vec<(u64, Reloc)>, std::cell::Cell<usize>);

impl Relocations {
    pub fn new() -> Relocations {
        Relocations::default()
    }

    /// The relocation at `offset`. Asked in increasing order (a table's
    /// functions), the answer is most often the relocation after the last
    /// one found: no search, no cache miss.
    pub fn get(&self, offset: &u64) -> Option<&Reloc> {
        let next = self.1.get().wrapping_add(1);
        let i = match self.0.get(next) {
            Some((at, _)) if at == offset => next,
            _ => self.0.partition_point(|r| r.0 <= *offset).checked_sub(1)?,
        };
        let (at, r) = &self.0[i];
        self.1.set(i);
        (at == offset).then_some(r)
    }

    /// Every relocation, by offset.
    pub fn iter(&self) -> impl Iterator<Item = (&u64, &Reloc)> {
        self.0.iter().map(|(at, r)| (at, r))
    }

    /// Every relocation, by offset.
    pub fn values(&self) -> impl Iterator<Item = &Reloc> {
        self.0.iter().map(|(_, r)| r)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(u64, Reloc)> for Relocations {
    fn from_iter<I: IntoIterator<Item = (u64, Reloc)>>(iter: I) -> Relocations {
        let mut v: Vec<(u64, Reloc)> = iter.into_iter().collect();
        // Stable: of equal offsets the last stays last, and is kept.
        if !v.windows(2).all(|w| w[0].0 < w[1].0) {
            v.sort_by_key(|r| r.0);
            let mut out: Vec<(u64, Reloc)> = Vec::with_capacity(v.len());
            for r in v {
                match out.last_mut() {
                    Some(last) if last.0 == r.0 => *last = r,
                    _ => out.push(r),
                }
            }
            v = out;
        }
        Relocations(v, std::cell::Cell::new(usize::MAX))
    }
}
