//! A compiler command line as clang reads it, and the command lines
//! `pcmap cc` runs in its place.
//!
//! ```text
//! given:     the arguments as the build wrote them; each @FILE stays one
//!            argument (a response file is passed through, never expanded
//!            onto a command line: it may be megabytes)
//! expanded:  the same with every response file read (GNU quoting, nested
//!            files), each argument knowing whether it is on the command
//!            line or in a file; read to see what the command does
//! edits:     arguments dropped or replaced, arguments added before the
//!            first `--` (after it, everything is an input) or at the end.
//!            Edits of arguments on the command line stay there; an edit
//!            inside a response file (or before a `--` in one) writes the
//!            whole edited command into a response file of pcmap's
//! ```

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::options::{self, Phase};
use crate::signals::{ArmedFile, SignalsBlocked};

/// One argument of the expanded command line.
#[derive(Debug, Clone)]
pub struct Arg {
    pub text: OsString,
    /// Its index among the given arguments when it is one of them; `None`
    /// when it comes from a response file.
    pub given: Option<usize>,
}

/// The arguments as given and as clang reads them.
#[derive(Debug)]
pub struct Args {
    pub given: Vec<OsString>,
    pub expanded: Vec<Arg>,
}

impl Args {
    /// Reads every response file `@FILE` among `given` (an `@` naming no
    /// readable file stays an argument, as clang leaves it).
    pub fn read(given: &[OsString]) -> Result<Args> {
        let mut expanded = Vec::with_capacity(given.len());
        for (i, arg) in given.iter().enumerate() {
            match response_file(arg) {
                Some(text) => {
                    for a in expand(&split_response_file(&text), 1)? {
                        expanded.push(Arg {
                            text: a,
                            given: None,
                        });
                    }
                }
                None => expanded.push(Arg {
                    text: arg.clone(),
                    given: Some(i),
                }),
            }
        }
        Ok(Args {
            given: given.to_vec(),
            expanded,
        })
    }

    /// The index of the first `--` among the expanded arguments.
    fn end_of_options(&self) -> Option<usize> {
        self.expanded
            .iter()
            .position(|a| a.text.as_bytes() == b"--")
    }

    /// The command line for `edit`: on the command line where it can be,
    /// else all of it in a response file of pcmap's (in `$TMPDIR`, removed
    /// when the returned [`Built`] drops).
    pub fn build(&self, edit: &Edit) -> Result<Built> {
        let touches_file = edit
            .drop
            .iter()
            .chain(edit.replace.iter().map(|(i, _)| i))
            .any(|&i| self.expanded[i].given.is_none());
        let end = self.end_of_options();
        let insert_in_file = end.is_some_and(|e| self.expanded[e].given.is_none());
        if touches_file || (insert_in_file && !edit.add.is_empty()) {
            return self.build_in_file(edit, end);
        }
        // On the command line: given arguments, edited, with the additions
        // before the given `--` or at the end.
        let insert_at = end
            .and_then(|e| self.expanded[e].given)
            .unwrap_or(self.given.len());
        let mut dropped = vec![false; self.given.len()];
        let mut replaced: Vec<Option<&Vec<OsString>>> = vec![None; self.given.len()];
        for &i in &edit.drop {
            dropped[self.expanded[i].given.expect("on the command line")] = true;
        }
        for (i, with) in &edit.replace {
            replaced[self.expanded[*i].given.expect("on the command line")] = Some(with);
        }
        let mut args = Vec::with_capacity(self.given.len() + edit.add.len());
        for (i, arg) in self.given.iter().enumerate() {
            if i == insert_at {
                args.extend(edit.add.iter().cloned());
            }
            match replaced[i] {
                Some(with) => args.extend(with.iter().cloned()),
                None if dropped[i] => {}
                None => args.push(arg.clone()),
            }
        }
        if insert_at == self.given.len() {
            args.extend(edit.add.iter().cloned());
        }
        Ok(Built { args, file: None })
    }

