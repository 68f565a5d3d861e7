//! What a stack map record must satisfy whatever wrote it: its offset
//! inside its function, sizes that are not 0, DWARF registers the target
//! has. `emit` refuses a table that breaks these; `verify` reports it.

use object::{Object, ObjectSection};
use pcmap_reader::llvm::ListFacts;
use pcmap_reader::LocationKind;

use super::read::{Format, StackMapSection};
use crate::error::Result;
use crate::object::{CodeLoc, ObjectFile, Target};
use pcmap_reader::flat::{RecordKind, SECTION_NAME as FLAT_SECTION};
use pcmap_reader::llvm::SECTION_NAME as LLVM_STACKMAPS;

/// Checks what a record says against its function's code and the target:
/// the problem, if any, in words.
pub fn check_record(
    target: Target,
    instruction_offset: u32,
    locations: impl Iterator<Item = pcmap_reader::Result<pcmap_reader::Location>>,
    live_outs: impl Iterator<Item = pcmap_reader::Result<pcmap_reader::LiveOut>>,
    code_size: u64,
) -> std::result::Result<(), String> {
    check_offset(instruction_offset, code_size)?;
    check_lists(target, locations, live_outs)
}

/// Whether every location and live-out of a table whose parse saw `lists`
/// passes [`check_lists`] on `target`: then only each record's offset is
/// left to check ([`check_offset`]).
pub fn lists_hold(target: Target, lists: ListFacts) -> bool {
    lists.max_dwarf_register <= target.max_dwarf_register() && !lists.zero_size
}

/// The part of [`check_record`] that needs the function: the record's
/// offset inside its code.
pub fn check_offset(instruction_offset: u32, code_size: u64) -> std::result::Result<(), String> {
    if u64::from(instruction_offset) > code_size {
        return Err(format!(
            "instruction offset {instruction_offset:#x} is past the end of its function ({code_size:#x} bytes)"
        ));
    }
    Ok(())
}

/// The part of [`check_record`] that needs the target: sizes that are not
/// 0, registers the target has.
fn check_lists(
    target: Target,
    locations: impl Iterator<Item = pcmap_reader::Result<pcmap_reader::Location>>,
    live_outs: impl Iterator<Item = pcmap_reader::Result<pcmap_reader::LiveOut>>,
) -> std::result::Result<(), String> {
    let max = target.max_dwarf_register();
    // The message is formatted only for a bad register.
    let register = |what: &str, k: usize, reg: u16| {
        if reg > max {
            Err(format!(
                "{what} {k}: DWARF register {reg} is not a register of {} (at most {max})",
                target.name()
            ))
        } else {
            Ok(())
        }
    };
    for (k, l) in locations.enumerate() {
        let l = l.map_err(|e| format!("location {k}: {e}"))?;
        if l.size == 0 {
            return Err(format!("location {k} has size 0"));
        }
        if matches!(
            l.kind,
            LocationKind::Register | LocationKind::Direct | LocationKind::Indirect
        ) {
            register("location", k, l.dwarf_reg)?;
        }
    }
    for (k, l) in live_outs.enumerate() {
        let l = l.map_err(|e| format!("live-out {k}: {e}"))?;
        if l.size == 0 {
            return Err(format!("live-out {k} has size 0"));
        }
        register("live-out", k, l.dwarf_reg)?;
    }
    Ok(())
}

/// Checks every record of every stack map table of `sections` against its
/// function and the target, as `emit` does: each problem, one line.
pub fn check_tables(o: &ObjectFile<'_>, sections: &[StackMapSection]) -> Result<Vec<String>> {
    let target = o.target;
    let mut problems = Vec::new();
    for s in sections {
        for (k, t) in s.tables.iter().enumerate() {
            for (f, fref) in t.table.functions.iter().zip(&t.functions) {
                let name = fref.symbol.as_deref().unwrap_or("?");
                let Some(code) = fref.code else {
                    problems.push(format!(
                        "{} (table {}): function {name}: its address is not in code",
                        s.name,
                        k + 1
                    ));
                    continue;
                };
                let section_size = o.file.section_by_index(code.section)?.size();
                let code_size = match fref.size {
                    Some(size) if size > 0 => size,
                    _ => section_size.saturating_sub(code.offset),
                };
                if code.offset >= section_size {
                    problems.push(format!(
                        "{} (table {}): function {name} at offset {:#x} of a section of {section_size:#x} bytes",
                        s.name,
                        k + 1,
                        code.offset
                    ));
                    continue;
                }
                for r in &f.records {
                    if let Err(p) = check_record(
                        target,
                        r.instruction_offset,
                        r.locations.iter().copied().map(Ok),
                        r.live_outs.iter().copied().map(Ok),
                        code_size,
                    ) {
                        problems.push(format!(
                            "{} (table {}): function {name}, record ID {} at offset {:#x}: {p}",
                            s.name,
                            k + 1,
                            r.id,
                            r.instruction_offset
                        ));
                    }
                }
            }
        }
    }
    Ok(problems)
}

/// What keeps a stack walker from using the tables of `sections`, each
/// problem one line naming the function or record: a function of LLVM's
/// tables that no flat table describes (its object was not finished by
/// `pcmap emit`), and, unless `no_walk`, each flat record whose kind is
/// unknown (a stackmap at a return address looks like a statepoint).
pub fn walker_problems(sections: &[StackMapSection], no_walk: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let flat: std::collections::HashSet<CodeLoc> = sections
        .iter()
        .flat_map(|s| &s.tables)
        .filter(|t| t.format == Format::Flat)
        .flat_map(|t| t.functions.iter().filter_map(|f| f.code))
        .collect();
    for s in sections {
        for (k, t) in s.tables.iter().enumerate() {
            let table = || format!("{} (table {})", s.name, k + 1);
            for (f, fref) in t.table.functions.iter().zip(&t.functions) {
                let name = fref.symbol.as_deref().unwrap_or("?");
                let at = fref
                    .address
                    .map_or(String::new(), |a| format!(" at {a:#x}"));
                if t.format != Format::Flat {
                    if fref.code.is_some_and(|c| !flat.contains(&c)) {
                        problems.push(format!(
                            "{}: function {name}{at}: {} records in {LLVM_STACKMAPS} and none in {FLAT_SECTION}: its object was not finished by pcmap emit",
                            table(),
                            f.records.len()
                        ));
                    }
                    continue;
                }
                if no_walk {
                    continue;
                }
                for r in f.records.iter().filter(|r| r.kind == RecordKind::Unknown) {
                    let pc = fref.address.map_or(String::new(), |a| {
                        format!(" (PC {:#x})", a + u64::from(r.instruction_offset))
                    });
                    problems.push(format!(
                        "{}: function {name}, record ID {} at offset {:#x}{pc}: no known kind, which a stack walker needs: finish the object with the plugin's descriptions or --ir (or, for a runtime that never walks the stack, emit and verify with --no-walk)",
                        table(),
                        r.id,
                        r.instruction_offset
                    ));
                }
            }
        }
    }
    problems
}
