//! Compile and link in one command: the driver compiles and links as it
//! always does, and pcmap stands in for the linker.
//!
//! ```text
//! ask:     COMPILER ARGS -### (the compiler itself, never a cache): the
//!          link job's program is the real linker; compile jobs whose -o is
//!          a link input outside $TMPDIR are objects the command keeps
//!          (-save-temps)
//! run:     COMPILER ARGS -fpass-plugin=P --ld-path=DIR/pcmap-ld with
//!          TMPDIR=DIR, DIR a private directory: the driver's temporary
//!          objects land in DIR; every side output (-MMD's .d, .dwo, .gcno,
//!          -save-temps' files) lands where the driver puts it, since the
//!          driver runs the command as given
//! link:    pcmap-ld (a link to pcmap in DIR) finishes every input object
//!          in DIR or kept by the command (emit, in place), writes
//!          DIR/linked, and runs the real linker with the same arguments
//!          (response files untouched, TMPDIR as it was)
//! end:     the driver's status; success without DIR/linked (a linker that
//!          was not pcmap's) is an error and the output is removed
//! ```

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};

use anyhow::{anyhow, bail, Context, Result};

use super::args::{split_response_file, Args, Built, Edit, Invocation};
use super::cache::Compiler;
use super::object;
use crate::plugin;
use crate::signals::{self, ArmedDir};

/// The name of pcmap's stand-in linker (multicall).
pub const LINKER_NAME: &str = "pcmap-ld";
/// In the private directory: what the stand-in needs to know, and the
/// mark it leaves once it ran.
const CONFIG: &str = "link";
const LINKED: &str = "linked";

/// Runs a compile and link with the plugin, its objects finished before
/// the link.
pub fn run(
    compiler: &Compiler,
    args: &Args,
    inv: &Invocation,
    base: Edit,
    plugin: Option<&Path>,
    cache_env: &mut dyn FnMut(&mut std::process::Command) -> Result<Option<std::fs::File>>,
) -> Result<ExitCode> {
    let dir = ArmedDir::new("pcmap-cc.").context("cc: cannot create a temporary directory")?;
    let mut edit = base;
    if let Some(p) = plugin {
        if !plugin::loaded_by(args.expanded.iter().map(|a| a.text.as_os_str()), p) {
            edit.add.push(plugin::arg(p));
        }
    }
    // The driver's own commands, as it would run them.
    let mut ask = edit.clone();
    ask.add.push("-###".into());
    let asked = args.build(&ask)?;
    let jobs = match driver_jobs(compiler, &asked, dir.path())? {
        Ok(jobs) => jobs,
        // The command fails the same way when run: the driver said why.
        Err(status) => return Ok(exit_code(status)),
    };
    drop(asked);
    let Some(link) = jobs.last().filter(|j| !is_compile_job(j)) else {
        bail!(
            "cc: {} -### runs no linker for a command pcmap took for a compile and link: {}",
            Path::new(&compiler.real).display(),
            describe(&jobs)
        );
    };
    let linker = link[0].clone();
    let output = value_after(link, "-o");
    let kept = kept_objects(&jobs, dir.path());

    // The stand-in and what it needs.
    let exe = std::env::current_exe().context("cc: cannot find the pcmap executable")?;
    let stand_in = dir.path().join(LINKER_NAME);
    std::os::unix::fs::symlink(&exe, &stand_in)
        .with_context(|| format!("cc: {}: cannot create", stand_in.display()))?;
    let sources: Vec<&OsStr> = inv
        .sources()
        .map(|s| args.expanded[s.index].text.as_os_str())
        .collect();
    write_config(dir.path(), &linker, &kept, &sources)?;

    let mut ld_path = OsString::from("--ld-path=");
    ld_path.push(&stand_in);
    edit.add.push(ld_path);
    let built = args.build(&edit)?;
    let mut command = compiler.command(&built.args);
    command.env("TMPDIR", dir.path());
    let _key = cache_env(&mut command)?;
    let status = signals::run(&mut command)
        .with_context(|| format!("cc: cannot run {}", Path::new(&compiler.run[0]).display()))?;
    drop(built);
    if status.success() && !dir.path().join(LINKED).exists() {
        if let Some(o) = &output {
            object::remove_regular(Path::new(o));
        }
        bail!(
            "cc: {} linked without pcmap's linker (a --ld-path, -fuse-ld=PATH or a driver that does not take --ld-path?): its objects would be unfinished",
            Path::new(&compiler.real).display()
        );
    }
    Ok(exit_code(status))
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    ExitCode::from(u8::try_from(signals::shell_code(status)).unwrap_or(1))
}

