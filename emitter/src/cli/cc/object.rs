//! An object at `-o` is finished or absent.
//!
//! ```text
//! compile:  the compiler writes X's temporary, DIR/STEM.pcmap-XXXXXX, in X's
//!           directory (same directory and stem: every name the driver
//!           derives from -o, the .d, .dwo, .gcno, .gcda, -save-temps=obj
//!           files, is X's); a terminating signal stops the compiler and
//!           removes the temporary
//! finish:   emit reads the temporary and writes X through its own atomic
//!           write (output.rs: an unnamed file linked and renamed over X);
//!           bitcode (-flto) is renamed to X as it is
//! failure:  X is removed, as clang removes its output when a compile
//!           fails; a directory where no temporary can be made fails
//!           before compiling, X left as it was
//! ```

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

use crate::signals::{ArmedFile, SignalsBlocked};

/// The temporary object the compiler writes for `object`: in its directory,
/// named `STEM.pcmap-XXXXXX` (the stem llvm::sys::path::stem takes, so the
/// driver names side outputs as it would after `object`).
pub struct Temporary {
    file: ArmedFile,
    /// Its path spelled as the object's is (relative when the object's is:
    /// the driver writes names derived from it, a .dwo's, into the object).
    pub path: PathBuf,
}

pub fn temporary_for(object: &Path) -> Result<Temporary> {
    let dir = match object.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut prefix: OsString = object
        .file_stem()
        .unwrap_or(OsStr::new("object"))
        .to_os_string();
    prefix.push(".pcmap-");
    let _blocked = SignalsBlocked::new();
    let file = tempfile::Builder::new()
        .prefix(&prefix)
        .rand_bytes(6)
        .tempfile_in(dir)
        .map_err(|e| {
            anyhow!(
                "cc: {}: cannot create a temporary object in {}: {}",
                object.display(),
                dir.display(),
                io_message(&e)
            )
        })?
        .into_temp_path();
    let path = object.with_file_name(file.file_name().expect("a file name"));
    Ok(Temporary {
        file: ArmedFile::new(file),
        path,
    })
}

/// "Permission denied", without the "(os error 13)" std adds.
fn io_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(at) => s[..at].to_string(),
        None => s,
    }
}

/// Puts the compiler's `temp` at `object`, finished: emit (the temporary in,
/// the object out) or, for bitcode, a rename. On failure `object` is
/// removed and the error names it.
pub fn finish(temp: Temporary, object: &Path) -> Result<()> {
    let result = if is_bitcode(&temp.path)? {
        temp.file.persist(object).with_context(|| {
            format!(
                "cc: {}: cannot rename the compiler's object",
                object.display()
            )
        })
    } else {
        // The temporary's name means nothing to the user: the object's does.
        emit(&temp.path, object).map_err(|e| {
            let message = format!("{e:#}");
            anyhow!(message.replace(
                &temp.path.display().to_string(),
                &object.display().to_string()
            ))
        })
    };
    if result.is_err() {
        remove_regular(object);
    }
    result
}

/// `pcmap emit --in-place` on an object the compiler made where pcmap cannot
/// choose its name (a compile and link's objects).
pub fn finish_in_place(object: &Path) -> Result<()> {
    if !std::fs::metadata(object)
        .with_context(|| format!("{}: cannot read", object.display()))?
        .is_file()
        || is_bitcode(object)?
    {
        return Ok(());
    }
    emit(object, object)
}

/// `pcmap emit INPUT -o OUTPUT` as a build runs it: no --ir (the plugin
/// described the sites), LLVM's section dropped, no statistics, never
/// `--no-walk`.
fn emit(input: &Path, output: &Path) -> Result<()> {
    crate::emit::emit(
        input,
        output,
        None,
        false,
        false,
        false,
        crate::output::TempKind::Unnamed,
    )
    .map_err(|e| sites_turned_off(e, input))
}

/// Emit's refusal of records of unknown kind, when nothing described them
/// because `PCMAP_FEATURES` told the plugin not to (`no-sites`): that cause
/// and what to do, in place of emit's advice (compile with the plugin, or
/// `--ir`, `--no-walk`: neither is a `pcmap cc` option).
fn sites_turned_off(e: anyhow::Error, input: &Path) -> anyhow::Error {
    let Some(pcmap::Error::UnknownKinds(u)) = e.downcast_ref::<pcmap::Error>() else {
        return e;
    };
    let Some(features) = crate::plugin::sites_off().filter(|_| u.described_by.is_none()) else {
        return e;
    };
    anyhow!(
        "{}: {}: {} of {} stack map records have no known kind ({}): PCMAP_FEATURES={features} told the plugin not to describe stack map sites, and a stack walker cannot use tables without them; drop no-sites (pcmap cc then finishes the tables with the plugin's descriptions), or, for tables no runtime walks, compile without pcmap cc and finish each object with pcmap emit --no-walk",
        input.display(),
        pcmap::stackmap::LLVM_STACKMAPS,
        u.unknown,
        u.records,
        u.examples
    )
}

/// Removes `path` if it is a regular file (never a device such as
/// /dev/null); failing to is no error of its own (the caller reports why).
pub fn remove_regular(path: &Path) {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(path);
    }
}

/// LLVM bitcode (`-flto`), bare or in its wrapper: no object to finish.
fn is_bitcode(path: &Path) -> Result<bool> {
    let mut magic = [0u8; 4];
    let mut f =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let n = f
        .read(&mut magic)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(n == 4 && (magic == *b"BC\xc0\xde" || magic == [0xde, 0xc0, 0x17, 0x0b]))
}
