//! `pcmap`: the command line over the emitter library.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

mod alloc;
mod cc;
mod emit;
mod input;
mod llvm;
mod output;
mod plugin;
mod signals;

// A fast path kept for its figure: on the system allocator emit takes 1.10x the time on the mixed-kind shape (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: alloc::HugeBlocks = alloc::HugeBlocks;

#[derive(Parser)]
#[command(
    name = "pcmap",
    version,
    about = "PC tables and stack maps for ELF objects"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DumpFormat {
    Text,
    Json,
    /// Exactly `llvm-readobj --stackmap`'s text, from "LLVM StackMap
    /// Version" on: LLVM's tables, or where the file has none (a finished
    /// object) the flat ones as llvm-readobj prints the LLVM tables they
    /// were made from.
    Readobj,
}

#[derive(Subcommand)]
enum Command {
    /// Print the PC sections and stack map sections of an object or program.
    Dump {
        file: PathBuf,
        /// Print JSON (same as --format=json).
        #[arg(long)]
        json: bool,
        #[arg(long, value_enum, default_value_t = DumpFormat::Text)]
        format: DumpFormat,
        /// Only this section (`.llvm_stackmaps`, `pcmap_stackmaps`, a PC
        /// section's name); with --format=readobj, `pcmap_stackmaps` prints
        /// the flat tables of a file that keeps LLVM's beside them.
        #[arg(long, value_name = "NAME")]
        section: Option<String>,
    },
    /// Rewrite an object: add the flat stack map section (docs/stackmap-v2.md)
    /// and finish the compact PC tables the plugin described (docs/pctables.md).
    Emit {
        input: PathBuf,
        /// Output object.
        #[arg(
            short,
            long,
            required_unless_present = "in_place",
            conflicts_with = "in_place"
        )]
        output: Option<PathBuf>,
        /// Rewrite the input.
        #[arg(long)]
        in_place: bool,
        /// The IR the object was compiled from (text or bitcode), for an
        /// object the plugin did not describe: the plugin's analysis of it,
        /// run by the opt of the LLVM that compiled the object, gives each
        /// record's kind and patchable size.
        #[arg(long)]
        ir: Option<PathBuf>,
        /// The LLVM release (major version: 16, 19) that compiled the
        /// object, whose opt and plugin describe --ir; by default the one
        /// the object's .comment names, else $PCMAP_LLVM, else the only one
        /// pcmap has a plugin for.
        #[arg(long, value_name = "N", requires = "ir")]
        llvm: Option<u32>,
        /// Keep LLVM's .llvm_stackmaps in the output. By default emit drops
        /// it: the flat table holds all it says, and its absolute addresses in
        /// a read-only section make a PIE need text relocations (GNU ld) and a
        /// shared object fail to link (ld.lld).
        #[arg(long)]
        keep_v3: bool,
        /// What emit does by default (drop .llvm_stackmaps); accepted for
        /// older build scripts.
        #[arg(long, hide = true, conflicts_with = "keep_v3")]
        strip_v3: bool,
        /// Absolute function addresses instead of self-relative ones.
        #[arg(long)]
        absolute: bool,
        /// The tables are for a runtime that never walks the stack with
        /// them (it looks records up, say): write records whose kind is
        /// unknown (no .pcmap.sites, no --ir) as unknown. Without it they
        /// are an error, since a stack walker cannot use them.
        #[arg(long)]
        no_walk: bool,
        /// Print the sizes of the sections before and after.
        #[arg(long)]
        stats: bool,
        /// Write through a named temporary file even where O_TMPFILE works
        /// (tests of the fallback).
        #[arg(long, hide = true)]
        named_temp: bool,
    },
    /// Check that every PC of every PC section lies in a function's code and
    /// that function entries match their functions; non-zero on a problem.
    Verify {
        file: PathBuf,
        /// What PCMAP_STATS printed when compiling (pcmap-stats v1 lines):
        /// count tagged IR instructions against PCs.
        #[arg(long, value_name = "IR_STATS")]
        against: Option<PathBuf>,
        /// The stack map tables are for a runtime that never walks the
        /// stack with them (`emit --no-walk`): records of unknown kind are
        /// no problem.
        #[arg(long)]
        no_walk: bool,
    },
    /// Compile with the plugin and finish every object: `CC="pcmap cc
    /// clang-16"` (docs/build.md).
    ///
    /// COMPILER is clang, or ccache or sccache and clang. The plugin is the
    /// one for clang's LLVM version (libpcmap_plugin-llvmN.so beside pcmap
    /// or in ../lib from it), or $PCMAP_PLUGIN. Probes (-E, --version,
    /// -###, …) and links of objects run as given; -S adds the plugin; -c
    /// writes each object through a temporary beside it and finishes it,
    /// so that an object at -o is finished or absent; a compile and link
    /// finishes its objects before the link. -fno-pcmap runs the command as
    /// given, less that flag.
    ///
    /// pcmap-cc and pcmap-c++, links to pcmap, are `pcmap cc $PCMAP_CC`
    /// (clang-16 when unset) and `pcmap cc $PCMAP_CXX` (clang++-16).
    ///
    /// Caches: `pcmap cc ccache clang-16` and `pcmap cc sccache clang-16`
    /// (CMake: -DCMAKE_C_COMPILER_LAUNCHER='pcmap;cc;ccache'). With ccache in
    /// front of pcmap (`ccache pcmap cc clang-16`), set
    /// CCACHE_COMPILERCHECK='%compiler% --pcmap-cache-key'.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Cc {
        /// The compiler (clang-16) and its arguments, as given.
        #[arg(
            required = true,
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "COMPILER ARGS"
        )]
        command: Vec<OsString>,
    },
}