    fn build_in_file(&self, edit: &Edit, end: Option<usize>) -> Result<Built> {
        let mut dropped = vec![false; self.expanded.len()];
        for &i in &edit.drop {
            dropped[i] = true;
        }
        let mut words: Vec<OsString> = Vec::with_capacity(self.expanded.len() + edit.add.len());
        let insert_at = end.unwrap_or(self.expanded.len());
        for (i, arg) in self.expanded.iter().enumerate() {
            if i == insert_at {
                words.extend(edit.add.iter().cloned());
            }
            if let Some((_, with)) = edit.replace.iter().find(|(r, _)| *r == i) {
                words.extend(with.iter().cloned());
            } else if !dropped[i] {
                words.push(arg.text.clone());
            }
        }
        if insert_at == self.expanded.len() {
            words.extend(edit.add.iter().cloned());
        }
        let file = write_response_file(&words)?;
        let mut at = OsString::from("@");
        at.push(file.path());
        Ok(Built {
            args: vec![at],
            file: Some(file),
        })
    }
}

/// Changes to a command line, by index into [`Args::expanded`].
#[derive(Debug, Default, Clone)]
pub struct Edit {
    pub drop: Vec<usize>,
    pub replace: Vec<(usize, Vec<OsString>)>,
    /// Added before the first `--`, else at the end.
    pub add: Vec<OsString>,
}

/// A command line to run, and the response file of pcmap's it names, if
/// any (kept until the command has run).
pub struct Built {
    pub args: Vec<OsString>,
    /// Held, not read: dropping it removes the file.
    #[allow(dead_code)]
    pub file: Option<ArmedFile>,
}

/// `@FILE`'s content when `arg` names a readable file.
fn response_file(arg: &OsStr) -> Option<Vec<u8>> {
    let file = arg.as_bytes().strip_prefix(b"@")?;
    std::fs::read(Path::new(OsStr::from_bytes(file))).ok()
}

/// Reads the response files nested in `args`.
fn expand(args: &[OsString], depth: usize) -> Result<Vec<OsString>> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match response_file(arg) {
            Some(text) => {
                if depth > 16 {
                    bail!(
                        "cc: {}: response files nested too deeply",
                        Path::new(OsStr::from_bytes(&arg.as_bytes()[1..])).display()
                    );
                }
                out.extend(expand(&split_response_file(&text), depth + 1)?);
            }
            None => out.push(arg.clone()),
        }
    }
    Ok(out)
}

/// Splits a response file as clang does on Linux (LLVM's GNU tokenizer:
/// whitespace between arguments, single and double quotes, a backslash
/// escaping the next character inside quotes too).
pub fn split_response_file(text: &[u8]) -> Vec<OsString> {
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

/// A response file of pcmap's holding `words`, each single-quoted with its
/// quotes and backslashes escaped, which clang reads back as they are.
fn write_response_file(words: &[OsString]) -> Result<ArmedFile> {
    let mut text = Vec::new();
    for w in words {
        text.push(b'\'');
        for &b in w.as_bytes() {
            if b == b'\'' || b == b'\\' {
                text.push(b'\\');
            }
            text.push(b);
        }
        text.extend_from_slice(b"'\n");
    }
    let file = {
        let _blocked = SignalsBlocked::new();
        let (file, path) = tempfile::Builder::new()
            .prefix("pcmap-cc.")
            .suffix(".rsp")
            .tempfile()
            .context("cc: cannot create a response file")?
            .into_parts();
        (file, ArmedFile::new(path))
    };
    let (mut f, armed) = file;
    f.write_all(&text)
        .with_context(|| format!("cc: {}: cannot write", armed.path().display()))?;
    Ok(armed)
}

/// How clang reads an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// C, C++, Objective-C, CUDA, OpenCL, LLVM IR: code the plugin sees.
    Code,
    /// Assembly: an object the plugin's tables may be in (assembly pcmap
    /// cc -S wrote), finished like any other.
    Assembly,
    /// A header (a precompiled header, no object).
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

/// What the command asks the driver for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// No object from a source: run as given (a probe, -E, -M, a link of
    /// objects, …).
    PassThrough,
    /// `-S` on code: the plugin added; the assembly carries its tables.
    Assembly,
    /// `-c`: objects, each through a temporary beside it, finished.
    Compile,
    /// Compile and link in one command: pcmap stands in for the linker
    /// and finishes the objects the driver made.
    Link,
}

