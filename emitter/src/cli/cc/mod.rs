//! `pcmap cc COMPILER ARGS…`: one compiler invocation with the plugin, every
//! object it writes finished, so that `CC="pcmap cc clang-16"` works from
//! make, CMake and the Rust `cc` crate (docs/build.md).
//!
//! ```text
//! the command       COMPILER ARGS, COMPILER maybe a cache and a compiler
//!                   (cache.rs); ARGS read as clang reads them, response
//!                   files read but passed on as they are (args.rs, with the
//!                   option tables of options.rs)
//! the plugin        the one for the compiler's LLVM (../plugin.rs)
//! no object         probes (-E, --version, -###, …), -emit-llvm, links of
//!                   objects: run as given
//! -S                the plugin added: the assembly carries its tables
//! -c                each object through a temporary beside it, finished by
//!                   emit's atomic write (object.rs)
//! compile and link  the driver runs as given with pcmap in the linker's
//!                   place, which finishes the objects first (link.rs)
//! ```
//!
//! `-fno-pcmap` runs the command as given less that flag: for sources that
//! must not be instrumented in a build that instruments the rest, such as
//! the runtime that receives the tables (as a sanitizer's runtime is built
//! without the sanitizer: its own functions stay out of the tables).

mod args;
mod cache;
#[cfg(test)]
mod driver_tests;
mod link;
mod object;
mod options;

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::plugin;

use args::{Args, Edit, Invocation, Mode};
use cache::Compiler;

/// pcmap's own flag asking for the cache key (a ccache compiler_check).
const CACHE_KEY_FLAG: &str = "--pcmap-cache-key";

/// `pcmap` under the names of its other roles, run to the end: `pcmap-cc`
/// (`pcmap-c++`), a compiler for builds that take one executable (CMake's
/// CMAKE_C_COMPILER, the `cc` crate's compiler probe, which runs `$CC -E`
/// without CC's other words): `pcmap cc ${PCMAP_CC:-clang-16}`
/// (`${PCMAP_CXX:-clang++-16}`) with its arguments; `pcmap-ld`, the stand-in
/// linker of a compile and link; and `pcmap --pcmap-cache-key`, a ccache
/// compiler_check. `None` for anything else.
pub fn multicall() -> Option<Result<ExitCode>> {
    let mut args = std::env::args_os();
    let argv0 = PathBuf::from(args.next()?);
    let rest: Vec<OsString> = args.collect();
    let (var, default) = match argv0.file_name()?.as_bytes() {
        b"pcmap-cc" => ("PCMAP_CC", "clang-16"),
        b"pcmap-c++" => ("PCMAP_CXX", "clang++-16"),
        name if name == link::LINKER_NAME.as_bytes() => {
            return Some(link::stand_in(&argv0, &rest));
        }
        _ if rest.len() == 1 && rest[0] == CACHE_KEY_FLAG => {
            // `ccache pcmap cc COMPILER …` runs this as its compiler_check.
            return Some(print_cache_key(cache::compiler_from_parent().as_deref()));
        }
        _ => return None,
    };
    let compiler = std::env::var_os(var)
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| default.into());
    let command: Vec<OsString> = std::iter::once(compiler).chain(rest).collect();
    Some(run(&command))
}

