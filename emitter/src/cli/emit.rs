//! `pcmap emit` on one file, as the command and `pcmap cc` run it: the
//! input read, `--ir` described by its LLVM, the object rewritten, the
//! output written complete or not at all and checked, `--stats` printed.

use std::path::Path;

use anyhow::{Context, Result};

use crate::input;
use crate::llvm;
use crate::output;

/// `pcmap emit`'s switches.
#[derive(Clone, Copy, Default)]
pub struct EmitFlags {
    pub keep_v3: bool,
    pub absolute: bool,
    pub no_walk: bool,
    pub stats: bool,
    /// `--llvm`: the release that describes `--ir`.
    pub llvm: Option<u32>,
}

/// `pcmap emit` as `pcmap cc` runs it: the tables for a walker.
pub fn emit(
    input: &Path,
    output: &Path,
    ir: Option<&Path>,
    keep_v3: bool,
    absolute: bool,
    stats: bool,
    temp: output::TempKind,
) -> Result<()> {
    let opts = EmitFlags {
        keep_v3,
        absolute,
        no_walk: false,
        stats,
        llvm: None,
    };
    emit_file(input, output, ir, opts, temp)
}

pub fn emit_file(
    input: &Path,
    output: &Path,
    ir: Option<&Path>,
    flags: EmitFlags,
    temp: output::TempKind,
) -> Result<()> {
    let EmitFlags {
        keep_v3,
        absolute,
        no_walk,
        stats,
        llvm: release,
    } = flags;
    let data = input::read_file(input)?;
    let object = input::parse(input, &data)?;
    // The IR is described on another thread (by opt) while the object is
    // read. The thread never takes SIGINT/SIGTERM/SIGHUP: blocking them
    // here keeps them out of the output's commit.
    let ir = match ir {
        Some(ir) => {
            let tools = llvm::for_ir(&object, input, ir, release)?;
            let _blocked = output::SignalsBlocked::new();
            let target = object.target;
            Some(pcmap::stackmap::ir::IrInput::describe_in_background(
                ir, target, &tools,
            ))
        }
        None => None,
    };
    let opts = pcmap::emit::Options {
        absolute,
        keep_v3,
        ir,
        no_walk,
    };
    let mut out = output::Output::new(output, input, temp);
    // A private mapping of the input: where the rewrite patches a copy of
    // the input, only the pages it writes are copied.
    let mut copy = input::copy_on_write(input, data.len());
    let scratch = match copy.as_deref_mut() {
        Some(copy) => pcmap::emit::Scratch::Copy(copy),
        None => pcmap::emit::Scratch::Buffer(Vec::new()),
    };
    let emitted = pcmap::emit::emit_object_with(&object, &opts, &mut out, scratch);
    // An IR that cannot be read is the error, whether or not it was needed.
    if let Some(ir) = &opts.ir {
        ir.sites()?;
    }
    if let Some(e) = out.open_error() {
        return Err(e.into());
    }
    let emitted = emitted.with_context(|| input.display().to_string())?;
    if emitted.unchanged {
        // Nothing to do: in place, nothing to write; else an identical copy.
        if output::is_input(input, output) {
            return Ok(());
        }
        object::write::WritableBuffer::write_bytes(&mut out, &data);
    }
    let written = out.finish()?;
    // A bug of the rewrite is an error here, never a corrupt object.
    if !emitted.unchanged {
        pcmap::object::check::written_file(written.file())
            .with_context(|| input.display().to_string())?;
    }
    // In place, the output may be copied into the input's inode: no reading
    // through the mapping after this.
    drop(object);
    drop(copy);
    drop(data);
    written.commit()?;
    if stats {
        if let Some(report) = emitted.stack_maps {
            println!(
                "{}: {} functions, {} records; .llvm_stackmaps {} bytes, {} {} bytes",
                output.display(),
                report.functions,
                report.records,
                report.v3_size,
                pcmap_reader::flat::SECTION_NAME,
                report.flat_size
            );
            if report.unknown > 0 {
                println!(
                    "{}: {} records of unknown kind (--no-walk)",
                    output.display(),
                    report.unknown
                );
            }
        }
        if let Some(pc) = &emitted.pc {
            println!(
                "{}: {} PC sections rewritten, {} entries; raw {} bytes, compact {} bytes",
                output.display(),
                pc.sections,
                pc.entries,
                pc.raw_bytes,
                pc.final_bytes
            );
            for (name, why) in &pc.left {
                println!("{}: {name} left as it is: {why}", output.display());
            }
        }
    }
    Ok(())
}
