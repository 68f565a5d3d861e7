//! `pcmap verify`: check the PC sections of an object or linked program
//! against its symbols, and optionally count them against the plugin's
//! statistics (`PCMAP_STATS`, docs/plugin.md).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write};

use object::{Object, ObjectSection};

use pcmap_reader::sanmd::{Sanmd, SanmdSection};
use pcmap_reader::stats::{StatsLine, TAG, VERSION};

use crate::error::{Error, Result};
use crate::object::instructions::{self, PcForm};
use crate::object::{is_named_contents, ObjectFile};
use crate::pctable::read::Encoding;
use crate::pctable::{self, PcSection};
use crate::stackmap;
use pcmap_reader::pclayout::SECTION_NAME as LAYOUT_SECTION;
use pcmap_reader::sites::SECTION as SITES_SECTION;

/// Totals of the `pcmap-stats v1` lines of one or more compiles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IrStats {
    pub modules: usize,
    pub covered: u64,
    pub atomics: u64,
}

impl IrStats {
    /// Sums every statistics line of `text` (`pcmap_reader::stats`); other
    /// lines are ignored.
    pub fn parse(text: &str) -> Result<IrStats> {
        let mut s = IrStats::default();
        for line in text.lines() {
            let Some(parsed) = StatsLine::parse(line) else {
                continue;
            };
            let l = parsed.map_err(|e| Error::Stats(format!("{e} in '{line}'")))?;
            s.modules += 1;
            s.covered += l.stats.covered;
            s.atomics += l.stats.atomics;
        }
        if s.modules == 0 {
            return Err(Error::Stats(format!("no '{TAG} {VERSION}' line")));
        }
        Ok(s)
    }
}

/// What `verify` found.
#[derive(Debug, Default)]
pub struct Verified {
    pub sections: usize,
    pub entries: usize,
    /// Entries of `sanmd_covered*` / `sanmd_atomics*` sections.
    pub covered: u64,
    pub atomics: u64,
    /// Atomics PCs by the form of the instruction at them.
    pub atomics_forms: BTreeMap<PcForm, u64>,
    /// Distinct IR instructions the atomics PCs that mark an access belong
    /// to, as far as the code tells (one per LL/SC loop, one per other PC).
    pub atomics_sites: u64,
    /// Atomics PCs on an instruction that does no memory access (or on no
    /// instruction): where, and what is there. Their atomics have no PC.
    pub misplaced: Vec<String>,
    /// Stack map tables (LLVM's and flat ones) and their records.
    pub stack_map_tables: usize,
    pub records: usize,
    /// Each problem, one line, naming the section and entry.
    pub problems: Vec<String>,
}

/// Checks every PC of every PC section of `o`, and every stack map table;
/// anything `pcmap emit` leaves behind in a finished object is a problem
/// (the object, or one linked into the program, is not finished), as is a
/// stack map record a walker cannot use, unless `no_walk`: the tables are
/// for a runtime that never walks the stack with them.
pub fn verify(o: &ObjectFile<'_>, no_walk: bool) -> Result<Verified> {
    let sections = pctable::sections(o)?;
    let mut v = Verified::default();
    // (code section, site offset) of every atomics PC that marks an access.
    let mut sites = BTreeSet::new();
    for s in &sections {
        if s.encoding.is_none() {
            v.problems
                .push(format!("{}: not decoded: {}", s.name, s.note));
            continue;
        }
        if s.encoding == Some(Encoding::Raw) {
            v.problems.push(format!(
                "{}: not finished ({}): run pcmap emit on the object",
                s.name, s.note
            ));
        }
        v.sections += 1;
        v.entries += s.entries.len();
        match SanmdSection::parse(&s.name).map(|k| k.kind) {
            Some(Sanmd::Covered) => v.covered += s.entries.len() as u64,
            Some(Sanmd::Atomics) => {
                v.atomics += s.entries.len() as u64;
                classify_atomics(o, s, &mut v, &mut sites);
            }
            None => {}
        }
        check_section(o, s, &mut v.problems);
    }
    v.atomics_sites = sites.len() as u64;
    // The plugin's descriptions, which emit reads and removes.
    for (name, what) in [
        (
            LAYOUT_SECTION,
            "the plugin's description of its compact PC tables",
        ),
        (SITES_SECTION, "the plugin's description of stack map sites"),
    ] {
        if o.file.sections().any(|s| is_named_contents(&s, name)) {
            v.problems.push(format!(
                "{name}: {what}, which pcmap emit reads and removes: the object is not finished"
            ));
        }
    }
    // Stack maps: every table decodes (as `dump` requires), and every record
    // fits its function and the target (as `emit` requires).
    match stackmap::sections(o) {
        Ok(sections) => {
            v.stack_map_tables = sections.iter().map(|s| s.tables.len()).sum();
            v.records = sections
                .iter()
                .flat_map(|s| &s.tables)
                .flat_map(|t| &t.table.functions)
                .map(|f| f.records.len())
                .sum();
            v.problems
                .extend(stackmap::check::check_tables(o, &sections)?);
            v.problems
                .extend(stackmap::check::walker_problems(&sections, no_walk));
        }
        Err(e) => v.problems.push(e.to_string()),
    }
    Ok(v)
}