fn main() -> ExitCode {
    // Called as pcmap-cc or pcmap-c++ (a link to pcmap: `pcmap cc` with the
    // compiler from the environment), as pcmap cc's stand-in linker, or as a
    // ccache compiler_check.
    if let Some(result) = cc::multicall() {
        return report(result);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Dump {
            file,
            json,
            format,
            section,
        } => dump(
            &file,
            if json { DumpFormat::Json } else { format },
            section.as_deref(),
        )
        .map(|()| ExitCode::SUCCESS),
        Command::Emit {
            input,
            output,
            in_place,
            ir,
            llvm,
            keep_v3,
            strip_v3: _,
            absolute,
            no_walk,
            stats,
            named_temp,
        } => {
            let output = if in_place {
                input.clone()
            } else {
                output.expect("required by clap")
            };
            let temp = if named_temp {
                output::TempKind::Named
            } else {
                output::TempKind::Unnamed
            };
            let opts = emit::EmitFlags {
                keep_v3,
                absolute,
                no_walk,
                stats,
                llvm,
            };
            emit::emit_file(&input, &output, ir.as_deref(), opts, temp).map(|()| ExitCode::SUCCESS)
        }
        Command::Verify {
            file,
            against,
            no_walk,
        } => verify(&file, against.as_deref(), no_walk).map(|()| ExitCode::SUCCESS),
        Command::Cc { command } => match command.first().map(|a| a.as_encoded_bytes()) {
            Some(b"--help" | b"-h") => {
                let mut cli = <Cli as clap::CommandFactory>::command();
                // Names the subcommand "pcmap cc" in its usage line.
                cli.build();
                let cc = cli.find_subcommand_mut("cc").expect("the cc subcommand");
                cc.print_long_help()
                    .map(|()| ExitCode::SUCCESS)
                    .map_err(Into::into)
            }
            _ => cc::run(&command),
        },
    };
    report(result)
}

/// The exit code, after printing an error as one line.
fn report(result: Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) => {
            // One line whatever the names in it (a symbol or section name,
            // a path): control characters escaped.
            let message = pcmap::object::printable(format!("{e:#}").as_bytes());
            eprintln!("pcmap: error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn dump(path: &Path, format: DumpFormat, only: Option<&str>) -> Result<()> {
    let data = input::read_file(path)?;
    let o = input::parse(path, &data)?;
    let mut sections = pcmap::stackmap::sections(&o).with_context(|| path.display().to_string())?;
    let mut pc_sections =
        pcmap::pctable::sections(&o).with_context(|| path.display().to_string())?;
    if let Some(name) = only {
        sections.retain(|s| s.name == name);
        pc_sections.retain(|s| s.name == name);
        if sections.is_empty() && pc_sections.is_empty() {
            bail!(
                "{}: no stack map or PC section named {name}",
                path.display()
            );
        }
    }
    let mut out = String::new();
    match format {
        DumpFormat::Json => {
            let dump = pcmap::dump::Dump {
                schema: pcmap::dump::SCHEMA_VERSION,
                pc_sections,
                stackmaps: pcmap::dump::json_tables(&sections),
            };
            out = serde_json::to_string_pretty(&dump)?;
            out.push('\n');
        }
        DumpFormat::Readobj => {
            // llvm-readobj's view: LLVM's tables; a finished object has
            // only flat ones, printed as the tables they were made from.
            let llvm =
                |t: &&pcmap::stackmap::DecodedTable| t.format != pcmap::stackmap::Format::Flat;
            let any_llvm = sections.iter().flat_map(|s| &s.tables).any(|t| llvm(&t));
            let mut printed = 0;
            for s in &sections {
                for (k, t) in s.tables.iter().enumerate() {
                    if llvm(&t) != any_llvm {
                        continue;
                    }
                    if let Some(i) = t.functions.iter().position(|f| {
                        t.format == pcmap::stackmap::Format::Flat
                            && s.address.is_some()
                            && f.address.is_none()
                    }) {
                        bail!(
                            "{}: {} (table {}): function {i}'s address is in no section of the file, so the table cannot be printed as llvm-readobj would print it",
                            path.display(),
                            s.name,
                            k + 1
                        );
                    }
                    pcmap::dump::readobj(&mut out, t)?;
                    printed += 1;
                }
            }
            if printed == 0 {
                bail!(
                    "{}: no stack map table (.llvm_stackmaps or {}) to print as llvm-readobj --stackmap would",
                    path.display(),
                    pcmap_reader::flat::SECTION_NAME
                );
            }
        }
        DumpFormat::Text => {
            pcmap::dump::pc_text(&mut out, &pc_sections)?;
            pcmap::dump::text(&mut out, &sections)?;
        }
    }
    std::io::stdout().write_all(out.as_bytes())?;
    Ok(())
}

fn verify(path: &Path, against: Option<&Path>, no_walk: bool) -> Result<()> {
    let data = input::read_file(path)?;
    let o = input::parse(path, &data)?;
    let stats = match against {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("{}: cannot read", p.display()))?;
            Some(pcmap::verify::IrStats::parse(&text).with_context(|| p.display().to_string())?)
        }
        None => None,
    };
    let v = pcmap::verify::verify(&o, no_walk).with_context(|| path.display().to_string())?;
    let mut report = String::new();
    pcmap::verify::text(&mut report, &v, stats.as_ref())?;
    print!("{report}");
    if !v.problems.is_empty() {
        bail!(
            "{}: {} problem{}",
            path.display(),
            v.problems.len(),
            if v.problems.len() == 1 { "" } else { "s" }
        );
    }
    Ok(())
}
