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
//! Patterns are globs: `*` any run of characters, `?` one character,
//! `[a-z]` / `[!a-z]` (or `[^a-z]`) one character in / not in the class (a
//! `]` right after `[` or its `!`/`^` is a member), `\c` the character `c`.
//! Lines under a `[section]` header count only if the header's glob matches
//! `metadata`, the section LLVM's SanitizerBinaryMetadata consults; lines
//! before any header always count. An `=category` suffix restricts a line to
//! that category; the pass asks for none, so such lines never match (as in
//! LLVM).
//!
//! Each pattern is compiled once, when the list is read, the way LLVM's
//! `SpecialCaseList` does: a pattern without wildcards goes into a hash set
//! (one lookup for any number of them), a glob becomes the literal-and-
//! wildcard segments between its stars. A glob matches in time linear in
//! the name for the shapes lists use (literal segments: the first anchored
//! at the start, the last at the end, those between found by substring
//! search, leftmost first, which is exact for segments of fixed length).

use std::collections::HashSet;
use std::fmt;

/// The special-case-list section this pass reads, as LLVM's pass does.
const SECTION: &str = "metadata";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ignorelist {
    functions: Patterns,
    sources: Patterns,
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
                section_applies = Glob::compile(pattern).map_err(err)?.matches(SECTION);
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
            // Every pattern is checked, also those that do not apply here.
            let glob = Glob::compile(pattern).map_err(err)?;
            if !section_applies || !category.is_empty() {
                continue;
            }
            match prefix {
                "fun" => list.functions.add(glob),
                "src" => list.sources.add(glob),
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
        self.functions.matches(name)
    }

    pub fn ignores_source(&self, file: &str) -> bool {
        self.sources.matches(file)
    }
}

/// The patterns of one entry kind: those without wildcards as a set of
/// names, the others compiled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Patterns {
    literals: HashSet<String>,
    globs: Vec<Glob>,
}

impl Patterns {
    fn add(&mut self, glob: Glob) {
        match glob.into_literal() {
            Ok(name) => {
                self.literals.insert(name);
            }
            Err(glob) => self.globs.push(glob),
        }
    }

    fn extend(&mut self, other: Patterns) {
        self.literals.extend(other.literals);
        self.globs.extend(other.globs);
    }

    fn matches(&self, text: &str) -> bool {
        self.literals.contains(text) || self.globs.iter().any(|g| g.matches(text))
    }
}

/// A compiled glob: the segments between its stars, and whether a star
/// comes first and last. `a*b?c*` is `[a] [b?c]`, no leading star, a
/// trailing one; `*` alone is no segment and both stars.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Glob {
    segments: Vec<Segment>,
    leading_star: bool,
    trailing_star: bool,
}

