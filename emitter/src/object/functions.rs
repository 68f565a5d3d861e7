//! The object's functions: every `STT_FUNC` symbol as a place in its code
//! section (an ELFv1 descriptor's through `.opd`), with its size and name,
//! sorted per section so that "the function at" and "the function
//! containing" a place are binary searches. Of several symbols at one
//! place (aliases), the first in the symbol table names it.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::section::CodeLoc;

/// One function's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function<'d> {
    /// Offset of its first byte in its section.
    pub offset: u64,
    /// `st_size` of its symbol (0: unknown).
    pub size: u64,
    /// Borrowed from the symbol table unless it is not UTF-8 (tens of
    /// thousands of functions: no allocation each).
    pub name: Cow<'d, str>,
    /// Where `name`'s bytes start in [`Functions::symbol`]'s copy.
    symbol_at: usize,
}

/// Functions by code section, sorted by offset, one per offset.
#[derive(Debug, Default)]
pub struct Functions<'d> {
    /// By section index.
    by_section: Vec<Vec<Function<'d>>>,
    /// The names again, back to back in the order of `by_section`: the
    /// symbol table keeps them in no useful order (LLVM sorts it by suffix),
    /// and looking each function's name up there in code order cost a
    /// cache miss per function.
    symbols: Vec<u8>,
    /// Where the last [`at`](Self::at) found its function: tables list
    /// functions in code order, so the next is most often the one after
    /// it, found without a search (one pass over sorted data).
    hint: AtomicUsize,
}

/// A function symbol where the object's parse found its code: (offset in
/// the code section, symbol table position, size, name).
pub(super) type Symbol<'d> = (u64, usize, u64, Cow<'d, str>);

impl<'d> Functions<'d> {
    /// `all`: the function symbols of each section, by section index.
    pub(super) fn new(all: Vec<Vec<Symbol<'d>>>) -> Functions<'d> {
        let mut symbols = Vec::new();
        let by_section = all
            .into_iter()
            .map(|mut v| {
                // Symbols come in order most often: nothing to sort.
                if !v.is_sorted_by_key(|f| (f.0, f.1)) {
                    v.sort_unstable_by_key(|f| (f.0, f.1));
                }
                v.dedup_by_key(|f| f.0);
                v.into_iter()
                    .map(|(offset, _, size, name)| {
                        let symbol_at = symbols.len();
                        symbols.extend_from_slice(name.as_bytes());
                        Function {
                            offset,
                            size,
                            name,
                            symbol_at,
                        }
                    })
                    .collect()
            })
            .collect();
        Functions {
            by_section,
            symbols,
            hint: AtomicUsize::new(0),
        }
    }

    /// The bytes of `f`'s name (one of these functions), from the copy
    /// kept in code order.
    pub fn symbol(&self, f: &Function<'d>) -> &[u8] {
        &self.symbols[f.symbol_at..f.symbol_at + f.name.len()]
    }

    /// The function starting at `loc`.
    pub fn at(&self, loc: CodeLoc) -> Option<&Function<'d>> {
        let v = self.by_section.get(loc.section.0)?;
        // The function after the last one found, or that one, else a search.
        let hint = self.hint.load(Ordering::Relaxed);
        let near = [hint.wrapping_add(1), hint]
            .into_iter()
            .find(|&i| v.get(i).is_some_and(|f| f.offset == loc.offset));
        let i = match near {
            Some(i) => i,
            None => v.binary_search_by_key(&loc.offset, |f| f.offset).ok()?,
        };
        self.hint.store(i, Ordering::Relaxed);
        Some(&v[i])
    }

    /// The function whose code `[offset, offset + size)` holds `loc` (a
    /// function of size 0 holds its first byte).
    pub fn containing(&self, loc: CodeLoc) -> Option<&Function<'d>> {
        let v = self.by_section.get(loc.section.0)?;
        let i = v
            .partition_point(|f| f.offset <= loc.offset)
            .checked_sub(1)?;
        let f = &v[i];
        (loc.offset < f.offset.saturating_add(f.size.max(1))).then_some(f)
    }
}
