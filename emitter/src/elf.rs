//! Opening ELF files; errors name the file.

use std::path::Path;

use anyhow::{bail, Context, Result};

/// Reads `path` fully; errors name the file.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}

/// Parses `data` as an ELF object; the error names `path` and the problem.
pub fn parse<'d>(path: &Path, data: &'d [u8]) -> Result<object::File<'d>> {
    let file = object::File::parse(data)
        .with_context(|| format!("{}: not a readable object file", path.display()))?;
    if file.format() != object::BinaryFormat::Elf {
        bail!("{}: not an ELF file ({:?})", path.display(), file.format());
    }
    Ok(file)
}
