//! `pcmap cc COMPILER ARGS…`: one compiler invocation with the plugin, every
//! object it writes finished in place, so that `CC="pcmap cc clang-16"` works
//! from make, CMake and the Rust `cc` crate.
//!
//! ```text
//! the command line (response files @FILE expanded), read as clang reads it:
//!   options, their separate arguments (-o X, -I DIR, -x LANG, …), inputs
//!   (sources by -x LANG or extension; anything else goes to the linker)
//!
//! no object made     -E -M -MM -S -fsyntax-only -emit-llvm --version -###
//! (probe)            -dumpversion -print-*, or no source the plugin reads
//!                    ──▶ run as given: no plugin, nothing emitted
//! compile (-c)       ──▶ COMPILER -fpass-plugin=P ARGS…, then pcmap emit
//!                        --in-place on each object: -o X, else each
//!                        source's BASENAME.o in the working directory
//! compile and link   ──▶ each source the plugin reads: COMPILER ARGS… -c
//!                        -Qunused-arguments -fpass-plugin=P SRC -o TMP/N.o,
//!                        emitted; then the given command with those sources
//!                        replaced by their objects
//! ```
//!
//! `-fno-pcmap` runs the command as given less that flag: for sources that
//! must not be instrumented in a build that instruments the rest, such as
//! the runtime that receives the tables (as a sanitizer's runtime is built
//! without the sanitizer: its own functions stay out of the tables).
//!
//! An object emit refuses is deleted (make must not take the target as
//! built). The compiler's own exit status is returned when it fails. LLVM
//! bitcode outputs (`-flto`) are left as they are: the plugin finishes its
//! tables itself there (docs/plugin.md, LTO); a non-regular output
//! (`-o /dev/null`) has nothing to finish.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus};

use anyhow::{bail, Context, Result};

/// The plugin's file name, beside `pcmap` in a build tree and in `../lib`
/// of an install.
pub const PLUGIN_NAME: &str = "libpcmap_plugin.so";

/// `pcmap cc` under the names a build takes as one compiler executable
/// (CMake's CMAKE_C_COMPILER, the `cc` crate's compiler probe, which runs
/// `$CC -E` without CC's other words): a link named `pcmap-cc` (`pcmap-c++`)
/// to `pcmap` runs `pcmap cc ${PCMAP_CC:-clang-16}` (`${PCMAP_CXX:-clang++-16}`)
/// with its arguments. `None` under any other name.
pub fn multicall() -> Option<Vec<OsString>> {
    let mut args = std::env::args_os();
    let argv0 = args.next()?;
    let (var, default) = match Path::new(&argv0).file_name()?.as_bytes() {
        b"pcmap-cc" => ("PCMAP_CC", "clang-16"),
        b"pcmap-c++" => ("PCMAP_CXX", "clang++-16"),
        _ => return None,
    };
    let compiler = std::env::var_os(var)
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| default.into());
    Some(std::iter::once(compiler).chain(args).collect())
}

/// Runs `pcmap cc COMPILER ARGS…`; `Ok` carries the exit code to return
/// (the compiler's, when it failed).
pub fn run(command: &[OsString]) -> Result<ExitCode> {
    let Some((compiler, args)) = command.split_first() else {
        bail!("cc: usage: pcmap cc COMPILER [ARGS…]");
    };
    let args = expand_response_files(args, 0)?;
    // -fno-pcmap / -fpcmap (the last one counts) are pcmap's, never the
    // compiler's.
    let off = args
        .iter()
        .rev()
        .find_map(|a| match a.as_bytes() {
            b"-fno-pcmap" => Some(true),
            b"-fpcmap" => Some(false),
            _ => None,
        })
        .unwrap_or(false);
    let args: Vec<OsString> = args
        .into_iter()
        .filter(|a| !matches!(a.as_bytes(), b"-fno-pcmap" | b"-fpcmap"))
        .collect();
    if off {
        return status_code(run_compiler(compiler, &args)?);
    }
    let inv = Invocation::parse(&args)?;
    match inv.mode {
        Mode::PassThrough => status_code(run_compiler(compiler, &args)?),
        Mode::Compile => compile(compiler, &inv, &plugin()?),
        Mode::Link => compile_and_link(compiler, &inv, &plugin()?),
    }
}