/// A run of a glob without `*`: it matches a fixed number of characters.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Segment {
    tokens: Vec<Token>,
    /// Characters it matches.
    chars: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// These characters (escapes resolved).
    Literal(String),
    /// `?`: any one character.
    Any,
    /// `[…]`: one character in (or, negated, not in) the ranges.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Glob {
    /// Compiles `pattern`; an unterminated class, a reversed range or a
    /// trailing `\` is an error naming the pattern.
    fn compile(pattern: &str) -> Result<Glob, String> {
        let mut segments = Vec::new();
        let mut current = Segment {
            tokens: Vec::new(),
            chars: 0,
        };
        let mut leading_star = false;
        let mut trailing_star = false;
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            trailing_star = c == '*';
            let token = match c {
                '*' => {
                    if current.tokens.is_empty() {
                        leading_star |= segments.is_empty();
                    } else {
                        segments.push(std::mem::replace(
                            &mut current,
                            Segment {
                                tokens: Vec::new(),
                                chars: 0,
                            },
                        ));
                    }
                    continue;
                }
                '?' => Token::Any,
                '\\' => {
                    let escaped = chars
                        .next()
                        .ok_or_else(|| format!("trailing '\\' in '{pattern}'"))?;
                    current.push_literal(escaped);
                    continue;
                }
                '[' => {
                    let negated = chars.next_if(|&c| c == '!' || c == '^').is_some();
                    let mut members = Vec::new();
                    loop {
                        match chars.next() {
                            None => return Err(format!("unterminated '[' in '{pattern}'")),
                            Some(']') if !members.is_empty() => break,
                            Some(m) => members.push(m),
                        }
                    }
                    let mut ranges = Vec::new();
                    let mut i = 0;
                    while i < members.len() {
                        if i + 2 < members.len() && members[i + 1] == '-' {
                            let (lo, hi) = (members[i], members[i + 2]);
                            if lo > hi {
                                return Err(format!("reversed range '{lo}-{hi}' in '{pattern}'"));
                            }
                            ranges.push((lo, hi));
                            i += 3;
                        } else {
                            ranges.push((members[i], members[i]));
                            i += 1;
                        }
                    }
                    Token::Class { negated, ranges }
                }
                c => {
                    current.push_literal(c);
                    continue;
                }
            };
            current.tokens.push(token);
            current.chars += 1;
        }
        if !current.tokens.is_empty() {
            segments.push(current);
        }
        Ok(Glob {
            segments,
            leading_star,
            trailing_star,
        })
    }

    /// The name this glob matches if it has no wildcard, else the glob.
    fn into_literal(mut self) -> Result<String, Glob> {
        match (
            &mut self.segments[..],
            self.leading_star,
            self.trailing_star,
        ) {
            ([only], false, false) => match &mut only.tokens[..] {
                [Token::Literal(name)] => Ok(std::mem::take(name)),
                _ => Err(self),
            },
            _ => Err(self),
        }
    }

    fn matches(&self, text: &str) -> bool {
        let mut segments = &self.segments[..];
        let (mut start, mut end) = (0, text.len());
        if !self.leading_star {
            let Some((first, rest)) = segments.split_first() else {
                return text.is_empty();
            };
            match first.match_at(text, 0) {
                // No star at all: the segment is the whole text.
                Some(e) if rest.is_empty() && !self.trailing_star => return e == text.len(),
                Some(e) => start = e,
                None => return false,
            }
            segments = rest;
        }
        if !self.trailing_star {
            if let Some((last, rest)) = segments.split_last() {
                match last.start_to_end_at(text) {
                    Some(s) if s >= start && last.match_at(text, s) == Some(end) => end = s,
                    _ => return false,
                }
                segments = rest;
            }
        }
        // Between stars: each segment's leftmost match after the one before.
        for segment in segments {
            match segment.find(&text[..end], start) {
                Some(e) => start = e,
                None => return false,
            }
        }
        true
    }
}

impl Segment {
    fn push_literal(&mut self, c: char) {
        match self.tokens.last_mut() {
            Some(Token::Literal(s)) => s.push(c),
            _ => self.tokens.push(Token::Literal(c.to_string())),
        }
        self.chars += 1;
    }

    /// Where the segment's match ends if it matches `text` at byte `at`.
    fn match_at(&self, text: &str, at: usize) -> Option<usize> {
        let mut pos = at;
        for token in &self.tokens {
            let rest = &text[pos..];
            pos += match token {
                Token::Literal(s) => rest.starts_with(s.as_str()).then_some(s.len())?,
                Token::Any => rest.chars().next()?.len_utf8(),
                Token::Class { negated, ranges } => {
                    let c = rest.chars().next()?;
                    let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                    (inside != *negated).then_some(c.len_utf8())?
                }
            };
        }
        Some(pos)
    }

    /// Where the segment would start to end with `text`: its number of
    /// characters back from the end.
    fn start_to_end_at(&self, text: &str) -> Option<usize> {
        match &self.tokens[..] {
            [Token::Literal(s)] => text
                .len()
                .checked_sub(s.len())
                .filter(|&i| text.is_char_boundary(i)),
            _ => text
                .char_indices()
                .rev()
                .nth(self.chars - 1)
                .map(|(i, _)| i),
        }
    }