/// The jobs `asked` (a command with -###) prints: each a program and its
/// arguments; or, when the driver refuses the command, its status (its
/// diagnostics passed on).
fn driver_jobs(
    compiler: &Compiler,
    asked: &Built,
    tmpdir: &Path,
) -> Result<std::result::Result<Vec<Vec<OsString>>, std::process::ExitStatus>> {
    let out = std::process::Command::new(&compiler.real)
        .args(&asked.args)
        .env("TMPDIR", tmpdir)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cc: cannot run {}", Path::new(&compiler.real).display()))?;
    if !out.status.success() {
        std::io::stderr().write_all(&out.stderr)?;
        return Ok(Err(out.status));
    }
    Ok(Ok(parse_jobs(&out.stderr)))
}

/// The jobs in a driver's -### output: lines of double-quoted arguments
/// (`"` `\` `$` escaped by a backslash, as llvm::sys::printArg writes
/// them), one job a line; other lines (the version, "(in-process)") are
/// not jobs.
pub fn parse_jobs(text: &[u8]) -> Vec<Vec<OsString>> {
    let mut jobs = Vec::new();
    let mut job: Vec<OsString> = Vec::new();
    let mut i = 0;
    // Only lines that start with ` "` hold a job.
    let mut in_job = false;
    let mut line_start = true;
    while i < text.len() {
        let b = text[i];
        if line_start {
            in_job = text[i..].starts_with(b" \"");
            line_start = false;
        }
        if !in_job {
            if b == b'\n' {
                line_start = true;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                let mut arg = Vec::new();
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    if text[i] == b'\\' && i + 1 < text.len() {
                        i += 1;
                    }
                    arg.push(text[i]);
                    i += 1;
                }
                job.push(OsString::from_vec(arg));
            }
            b'\n' => {
                if !job.is_empty() {
                    jobs.push(std::mem::take(&mut job));
                }
                line_start = true;
            }
            _ => {}
        }
        i += 1;
    }
    if !job.is_empty() {
        jobs.push(job);
    }
    jobs
}

/// Whether a job is the driver compiling or assembling (clang -cc1 or
/// -cc1as), not running another program.
pub fn is_compile_job(job: &[OsString]) -> bool {
    job.get(1)
        .is_some_and(|a| matches!(a.as_bytes(), b"-cc1" | b"-cc1as"))
}

fn value_after(job: &[OsString], option: &str) -> Option<OsString> {
    job.iter()
        .position(|a| a.as_bytes() == option.as_bytes())
        .and_then(|i| job.get(i + 1).cloned())
}

/// Objects compile jobs write outside `tmpdir` that the link reads: the
/// command keeps them (-save-temps), and they are finished in place.
fn kept_objects(jobs: &[Vec<OsString>], tmpdir: &Path) -> Vec<OsString> {
    let Some(link) = jobs.last() else {
        return Vec::new();
    };
    jobs.iter()
        .filter(|j| is_compile_job(j))
        .filter_map(|j| value_after(j, "-o"))
        .filter(|o| !Path::new(o).starts_with(tmpdir) && link.contains(o))
        .collect()
}

