//! Ignorelists in the format of LLVM's special case lists
//! (`-fexperimental-sanitize-metadata-ignorelist=`):
//!
//! ```text
//! # comment
//! fun:hot_path_*        # functions (by IR, i.e. mangled, name)
//! src:*/third_party/*   # whole modules (by source file name)
//! [metadata]            # following lines apply to this pass only
//! fun:other
//! ```
//!
//! Patterns are globs (`*`, `?`, `[a-z]`, `[!a-z]`, `\` escapes). Lines under a
//! `[section]` header count only if the header's glob matches `metadata`, the
//! section LLVM's SanitizerBinaryMetadata consults; lines before any header
//! always count. An `=category` suffix restricts a line to that category; the
//! pass asks for none, so such lines never match (as in LLVM).

use std::fmt;

/// The special-case-list section this pass reads, as LLVM's pass does.
const SECTION: &str = "metadata";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ignorelist {
    functions: Vec<String>,
    sources: Vec<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl Ignorelist {
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut list = Ignorelist::default();
        let mut section_applies = true;
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let err = |message: String| ParseError {
                line: index + 1,
                message,
            };
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(header) = line.strip_prefix('[') {
                let pattern = header
                    .strip_suffix(']')
                    .ok_or_else(|| err(format!("malformed section header '{line}'")))?;
                check_glob(pattern).map_err(err)?;
                section_applies = glob_match(pattern, SECTION);
                continue;
            }
            let (prefix, rest) = line
                .split_once(':')
                .ok_or_else(|| err(format!("expected 'prefix:pattern', got '{line}'")))?;
            let (pattern, category) = match rest.rsplit_once('=') {
                Some((p, c)) => (p, c),
                None => (rest, ""),
            };
            if pattern.is_empty() {
                return Err(err(format!("empty pattern in '{line}'")));
            }
            check_glob(pattern).map_err(err)?;
            if !section_applies || !category.is_empty() {
                continue;
            }
            match prefix {
                "fun" => list.functions.push(pattern.to_string()),
                "src" => list.sources.push(pattern.to_string()),
                // Kinds other tools read from the same file; not ours.
                "global" | "type" | "mainfile" => {}
                _ => {
                    return Err(err(format!(
                        "unknown entry kind '{prefix}' (expected fun or src)"
                    )))
                }
            }
        }
        Ok(list)
    }

    /// Adds `other`'s entries: a function or source either list ignores is
    /// ignored, as LLVM's SpecialCaseList reads several files.
    pub fn extend(&mut self, other: Ignorelist) {
        self.functions.extend(other.functions);
        self.sources.extend(other.sources);
    }

    pub fn ignores_function(&self, name: &str) -> bool {
        self.functions.iter().any(|p| glob_match(p, name))
    }

    pub fn ignores_source(&self, file: &str) -> bool {
        self.sources.iter().any(|p| glob_match(p, file))
    }
}

/// Rejects unterminated `[` classes and trailing `\`.
fn check_glob(pattern: &str) -> Result<(), String> {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => return Err(format!("trailing '\\' in '{pattern}'")),
            '[' if !chars.clone().skip(1).any(|c| c == ']') => {
                return Err(format!("unterminated '[' in '{pattern}'"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Shell-style glob matching over characters.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Backtracking on the most recent '*': linear for patterns without
    // character classes, which is what ignorelists use.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ti));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = match_class(&p, pi, t[ti]) {
                        if matched {
                            pi = next;
                            ti += 1;
                            continue;
                        }
                    }
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == t[ti] => {
                    pi += 2;
                    ti += 1;
                    continue;
                }
                c if c != '\\' && c == t[ti] => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, st)) => {
                star = Some((sp, st + 1));
                pi = sp + 1;
                ti = st + 1;
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches `c` against the class starting at `p[start] == '['`; returns
/// whether it matched and the index after the closing `]`.
fn match_class(p: &[char], start: usize, c: char) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negated = matches!(p.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() && (first || p[i] != ']') {
        first = false;
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            matched |= p[i] <= c && c <= p[i + 2];
            i += 3;
        } else {
            matched |= p[i] == c;
            i += 1;
        }
    }
    (i < p.len()).then_some((matched != negated, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("foo*", "foobar"));
        assert!(glob_match("*bar", "foobar"));
        assert!(glob_match("f?o*r", "foobar"));
        assert!(!glob_match("foo", "foobar"));
        assert!(glob_match("[a-c]x", "bx"));
        assert!(!glob_match("[!a-c]x", "bx"));
        assert!(glob_match("a\\*", "a*"));
        assert!(!glob_match("a\\*", "ab"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn sections_and_kinds() {
        let l = Ignorelist::parse(
            "# c\nfun:a*\n[tsan]\nfun:b\n[metadata]\nfun:c\nsrc:*/x.c\nfun:d=init\n[*]\nglobal:g\n",
        )
        .unwrap();
        assert!(l.ignores_function("abc"));
        assert!(!l.ignores_function("b"));
        assert!(l.ignores_function("c"));
        assert!(!l.ignores_function("d"));
        assert!(l.ignores_source("dir/x.c"));
    }

    #[test]
    fn errors_name_the_line() {
        let e = Ignorelist::parse("fun:a\nnonsense\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(Ignorelist::parse("weird:a")
            .unwrap_err()
            .message
            .contains("weird"));
        assert!(Ignorelist::parse("fun:[a").is_err());
        assert!(Ignorelist::parse("[metadata").is_err());
    }
}