/// Classifies the instruction at each atomics PC of `s` (instructions.rs):
/// counts the forms, collects the sites of those that mark an access, and
/// lists the others.
fn classify_atomics(
    o: &ObjectFile<'_>,
    s: &PcSection,
    v: &mut Verified,
    sites: &mut BTreeSet<(usize, u64)>,
) {
    for e in &s.entries {
        let Some(loc) = e.loc else { continue };
        let Some(f) = o.functions.containing(loc) else {
            continue; // check_section reports it.
        };
        let Some(data) = o
            .file
            .section_by_index(loc.section)
            .ok()
            .and_then(|sec| sec.data().ok())
        else {
            continue;
        };
        let start = usize::try_from(f.offset)
            .unwrap_or(usize::MAX)
            .min(data.len());
        let end = match f.size {
            0 => data.len(),
            n => usize::try_from(f.offset.saturating_add(n))
                .unwrap_or(usize::MAX)
                .min(data.len()),
        };
        let code = &data[start..end.max(start)];
        let at = loc.offset - f.offset;
        let (form, what) = instructions::pc_form(o.target, code, at);
        *v.atomics_forms.entry(form).or_default() += 1;
        if form.is_access() {
            sites.insert((
                loc.section.0,
                f.offset + instructions::pc_site(o.target, code, at),
            ));
        } else {
            v.misplaced
                .push(format!("{}+{at:#x}: {what} ({})", f.name, form_name(form)));
        }
    }
}

/// How the report names a form.
fn form_name(form: PcForm) -> &'static str {
    match form {
        PcForm::Atomic => "atomic instruction",
        PcForm::Access => "plain access",
        PcForm::LlSc => "in an LL/SC loop",
        PcForm::Call => "a call, no access of its own",
        PcForm::NoAccess => "no memory access",
        PcForm::NotAnInstruction => "not an instruction",
    }
}

fn check_section(o: &ObjectFile<'_>, s: &PcSection, problems: &mut Vec<String>) {
    for e in &s.entries {
        let at = format!("{}: entry at offset {:#x}", s.name, e.offset);
        let Some(loc) = e.loc else {
            problems.push(format!("{at}: PC is outside every section"));
            continue;
        };
        let off = loc.offset;
        let Some(f) = o.functions.containing(loc) else {
            problems.push(format!(
                "{at}: PC {} lies outside any function's code",
                e.pc.address.map_or_else(
                    || format!("{}+{off:#x}", e.pc.section.as_deref().unwrap_or("?")),
                    |a| format!("{a:#x}")
                )
            ));
            continue;
        };
        let (start, size, name) = (f.offset, f.size, &f.name);
        if let Some(fsize) = e.size {
            if off != start {
                problems.push(format!(
                    "{at}: function entry points into {name} at +{:#x}, not at its start",
                    off - start
                ));
            } else if size != 0 && fsize != size {
                problems.push(format!(
                    "{at}: function {name} has size {fsize} in the table but {size} in its symbol"
                ));
            }
        }
    }
}

