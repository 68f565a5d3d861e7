//! Which LLVM describes the IR of `emit --ir`: the release that compiled
//! the object, its `opt` and the plugin built for it (`stackmap::ir`).
//!
//! The release is the one `--llvm N` names; else the one the object's
//! `.comment` names (clang writes `clang version N.…` there; llc writes
//! nothing of its own); else, when pcmap has a plugin for one release only,
//! that one. Anything else — a release pcmap has no plugin for, a
//! `.comment` naming two, nothing to tell two releases apart — is an error
//! that says how to choose, never a guess: the releases describe sites
//! differently (LLVM 16 keeps 32 bits of a statepoint's ID).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use object::{Object, ObjectSection};
use pcmap::object::ObjectFile;
use pcmap::stackmap::ir::Toolchain;

/// One LLVM release pcmap has a plugin for.
#[derive(Debug)]
struct Release {
    major: u32,
    /// The plugin's file names, beside `pcmap` or in `../lib` from it, in
    /// the order they are looked for.
    plugins: &'static [&'static str],
}

/// The releases, oldest first: adding one is a line here, once
/// scripts/setup builds its plugin. `libpcmap_plugin.so` is the
/// workspace's own build, LLVM 16's.
const RELEASES: &[Release] = &[Release {
    major: 16,
    plugins: &["libpcmap_plugin-llvm16.so", "libpcmap_plugin.so"],
}];

/// The release, `opt` and plugin that describe the sites of `ir` for
/// `object` (read from `input`), `--llvm` being `asked`.
pub fn for_ir(
    object: &ObjectFile<'_>,
    input: &Path,
    ir: &Path,
    asked: Option<u32>,
) -> Result<Toolchain> {
    let context = || format!("{}: cannot describe its sites", ir.display());
    let release = choose(asked, &clang_majors(object), input).with_context(context)?;
    toolchain(release).with_context(context)
}

/// The release of `--llvm` (`asked`), else of the clang versions an
/// object's `.comment` names (`recorded`), else the only one.
fn choose(asked: Option<u32>, recorded: &[u32], input: &Path) -> Result<&'static Release> {
    let have = || {
        let majors: Vec<String> = RELEASES.iter().map(|r| r.major.to_string()).collect();
        majors.join(", ")
    };
    let find = |major| RELEASES.iter().find(|r| r.major == major);
    let major = match (asked, recorded) {
        (Some(major), _) => {
            return find(major).with_context(|| {
                format!("--llvm {major}: pcmap has no plugin for LLVM {major} (it has: LLVM {})", have())
            })
        }
        (None, [major]) => *major,
        (None, []) => match RELEASES {
            [only] => only.major,
            _ => bail!(
                "nothing says which LLVM compiled {} (its .comment names no clang): say --llvm N (N: {})",
                input.display(),
                have()
            ),
        },
        (None, several) => {
            let named: Vec<String> = several.iter().map(|m| format!("clang {m}")).collect();
            bail!(
                "the .comment of {} names {}: say which LLVM compiled its stack maps with --llvm N",
                input.display(),
                named.join(" and ")
            )
        }
    };
    find(major).with_context(|| {
        format!(
            "{} was compiled by clang {major} (its .comment says so), and pcmap has no plugin for LLVM {major} (it has: LLVM {})",
            input.display(),
            have()
        )
    })
}

/// The LLVM major versions of the clang versions (`… clang version N.…`)
/// an object's `.comment` names, each once, in order.
fn clang_majors(object: &ObjectFile<'_>) -> Vec<u32> {
    let data = match object.file.section_by_name(".comment").map(|s| s.data()) {
        Some(Ok(data)) => data,
        _ => return Vec::new(),
    };
    let mut majors: Vec<u32> = data
        .split(|&b| b == 0)
        .filter_map(|s| clang_major(&String::from_utf8_lossy(s)))
        .collect();
    majors.sort_unstable();
    majors.dedup();
    majors
}

/// 16 from "Debian clang version 16.0.6 (15~deb12u1)".
fn clang_major(text: &str) -> Option<u32> {
    let at = text.find("clang version ")? + "clang version ".len();
    let rest = &text[at..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (rest[digits..].starts_with('.')).then(|| rest[..digits].parse().ok())?
}

/// `release`'s `opt` and plugin, found.
fn toolchain(release: &Release) -> Result<Toolchain> {
    let major = release.major;
    let opt = opt(major).with_context(|| {
        format!(
            "LLVM {major}'s opt (opt-{major}, or in llvm-config-{major} --bindir) is not installed"
        )
    })?;
    let exe = std::env::current_exe().context("cannot find the pcmap executable")?;
    let dir = exe.parent().unwrap_or(Path::new("/"));
    // Where `pcmap cc` looks for its plugin: beside pcmap (a build tree),
    // in ../lib from it (an install).
    let dirs = [dir.to_path_buf(), dir.join("../lib")];
    let plugin = dirs
        .iter()
        .flat_map(|d| release.plugins.iter().map(move |name| d.join(name)))
        .find(|p| p.is_file());
    let Some(plugin) = plugin else {
        bail!(
            "no plugin for LLVM {major} ({}) beside {} or in {}",
            release.plugins.join(" or "),
            exe.display(),
            dirs[1].display()
        );
    };
    Ok(Toolchain {
        llvm: major,
        opt,
        plugin,
    })
}

/// `opt-N` on PATH, else `opt` in `llvm-config-N --bindir`.
fn opt(major: u32) -> Option<PathBuf> {
    let name = format!("opt-{major}");
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(&name))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let out = Command::new(format!("llvm-config-{major}"))
            .arg("--bindir")
            .output()
            .ok()?;
        let dir = String::from_utf8(out.stdout).ok()?;
        let p = Path::new(dir.trim()).join("opt");
        p.is_file().then_some(p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majors_of_clang_version_lines() {
        for (text, want) in [
            ("Debian clang version 16.0.6 (15~deb12u1)", Some(16)),
            (
                "clang version 19.1.7 (https://github.com/llvm/llvm-project x)",
                Some(19),
            ),
            ("Ubuntu clang version 18.1.3 (1ubuntu1)", Some(18)),
            ("GCC: (Debian 12.2.0-14) 12.2.0", None),
            ("clang version unknown", None),
            ("clang version 16", None),
        ] {
            assert_eq!(clang_major(text), want, "{text}");
        }
    }

    #[test]
    fn the_release_is_asked_recorded_or_the_only_one() {
        let o = Path::new("x.o");
        let message =
            |asked, recorded: &[u32]| format!("{:#}", choose(asked, recorded, o).unwrap_err());
        assert_eq!(choose(Some(16), &[], o).unwrap().major, 16);
        // What --llvm says counts: llc may compile IR another clang wrote.
        assert_eq!(choose(Some(16), &[19], o).unwrap().major, 16);
        assert_eq!(choose(None, &[16], o).unwrap().major, 16);
        match RELEASES {
            [only] => assert_eq!(choose(None, &[], o).unwrap().major, only.major),
            _ => assert!(message(None, &[]).ends_with("names no clang): say --llvm N (N: 16, 19)")),
        }
        assert!(message(Some(17), &[])
            .starts_with("--llvm 17: pcmap has no plugin for LLVM 17 (it has: LLVM 16"));
        assert!(message(None, &[17]).starts_with("x.o was compiled by clang 17 (its .comment says so), and pcmap has no plugin for LLVM 17 (it has: LLVM 16"));
        assert_eq!(
            message(None, &[16, 19]),
            "the .comment of x.o names clang 16 and clang 19: say which LLVM compiled its stack maps with --llvm N"
        );
    }
}
