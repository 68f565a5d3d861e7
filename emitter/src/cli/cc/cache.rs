//! Compiler caches on either side of `pcmap cc`, and what they hash.
//!
//! ```text
//! pcmap cc ccache clang-16 …   the cache after pcmap: it caches the
//! pcmap cc sccache clang-16 …  compiler's object, before emit, which runs
//!                              on every object. pcmap adds to the cache's
//!                              hash what the plugin's output depends on
//!                              (the key below, without pcmap itself):
//!                              ccache: CCACHE_EXTRAFILES += a file holding
//!                              it; sccache: SCCACHE_C_CUSTOM_CACHE_BUSTER
//! ccache pcmap cc clang-16 …   the cache before pcmap: it takes pcmap for
//!                              the compiler and, on a hit, never runs it.
//!                              Safe only when ccache hashes pcmap's key
//!                              (compiler_check '%compiler% --pcmap-cache-
//!                              key'): pcmap asks the ccache running it for
//!                              its effective compiler_check and refuses
//!                              to compile otherwise
//! sccache pcmap-cc …           sccache has no such hook: refused
//! ```
//!
//! The key, one line each: the plugin (path, size, modification time,
//! inode: a rebuilt plugin is another file), every `PCMAP_*` variable, each
//! file `PCMAP_IGNORELIST` names (the same identity); before pcmap, also
//! pcmap itself, every plugin it could choose, and the compiler.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use super::args::Mode;
use crate::plugin;

/// The compiler caches `pcmap cc` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    Ccache,
    Sccache,
}

impl Cache {
    fn of_name(name: &OsStr) -> Option<Cache> {
        match name.as_bytes() {
            b"ccache" => Some(Cache::Ccache),
            b"sccache" => Some(Cache::Sccache),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Cache::Ccache => "ccache",
            Cache::Sccache => "sccache",
        }
    }
}

/// The command `pcmap cc` was given, split into a cache in front of the
/// compiler (if any) and the compiler.
#[derive(Debug)]
pub struct Compiler {
    /// What to run: the given compiler word, and the compiler after a
    /// launcher (`ccache clang-16`).
    pub run: Vec<OsString>,
    /// The compiler itself: asked for its version and for its commands
    /// (-###), never through a cache.
    pub real: OsString,
    /// The cache in front of it, if any.
    pub cache: Option<Cache>,
}

impl Compiler {
    /// Splits `compiler` and `args`: `ccache clang-16 ARGS` (a launcher,
    /// the compiler the next word) or a compiler that is ccache's
    /// masquerading link (/usr/lib/ccache/clang-16). Returns the compiler and
    /// the arguments left.
    pub fn split<'a>(compiler: &OsStr, args: &'a [OsString]) -> (Compiler, &'a [OsString]) {
        let named = Path::new(compiler).file_name().and_then(Cache::of_name);
        if let (Some(cache), Some((real, rest))) = (named, args.split_first()) {
            return (
                Compiler {
                    run: vec![compiler.to_os_string(), real.clone()],
                    real: real.clone(),
                    cache: Some(cache),
                },
                rest,
            );
        }
        let masquerade = resolve(compiler)
            .and_then(|p| std::fs::canonicalize(p).ok())
            .and_then(|p| p.file_name().and_then(Cache::of_name));
        (
            Compiler {
                run: vec![compiler.to_os_string()],
                real: compiler.to_os_string(),
                cache: masquerade,
            },
            args,
        )
    }

    /// A command running the compiler (through its launcher) with `args`.
    pub fn command(&self, args: &[OsString]) -> Command {
        let mut c = Command::new(&self.run[0]);
        c.args(&self.run[1..]).args(args);
        c
    }
}

