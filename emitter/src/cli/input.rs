//! Opening the command's input files; errors name the file.

use std::path::Path;

use anyhow::{bail, Context, Result};
use pcmap::object::ObjectFile;

/// Maps `path` read-only (an object can be tens of megabytes; mapping
/// spares copying it); errors name the file. `emit --in-place` renames a new
/// file over it, or (hard links, an owner it cannot keep) writes into it
/// only after the caller dropped this mapping.
pub fn read_file(path: &Path) -> Result<memmap2::Mmap> {
    let cannot = || format!("{}: cannot read", path.display());
    // Before opening: opening a FIFO would block, and mapping a directory
    // fails with a message that names neither.
    let kind = std::fs::metadata(path).with_context(cannot)?.file_type();
    if !kind.is_file() {
        bail!(
            "{}: not a regular file ({})",
            path.display(),
            file_kind(kind)
        );
    }
    let file = std::fs::File::open(path).with_context(cannot)?;
    // SAFETY: a read-only mapping; pcmap writes into this file only after
    // the mapping is dropped (emit --in-place's copy path).
    unsafe { memmap2::Mmap::map(&file) }.with_context(cannot)
}

/// A private, writable mapping of `path` (copy-on-write: writing a page
/// copies that page only), if it can be made and is `len` bytes long (the
/// file as [`read_file`] mapped it); `None` otherwise (the caller copies).
// Kept: copying the whole input instead costs emit 11-14 % of its time on SQLite's object (docs/benchmarks.md).
pub fn copy_on_write(path: &Path, len: usize) -> Option<memmap2::MmapMut> {
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: a private mapping: our writes go to private copies of the
    // pages, never to the file; pcmap writes into this file only after the
    // mapping is dropped (emit --in-place's copy path), as for `read_file`.
    let map = unsafe { memmap2::MmapOptions::new().map_copy(&file) }.ok()?;
    (map.len() == len).then_some(map)
}

/// Parses `data` as an ELF object; the error names `path` and the problem.
pub fn parse<'d>(path: &Path, data: &'d [u8]) -> Result<ObjectFile<'d>> {
    let file = object::File::parse(data)
        .with_context(|| format!("{}: not a readable object file", path.display()))?;
    if file.format() != object::BinaryFormat::Elf {
        bail!("{}: not an ELF file ({:?})", path.display(), file.format());
    }
    ObjectFile::parse(data).with_context(|| path.display().to_string())
}

/// What a file that is not a regular file is, in words.
pub fn file_kind(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}