/// An input of the command.
#[derive(Debug, Clone)]
pub struct Input {
    /// Its index among the expanded arguments.
    pub index: usize,
    pub lang: Lang,
}

/// The expanded arguments, read as clang reads them.
#[derive(Debug)]
pub struct Invocation {
    pub inputs: Vec<Input>,
    /// The output's path and the expanded indices that spell it.
    pub output: Option<(OsString, Vec<usize>)>,
    /// Expanded indices of every `-x LANG` spelling.
    pub x_args: Vec<usize>,
    /// Whether a dependency file is asked for, and whether its target is
    /// named by the command.
    pub dependencies: bool,
    pub dependency_target: bool,
    pub mode: Mode,
}

impl Invocation {
    pub fn parse(args: &Args) -> Result<Invocation> {
        let a = &args.expanded;
        let mut inputs = Vec::new();
        let mut output = None;
        let mut x: Option<OsString> = None;
        let mut x_args = Vec::new();
        let mut phase: Option<Phase> = None;
        let (mut dependencies, mut dependency_target) = (false, false);
        let mut i = 0;
        while i < a.len() {
            let arg = a[i].text.as_bytes();
            // `--` ends the options: everything after it is an input.
            if arg == b"--" {
                for (j, arg) in a.iter().enumerate().skip(i + 1) {
                    inputs.push(input(j, &arg.text, &x));
                }
                break;
            }
            if arg == b"-" || !arg.starts_with(b"-") {
                inputs.push(input(i, &a[i].text, &x));
                i += 1;
                continue;
            }
            // Options are ASCII; another argument starting with '-' is
            // the compiler's to report.
            let Ok(s) = std::str::from_utf8(arg) else {
                i += 1;
                continue;
            };
            let n = options::separate_values(s);
            if i + n >= a.len() {
                // The compiler reports the missing value itself.
                phase = Some(Phase::NoObject);
                break;
            }
            let value = (n > 0).then(|| a[i + 1].text.clone());
            let spans: Vec<usize> = (i..=i + n).collect();
            if let Some(p) = options::phase(s) {
                phase = Some(phase.map_or(p, |q| q.min(p)));
            }
            if let Some(v) = options::output(s) {
                let v = match v {
                    Some(v) => OsString::from(v),
                    None => value.clone().expect("a separate value"),
                };
                output = Some((v, spans.clone()));
            }
            if let Some(v) = options::language(s) {
                let v = match v {
                    Some(v) => OsString::from(v),
                    None => value.clone().expect("a separate value"),
                };
                x = (v.as_bytes() != b"none").then_some(v);
                x_args.extend(&spans);
            }
            if let Some(why) = options::refused(s) {
                bail!("cc: {s}: {why}");
            }
            dependencies |= options::writes_dependencies(s);
            dependency_target |= options::names_dependency_target(s);
            i += n + 1;
        }
        let code = inputs.iter().any(|i| i.lang == Lang::Code);
        let assembly = inputs.iter().any(|i| i.lang == Lang::Assembly);
        let header = inputs.iter().any(|i| i.lang == Lang::Header);
        let mode = match phase {
            // A header makes a precompiled header, not an object.
            _ if header => Mode::PassThrough,
            Some(Phase::NoObject) => Mode::PassThrough,
            Some(Phase::Assembly) if code => Mode::Assembly,
            Some(Phase::Assembly) => Mode::PassThrough,
            Some(Phase::Object) if code || assembly => Mode::Compile,
            None if code || assembly => Mode::Link,
            _ => Mode::PassThrough,
        };
        if matches!(mode, Mode::Compile | Mode::Link) {
            if let Some((o, _)) = &output {
                if o.as_bytes() == b"-" {
                    bail!("cc: cannot finish an object written to standard output (-o -)");
                }
            }
        }
        Ok(Invocation {
            inputs,
            output,
            x_args,
            dependencies,
            dependency_target,
            mode,
        })
    }

