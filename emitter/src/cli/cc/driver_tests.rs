//! options.rs held against the driver's own option table, for clang-16 and
//! clang-19: every spelling `--autocomplete=-` lists, and the double-dash
//! aliases of Options.td it leaves out (it lists only options with a help
//! text or a group).
//!
//! ```text
//! values:  each spelling followed by three files of its own, run with
//!          -ccc-print-phases: the files the driver lists as inputs say how
//!          many arguments the spelling took (0 to 3) — what
//!          options::separate_values must say
//! phases:  each spelling options.rs gives a phase, alone, with -c and in a
//!          link, under -ccc-print-phases: the driver's final phase makes an
//!          object, assembly or neither, as options::phase says (a spelling
//!          that prints and exits, or that the driver refuses only when it
//!          builds its jobs, run for real: no output written); every other
//!          spelling, all at once (with a value where it takes one): the
//!          final phase still makes the object, or still links
//! ```

use std::collections::BTreeSet;
use std::process::Command;

use super::options::{self, Phase};

/// Options.td's double-dash block ("Double dash options, which are usually
/// an alias for one of the previous options") and the unnamed aliases of
/// print_supported_cpus and of the integrated assembler: options
/// `--autocomplete` does not list.
const NOT_AUTOCOMPLETED: &[&str] = &[
    "--mhwdiv=",
    "--mhwdiv",
    "--CLASSPATH=",
    "--CLASSPATH",
    "--all-warnings",
    "--analyzer-no-default-checks",
    "--analyzer-output",
    "--analyze",
    "--assemble",
    "--assert=",
    "--assert",
    "--bootclasspath=",
    "--bootclasspath",
    "--classpath=",
    "--classpath",
    "--comments-in-macros",
    "--comments",
    "--compile",
    "--constant-cfstrings",
    "--debug=",
    "--debug",
    "--define-macro=",
    "--define-macro",
    "--dependencies",
    "--dyld-prefix=",
    "--dyld-prefix",
    "--encoding=",
    "--encoding",
    "--entry",
    "--extdirs=",
    "--extdirs",
    "--extra-warnings",
    "--for-linker=",
    "--for-linker",
    "--force-link=",
    "--force-link",
    "--imacros=",
    "--include-barrier",
    "--include-directory-after=",
    "--include-directory-after",
    "--include-directory=",
    "--include-directory",
    "--include-prefix=",
    "--include-prefix",
    "--include-with-prefix-after=",
    "--include-with-prefix-after",
    "--include-with-prefix-before=",
    "--include-with-prefix-before",
    "--include-with-prefix=",
    "--include-with-prefix",
    "--include=",
    "--language=",
    "--language",
    "--library-directory=",
    "--library-directory",
    "--no-line-commands",
    "--no-standard-includes",
    "--no-standard-libraries",
    "--no-undefined",
    "--no-warnings",
    "--optimize=",
    "--optimize",
    "--output-class-directory=",
    "--output-class-directory",
    "--output=",
    "--output",
    "--param",
    "--param=",
    "--precompile",
    "--prefix=",
    "--prefix",
    "--preprocess",
    "--print-diagnostic-categories",
    "--print-file-name",
    "--print-missing-file-dependencies",
    "--print-prog-name",
    "--profile",
    "--resource=",
    "--resource",
    "--rtlib",
    "--serialize-diagnostics",
    "-serialize-diagnostics",
    "--version",
    "--signed-char",
    "--std",
    "--stdlib",
    "--target-help",
    "--trace-includes",
    "--undefine-macro=",
    "--undefine-macro",
    "--unsigned-char",
    "--user-dependencies",
    "--verbose",
    "--warn-=",
    "--warn-",
    "--write-dependencies",
    "--write-user-dependencies",
    "--help-hidden",
    "--sysroot=",
    "--sysroot",
    "-mcpu=help",
    "-mtune=help",
    "-integrated-as",
    "-no-integrated-as",
];