/// `name` as the shell would find it: itself when it has a slash, else the
/// first executable of that name in `$PATH`.
fn resolve(name: &OsStr) -> Option<PathBuf> {
    if name.as_bytes().contains(&b'/') {
        return Some(PathBuf::from(name));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// One file's identity: what changes when it is rebuilt or replaced.
fn identity(out: &mut String, what: &str, path: &Path) {
    match std::fs::metadata(path) {
        Ok(m) => {
            let _ = writeln!(
                out,
                "{what} {} size {} mtime {}.{:09} inode {}:{}",
                exact(path.as_os_str().as_bytes()),
                m.size(),
                m.mtime(),
                m.mtime_nsec(),
                m.dev(),
                m.ino()
            );
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "{what} {} missing ({e})",
                exact(path.as_os_str().as_bytes())
            );
        }
    }
}

/// What the plugin's output depends on besides the command line: `plugin`,
/// the `PCMAP_*` variables, the files PCMAP_IGNORELIST names.
fn configuration(out: &mut String, plugins: &[PathBuf]) {
    for p in plugins {
        identity(out, "plugin", p);
    }
    let mut vars: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| k.as_bytes().starts_with(b"PCMAP_"))
        .collect();
    vars.sort();
    for (k, v) in &vars {
        let _ = writeln!(out, "env {}={}", k.to_string_lossy(), exact(v.as_bytes()));
        if k.as_bytes() == b"PCMAP_IGNORELIST" {
            for file in v.as_bytes().split(|&b| b == b',').filter(|f| !f.is_empty()) {
                identity(out, "ignorelist", Path::new(OsStr::from_bytes(file)));
            }
        }
    }
}

