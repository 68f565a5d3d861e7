//! Which LLVM describes the IR of `emit --ir`: the release that compiled
//! the object, its `opt` and the plugin built for it (`stackmap::ir`; the
//! plugin found as `pcmap cc` finds it, ../plugin.rs).
//!
//! The release is the one `--llvm N` names; else the one the object's
//! `.comment` names (clang writes `clang version N.…` there; llc writes
//! nothing of its own); else the one `$PCMAP_LLVM` names (the release the
//! examples and the tests build with); else, when pcmap has a plugin for
//! one release only, that one. Anything else — a release pcmap has no
//! plugin for, a `.comment` naming two, nothing to tell two releases apart
//! — is an error that says how to choose, never a guess: the releases
//! describe sites differently (LLVM 16 keeps 32 bits of a statepoint's ID).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use object::{Object, ObjectSection};
use pcmap::object::ObjectFile;
use pcmap::stackmap::ir::Toolchain;

use crate::plugin;

/// What says which release compiled the object, strongest first.
#[derive(Debug, Default)]
struct Said<'a> {
    /// `--llvm N`.
    asked: Option<u32>,
    /// The clang releases the object's `.comment` names.
    recorded: &'a [u32],
    /// `$PCMAP_LLVM`, as set.
    env: Option<&'a str>,
}

/// The release, `opt` and plugin that describe the sites of `ir` for
/// `object` (read from `input`), `--llvm` being `asked`.
pub fn for_ir(
    object: &ObjectFile<'_>,
    input: &Path,
    ir: &Path,
    asked: Option<u32>,
) -> Result<Toolchain> {
    let context = || format!("{}: cannot describe its sites", ir.display());
    let recorded = clang_majors(object);
    let env = std::env::var("PCMAP_LLVM").ok();
    let said = Said {
        asked,
        recorded: &recorded,
        env: env.as_deref(),
    };
    let have = plugin::releases().with_context(context)?;
    let major = choose(&said, &have, input).with_context(context)?;
    toolchain(major).with_context(context)
}

/// The release `said` names, of those pcmap has a plugin for (`have`).
fn choose(said: &Said<'_>, have: &[u32], input: &Path) -> Result<u32> {
    let majors = || {
        let majors: Vec<String> = have.iter().map(u32::to_string).collect();
        majors.join(", ")
    };
    // `why` says who named the release, ending in ": " or ", and ".
    let known = |major: u32, why: String| {
        if have.contains(&major) {
            return Ok(major);
        }
        match have {
            [] => bail!("{why}pcmap has no plugin for LLVM {major} (it has none)"),
            _ => bail!(
                "{why}pcmap has no plugin for LLVM {major} (it has: LLVM {})",
                majors()
            ),
        }
    };
    if let Some(major) = said.asked {
        return known(major, format!("--llvm {major}: "));
    }
    match said.recorded {
        [major] => {
            return known(
                *major,
                format!(
                    "{} was compiled by clang {major} (its .comment says so), and ",
                    input.display()
                ),
            )
        }
        [] => {}
        several => {
            let named: Vec<String> = several.iter().map(|m| format!("clang {m}")).collect();
            bail!(
                "the .comment of {} names {}: say which LLVM compiled its stack maps with --llvm N",
                input.display(),
                named.join(" and ")
            )
        }
    }
    if let Some(env) = said.env {
        let Ok(major) = env.trim().parse() else {
            bail!("PCMAP_LLVM={env}: not an LLVM release (a major version, such as 16)");
        };
        return known(major, format!("PCMAP_LLVM={env}: "));
    }
    match have {
        [only] => Ok(*only),
        _ => bail!(
            "nothing says which LLVM compiled {} (its .comment names no clang): say --llvm N or set PCMAP_LLVM (N: {})",
            input.display(),
            majors()
        ),
    }
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
        .filter_map(|s| plugin::clang_version(&String::from_utf8_lossy(s)).map(|(m, _)| m))
        .collect();
    majors.sort_unstable();
    majors.dedup();
    majors
}

/// Release `major`'s `opt` and plugin, found.
fn toolchain(major: u32) -> Result<Toolchain> {
    let opt = opt(major).with_context(|| {
        format!(
            "LLVM {major}'s opt (opt-{major}, or in llvm-config-{major} --bindir) is not installed"
        )
    })?;
    let plugin = plugin::for_release(major).map_err(|plugin::NotFound(missing)| {
        anyhow::anyhow!("no plugin for LLVM {major}: {missing}")
    })?;
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
    fn the_release_is_asked_recorded_set_or_the_only_one() {
        let o = Path::new("x.o");
        let both = [16, 19];
        let pick = |said: Said<'_>, have: &[u32]| choose(&said, have, o);
        let message = |said: Said<'_>, have: &[u32]| format!("{:#}", pick(said, have).unwrap_err());
        let asked = |m| Said {
            asked: Some(m),
            ..Said::default()
        };
        let recorded = |r| Said {
            recorded: r,
            ..Said::default()
        };
        let env = |e| Said {
            env: Some(e),
            ..Said::default()
        };
        assert_eq!(pick(asked(19), &both).unwrap(), 19);
        // What --llvm says counts: llc may compile IR another clang wrote.
        let over = Said {
            asked: Some(16),
            recorded: &[19],
            env: Some("19"),
        };
        assert_eq!(pick(over, &both).unwrap(), 16);
        assert_eq!(pick(recorded(&[19]), &both).unwrap(), 19);
        // The object's .comment is a fact about it: it counts over the
        // environment's default.
        let fact = Said {
            recorded: &[16],
            env: Some("19"),
            ..Said::default()
        };
        assert_eq!(pick(fact, &both).unwrap(), 16);
        assert_eq!(pick(env("19"), &both).unwrap(), 19);
        assert_eq!(pick(Said::default(), &[16]).unwrap(), 16);
        assert_eq!(
            message(Said::default(), &both),
            "nothing says which LLVM compiled x.o (its .comment names no clang): say --llvm N or set PCMAP_LLVM (N: 16, 19)"
        );
        assert_eq!(
            message(asked(17), &both),
            "--llvm 17: pcmap has no plugin for LLVM 17 (it has: LLVM 16, 19)"
        );
        assert_eq!(
            message(recorded(&[17]), &[16]),
            "x.o was compiled by clang 17 (its .comment says so), and pcmap has no plugin for LLVM 17 (it has: LLVM 16)"
        );
        assert_eq!(
            message(env("17"), &[]),
            "PCMAP_LLVM=17: pcmap has no plugin for LLVM 17 (it has none)"
        );
        assert_eq!(
            message(env("sixteen"), &both),
            "PCMAP_LLVM=sixteen: not an LLVM release (a major version, such as 16)"
        );
        assert_eq!(
            message(recorded(&[16, 19]), &both),
            "the .comment of x.o names clang 16 and clang 19: say which LLVM compiled its stack maps with --llvm N"
        );
    }
}
