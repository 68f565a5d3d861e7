//! Opening ELF files; errors name the file.

use std::path::Path;

use anyhow::{bail, Context, Result};

/// Maps `path` read-only (an object can be tens of megabytes; mapping
/// spares copying it); errors name the file. `emit --in-place` replaces the
/// file by renaming a new one over it, so the mapping stays valid.
pub fn read_file(path: &Path) -> Result<memmap2::Mmap> {
    let cannot = || format!("{}: cannot read", path.display());
    let file = std::fs::File::open(path).with_context(cannot)?;
    // SAFETY: a read-only mapping of a file pcmap never writes in place.
    unsafe { memmap2::Mmap::map(&file) }.with_context(cannot)
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
