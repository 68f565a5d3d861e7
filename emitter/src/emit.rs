//! `pcmap emit`: rewrite a relocatable object in two optional steps over
//! one [`Rewrite`], keeping every other section, symbol and relocation:
//!
//! 1. stack maps (`stackmap::emit`): add the flat stack map section
//!    (`docs/stackmap-v2.md`), with its relocations, when the object has
//!    `.llvm_stackmaps`;
//! 2. PC tables (`pctable::emit`): finish the compact PC sections the
//!    plugin described in `.pcmap.layout` (`docs/pctables.md`).
//!
//! Everything is decoded and checked before the rewrite starts, so an error
//! leaves nothing half done; `docs/emit.md` says what emit guarantees.

use object::{Object, ObjectSection};

use crate::error::{Error, Result};
use crate::object::rewrite::Rewrite;
pub use crate::object::rewrite::Scratch;
use crate::object::{is_named_contents, ObjectFile};
use crate::pctable::emit::{self as pc_emit, PcReport};
use crate::stackmap::emit::{self as sm_emit, EmitOptions, Report};
use crate::stackmap::ir::IrInput;
use crate::stackmap::LLVM_STACKMAPS;

#[derive(Debug, Default)]
pub struct Options {
    /// Absolute function addresses instead of self-relative ones.
    pub absolute: bool,
    /// Keep `.llvm_stackmaps` in the output (dropped by default: the flat
    /// table holds all it says, and its absolute addresses in a read-only
    /// section need text relocations in a PIE and fail a shared link).
    pub keep_v3: bool,
    /// Stack map intrinsic calls of the IR the object was built from.
    pub ir: Option<IrInput>,
    /// The tables are for a runtime that never walks the stack with them
    /// (`--no-walk`): records whose kind is unknown are written so. By
    /// default they are an error, since a walker cannot use them.
    pub no_walk: bool,
}

/// What each step did (`None`: step not run).
#[derive(Debug, Default)]
pub struct Emitted {
    pub stack_maps: Option<Report>,
    pub pc: Option<PcReport>,
    /// The object has nothing for emit to do (no stack maps, no PC tables to
    /// finish, no description to remove): nothing was written, and the
    /// output is the input as it is. A build that runs emit on every object
    /// needs this to succeed.
    pub unchanged: bool,
}

/// [`emit_all`] into memory, checked as the command checks what it writes,
/// for callers that only care about stack maps.
pub fn emit(data: &[u8], opts: &Options) -> Result<(Vec<u8>, Report)> {
    let mut bytes = Vec::new();
    let e = emit_all(data, opts, &mut bytes)?;
    if e.unchanged {
        bytes = data.to_vec();
    } else {
        crate::object::check::written(&bytes)?;
    }
    Ok((bytes, e.stack_maps.unwrap_or_default()))
}

/// Rewrites the relocatable ELF object `data` into `out`: stack maps, then
/// PC tables. Streaming to a file (an [`object::write::StreamingBuffer`])
/// spares building the whole object, tens of megabytes, in memory first.
/// Nothing is written before the input passed every check, but the writer
/// can still fail part way: on an error, discard `out`; errors of `out`
/// itself (a streaming buffer's I/O errors) are the caller's to collect.
/// The caller checks what was written (`object::check::written`).
pub fn emit_all(
    data: &[u8],
    opts: &Options,
    out: &mut dyn object::write::WritableBuffer,
) -> Result<Emitted> {
    emit_object(&ObjectFile::parse(data)?, opts, out)
}

/// [`emit_all`] of an object already parsed.
pub fn emit_object(
    o: &ObjectFile<'_>,
    opts: &Options,
    out: &mut dyn object::write::WritableBuffer,
) -> Result<Emitted> {
    emit_object_with(o, opts, out, Scratch::Buffer(Vec::new()))
}

/// [`emit_object`], with `scratch` for the patched copy of the input
/// the rewrite may need ([`Scratch::Copy`]: a copy-on-write mapping of
/// the input file spares copying the whole object).
pub fn emit_object_with(
    o: &ObjectFile<'_>,
    opts: &Options,
    out: &mut dyn object::write::WritableBuffer,
    mut scratch: Scratch<'_>,
) -> Result<Emitted> {
    if !o.relocatable {
        return Err(Error::NotRelocatable);
    }
    let named = |name| {
        o.file
            .sections()
            .filter(move |s| is_named_contents(s, name))
    };
    let stack_maps = match named(LLVM_STACKMAPS).next() {
        Some(_) => Some(sm_emit::flat_tables(
            o,
            EmitOptions {
                absolute: opts.absolute,
                ir: opts.ir.as_ref(),
            },
        )?),
        None => None,
    };
    let pc_plan = pc_emit::plan(o)?;
    // The plugin's description of stack map sites has served.
    let sites: Vec<_> = named(pcmap_reader::sites::SECTION)
        .map(|s| s.index())
        .collect();
    let has_sites = !sites.is_empty();
    if stack_maps.is_none() && pc_plan.is_none() && !has_sites {
        return Ok(Emitted {
            unchanged: true,
            ..Emitted::default()
        });
    }

    let mut rw = Rewrite::read(o.data, &o.file, &mut scratch)?;
    // After every check of the object itself: a corrupt object is told as
    // such first.
    if let Some(flat) = stack_maps.as_ref().filter(|f| f.report.unknown > 0) {
        if !opts.no_walk {
            return Err(flat.unknown_kinds_error());
        }
    }
    let mut emitted = Emitted::default();
    let mut added = 0;
    if let Some(flat) = stack_maps {
        // The table and 24 bytes of relocation per address field.
        added += flat.bytes.len() as u64 + 24 * flat.addresses.len() as u64;
        emitted.stack_maps = Some(flat.report);
        sm_emit::apply(&mut rw, o.target, opts.absolute, opts.keep_v3, flat)?;
    }
    if let Some(plan) = pc_plan {
        emitted.pc = Some(plan.report.clone());
        pc_emit::apply(&mut rw, plan)?;
    }
    for index in sites {
        let id = rw.section(index)?;
        rw.delete_section(id);
    }
    rw.write(added, out)?;
    Ok(emitted)
}