/// Where the plugin is: `$PCMAP_PLUGIN`, else beside the `pcmap` executable
/// (a build tree), else in `../lib` from it (an install).
pub fn plugin() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("PCMAP_PLUGIN") {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("cc: PCMAP_PLUGIN={}: no such file", p.display());
        }
        return absolute(&p);
    }
    let exe = std::env::current_exe().context("cc: cannot find the pcmap executable")?;
    let dir = exe.parent().unwrap_or(Path::new("/"));
    for candidate in [dir.join(PLUGIN_NAME), dir.join("../lib").join(PLUGIN_NAME)] {
        if candidate.is_file() {
            return absolute(&candidate);
        }
    }
    bail!(
        "cc: cannot find the plugin {PLUGIN_NAME} beside {} or in {}: set PCMAP_PLUGIN",
        exe.display(),
        dir.join("../lib").display()
    )
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::fs::canonicalize(p).with_context(|| format!("cc: {}: cannot resolve", p.display()))
}

/// How clang reads an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    /// C, C++, Objective-C, CUDA, OpenCL, LLVM IR: code the plugin sees.
    Code,
    /// Assembly: compiled to an object the plugin never saw.
    Assembly,
    /// A header (precompiled header output, no object).
    Header,
    /// An object, archive, library or anything else: the linker's.
    Linker,
}

fn lang_of_extension(path: &OsStr) -> Lang {
    let ext = Path::new(path)
        .extension()
        .map(|e| e.as_bytes())
        .unwrap_or(b"");
    match ext {
        b"c" | b"i" | b"cc" | b"cp" | b"cxx" | b"cpp" | b"CPP" | b"c++" | b"C" | b"ii" | b"m"
        | b"mi" | b"mm" | b"M" | b"mii" | b"cu" | b"hip" | b"cl" | b"ll" | b"bc" | b"cppm"
        | b"ccm" | b"cxxm" | b"c++m" => Lang::Code,
        b"s" | b"S" | b"sx" => Lang::Assembly,
        b"h" | b"hh" | b"hpp" | b"hxx" | b"H" | b"h++" | b"cuh" => Lang::Header,
        _ => Lang::Linker,
    }
}

fn lang_of_x(lang: &OsStr) -> Option<Lang> {
    let l = lang.as_bytes();
    if l == b"none" {
        None
    } else if l.starts_with(b"assembler") {
        Some(Lang::Assembly)
    } else if l.ends_with(b"-header") || l == b"ast" || l == b"precompiled-header" {
        Some(Lang::Header)
    } else {
        Some(Lang::Code)
    }
}

/// Options whose value is the next argument (clang's `Separate` and
/// `JoinedOrSeparate` spellings that appear in builds): that argument is
/// never an input.
const SEPARATE: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-include",
    "-include-pch",
    "-imacros",
    "-isystem",
    "-isystem-after",
    "-cxx-isystem",
    "-iquote",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-iwithsysroot",
    "-iframework",
    "-iframeworkwithsysroot",
    "-imultilib",
    "-isysroot",
    "-ivfsoverlay",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-x",
    "-Xclang",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xanalyzer",
    "-Xopenmp-target",
    "-Xoffload-linker",
    "-Xcuda-fatbinary",
    "-Xcuda-ptxas",
    "-Xarch_host",
    "-Xarch_device",
    "-mllvm",
    "-L",
    "-l",
    "-T",
    "-Tbss",
    "-Tdata",
    "-Ttext",
    "-u",
    "-e",
    "-z",
    "-B",
    "-F",
    "-A",
    "-G",
    "-target",
    "-arch",
    "-gcc-toolchain",
    "-rpath",
    "-resource-dir",
    "-dependency-file",
    "-dependency-dot",
    "-serialize-diagnostics",
    "-working-directory",
    "-aux-info",
    "-ccc-gcc-name",
    "-ccc-install-dir",
    "--sysroot",
    "--gcc-toolchain",
    "--output",
    "--include-directory",
    "--include-directory-after",
    "--include-prefix",
    "--include-with-prefix",
    "--include-with-prefix-before",
    "--include-with-prefix-after",
    "--include",
    "--imacros",
    "--define-macro",
    "--undefine-macro",
    "--language",
    "--library-directory",
    "--for-linker",
    "--force-link",
    "--assert",
    "--param",
    "--prefix",
    "--system-header-prefix",
    "--no-system-header-prefix",
    "--serialize-diagnostics",
];