    /// The end of the segment's leftmost match in `text` at or after byte
    /// `from`: a substring search for its first literal, each candidate
    /// then matched whole.
    fn find(&self, text: &str, from: usize) -> Option<usize> {
        let mut at = from;
        loop {
            if let Some(Token::Literal(s)) = self.tokens.first() {
                at += text.get(at..)?.find(s.as_str())?;
            }
            if let Some(end) = self.match_at(text, at) {
                return Some(end);
            }
            at += text.get(at..)?.chars().next()?.len_utf8();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob_match(pattern: &str, text: &str) -> bool {
        Glob::compile(pattern).unwrap().matches(text)
    }

    #[test]
    fn globs() {
        assert!(glob_match("foo*", "foobar"));
        assert!(glob_match("*bar", "foobar"));
        assert!(glob_match("f?o*r", "foobar"));
        assert!(!glob_match("foo", "foobar"));
        assert!(glob_match("[a-c]x", "bx"));
        assert!(!glob_match("[!a-c]x", "bx"));
        assert!(glob_match("[^a-c]x", "dx"));
        assert!(glob_match("[]]", "]"));
        assert!(glob_match("[!]]", "a") && !glob_match("[!]]", "]"));
        assert!(glob_match("a\\*", "a*"));
        assert!(!glob_match("a\\*", "ab"));
        assert!(glob_match("*", ""));
        assert!(glob_match("**", "x"));
        assert!(glob_match("a*b*c", "abc") && glob_match("a*b*c", "aXbYbZc"));
        assert!(!glob_match("a*b*c", "acb"));
        assert!(!glob_match("ab*ba", "aba"));
        assert!(glob_match("*é?", "xéü") && !glob_match("*é?", "xé"));
        for bad in ["[a", "a\\", "[z-a]", "[]"] {
            assert!(Glob::compile(bad).is_err(), "{bad}");
        }
    }

    /// The exact matcher: every way to split the text, by recursion on the
    /// pattern's characters.
    fn reference(p: &[char], t: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('*', rest)) => (0..=t.len()).any(|i| reference(rest, &t[i..])),
            Some(('?', rest)) => !t.is_empty() && reference(rest, &t[1..]),
            Some(('[', _)) => {
                let close = p.iter().skip(2).position(|&c| c == ']').unwrap() + 2;
                let inside = p[1..close].contains(t.first().unwrap_or(&'\0'));
                !t.is_empty() && inside && reference(&p[close + 1..], &t[1..])
            }
            Some((&c, rest)) => t.first() == Some(&c) && reference(rest, &t[1..]),
        }
    }

    /// The compiled matcher agrees with the exact one on every pattern of
    /// up to five pieces over `a`, `b`, `*`, `?`, `[ab]`, `é` and every text
    /// of up to six characters over `a`, `b`, `é`.
    #[test]
    fn agrees_with_the_exact_matcher() {
        let pieces = ["a", "b", "*", "?", "[ab]", "é"];
        let letters = ['a', 'b', 'é'];
        let mut patterns = vec![String::new()];
        let mut all = Vec::new();
        for _ in 0..5 {
            patterns = patterns
                .iter()
                .flat_map(|p| pieces.iter().map(move |q| format!("{p}{q}")))
                .collect();
            all.extend(patterns.iter().cloned());
        }
        let mut texts = vec![String::new()];
        let mut level = vec![String::new()];
        for _ in 0..6 {
            level = level
                .iter()
                .flat_map(|t| letters.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(level.iter().cloned());
        }
        for p in &all {
            let glob = Glob::compile(p).unwrap();
            let pc: Vec<char> = p.chars().collect();
            for t in &texts {
                let tc: Vec<char> = t.chars().collect();
                assert_eq!(glob.matches(t), reference(&pc, &tc), "{p:?} on {t:?}");
            }
        }
    }

    #[test]
    fn literals_and_globs() {
        let l = Ignorelist::parse("fun:exact\nfun:a\\*b\nfun:pre*\nsrc:x.c\n").unwrap();
        assert_eq!(l.functions.literals.len(), 2);
        assert_eq!(l.functions.globs.len(), 1);
        assert!(l.ignores_function("exact") && l.ignores_function("a*b"));
        assert!(!l.ignores_function("exac") && !l.ignores_function("aXb"));
        assert!(l.ignores_function("prefix") && l.ignores_source("x.c"));
        let mut m = Ignorelist::parse("fun:other\n").unwrap();
        m.extend(l);
        assert!(m.ignores_function("other") && m.ignores_function("exact"));
    }

    /// A long pattern against long names costs their lengths, not their
    /// product: 4,000 names of 10,000 characters against a 10,000-character
    /// segment between stars and one anchored at the end.
    #[test]
    fn long_patterns_stay_linear() {
        let name = "a".repeat(10_000);
        let suffix = Glob::compile(&format!("*{}b", "a".repeat(10_000))).unwrap();
        let middle = Glob::compile(&format!("*{}b*", "a".repeat(10_000))).unwrap();
        let started = std::time::Instant::now();
        for _ in 0..4_000 {
            assert!(!suffix.matches(&name) && !middle.matches(&name));
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
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
        let e = Ignorelist::parse("fun:ok\nfun:[z-a]\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("reversed range 'z-a'"), "{}", e.message);
    }
}
