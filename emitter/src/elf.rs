//! Opening ELF files and finding the sections pcmap cares about.

use std::path::Path;

use anyhow::{bail, Context, Result};
use object::{Object, ObjectSection};

/// Section-name prefixes of the sections pcmap reads.
const SANMD_PREFIX: &str = "sanmd_";

/// A section that holds PC-keyed data, as found in an object.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FoundSection {
    pub name: String,
    pub size: u64,
    pub relocations: usize,
}

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

/// Every PC section (`sanmd_*`) in `file`, in section order. Stack map
/// sections are decoded by [`crate::stackmap`].
pub fn pc_sections(file: &object::File<'_>) -> Vec<FoundSection> {
    file.sections()
        .filter_map(|s| {
            let name = s.name().ok()?;
            name.starts_with(SANMD_PREFIX).then(|| FoundSection {
                name: name.to_string(),
                size: s.size(),
                relocations: s.relocations().count(),
            })
        })
        .collect()
}
