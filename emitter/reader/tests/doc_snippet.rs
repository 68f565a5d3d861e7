//! The reading snippet of `docs/stackmap-v2.md` is the doctest of
//! `pcmap_reader::flat` ("Reading a section"), line for line without the
//! doctest's hidden lines: the snippet the documentation shows compiles and
//! runs.

const DOC: &str = include_str!("../../../docs/stackmap-v2.md");
const MODULE: &str = include_str!("../src/flat/mod.rs");

/// The first ```rust block after `heading` in the Markdown document.
fn markdown_snippet() -> Vec<&'static str> {
    let after = &DOC[DOC.find("## Reading with `pcmap-reader`").expect("heading")..];
    let block = &after[after.find("```rust\n").expect("rust block") + 8..];
    block[..block.find("```").expect("end of block")]
        .lines()
        .collect()
}

/// The module's doctest under "# Reading a section", hidden lines dropped.
fn doctest() -> Vec<&'static str> {
    let docs: Vec<&str> = MODULE
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let start = docs
        .iter()
        .position(|l| *l == "# Reading a section")
        .expect("section");
    let open = start
        + docs[start..]
            .iter()
            .position(|l| *l == "```")
            .expect("doctest");
    let len = docs[open + 1..]
        .iter()
        .position(|l| *l == "```")
        .expect("end");
    docs[open + 1..open + 1 + len]
        .iter()
        .copied()
        .filter(|l| !(l.trim_start().starts_with("# ") || l.trim() == "#"))
        .collect()
}

#[test]
fn the_documented_snippet_is_the_doctest() {
    let (md, rs) = (markdown_snippet(), doctest());
    assert!(md.len() > 10, "snippet not found: {md:?}");
    assert_eq!(
        md, rs,
        "docs/stackmap-v2.md and src/flat/mod.rs's doctest differ"
    );
}