fn print_cache_key(compiler: Option<&std::ffi::OsStr>) -> Result<ExitCode> {
    let key = cache::key_before(compiler)?;
    std::io::stdout().write_all(key.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `pcmap cc COMPILER ARGS…`; `Ok` carries the exit code to return
/// (the compiler's, when it failed).
pub fn run(command: &[OsString]) -> Result<ExitCode> {
    let Some((word, rest)) = command.split_first() else {
        anyhow::bail!("cc: usage: pcmap cc COMPILER [ARGS…]");
    };
    if rest.len() == 1 && rest[0] == CACHE_KEY_FLAG {
        return print_cache_key(Some(word));
    }
    let (compiler, given) = Compiler::split(word, rest);
    let args = Args::read(given)?;
    // -fno-pcmap / -fpcmap (the last one counts) are pcmap's, never the
    // compiler's.
    let own: Vec<usize> = args
        .expanded
        .iter()
        .enumerate()
        .filter(|(_, a)| matches!(a.text.as_bytes(), b"-fno-pcmap" | b"-fpcmap"))
        .map(|(i, _)| i)
        .collect();
    let off = own
        .last()
        .is_some_and(|&i| args.expanded[i].text.as_bytes() == b"-fno-pcmap");
    let without_own = Edit {
        drop: own,
        ..Edit::default()
    };
    if off {
        return run_as(&compiler, &args, &without_own);
    }
    let inv = Invocation::parse(&args)?;
    cache::check_parent(inv.mode)?;
    match inv.mode {
        Mode::PassThrough => run_as(&compiler, &args, &without_own),
        Mode::Assembly => {
            let plugin = plugin::for_compiler(&compiler.real)?;
            let mut edit = without_own;
            add_plugin(&mut edit, &args, &plugin);
            run_with_key(&compiler, &args, &edit, Some(&plugin))
        }
        Mode::Compile => compile(&compiler, &args, &inv, without_own),
        Mode::Link => {
            let plugin = match inv.has_code() {
                true => Some(plugin::for_compiler(&compiler.real)?),
                false => None,
            };
            link::run(
                &compiler,
                &args,
                &inv,
                without_own,
                plugin.as_deref(),
                &mut |c| cache_env(&compiler, c, plugin.as_deref()),
            )
        }
    }
}

/// The additions a cache after pcmap needs to hash the configuration.
fn cache_env(
    compiler: &Compiler,
    command: &mut std::process::Command,
    plugin: Option<&Path>,
) -> Result<Option<std::fs::File>> {
    match (compiler.cache, plugin) {
        (Some(cache), Some(plugin)) => cache::add_key(command, cache, plugin),
        _ => Ok(None),
    }
}

fn add_plugin(edit: &mut Edit, args: &Args, plugin: &Path) {
    if !plugin::loaded_by(args.expanded.iter().map(|a| a.text.as_os_str()), plugin) {
        edit.add.push(plugin::arg(plugin));
    }
}

/// The command as `edit` makes it, nothing finished.
fn run_as(compiler: &Compiler, args: &Args, edit: &Edit) -> Result<ExitCode> {
    run_with_key(compiler, args, edit, None)
}

fn run_with_key(
    compiler: &Compiler,
    args: &Args,
    edit: &Edit,
    plugin: Option<&Path>,
) -> Result<ExitCode> {
    let built = args.build(edit)?;
    let mut command = compiler.command(&built.args);
    let _key = cache_env(compiler, &mut command, plugin)?;
    let status = crate::signals::run(&mut command)
        .with_context(|| format!("cc: cannot run {}", Path::new(&compiler.run[0]).display()))?;
    Ok(exit_code(status))
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    ExitCode::from(u8::try_from(crate::signals::shell_code(status)).unwrap_or(1))
}

/// `-c`: each object compiled to its temporary and finished. One compile
/// when there is one object (or -o); one per source otherwise, each with
/// its own temporary.
fn compile(compiler: &Compiler, args: &Args, inv: &Invocation, base: Edit) -> Result<ExitCode> {
    let plugin = match inv.has_code() {
        true => Some(plugin::for_compiler(&compiler.real)?),
        false => None,
    };
    let sources: Vec<&args::Input> = inv.sources().collect();
    if sources.len() > 1 && inv.output.is_some() {
        // The driver refuses -o with several objects: let it say so.
        return run_as(compiler, args, &base);
    }
    let groups: Vec<Vec<&args::Input>> = match sources.len() {
        1 => vec![sources],
        _ => sources.into_iter().map(|s| vec![s]).collect(),
    };
    let split = groups.len() > 1;
    for group in groups {
        let source = group[0];
        let object = inv.object_of(args, source);
        let mut edit = base.clone();
        if split {
            // This source alone: the others dropped, and every -x after it
            // (it would apply to no input: a warning, an error under
            // -Werror).
            for other in inv.inputs.iter().filter(|i| i.index != source.index) {
                if matches!(other.lang, args::Lang::Code | args::Lang::Assembly) {
                    edit.drop.push(other.index);
                }
            }
            edit.drop
                .extend(inv.x_args.iter().filter(|&&i| i > source.index));
        }
        if source.lang == args::Lang::Code {
            if let Some(p) = &plugin {
                add_plugin(&mut edit, args, p);
            }
        }
        let code = compile_one(compiler, args, inv, edit, &object, plugin.as_deref())?;
        if code != ExitCode::SUCCESS {
            return Ok(code);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One compile writing one object: through its temporary, unless the
/// output is no regular file (/dev/null: nothing kept, nothing finished).
fn compile_one(
    compiler: &Compiler,
    args: &Args,
    inv: &Invocation,
    mut edit: Edit,
    object: &Path,
    plugin: Option<&Path>,
) -> Result<ExitCode> {
    if std::fs::metadata(object).is_ok_and(|m| !m.is_file()) {
        return run_with_key(compiler, args, &edit, plugin);
    }
    let temp = object::temporary_for(object)?;
    let mut o = vec![OsString::from("-o"), temp.path.as_os_str().to_os_string()];
    match &inv.output {
        Some((_, spans)) if spans.iter().all(|&i| args.expanded[i].given.is_some()) => {
            edit.replace.push((spans[0], std::mem::take(&mut o)));
            edit.drop.extend(&spans[1..]);
        }
        // No -o, or one in a response file: a later -o wins.
        _ => edit.add.append(&mut o),
    }
    if inv.dependencies && !inv.dependency_target {
        // The dependency file's default target is -o's value: the object's,
        // not its temporary's.
        edit.add.push("-MQ".into());
        edit.add.push(object.as_os_str().to_os_string());
    }
    let built = args.build(&edit)?;
    let mut command = compiler.command(&built.args);
    let _key = cache_env(compiler, &mut command, plugin)?;
    let status = crate::signals::run(&mut command)
        .with_context(|| format!("cc: cannot run {}", Path::new(&compiler.run[0]).display()))?;
    drop(built);
    if !status.success() {
        // As clang removes its output when a compile fails.
        object::remove_regular(object);
        return Ok(exit_code(status));
    }
    if std::fs::metadata(&temp.path).is_ok_and(|m| m.len() == 0) {
        object::remove_regular(object);
        anyhow::bail!(
            "cc: {} wrote no object at {}, where pcmap expected one",
            Path::new(&compiler.real).display(),
            object.display()
        );
    }
    object::finish(temp, object)?;
    Ok(ExitCode::SUCCESS)
}
