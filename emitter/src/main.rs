//! `pcmap`: the command line over the emitter library.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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

#[derive(Subcommand)]
enum Command {
    /// Print the PC sections and stack map sections of an object or program.
    Dump {
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Dump { file, json } => dump(&file, json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pcmap: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn dump(path: &std::path::Path, json: bool) -> anyhow::Result<()> {
    let data = pcmap::elf::read_file(path)?;
    let file = pcmap::elf::parse(path, &data)?;
    let sections = pcmap::elf::pc_sections(&file);
    if json {
        println!("{}", serde_json::to_string_pretty(&sections)?);
    } else {
        for s in &sections {
            println!(
                "{}: {} bytes, {} relocations",
                s.name, s.size, s.relocations
            );
        }
    }
    Ok(())
}
