//! Which pass plugin serves an LLVM release: the one built for it. `pcmap
//! cc` loads the one for the compiler's LLVM; `emit --ir` runs the one for
//! the object's LLVM under that release's `opt` (../llvm.rs).
//!
//! A pass plugin loaded into another LLVM than its own corrupts the host's
//! heap before it can complain, so the release is asked every time (of the
//! compiler: `COMPILER --version`, one driver start, nothing remembered that
//! could go stale when the compiler is upgraded or a link re-pointed), and
//! the plugin for LLVM N is the file `libpcmap_plugin-llvmN.so`: beside
//! `pcmap` (a build tree) or in `../lib` from it (an install).
//! `$PCMAP_PLUGIN` names one explicitly instead for `pcmap cc`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// The plugin for LLVM `major`'s file name.
pub fn file_name(major: u32) -> String {
    format!("libpcmap_plugin-llvm{major}.so")
}

/// The directories a plugin is looked for in: `pcmap`'s own (symlinks to it
/// resolved), then `../lib` from it.
pub fn dirs() -> Result<(PathBuf, [PathBuf; 2])> {
    let exe = std::env::current_exe().context("cc: cannot find the pcmap executable")?;
    let dir = exe.parent().unwrap_or(Path::new("/")).to_path_buf();
    let lib = dir.join("../lib");
    Ok((exe, [dir, lib]))
}

/// Every `libpcmap_plugin-llvmN.so` in the plugin directories, with its N.
pub fn installed() -> Result<Vec<(u32, PathBuf)>> {
    let (_, dirs) = dirs()?;
    let mut found = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut here: Vec<(u32, PathBuf)> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter_map(|p| Some((release_of(p.file_name()?.to_str()?)?, p)))
            .collect();
        here.sort();
        found.extend(here);
    }
    Ok(found)
}

/// `$PCMAP_FEATURES` if it names `no-sites`: the plugin then describes no
/// stack map site (docs/plugin.md), so the records of what it compiles
/// have no known kind. Read as the plugin reads the list (comma-separated
/// words); a value it refuses has already failed the compile.
pub fn sites_off() -> Option<String> {
    let features = std::env::var("PCMAP_FEATURES").ok()?;
    features
        .split(',')
        .any(|w| w.trim() == "no-sites")
        .then_some(features)
}