/// Options after which the compiler writes no object (or only prints).
fn is_no_object(arg: &[u8]) -> bool {
    matches!(
        arg,
        b"-E"
            | b"-M"
            | b"-MM"
            | b"-S"
            | b"-fsyntax-only"
            | b"-emit-llvm"
            | b"-###"
            | b"--version"
            | b"-dumpversion"
            | b"-dumpfullversion"
            | b"-dumpmachine"
            | b"-dumpspecs"
            | b"--help"
            | b"-help"
            | b"--help-hidden"
            | b"-fdriver-only"
            | b"--precompile"
    ) || arg.starts_with(b"-print-")
        || arg.starts_with(b"--print-")
        || arg.starts_with(b"--help=")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Run exactly as given.
    PassThrough,
    /// `-c`: compile with the plugin, emit each object.
    Compile,
    /// Compile and link in one: split.
    Link,
}

#[derive(Debug)]
struct Input {
    /// Its index in the arguments.
    index: usize,
    lang: Lang,
    /// The `-x LANG` in force for it.
    x: Option<OsString>,
}

/// The arguments (response files expanded), read as clang reads them.
#[derive(Debug)]
struct Invocation<'a> {
    args: &'a [OsString],
    inputs: Vec<Input>,
    /// The `-o` value and the argument indices that spell it.
    output: Option<(OsString, Vec<usize>)>,
    /// Indices of every `-x LANG` spelling.
    x_args: Vec<usize>,
    mode: Mode,
}