    /// The sources the driver compiles (code and assembly).
    pub fn sources(&self) -> impl Iterator<Item = &Input> {
        self.inputs
            .iter()
            .filter(|i| matches!(i.lang, Lang::Code | Lang::Assembly))
    }

    /// Whether any input is code the plugin reads.
    pub fn has_code(&self) -> bool {
        self.inputs.iter().any(|i| i.lang == Lang::Code)
    }

    /// The object a `-c` compile writes for `source`: `-o`'s, else the
    /// source's BASENAME.o in the working directory.
    pub fn object_of(&self, args: &Args, source: &Input) -> PathBuf {
        if let Some((o, _)) = &self.output {
            return PathBuf::from(o);
        }
        let path = Path::new(&args.expanded[source.index].text);
        let mut name = path.file_stem().unwrap_or(path.as_os_str()).to_os_string();
        name.push(".o");
        PathBuf::from(name)
    }
}

fn input(index: usize, arg: &OsStr, x: &Option<OsString>) -> Input {
    let lang = match x.as_deref().and_then(lang_of_x) {
        Some(l) => l,
        // stdin without -x is an error the compiler reports.
        None => lang_of_extension(arg),
    };
    Input { index, lang }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Args {
        let given: Vec<OsString> = s.split_whitespace().map(OsString::from).collect();
        Args::read(&given).unwrap()
    }

    fn parse(s: &str) -> (Mode, Vec<String>, Vec<PathBuf>) {
        let a = args(s);
        let inv = Invocation::parse(&a).unwrap();
        let sources = inv
            .sources()
            .map(|i| a.expanded[i.index].text.to_string_lossy().into_owned())
            .collect();
        let objects = inv.sources().map(|i| inv.object_of(&a, i)).collect();
        (inv.mode, sources, objects)
    }

    #[test]
    fn probes_and_non_object_outputs_pass_through() {
        for cmd in [
            "--version",
            "-v",
            "-###",
            "-dumpversion",
            "-print-file-name=libc.a",
            "--print-file-name libc.a",
            "-E a.c",
            "--preprocess a.c",
            "-M a.c",
            "--dependencies a.c",
            "-MM a.c",
            "--user-dependencies a.c",
            "--analyze a.c",
            "-c -emit-llvm a.c",
            "-fsyntax-only a.c",
            "a.o b.o -o prog",
            "-S s.s -o s.o",
            "-x c-header -c h.h -o h.pch",
            "-c a.c -### -o a.o",
            "-c a.c -E",
        ] {
            assert_eq!(parse(cmd).0, Mode::PassThrough, "{cmd}");
        }
    }

    #[test]
    fn long_and_joined_spellings_of_the_modes() {
        assert_eq!(parse("--compile a.c -o a.o").0, Mode::Compile);
        assert_eq!(parse("--assemble a.c -o a.s").0, Mode::Assembly);
        assert_eq!(
            parse("-S -c a.c").0,
            Mode::Assembly,
            "the earlier phase wins"
        );
        assert_eq!(
            parse("-c s.s -o s.o").0,
            Mode::Compile,
            "assembly is finished"
        );
        assert_eq!(parse("s.s main.o -o prog").0, Mode::Link);
        // clang-16 compiles with it (clang-17 and later print the CPUs):
        // never an object made without the plugin.
        assert_eq!(parse("-mcpu=help -c a.c").0, Mode::Compile);
        let (_, _, objects) = parse("--compile a.c --output=x.o");
        assert_eq!(objects, [PathBuf::from("x.o")]);
        let (_, _, objects) = parse("--compile a.c --output x.o");
        assert_eq!(objects, [PathBuf::from("x.o")]);
        let (_, _, objects) = parse("-c a.c -objcmt-migrate-all");
        assert_eq!(objects, [PathBuf::from("a.o")], "not -o bjcmt-…");
        let (_, sources, _) = parse("-c --language=c foo.txt --language c bar.txt");
        assert_eq!(sources, ["foo.txt", "bar.txt"]);
    }

    #[test]
    fn values_of_options_the_driver_test_does_not_try() {
        // They change how the rest is read (driver_tests.rs, NOT_TRIED).
        for (s, n) in [
            ("-target", 1),
            ("--target=x", 0),
            ("-working-directory", 1),
            ("-working-directory=d", 0),
            ("-o", 1),
            ("--output", 1),
            ("-x", 1),
            ("--language", 1),
        ] {
            assert_eq!(options::separate_values(s), n, "{s}");
        }
    }

    #[test]
    fn separate_option_values_are_not_inputs() {
        let (mode, sources, objects) = parse(
            "-c -I inc.c -D X.c -include h.c -MF d.c -MT t.c -Xclang x.c -mllvm m.c \
             -isystem s.c --include-directory i.c -o out.o main.c",
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
        assert_eq!(parse("-c -x assembler foo.c").0, Mode::Compile);
    }

    #[test]
    fn everything_after_dashdash_is_an_input() {
        let (mode, sources, _) = parse("-c -o x.o -- -weird.c");
        assert_eq!(
            (mode, sources),
            (Mode::Compile, vec!["-weird.c".to_string()])
        );
    }

    #[test]
    fn output_to_stdout_is_refused() {
        let a = args("-c a.c -o -");
        let e = Invocation::parse(&a).unwrap_err();
        assert!(e.to_string().contains("standard output"), "{e}");
    }

    #[test]
    fn response_files_split_like_clang() {
        let got = split_response_file(b"-c  'a b.c' \"x\\\"y\" c\\ d\n-o\tout.o 'q\\'\\\\'");
        let want: Vec<OsString> = ["-c", "a b.c", "x\"y", "c d", "-o", "out.o", "q'\\"]
            .map(OsString::from)
            .to_vec();
        assert_eq!(got, want);
    }

    #[test]
    fn edits_stay_on_the_command_line_or_go_to_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let rsp = dir.path().join("args.rsp");
        std::fs::write(&rsp, "-O2 -c 'a b.c'\n").unwrap();
        let at = format!("@{}", rsp.display());
        // Additions after a response file: it stays as it is.
        let a = args(&format!("{at} -o x.o"));
        assert_eq!(a.expanded.len(), 5);
        let edit = Edit {
            drop: vec![4],
            replace: vec![(3, vec!["-o".into(), "t.o".into()])],
            add: vec!["-fpass-plugin=p".into()],
        };
        let built = a.build(&edit).unwrap();
        assert!(built.file.is_none());
        assert_eq!(
            built.args,
            [at.as_str(), "-o", "t.o", "-fpass-plugin=p"].map(OsString::from)
        );
        // Before a `--` on the command line.
        let a = args("-c -o x.o -- a.c");
        let built = a
            .build(&Edit {
                add: vec!["-fpass-plugin=p".into()],
                ..Edit::default()
            })
            .unwrap();
        assert_eq!(
            built.args,
            ["-c", "-o", "x.o", "-fpass-plugin=p", "--", "a.c"].map(OsString::from)
        );
        // A `--` inside the file: all of it in pcmap's own file, quoted.
        std::fs::write(&rsp, "-c -o x.o -- \"it's\\\\.c\"\n").unwrap();
        let a = args(&at);
        let built = a
            .build(&Edit {
                add: vec!["-fpass-plugin=p".into()],
                ..Edit::default()
            })
            .unwrap();
        let file = built.file.as_ref().unwrap().path().to_path_buf();
        assert_eq!(
            built.args,
            [format!("@{}", file.display())].map(OsString::from)
        );
        let back = split_response_file(&std::fs::read(&file).unwrap());
        assert_eq!(
            back,
            ["-c", "-o", "x.o", "-fpass-plugin=p", "--", "it's\\.c"].map(OsString::from)
        );
        drop(built);
        assert!(!file.exists());
    }
}