/// N of `libpcmap_plugin-llvmN.so`.
fn release_of(file_name: &str) -> Option<u32> {
    let v = file_name
        .strip_prefix("libpcmap_plugin-llvm")?
        .strip_suffix(".so")?;
    (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .then(|| v.parse().ok())
        .flatten()
}

/// The releases with a plugin in the plugin directories, oldest first.
pub fn releases() -> Result<Vec<u32>> {
    let mut majors: Vec<u32> = installed()?.into_iter().map(|(m, _)| m).collect();
    majors.sort_unstable();
    majors.dedup();
    Ok(majors)
}

/// The plugin for LLVM `major` in the plugin directories, the first found;
/// else where it was looked for.
pub fn for_release(major: u32) -> Result<PathBuf, NotFound> {
    let name = file_name(major);
    let (exe, dirs) = dirs().map_err(|e| NotFound(format!("{e:#}")))?;
    if let Some(p) = dirs.iter().map(|d| d.join(&name)).find(|p| p.is_file()) {
        return Ok(p);
    }
    Err(NotFound(format!(
        "no {name} beside {} or in {}",
        exe.display(),
        dirs[1].display()
    )))
}

/// Where the plugin of a release is not: "no FILE beside PCMAP or in LIB".
#[derive(Debug)]
pub struct NotFound(pub String);

/// The plugin `$PCMAP_PLUGIN` names, if set.
pub fn from_env() -> Result<Option<PathBuf>> {
    let Some(p) = std::env::var_os("PCMAP_PLUGIN") else {
        return Ok(None);
    };
    let p = PathBuf::from(p);
    if !p.is_file() {
        bail!("cc: PCMAP_PLUGIN={}: no such file", p.display());
    }
    std::path::absolute(&p)
        .map(Some)
        .with_context(|| format!("cc: PCMAP_PLUGIN={}: cannot resolve", p.display()))
}

/// The plugin for `compiler` (the compiler itself, not a launcher in front
/// of it): `$PCMAP_PLUGIN`, else the plugin of the LLVM the compiler says
/// it is.
pub fn for_compiler(compiler: &OsStr) -> Result<PathBuf> {
    if let Some(p) = from_env()? {
        return Ok(p);
    }
    let (major, version) = llvm_major(compiler)?;
    let missing = match for_release(major) {
        Ok(p) => return Ok(p),
        Err(NotFound(missing)) => missing,
    };
    let there: Vec<String> = installed()?
        .iter()
        .filter_map(|(_, p)| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    bail!(
        "cc: no plugin for LLVM {major} ({} is clang {version}): {missing}; there: {}; set PCMAP_PLUGIN to choose one",
        Path::new(compiler).display(),
        if there.is_empty() {
            "none".to_string()
        } else {
            there.join(", ")
        }
    )
}

/// The LLVM major version of `compiler` and its full clang version, from
/// the first line of its `--version` ("… clang version 16.0.6 …").
pub fn llvm_major(compiler: &OsStr) -> Result<(u32, String)> {
    let out = Command::new(compiler)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .with_context(|| format!("cc: cannot run {}", Path::new(compiler).display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("").trim();
    if let Some((major, version)) = clang_version(first) {
        return Ok((major, version.to_string()));
    }
    let said = if out.status.success() {
        format!("its --version says \"{first}\"")
    } else {
        format!("its --version failed ({})", out.status)
    };
    bail!(
        "cc: {} is not clang ({said}): pcmap cc runs clang with an LLVM pass plugin",
        Path::new(compiler).display()
    )
}

/// (16, "16.0.6") from "Debian clang version 16.0.6 (15~deb12u1)": the
/// LLVM major version and the version of a clang version line (`--version`'s
/// first, or one of an object's `.comment` strings).
pub fn clang_version(line: &str) -> Option<(u32, &str)> {
    let at = line.find("clang version ")? + "clang version ".len();
    let rest = &line[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let v = &rest[..end];
    let major = v.split('.').next()?.parse().ok()?;
    Some((major, v))
}

/// Whether `args` load `plugin` already (`-fpass-plugin=` naming the same
/// file): a second copy would run the pass twice, which it refuses.
pub fn loaded_by<'a>(args: impl IntoIterator<Item = &'a OsStr>, plugin: &Path) -> bool {
    let Ok(plugin) = std::fs::canonicalize(plugin) else {
        return false;
    };
    args.into_iter().any(|a| {
        a.as_bytes()
            .strip_prefix(b"-fpass-plugin=")
            .and_then(|p| std::fs::canonicalize(OsStr::from_bytes(p)).ok())
            .is_some_and(|p| p == plugin)
    })
}

/// `-fpass-plugin=PLUGIN`.
pub fn arg(plugin: &Path) -> std::ffi::OsString {
    let mut a = std::ffi::OsString::from("-fpass-plugin=");
    a.push(plugin);
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_version_lines() {
        for (line, want) in [
            (
                "Debian clang version 16.0.6 (15~deb12u1)",
                Some((16, "16.0.6")),
            ),
            (
                "clang version 19.1.7 (https://github.com/llvm/llvm-project x)",
                Some((19, "19.1.7")),
            ),
            (
                "Ubuntu clang version 18.1.3 (1ubuntu1)",
                Some((18, "18.1.3")),
            ),
            ("clang version 17", Some((17, "17"))),
            ("gcc (Debian 12.2.0-14) 12.2.0", None),
            ("GCC: (Debian 12.2.0-14) 12.2.0", None),
            ("clang version unknown", None),
            ("clang version .1", None),
        ] {
            assert_eq!(clang_version(line), want, "{line}");
        }
    }

    #[test]
    fn the_compilers_here_say_their_version() {
        assert_eq!(llvm_major(OsStr::new("clang-16")).unwrap().0, 16);
        assert_eq!(llvm_major(OsStr::new("clang-19")).unwrap().0, 19);
        let e = llvm_major(OsStr::new("gcc")).unwrap_err();
        assert!(e.to_string().contains("is not clang"), "{e}");
    }
}