fn describe(jobs: &[Vec<OsString>]) -> String {
    match jobs.last() {
        None => "it runs nothing".to_string(),
        Some(j) => format!(
            "its last job is {}",
            j.iter()
                .take(3)
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

/// The stand-in's configuration: tagged, NUL-terminated fields (paths may
/// hold any byte but NUL). `L` the real linker, `T` the TMPDIR to give it
/// back (absent: unset), `O` an object kept by the command, `S` a source
/// (to name it in errors).
fn write_config(dir: &Path, linker: &OsStr, kept: &[OsString], sources: &[&OsStr]) -> Result<()> {
    let mut text = Vec::new();
    let mut field = |tag: u8, value: &[u8]| {
        text.push(tag);
        text.extend_from_slice(value);
        text.push(0);
    };
    field(b'L', linker.as_bytes());
    if let Some(t) = std::env::var_os("TMPDIR") {
        field(b'T', t.as_bytes());
    }
    for o in kept {
        field(b'O', o.as_bytes());
    }
    for s in sources {
        field(b'S', s.as_bytes());
    }
    let path = dir.join(CONFIG);
    std::fs::write(&path, text).with_context(|| format!("cc: {}: cannot write", path.display()))
}

struct Config {
    linker: OsString,
    tmpdir: Option<OsString>,
    kept: Vec<OsString>,
    sources: Vec<OsString>,
}

fn read_config(dir: &Path) -> Result<Config> {
    let path = dir.join(CONFIG);
    let text = std::fs::read(&path).with_context(|| {
        format!(
            "{LINKER_NAME}: {}: cannot read (pcmap-ld is run by pcmap cc, as the driver's linker)",
            path.display()
        )
    })?;
    let mut config = Config {
        linker: OsString::new(),
        tmpdir: None,
        kept: Vec::new(),
        sources: Vec::new(),
    };
    for f in text.split(|&b| b == 0).filter(|f| !f.is_empty()) {
        let value = OsString::from_vec(f[1..].to_vec());
        match f[0] {
            b'L' => config.linker = value,
            b'T' => config.tmpdir = Some(value),
            b'O' => config.kept.push(value),
            b'S' => config.sources.push(value),
            _ => {}
        }
    }
    if config.linker.is_empty() {
        bail!("{LINKER_NAME}: {}: names no linker", path.display());
    }
    Ok(config)
}

/// pcmap-ld: finishes the objects the driver made for this link, then
/// becomes the real linker.
pub fn stand_in(argv0: &Path, args: &[OsString]) -> Result<ExitCode> {
    let dir = argv0
        .parent()
        .ok_or_else(|| anyhow!("{LINKER_NAME}: not run by pcmap cc"))?;
    let config = read_config(dir)?;
    // The driver may pass its arguments in a response file (in TMPDIR):
    // read, never rewritten.
    let mut seen = Vec::new();
    for arg in args {
        match arg.as_bytes().strip_prefix(b"@") {
            Some(file) => match std::fs::read(OsStr::from_bytes(file)) {
                Ok(text) => seen.extend(split_response_file(&text)),
                Err(_) => seen.push(arg.clone()),
            },
            None => seen.push(arg.clone()),
        }
    }
    let mut after_o = false;
    for arg in &seen {
        let is_output = after_o;
        after_o = arg.as_bytes() == b"-o";
        if is_output {
            continue;
        }
        let path = Path::new(arg);
        let ours = path.starts_with(dir) || config.kept.contains(arg);
        if !ours || !path.is_file() {
            continue;
        }
        object::finish_in_place(path).with_context(|| name_source(path, &config.sources))?;
    }
    let linked = dir.join(LINKED);
    std::fs::write(&linked, b"").with_context(|| format!("{}: cannot write", linked.display()))?;
    let mut command = std::process::Command::new(&config.linker);
    command.args(args);
    match &config.tmpdir {
        Some(t) => command.env("TMPDIR", t),
        None => command.env_remove("TMPDIR"),
    };
    let e = command.exec();
    Err(anyhow!(e)).with_context(|| {
        format!(
            "{LINKER_NAME}: cannot run {}",
            Path::new(&config.linker).display()
        )
    })
}

/// "bump.c" for the driver's temporary object of bump.c (STEM-XXXXXX.o),
/// when exactly one source has that stem.
fn name_source(object: &Path, sources: &[OsString]) -> String {
    let stem = object
        .file_stem()
        .map(|s| s.as_bytes())
        .and_then(|s| s.iter().rposition(|&b| b == b'-').map(|at| &s[..at]))
        .unwrap_or(b"");
    let mut matching = sources
        .iter()
        .filter(|s| Path::new(s).file_stem().map(|f| f.as_bytes()) == Some(stem));
    match (matching.next(), matching.next()) {
        (Some(s), None) => PathBuf::from(s).display().to_string(),
        _ => "cc".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_from_driver_output() {
        let text = b"Debian clang version 16.0.6\nTarget: x86_64-pc-linux-gnu\n (in-process)\n \"/usr/bin/clang\" \"-cc1\" \"-o\" \"/tmp/a-1.o\" \"x\\\"y\\\\z\\$\"\n \"/usr/bin/ld\" \"-o\" \"prog\" \"/tmp/a-1.o\"\n";
        let jobs = parse_jobs(text);
        assert_eq!(jobs.len(), 2);
        assert_eq!(
            jobs[0],
            ["/usr/bin/clang", "-cc1", "-o", "/tmp/a-1.o", "x\"y\\z$"].map(OsString::from)
        );
        assert!(is_compile_job(&jobs[0]));
        assert!(!is_compile_job(&jobs[1]));
        assert_eq!(value_after(&jobs[1], "-o"), Some("prog".into()));
    }

    #[test]
    fn kept_objects_are_the_links_inputs_outside_tmpdir() {
        let jobs: Vec<Vec<OsString>> = [
            vec!["clang", "-cc1", "-o", "st/a.s"],
            vec!["clang", "-cc1as", "-o", "st/a.o"],
            vec!["clang", "-cc1", "-o", "/tmp/p/b-1.o"],
            vec!["ld", "-o", "prog", "st/a.o", "/tmp/p/b-1.o"],
        ]
        .into_iter()
        .map(|j| j.into_iter().map(OsString::from).collect())
        .collect();
        assert_eq!(
            kept_objects(&jobs, Path::new("/tmp/p")),
            [OsString::from("st/a.o")]
        );
    }

    #[test]
    fn sources_named_from_temporary_objects() {
        let sources: Vec<OsString> = ["src/bump.c", "main.c", "x/main.c"]
            .map(OsString::from)
            .to_vec();
        assert_eq!(
            name_source(Path::new("/t/bump-a1b2c3.o"), &sources),
            "src/bump.c"
        );
        assert_eq!(name_source(Path::new("/t/main-a1b2c3.o"), &sources), "cc");
    }
}