impl<'a> Invocation<'a> {
    fn parse(args: &'a [OsString]) -> Result<Invocation<'a>> {
        let mut inputs = Vec::new();
        let mut output = None;
        let mut x_args = Vec::new();
        let mut x: Option<OsString> = None;
        let (mut compile_only, mut no_object) = (false, false);
        let mut i = 0;
        while i < args.len() {
            let arg = args[i].as_bytes();
            // `--` ends the options: everything after it is an input.
            if arg == b"--" {
                for (j, a) in args.iter().enumerate().skip(i + 1) {
                    inputs.push(input(j, a, &x));
                }
                break;
            }
            if arg == b"-" || !arg.starts_with(b"-") {
                inputs.push(input(i, &args[i], &x));
                i += 1;
                continue;
            }
            let separate = SEPARATE.contains(&std::str::from_utf8(arg).unwrap_or(""))
                || arg.starts_with(b"-Xarch_");
            let value = if separate {
                let Some(v) = args.get(i + 1) else {
                    // The compiler reports the missing value itself.
                    no_object = true;
                    break;
                };
                Some(v.clone())
            } else {
                None
            };
            let spans: Vec<usize> = if separate { vec![i, i + 1] } else { vec![i] };
            match arg {
                b"-c" => compile_only = true,
                b"-o" | b"--output" => output = Some((value.clone().unwrap(), spans.clone())),
                b"-x" | b"--language" => {
                    x = value.clone().filter(|v| v.as_bytes() != b"none");
                    x_args.extend(&spans);
                }
                _ if is_no_object(arg) => no_object = true,
                _ if arg.starts_with(b"-o") && arg.len() > 2 => {
                    output = Some((OsString::from_vec(arg[2..].to_vec()), spans.clone()))
                }
                _ if arg.starts_with(b"--output=") => {
                    output = Some((OsString::from_vec(arg[9..].to_vec()), spans.clone()))
                }
                _ if arg.starts_with(b"-x") => {
                    let v = &arg[2..];
                    x = (v != b"none").then(|| OsString::from_vec(v.to_vec()));
                    x_args.push(i);
                }
                _ if arg.starts_with(b"--language=") => {
                    let v = &arg[11..];
                    x = (v != b"none").then(|| OsString::from_vec(v.to_vec()));
                    x_args.push(i);
                }
                _ => {}
            }
            i += spans.len();
        }
        let code = inputs.iter().any(|i| i.lang == Lang::Code);
        let header = inputs.iter().any(|i| i.lang == Lang::Header);
        let mode = if no_object || !code || header {
            // A header makes a precompiled header, not an object; the
            // plugin would be an unused argument there.
            Mode::PassThrough
        } else if compile_only {
            Mode::Compile
        } else {
            Mode::Link
        };
        if mode != Mode::PassThrough {
            if let Some((o, _)) = &output {
                if o.as_bytes() == b"-" {
                    bail!("cc: cannot finish an object written to standard output (-o -)");
                }
            }
        }
        Ok(Invocation {
            args,
            inputs,
            output,
            x_args,
            mode,
        })
    }

    /// The objects a `-c` compile writes: `-o`'s, else one per source,
    /// named after it, in the working directory.
    fn objects(&self) -> Vec<PathBuf> {
        if let Some((o, _)) = &self.output {
            return vec![PathBuf::from(o)];
        }
        self.inputs
            .iter()
            .filter(|i| i.lang != Lang::Linker)
            .map(|i| {
                let path = Path::new(&self.args[i.index]);
                let mut name = path.file_stem().unwrap_or(path.as_os_str()).to_os_string();
                name.push(".o");
                PathBuf::from(name)
            })
            .collect()
    }

    /// The arguments less every input, `-o` and `-x`: what every one of
    /// the split compiles shares.
    fn compile_args(&self) -> Vec<OsString> {
        let mut drop = vec![false; self.args.len()];
        for i in &self.inputs {
            drop[i.index] = true;
        }
        for &i in self.output.iter().flat_map(|(_, s)| s).chain(&self.x_args) {
            drop[i] = true;
        }
        self.args
            .iter()
            .zip(drop)
            .filter(|(_, d)| !d)
            .map(|(a, _)| a.clone())
            .collect()
    }
}

fn input(index: usize, arg: &OsStr, x: &Option<OsString>) -> Input {
    let lang = match x.as_deref().and_then(lang_of_x) {
        Some(l) => l,
        // stdin without -x is an error the compiler reports.
        None => lang_of_extension(arg),
    };
    Input {
        index,
        lang,
        x: x.clone(),
    }
}

fn plugin_arg(plugin: &Path) -> OsString {
    let mut a = OsString::from("-fpass-plugin=");
    a.push(plugin);
    a
}

/// Whether `args` load `plugin` already (`-fpass-plugin=` naming the same
/// file): a second copy would run the pass twice, which it refuses.
fn loads(args: &[OsString], plugin: &Path) -> bool {
    args.iter().any(|a| {
        a.as_bytes()
            .strip_prefix(b"-fpass-plugin=")
            .and_then(|p| std::fs::canonicalize(OsStr::from_bytes(p)).ok())
            .is_some_and(|p| p == plugin)
    })
}

fn run_compiler(compiler: &OsStr, args: &[OsString]) -> Result<ExitStatus> {
    Command::new(compiler)
        .args(args)
        .status()
        .with_context(|| format!("cc: cannot run {}", Path::new(compiler).display()))
}

/// The compiler's exit status as ours: its code, or 128 + the signal that
/// killed it (as a shell reports it).
fn status_code(status: ExitStatus) -> Result<ExitCode> {
    let code = match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        (None, None) => 1,
    };
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// `-c`: the compile as given plus the plugin, then every object emitted.
fn compile(compiler: &OsStr, inv: &Invocation, plugin: &Path) -> Result<ExitCode> {
    let mut args = Vec::with_capacity(inv.args.len() + 1);
    if !loads(inv.args, plugin) {
        args.push(plugin_arg(plugin));
    }
    args.extend(inv.args.iter().cloned());
    let status = run_compiler(compiler, &args)?;
    if !status.success() {
        return status_code(status);
    }
    for object in inv.objects() {
        finish(compiler, &object)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Compile and link in one command: each source the plugin reads compiled
/// on its own and emitted, then the command run with their objects.
fn compile_and_link(compiler: &OsStr, inv: &Invocation, plugin: &Path) -> Result<ExitCode> {
    let dir = tempfile::Builder::new()
        .prefix("pcmap-cc.")
        .tempdir()
        .context("cc: cannot create a temporary directory")?;
    let shared = inv.compile_args();
    let mut replaced: Vec<Option<PathBuf>> = vec![None; inv.args.len()];
    for (n, source) in inv.inputs.iter().enumerate() {
        if source.lang != Lang::Code {
            continue;
        }
        let path = Path::new(&inv.args[source.index]);
        let stem = path.file_stem().unwrap_or(path.as_os_str());
        let mut name = OsString::from(format!("{n}-"));
        name.push(stem);
        name.push(".o");
        let object = dir.path().join(name);
        let mut args = shared.clone();
        args.extend(["-c", "-Qunused-arguments"].map(OsString::from));
        if !loads(&shared, plugin) {
            args.push(plugin_arg(plugin));
        }
        if let Some(x) = &source.x {
            args.extend([OsString::from("-x"), x.clone()]);
        }
        args.extend([
            inv.args[source.index].clone(),
            "-o".into(),
            object.clone().into(),
        ]);
        let status = run_compiler(compiler, &args)?;
        if !status.success() {
            return status_code(status);
        }
        // The temporary object's name means nothing to the user: the
        // source's does.
        finish(compiler, &object).with_context(|| path.display().to_string())?;
        replaced[source.index] = Some(object);
    }
    // The given command, each compiled source replaced by its object (out
    // of any -x LANG in force, which would make it a source again).
    let mut args = vec![OsString::from("-Qunused-arguments")];
    for (i, arg) in inv.args.iter().enumerate() {
        match &replaced[i] {
            None => args.push(arg.clone()),
            Some(object) => {
                let x = inv
                    .inputs
                    .iter()
                    .find(|s| s.index == i)
                    .and_then(|s| s.x.clone());
                match x {
                    Some(x) => args.extend([
                        "-x".into(),
                        "none".into(),
                        object.clone().into(),
                        "-x".into(),
                        x,
                    ]),
                    None => args.push(object.clone().into()),
                }
            }
        }
    }
    status_code(run_compiler(compiler, &args)?)
}

/// `pcmap emit --in-place` on an object the compiler wrote; on failure the
/// object is deleted, so no build takes it as done.
fn finish(compiler: &OsStr, object: &Path) -> Result<()> {
    let meta = match std::fs::metadata(object) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "cc: {} wrote no object at {}, where pcmap expected one",
            Path::new(compiler).display(),
            object.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("{}: cannot read", object.display())),
    };
    // /dev/null and the like: nothing kept, nothing to finish.
    if !meta.is_file() {
        return Ok(());
    }
    if is_bitcode(object)? {
        return Ok(());
    }
    let result = crate::emit(
        object,
        object,
        None,
        false,
        false,
        false,
        crate::output::TempKind::Unnamed,
    );
    if result.is_err() {
        let _ = std::fs::remove_file(object);
    }
    result
}

/// LLVM bitcode (`-flto`), bare or in its wrapper: no object to finish.
fn is_bitcode(path: &Path) -> Result<bool> {
    use std::io::Read;
    let mut magic = [0u8; 4];
    let mut f =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let n = f
        .read(&mut magic)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(n == 4 && (magic == *b"BC\xc0\xde" || magic == [0xde, 0xc0, 0x17, 0x0b]))
}

/// Replaces each `@FILE` naming a readable file by the arguments in it
/// (GNU syntax: whitespace between arguments, quotes and backslashes
/// escaping), as the compiler would; an `@` that names no file stays.
fn expand_response_files(args: &[OsString], depth: usize) -> Result<Vec<OsString>> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        let Some(file) = arg.as_bytes().strip_prefix(b"@") else {
            out.push(arg.clone());
            continue;
        };
        let path = Path::new(OsStr::from_bytes(file));
        let Ok(text) = std::fs::read(path) else {
            out.push(arg.clone());
            continue;
        };
        if depth > 16 {
            bail!("cc: {}: response files nested too deeply", path.display());
        }
        let inner = split_response_file(&text);
        out.extend(expand_response_files(&inner, depth + 1)?);
    }
    Ok(out)
}