/// Spellings whose effect differs between the drivers. clang-16 compiles
/// with -mcpu=help (an unused argument), clang-17 and later print the CPUs
/// and compile nothing: pcmap compiles, so that no object is ever made
/// without the plugin (with clang-19 it then says no object was written).
/// clang-16 takes --gcc-toolchain, --vfsoverlay and -dumpdir (as -d…) with
/// no value, clang-19 each with the next argument: pcmap reads clang-19's.
const VERSION_DEPENDENT: &[&str] = &[
    "-mcpu=help",
    "-mtune=help",
    "--gcc-toolchain",
    "--vfsoverlay",
    "-dumpdir",
];

/// Spellings not tried: `--` ends the options; these change how the rest of
/// the command line is read (another driver, a configuration file, another
/// working directory, another target) or are only valid first (-cc1).
/// args.rs's tests check the values of those that take one.
const NOT_TRIED: &[&str] = &[
    "--",
    "-working-directory",
    "-working-directory=",
    "-target",
    "--target",
    "--target=",
    "-cc1",
    "-cc1as",
    "--autocomplete=",
    "--driver-mode=",
    "--config",
    "--config=",
    "--config-system-dir=",
    "--config-user-dir=",
    "-###",
];

struct Driver {
    compiler: &'static str,
    dir: tempfile::TempDir,
}

struct Run {
    text: String,
}

impl Driver {
    fn new(compiler: &'static str) -> Driver {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("in.c"), "int f(void) { return 0; }\n").unwrap();
        Driver { compiler, dir }
    }

    fn run(&self, args: &[String]) -> Run {
        let out = Command::new(self.compiler)
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", self.compiler));
        let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stdout));
        Run { text }
    }

    /// Every spelling to try: the driver's own list and the aliases it
    /// leaves out.
    fn candidates(&self) -> Vec<String> {
        let listed = self.run(&["--autocomplete=-".to_string()]);
        let mut all: BTreeSet<String> = listed
            .text
            .lines()
            .filter_map(|l| l.split('\t').next())
            .filter(|s| s.starts_with('-') && !s.contains(' '))
            .map(str::to_string)
            .collect();
        assert!(
            all.len() > 3000,
            "{}: --autocomplete listed {}",
            self.compiler,
            all.len()
        );
        all.extend(NOT_AUTOCOMPLETED.iter().map(|s| s.to_string()));
        // And pcmap's own claims, each checked.
        all.extend(options::spellings().map(str::to_string));
        all.retain(|s| !NOT_TRIED.contains(&s.as_str()));
        all.into_iter().collect()
    }

    /// How many arguments each spelling takes after it (`None`: the driver
    /// does not know it).
    fn values_taken(&self, spellings: &[String]) -> Vec<(String, Option<usize>)> {
        let mut out = Vec::new();
        self.values_in(spellings, &mut out);
        out
    }

    fn values_in(&self, spellings: &[String], out: &mut Vec<(String, Option<usize>)>) {
        let mut args = vec!["-ccc-print-phases".to_string(), "-c".to_string()];
        for (i, s) in spellings.iter().enumerate() {
            for tag in ["a", "b", "c"] {
                let f = format!("s{i}{tag}.c");
                if !self.dir.path().join(&f).exists() {
                    std::fs::write(self.dir.path().join(&f), "").unwrap();
                }
                if tag == "a" {
                    args.push(s.clone());
                }
                args.push(f);
            }
        }
        let run = self.run(&args);
        let inputs: BTreeSet<&str> = run
            .text
            .lines()
            .filter_map(|l| l.split("input, \"").nth(1))
            .filter_map(|l| l.split('"').next())
            .collect();
        if inputs.is_empty() {
            // The driver stopped before listing its inputs (a spelling that
            // prints and exits, or one that is an error with these files):
            // find which, by halves.
            if spellings.len() == 1 {
                out.push((spellings[0].clone(), Some(usize::MAX)));
                return;
            }
            let (a, b) = spellings.split_at(spellings.len() / 2);
            self.values_in(a, out);
            self.values_in(b, out);
            return;
        }
        let unknown = quoted_after(&run.text, "unknown argument");
        let mut found = Vec::with_capacity(spellings.len());
        for (i, s) in spellings.iter().enumerate() {
            if unknown.contains(s) {
                found.push((s.clone(), None));
                continue;
            }
            let taken = ["a", "b", "c"]
                .iter()
                .filter(|t| !inputs.contains(format!("s{i}{t}.c").as_str()))
                .count();
            found.push((s.clone(), Some(taken)));
        }
        let disagree = found
            .iter()
            .any(|(s, t)| t.is_some_and(|t| t != options::separate_values(s)));
        if disagree && spellings.len() > 1 {
            // One spelling may hide the inputs of others (-mcpu=help drops
            // them all): what each says in a batch without it counts.
            let (a, b) = spellings.split_at(spellings.len() / 2);
            self.values_in(a, out);
            self.values_in(b, out);
        } else {
            out.extend(found);
        }
    }

    /// What the driver's last action makes for `args`, from
    /// -ccc-print-phases (its final phase, as Driver::getFinalPhase decides
    /// it; errors of values and targets come later, when it builds jobs).
    fn outcome(&self, args: &[String]) -> Outcome {
        let mut all = vec!["-ccc-print-phases".to_string()];
        all.extend(args.iter().cloned());
        let run = self.run(&all);
        // "5: linker, {4}, image"
        let Some((kind, made)) = run
            .text
            .lines()
            .filter_map(|l| {
                let (_, rest) = l.split_once(": ")?;
                let mut parts = rest.split(", ");
                let kind = parts.next()?;
                let made = parts.last()?;
                l.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == ' ')
                    .then_some((kind.trim_start_matches("+- ").to_string(), made.to_string()))
            })
            .next_back()
        else {
            return Outcome::Nothing;
        };
        match (kind.as_str(), made.as_str()) {
            ("linker" | "clang-linker-wrapper", _) => Outcome::Link,
            ("assembler", "object") => Outcome::Object,
            ("backend", "assembler") => Outcome::Assembly,
            ("backend", "ir" | "lto-bc" | "lto-ir") => Outcome::Bitcode,
            _ => Outcome::Other,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Link,
    Object,
    Bitcode,
    Assembly,
    Other,
    Nothing,
}