/// `bytes` as text that tells every byte string from every other: printable
/// ASCII as it is, a backslash and anything else as \xNN.
fn exact(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// The key of a compile through `plugin` with a cache after pcmap.
pub fn key_after(plugin: &Path) -> String {
    let mut out = String::from("pcmap cc cache key 1\n");
    configuration(&mut out, &[plugin.to_path_buf()]);
    out
}

/// The key printed for `--pcmap-cache-key` (a cache in front of pcmap):
/// pcmap, every plugin it could load, the configuration, and `compiler`
/// (what pcmap runs), when known.
pub fn key_before(compiler: Option<&OsStr>) -> Result<String> {
    let mut out = String::from("pcmap cc cache key 1 (before pcmap)\n");
    let (exe, _) = plugin::dirs()?;
    identity(&mut out, "pcmap", &exe);
    let mut plugins: Vec<PathBuf> = plugin::installed()?.into_iter().map(|(_, p)| p).collect();
    if let Some(p) = std::env::var_os("PCMAP_PLUGIN") {
        plugins.push(PathBuf::from(p));
    }
    configuration(&mut out, &plugins);
    match compiler.and_then(|c| resolve(c).map(|p| (c, p))) {
        Some((c, p)) => {
            let _ = writeln!(out, "compiler {}", exact(c.as_bytes()));
            identity(&mut out, "compiler file", &p);
        }
        None => out.push_str("compiler unknown\n"),
    }
    Ok(out)
}

/// The compiler `pcmap --pcmap-cache-key` stands for when ccache runs it as
/// its compiler_check: the word after `cc` on the command line of the
/// ccache that runs it (`ccache /path/pcmap cc clang-16 …`).
pub fn compiler_from_parent() -> Option<OsString> {
    let cmdline = std::fs::read(format!(
        "/proc/{}/cmdline",
        std::os::unix::process::parent_id()
    ))
    .ok()?;
    let words: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
    let exe = std::env::current_exe().ok()?;
    let at = words.iter().position(|w| {
        std::fs::canonicalize(OsStr::from_bytes(w)).is_ok_and(|p| p == exe)
            || resolve(OsStr::from_bytes(w))
                .and_then(|p| std::fs::canonicalize(p).ok())
                .is_some_and(|p| p == exe)
    })?;
    match (words.get(at + 1), words.get(at + 2)) {
        (Some(&b"cc"), Some(c)) => Some(OsStr::from_bytes(c).to_os_string()),
        _ => None,
    }
}

/// What `command` needs to hash the configuration when the cache comes
/// after pcmap: environment variables to set, and a file to keep open
/// until the command ran (ccache reads it through /dev/fd).
pub fn add_key(
    command: &mut Command,
    cache: Cache,
    plugin: &Path,
) -> Result<Option<std::fs::File>> {
    let key = key_after(plugin);
    match cache {
        Cache::Sccache => {
            let mut buster = std::env::var_os("SCCACHE_C_CUSTOM_CACHE_BUSTER").unwrap_or_default();
            if !buster.is_empty() {
                buster.push("\n");
            }
            buster.push(&key);
            command.env("SCCACHE_C_CUSTOM_CACHE_BUSTER", buster);
            Ok(None)
        }
        Cache::Ccache => {
            let file = memfd(&key)?;
            let mut extra = std::env::var_os("CCACHE_EXTRAFILES").unwrap_or_default();
            if !extra.is_empty() {
                extra.push(":");
            }
            extra.push(format!(
                "/dev/fd/{}",
                std::os::fd::AsRawFd::as_raw_fd(&file)
            ));
            command.env("CCACHE_EXTRAFILES", extra);
            Ok(Some(file))
        }
    }
}

/// A file with no name holding `text`, inherited by children (no
/// close-on-exec), so that a child reads it as /dev/fd/N.
fn memfd(text: &str) -> Result<std::fs::File> {
    use std::io::{Seek, Write};
    let fd = rustix::fs::memfd_create("pcmap-cc-key", rustix::fs::MemfdFlags::empty())
        .context("cc: cannot create the cache key's file")?;
    let mut file = std::fs::File::from(fd);
    file.write_all(text.as_bytes())
        .and_then(|()| file.rewind())
        .context("cc: cannot write the cache key's file")?;
    Ok(file)
}

/// A cache running `pcmap cc` as its compiler, if the parent process is
/// one: (which, its executable).
fn parent_cache() -> Option<(Cache, PathBuf)> {
    let exe =
        std::fs::read_link(format!("/proc/{}/exe", std::os::unix::process::parent_id())).ok()?;
    let cache = Cache::of_name(exe.file_name()?)?;
    Some((cache, exe))
}

/// The compiler_check a cache in front of pcmap must have for pcmap to run
/// under it.
pub const COMPILER_CHECK: &str = "%compiler% --pcmap-cache-key";

/// Refuses to make an object that a cache running pcmap as its compiler
/// would store under a key that does not cover pcmap's configuration.
/// Links are never cached, and pass-through commands make no object.
pub fn check_parent(mode: Mode) -> Result<()> {
    if matches!(mode, Mode::PassThrough | Mode::Link) {
        return Ok(());
    }
    let Some((cache, exe)) = parent_cache() else {
        return Ok(());
    };
    match cache {
        Cache::Ccache => {
            let out = Command::new(&exe)
                .args(["-k", "compiler_check"])
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .with_context(|| format!("cc: cannot run {}", exe.display()))?;
            let value = String::from_utf8_lossy(&out.stdout);
            let covered = value.split(';').any(|c| {
                c.split_whitespace()
                    .eq(COMPILER_CHECK.split_whitespace())
            });
            if !covered {
                bail!(
                    "cc: run by ccache as the compiler, which would serve objects built with another pcmap configuration: set CCACHE_COMPILERCHECK='{COMPILER_CHECK}', or put ccache after pcmap (CC='pcmap cc ccache COMPILER'; CMake: -DCMAKE_C_COMPILER_LAUNCHER='pcmap;cc;ccache')"
                );
            }
            Ok(())
        }
        Cache::Sccache => bail!(
            "cc: run by {0} as the compiler, which cannot hash pcmap's configuration: put {0} after pcmap (CC='pcmap cc {0} COMPILER'; CMake: -DCMAKE_C_COMPILER_LAUNCHER='pcmap;cc;{0}')",
            cache.name()
        ),
    }
}
