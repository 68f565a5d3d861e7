//! Which plugin `pcmap cc` loads: the one built for the compiler's LLVM.
//!
//! A pass plugin loaded into another LLVM than its own corrupts the
//! compiler's heap before it can complain, so the choice is asked of the
//! compiler every time (`COMPILER --version`, one driver start, nothing
//! remembered that could go stale when the compiler is upgraded or a link
//! re-pointed), and the plugin for LLVM N is the file
//! `libpcmap_plugin-llvmN.so`: beside `pcmap` (a build tree) or in `../lib`
//! from it (an install). `$PCMAP_PLUGIN` names one explicitly instead.

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

/// Every `libpcmap_plugin-llvmN.so` in the plugin directories.
pub fn installed() -> Result<Vec<PathBuf>> {
    let (_, dirs) = dirs()?;
    let mut found = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut here: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.strip_prefix("libpcmap_plugin-llvm"))
                    .and_then(|n| n.strip_suffix(".so"))
                    .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
            })
            .collect();
        here.sort();
        found.extend(here);
    }
    Ok(found)
}

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
    let (exe, dirs) = dirs()?;
    let name = file_name(major);
    for dir in &dirs {
        let candidate = dir.join(&name);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    let there: Vec<String> = installed()?
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    bail!(
        "cc: no plugin for LLVM {major} ({} is clang {version}): no {name} beside {} or in {}; there: {}; set PCMAP_PLUGIN to choose one",
        Path::new(compiler).display(),
        exe.display(),
        dirs[1].display(),
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
    if let Some(version) = clang_version(first) {
        if let Some(major) = version.split('.').next().and_then(|m| m.parse().ok()) {
            return Ok((major, version.to_string()));
        }
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

/// "16.0.6" from "Debian clang version 16.0.6 (15~deb12u1)".
fn clang_version(line: &str) -> Option<&str> {
    let at = line.find("clang version ")? + "clang version ".len();
    let rest = &line[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let v = &rest[..end];
    (!v.is_empty() && v.as_bytes()[0].is_ascii_digit()).then_some(v)
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
            ("Debian clang version 16.0.6 (15~deb12u1)", Some("16.0.6")),
            (
                "clang version 19.1.7 (https://github.com/llvm/llvm-project x)",
                Some("19.1.7"),
            ),
            ("Ubuntu clang version 18.1.3 (1ubuntu1)", Some("18.1.3")),
            ("gcc (Debian 12.2.0-14) 12.2.0", None),
            ("clang version unknown", None),
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