/// The single-quoted words of a line.
fn quoted(line: &str) -> Vec<String> {
    line.split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The first quoted word after each `marker` in `text`.
fn quoted_after(text: &str, marker: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.split(marker).nth(1))
        .filter_map(|rest| quoted(rest).into_iter().next())
        .collect()
}

/// A spelling with the values it takes (a word of pcmap's), so that it can
/// stand in a command line.
fn with_values(s: &str) -> Vec<String> {
    let mut v = vec![s.to_string()];
    for _ in 0..options::separate_values(s) {
        v.push("pcmapvalue".to_string());
    }
    v
}

/// Spellings options.rs reads for themselves (where the output goes, which
/// language follows): checked by the unit tests of args.rs.
fn read_for_itself(s: &str) -> bool {
    options::output(s).is_some() || options::language(s).is_some()
}

fn check(compiler: &'static str) -> Vec<String> {
    let d = Driver::new(compiler);
    let mut problems = Vec::new();
    let candidates = d.candidates();

    // How many values each spelling takes. (Those that end the work before
    // an object are run as given: what follows them does not matter.)
    let tried: Vec<String> = candidates
        .iter()
        .filter(|s| {
            options::phase(s) != Some(Phase::NoObject)
                && !read_for_itself(s)
                && !VERSION_DEPENDENT.contains(&s.as_str())
        })
        .cloned()
        .collect();
    let mut known = Vec::new();
    for (s, taken) in d.values_taken(&tried) {
        match taken {
            None => {}
            Some(usize::MAX) => problems.push(format!(
                "{compiler} {s}: the driver lists no input after it (prints and exits?), pcmap reads no phase in it"
            )),
            Some(n) if n != options::separate_values(&s) => problems.push(format!(
                "{compiler} {s}: the driver takes {n} argument(s) after it, pcmap {}",
                options::separate_values(&s)
            )),
            Some(_) => known.push(s),
        }
    }

    // The spellings pcmap gives a phase, each alone, with -c and in a link.
    let phased: Vec<(&String, Phase)> = candidates
        .iter()
        .filter(|s| !VERSION_DEPENDENT.contains(&s.as_str()))
        .filter_map(|s| options::phase(s).map(|p| (s, p)))
        .collect();
    let results = parallel(&phased, |&(s, phase)| {
        let mut found = Vec::new();
        let mut spelled = with_values(s);
        if s.ends_with('=') {
            spelled[0].push('x');
        }
        for (base, output) in [
            (&["in.c", "-o"][..], "out"),
            (&["-c", "in.c", "-o"][..], "out.o"),
        ] {
            let mut args = spelled.clone();
            args.extend(base.iter().map(|a| a.to_string()));
            // Each spelling its own output (the checks run in parallel).
            let output = format!(
                "{}-{output}",
                s.trim_start_matches('-').replace(['=', '/'], "_")
            );
            args.push(output.clone());
            let outcome = d.outcome(&args);
            let agrees = match phase {
                Phase::Object => outcome == Outcome::Object,
                Phase::Assembly => outcome == Outcome::Assembly,
                Phase::NoObject => {
                    !matches!(outcome, Outcome::Object | Outcome::Link | Outcome::Assembly)
                }
            };
            // What the phases cannot show (a spelling that prints and
            // exits, one the driver refuses only when it builds its jobs):
            // the command run, writing nothing.
            let agrees = agrees
                || (phase == Phase::NoObject && {
                    d.run(&args);
                    !d.dir.path().join(&output).exists()
                });
            if !agrees {
                found.push(format!(
                    "{compiler} {}: pcmap reads {phase:?}, the driver's last phase makes {outcome:?}",
                    args.join(" ")
                ));
            }
        }
        found
    });
    problems.extend(results.into_iter().flatten());

    // Every other spelling at once (with a value where it takes one): a
    // compile still makes its object, a link still links.
    let units: Vec<Vec<String>> = known
        .iter()
        .filter(|s| {
            options::phase(s).is_none() && !read_for_itself(s) && options::refused(s).is_none()
        })
        .map(|s| with_values(s))
        .collect();
    for (base, want) in [
        (
            vec!["-c", "in.c", "-o", "out.o"],
            &[Outcome::Object, Outcome::Bitcode][..],
        ),
        (vec!["in.c", "-o", "out"], &[Outcome::Link][..]),
    ] {
        let base: Vec<String> = base.into_iter().map(String::from).collect();
        for unit in d.changing(&units, &base, want) {
            problems.push(format!(
                "{compiler} {}: changes what `{}` makes, pcmap reads no phase in it",
                unit.join(" "),
                base.join(" ")
            ));
        }
    }
    problems
}

/// `f` over `items` on a few threads, results in order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = 4;
    let per = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(per)
            .map(|part| {
                let f = &f;
                scope.spawn(move || part.iter().map(f).collect::<Vec<R>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

impl Driver {
    /// The units (a spelling and its values) of `units` that change the
    /// outcome of `base` from `want`, found by halves.
    fn changing(
        &self,
        units: &[Vec<String>],
        base: &[String],
        want: &[Outcome],
    ) -> Vec<Vec<String>> {
        let mut args: Vec<String> = units.iter().flatten().cloned().collect();
        args.extend(base.iter().cloned());
        if want.contains(&self.outcome(&args)) {
            return Vec::new();
        }
        if units.len() <= 1 {
            return units.to_vec();
        }
        let (a, b) = units.split_at(units.len() / 2);
        let mut out = self.changing(a, base, want);
        out.extend(self.changing(b, base, want));
        out
    }
}

#[test]
fn options_agree_with_the_driver() {
    let problems: Vec<String> = parallel(&["clang-16", "clang-19"], |c| check(c))
        .into_iter()
        .flatten()
        .collect();
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