/// The report `pcmap verify` prints.
pub fn text(o: &mut impl Write, v: &Verified, stats: Option<&IrStats>) -> fmt::Result {
    writeln!(
        o,
        "{} PC sections, {} entries: {} covered functions, {} atomics PCs",
        v.sections, v.entries, v.covered, v.atomics
    )?;
    if v.atomics > 0 {
        let forms: Vec<String> = v
            .atomics_forms
            .iter()
            .map(|(&f, n)| format!("{n} {}", form_name(f)))
            .collect();
        writeln!(
            o,
            "atomics PCs by instruction: {}; {} sites (PCs of one LL/SC loop are one)",
            forms.join(", "),
            v.atomics_sites
        )?;
        for m in &v.misplaced {
            writeln!(o, "atomics PC marks no access: {m}")?;
        }
    }
    if v.stack_map_tables > 0 {
        writeln!(
            o,
            "{} stack map tables, {} records",
            v.stack_map_tables, v.records
        )?;
    }
    if let Some(st) = stats {
        writeln!(
            o,
            "IR ({} modules): {} covered functions, {} tagged atomic instructions",
            st.modules, st.covered, st.atomics
        )?;
        // A PC cannot be traced back to its IR instruction. The sites
        // group the PCs of one LL/SC loop (AtomicExpandPass tags every
        // instruction of it) and leave out PCs that mark no access (LLVM
        // 16 moves a cmpxchg's onto the `sete` reading its flag): fewer
        // sites than tagged IR instructions proves a loss; as many or more
        // bounds it (the backend may duplicate an atomic instruction).
        let misplaced = v.misplaced.len();
        let aside = if misplaced > 0 {
            format!(", {misplaced} PCs marking no access left aside")
        } else {
            String::new()
        };
        if v.atomics_sites < st.atomics {
            writeln!(
                o,
                "atomics: at least {} of {} tagged IR instructions lost their PC ({} PCs, {} sites{aside})",
                st.atomics - v.atomics_sites,
                st.atomics,
                v.atomics,
                v.atomics_sites
            )?;
        } else {
            writeln!(
                o,
                "atomics: no loss detected: {} sites ({} PCs{aside}) for {} tagged IR instructions (a bound, not a proof: the backend may duplicate an atomic)",
                v.atomics_sites, v.atomics, st.atomics
            )?;
        }
        if v.covered != st.covered {
            writeln!(
                o,
                "covered: {} entries for {} covered IR functions",
                v.covered, st.covered
            )?;
        }
    }
    for p in &v.problems {
        writeln!(o, "problem: {p}")?;
    }
    writeln!(
        o,
        "{}",
        if v.problems.is_empty() {
            "ok"
        } else {
            "FAILED"
        }
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_lines_sum() {
        let t = "warning: x\npcmap-stats v1 encoding=compact covered=10 atomics=7 uar=2 recorded=0 module=c11.c\n\
                 pcmap-stats v1 encoding=compact covered=2 atomics=1 uar=0 recorded=0 module=a b.c\n";
        assert_eq!(
            IrStats::parse(t).unwrap(),
            IrStats {
                modules: 2,
                covered: 12,
                atomics: 8
            }
        );
        assert!(IrStats::parse("pcmap-stats v2 atomics=1").is_err());
        assert!(IrStats::parse("nothing").is_err());
        assert!(IrStats::parse("pcmap-stats v1 covered=1 module=x").is_err());
    }

    fn report(v: &Verified, stats: Option<&IrStats>) -> String {
        let mut o = String::new();
        text(&mut o, v, stats).unwrap();
        o
    }

    #[test]
    fn loss_is_a_lower_bound() {
        let v = Verified {
            atomics: 3,
            atomics_sites: 3,
            ..Verified::default()
        };
        let st = |atomics| IrStats {
            modules: 1,
            covered: 0,
            atomics,
        };
        assert!(report(&v, Some(&st(4)))
            .contains("at least 1 of 4 tagged IR instructions lost their PC (3 PCs, 3 sites)"));
        assert!(report(&v, Some(&st(3))).contains("no loss detected: 3 sites (3 PCs) for 3"));
        assert!(report(&v, Some(&st(2))).contains("no loss detected: 3 sites (3 PCs) for 2"));
        // A PC on a `sete` is no site: one IR cmpxchg lost its PC.
        let v = Verified {
            atomics: 3,
            atomics_sites: 2,
            misplaced: vec!["cas+0x10: sete (no memory access)".into()],
            ..Verified::default()
        };
        let r = report(&v, Some(&st(3)));
        assert!(
            r.contains("atomics PC marks no access: cas+0x10: sete (no memory access)"),
            "{r}"
        );
        assert!(r.contains("at least 1 of 3 tagged IR instructions lost their PC (3 PCs, 2 sites, 1 PCs marking no access left aside)"), "{r}");
    }
}