fn split_response_file(text: &[u8]) -> Vec<OsString> {
    let mut args = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut in_arg = false;
    let mut quote: Option<u8> = None;
    let mut bytes = text.iter().copied();
    while let Some(b) = bytes.next() {
        match (quote, b) {
            (_, b'\\') => {
                if let Some(n) = bytes.next() {
                    cur.push(n);
                }
                in_arg = true;
            }
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => cur.push(b),
            (None, b'\'' | b'"') => {
                quote = Some(b);
                in_arg = true;
            }
            (None, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c') => {
                if in_arg {
                    args.push(OsString::from_vec(std::mem::take(&mut cur)));
                    in_arg = false;
                }
            }
            (None, _) => {
                cur.push(b);
                in_arg = true;
            }
        }
    }
    if in_arg {
        args.push(OsString::from_vec(cur));
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    fn parse(s: &str) -> (Mode, Vec<String>, Vec<PathBuf>) {
        let a = args(s);
        let inv = Invocation::parse(&a).unwrap();
        let sources = inv
            .inputs
            .iter()
            .filter(|i| i.lang == Lang::Code)
            .map(|i| a[i.index].to_string_lossy().into_owned())
            .collect();
        (inv.mode, sources, inv.objects())
    }

    #[test]
    fn probes_and_non_object_outputs_pass_through() {
        for cmd in [
            "--version",
            "-v",
            "-###",
            "-dumpversion",
            "-print-file-name=libc.a",
            "-E a.c",
            "-M a.c",
            "-MM a.c",
            "-S a.c",
            "-c -emit-llvm a.c",
            "-fsyntax-only a.c",
            "a.o b.o -o prog",
            "-c s.s -o s.o",
            "-x c-header -c h.h -o h.pch",
            "-c a.c -### -o a.o",
        ] {
            assert_eq!(parse(cmd).0, Mode::PassThrough, "{cmd}");
        }
    }

    #[test]
    fn separate_option_values_are_not_inputs() {
        let (mode, sources, objects) = parse(
            "-c -I inc.c -D X.c -include h.c -MF d.c -MT t.c -Xclang x.c -mllvm m.c \
             -isystem s.c -o out.o main.c",
        );
        assert_eq!(mode, Mode::Compile);
        assert_eq!(sources, ["main.c"]);
        assert_eq!(objects, [PathBuf::from("out.o")]);
    }

    #[test]
    fn objects_without_o_are_named_after_the_sources() {
        let (mode, sources, objects) = parse("-c dir/a.c ../b.tar.cpp -x c noext");
        assert_eq!(mode, Mode::Compile);
        assert_eq!(sources, ["dir/a.c", "../b.tar.cpp", "noext"]);
        assert_eq!(
            objects,
            ["a.o", "b.tar.o", "noext.o"].map(PathBuf::from).to_vec()
        );
        assert_eq!(parse("-c -oout.o a.c").2, [PathBuf::from("out.o")]);
    }

    #[test]
    fn x_language_is_honoured_and_reset() {
        let (_, sources, _) = parse("-c -x c foo.txt -x none bar.txt");
        assert_eq!(sources, ["foo.txt"]);
        let (mode, sources, _) = parse("-xc foo.txt -o prog");
        assert_eq!((mode, sources), (Mode::Link, vec!["foo.txt".to_string()]));
        assert_eq!(parse("-c -x assembler foo.c").0, Mode::PassThrough);
    }

    #[test]
    fn compile_and_link_is_split() {
        let a = args("-O2 -x c a.txt b.c lib.a -o prog -lm");
        let inv = Invocation::parse(&a).unwrap();
        assert_eq!(inv.mode, Mode::Link);
        assert_eq!(
            inv.compile_args(),
            args("-O2 -lm"),
            "inputs, -o and -x are each compile's own"
        );
    }

    #[test]
    fn output_to_stdout_is_refused() {
        let a = args("-c a.c -o -");
        let e = Invocation::parse(&a).unwrap_err();
        assert!(e.to_string().contains("standard output"), "{e}");
    }

    #[test]
    fn response_files_split_like_gcc() {
        let got = split_response_file(b"-c  'a b.c' \"x\\\"y\" c\\ d\n-o\tout.o");
        let want: Vec<OsString> = ["-c", "a b.c", "x\"y", "c d", "-o", "out.o"]
            .map(OsString::from)
            .to_vec();
        assert_eq!(got, want);
    }
}
