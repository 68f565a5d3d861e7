//! The module pass: decides what gets PC-keyed metadata and attaches it, in
//! the manner of the LLVM release the configured encoding mirrors (in LLVM
//! 19, always LLVM 19's: encoding.rs).

use std::collections::HashMap;

use crate::analysis;
use crate::config::Config;
use pcmap_reader::pclayout::SectionLayout;
use pcmap_reader::pctable::EntryKind;
use pcmap_reader::sanmd::{Sanmd, CTOR_SUFFIX, DTOR_SUFFIX, FEATURE_ATOMICS, FEATURE_UAR};

use crate::encoding::{Encoding, BACKEND_WRITES_COMPACT};
use crate::layout;
use crate::llvm::{AtomicScope, Function, Instruction, Linkage, Metadata, Module, Opcode, Value};
use crate::md::{self, PcSection};
use crate::registration;
use crate::release::LLVM_MAJOR;
use crate::sites;
use pcmap_reader::stats::Stats;

use crate::stats;
use crate::structors::{self, Structors};

/// Instruments `m`; returns whether it changed. A module the pass cannot
/// instrument correctly is an error reported through LLVM (see
/// [`Module::emit_error`]) and is left untouched.
pub fn run(config: &Config, m: Module<'_>) -> bool {
    let source = m.source_file_name();
    let Checked {
        encoding,
        lto,
        sites,
    } = match check_module(config, m) {
        Ok(checked) => checked,
        Err(problem) => {
            m.emit_error(&format!("pcmap: {source}: {problem}"));
            return false;
        }
    };
    // Sites describe the code, whatever gets instrumented: every function,
    // ignorelisted or not.
    let described_sites = sites && describe_sites(m);
    // Stack maps outside LTO (whose link runs no `pcmap emit`): the image
    // registers its section (registration.rs), whatever is ignorelisted.
    // Added last, so the pass does not instrument its structors.
    let register = !lto && registration::has_stack_maps(m);
    if config
        .ignorelist
        .as_ref()
        .is_some_and(|l| l.ignores_source(&source))
    {
        if config.stats {
            eprintln!("{}", stats::line(stats::empty(), encoding, &source));
        }
        if register {
            registration::emit(m, config.weak_callbacks());
        }
        return described_sites || register;
    }
    let mut inst = Instrumenter::new(config, encoding, m);
    for f in m.functions() {
        inst.run_on_function(f);
    }
    if config.stats {
        eprintln!("{}", stats::line(inst.stats, encoding, &source));
    }
    let sections = inst.requested_sections();
    let record = match encoding {
        e if e.finished_by_emit() && !sections.is_empty() => match layout::record(m, &sections) {
            Ok(record) => Some(record),
            Err(e) => {
                // Reported before the structors and the record are added;
                // the failed compile discards the attachments made so far.
                m.emit_error(&format!("pcmap: {source}: {e}"));
                return true;
            }
        },
        _ => None,
    };
    let how = Structors {
        encoding,
        version: inst.version,
        lto,
        weak_callbacks: config.weak_callbacks(),
    };
    for &kind in &inst.used_kinds {
        structors::emit(m, how, kind);
    }
    if let Some(record) = record {
        layout::emit(m, &record);
    }
    if register {
        registration::emit(m, config.weak_callbacks());
    }
    described_sites || register || !sections.is_empty()
}

/// Writes the module's stack map sites, if it has any; returns whether it
/// did.
fn describe_sites(m: Module<'_>) -> bool {
    let found = sites::collect(m);
    if found.is_empty() {
        return false;
    }
    sites::emit(m, &sites::describe(&found));
    true
}

/// Module flags clang sets on bitcode for an LTO link: `ThinLTO` (0) for
/// full LTO, `EnableSplitLTOUnit` for both full and thin LTO.
const LTO_MODULE_FLAGS: [&str; 2] = ["ThinLTO", "EnableSplitLTOUnit"];

/// What the checks decided for a module.
struct Checked {
    encoding: Encoding,
    /// Bitcode for an LTO link.
    lto: bool,
    /// Describe its stack map sites.
    sites: bool,
}

/// What makes a module impossible to instrument correctly, or what it gets.
fn check_module(config: &Config, m: Module<'_>) -> Result<Checked, String> {
    // AsmPrinter::emitPCSections (LLVM 16 and 19) asks the object file
    // lowering for the PC section, which only ELF provides: Mach-O, COFF and
    // Wasm dereference null, XCOFF aborts (LLVM 16) or crashes (LLVM 19).
    // Refusing here keeps clang from crashing.
    let format = m.object_format();
    if format != "ELF" {
        return Err(format!(
            "cannot instrument for target '{}': LLVM {} writes PC sections only into ELF objects, and this target's are {format}",
            m.target_triple(),
            LLVM_MAJOR
        ));
    }
    // A second run would cover the structors of the first and register each
    // section twice (clang recompiling instrumented bitcode does this).
    if let Some(name) = instrumented_by(m) {
        return Err(format!(
            "already instrumented (it defines '{name}'); run the pass once per module"
        ));
    }
    let lto_flag = LTO_MODULE_FLAGS.into_iter().find(|f| m.has_module_flag(f));
    let lto = lto_flag.is_some();
    let encoding = match config.encoding_for(lto) {
        // LLVM 19 writes its own encoding final, in an LTO link too.
        _ if BACKEND_WRITES_COMPACT => Encoding::Compact,
        Some(e) => e,
        None => return Err(format!(
            "compiled for LTO (module flag '{}'): compact sections need `pcmap emit` on an object file, and an LTO link writes none; use the native encoding, which LLVM 16 writes final (PCMAP_ENCODING=native, pcmap<native>)",
            lto_flag.unwrap_or_default()
        )),
    };
    let sites = config.sites_for(lto).ok_or_else(|| {
        format!(
            "compiled for LTO (module flag '{}'): the link's optimizer changes the stack map sites after the pass ran, so they cannot be described; drop 'sites' (PCMAP_FEATURES, pcmap<…>)",
            lto_flag.unwrap_or_default()
        )
    })?;
    Ok(Checked {
        encoding,
        lto,
        sites,
    })
}

/// The name of a structor or description a SanitizerBinaryMetadata pass
/// (this one or LLVM's) left in `m`, if any.
fn instrumented_by(m: Module<'_>) -> Option<String> {
    for global in [
        pcmap_reader::pclayout::GLOBAL_NAME,
        pcmap_reader::sites::GLOBAL_NAME,
    ] {
        if m.has_global(global) {
            return Some(global.to_string());
        }
    }
    let registration = registration::structor_names();
    m.functions().map(|f| f.name()).find(|name| {
        registration.contains(name)
            || [Sanmd::Covered, Sanmd::Atomics]
                .iter()
                .any(|k| name.starts_with(k.callback_prefix()))
                && (name.ends_with(CTOR_SUFFIX) || name.ends_with(DTOR_SUFFIX))
    })
}

/// State of one run over a module.
struct Instrumenter<'c, 'm> {
    config: &'c Config,
    enc: Encoding,
    m: Module<'m>,
    pcsections: u32,
    version: u32,
    covered_section: String,
    atomics_section: String,
    /// Sections that received entries, in first-use order, as LLVM's
    /// `SetVector` orders the structors.
    used_kinds: Vec<Sanmd>,
    /// Per record rule: its constants, and whether it matched anything.
    record_aux: Vec<Vec<Value<'m>>>,
    record_used: Vec<bool>,
    covered_nodes: HashMap<u64, Metadata<'m>>,
    /// Instruction nodes keyed by (atomics entry?, record rules matched).
    inst_nodes: HashMap<(bool, Vec<usize>), Metadata<'m>>,
    stats: Stats,
}

impl<'c, 'm> Instrumenter<'c, 'm> {
    fn new(config: &'c Config, enc: Encoding, m: Module<'m>) -> Self {
        let version = enc.version(m.code_model());
        let record_aux = config
            .records
            .iter()
            .map(|r| {
                r.aux
                    .iter()
                    .map(|a| m.const_int(m.int_type(a.bits), a.value))
                    .collect()
            })
            .collect();
        Instrumenter {
            config,
            enc,
            m,
            pcsections: m.metadata_kind("pcsections"),
            version,
            covered_section: enc.requested_section(Sanmd::Covered, version),
            atomics_section: enc.requested_section(Sanmd::Atomics, version),
            used_kinds: Vec::new(),
            record_aux,
            record_used: vec![false; config.records.len()],
            covered_nodes: HashMap::new(),
            inst_nodes: HashMap::new(),
            stats: stats::empty(),
        }
    }

    fn use_kind(&mut self, kind: Sanmd) {
        if !self.used_kinds.contains(&kind) {
            self.used_kinds.push(kind);
        }
    }

    /// Functions no release instruments: declarations, opted-out ones, and
    /// available_externally copies whose real body lives elsewhere.
    fn skips(&self, f: Function<'m>) -> bool {
        f.is_declaration()
            || f.has_fn_attr("disable_sanitizer_instrumentation")
            || self
                .config
                .ignorelist
                .as_ref()
                .is_some_and(|l| l.ignores_function(&f.name()))
            || f.linkage() == Linkage::LLVMAvailableExternallyLinkage
    }

    fn run_on_function(&mut self, f: Function<'m>) {
        if self.skips(f) {
            return;
        }
        let features = self.config.features;
        let enc = self.enc;
        let mut mask = enc.initial_feature_mask(features.atomics);
        let mut requires_covered = false;
        let analyse = features.atomics || features.uar;
        let record = !self.config.records.is_empty();
        if analyse || record {
            for inst in f.instructions() {
                let mut atomic_entry = false;
                if analyse {
                    let (requires, tagged) = self.run_on_instruction(inst, &mut mask);
                    requires_covered |= requires;
                    atomic_entry = tagged;
                }
                let rules = if record {
                    self.matching_rules(inst)
                } else {
                    Vec::new()
                };
                if atomic_entry || !rules.is_empty() {
                    self.attach_to_instruction(inst, atomic_entry, rules);
                }
            }
        }
        if self.config.nosanitize_attr(enc) && f.has_string_fn_attr("no_sanitize_thread") {
            mask &= !FEATURE_ATOMICS;
        }
        if f.is_var_arg() {
            mask &= !FEATURE_UAR; // va_list handling defeats stack checks.
        }
        if mask & FEATURE_UAR != 0 {
            requires_covered = true;
            self.stats.uar += 1;
        }
        if features.covered || enc.needs_covered(mask, requires_covered) {
            self.attach_covered(f, mask);
        }
    }

    /// Updates `mask` for `inst`; returns (covered entry required, atomics
    /// entry due).
    fn run_on_instruction(&self, inst: Instruction<'m>, mask: &mut u64) -> (bool, bool) {
        let features = self.config.features;
        if features.uar && *mask & FEATURE_UAR == 0 && analysis::use_after_return_unsafe(inst) {
            *mask |= FEATURE_UAR;
        }
        if !features.atomics || !inst.may_read_or_write_memory() {
            return (false, false);
        }
        let cross_thread = inst.atomic_scope() == AtomicScope::CrossThread;
        if !self.enc.refines_atomics() {
            return (true, cross_thread);
        }
        let addr = inst.load_store_address();
        if !analysis::maybe_shared_mutable(addr) {
            return (false, false);
        }
        *mask |= FEATURE_ATOMICS;
        (true, cross_thread || analysis::pretend_atomic_access(addr))
    }

    fn matching_rules(&self, inst: Instruction<'m>) -> Vec<usize> {
        let rules = &self.config.records;
        (0..rules.len())
            .filter(|&i| rules[i].class.matches(inst))
            .collect()
    }

    fn attach_to_instruction(
        &mut self,
        inst: Instruction<'m>,
        atomic_entry: bool,
        rules: Vec<usize>,
    ) {
        if atomic_entry {
            self.stats.atomics += 1;
            if inst.opcode() == Opcode::LLVMFence {
                *self.stats.fences.get_or_insert(0) += 1;
            }
            self.use_kind(Sanmd::Atomics);
        }
        if !rules.is_empty() {
            self.stats.recorded += 1;
            for &r in &rules {
                self.record_used[r] = true;
            }
        }
        let key = (atomic_entry, rules);
        let node = match self.inst_nodes.get(&key) {
            Some(&n) => n,
            None => {
                let mut sections = Vec::new();
                if atomic_entry {
                    sections.push(PcSection {
                        name: &self.atomics_section,
                        aux: &[],
                    });
                }
                for &r in &key.1 {
                    sections.push(PcSection {
                        name: &self.config.records[r].section,
                        aux: &self.record_aux[r],
                    });
                }
                let n = md::pc_sections(self.m, &sections);
                self.inst_nodes.insert(key, n);
                n
            }
        };
        inst.set_metadata(self.pcsections, node);
    }

    fn attach_covered(&mut self, f: Function<'m>, mask: u64) {
        self.stats.covered += 1;
        self.use_kind(Sanmd::Covered);
        let node = match self.covered_nodes.get(&mask) {
            Some(&n) => n,
            None => {
                let ty = self
                    .m
                    .int_type(8 * u32::from(self.enc.feature_mask_bytes()));
                let aux = [self.m.const_int(ty, mask)];
                let n = md::pc_sections(
                    self.m,
                    &[PcSection {
                        name: &self.covered_section,
                        aux: &aux,
                    }],
                );
                self.covered_nodes.insert(mask, n);
                n
            }
        };
        f.set_metadata(self.pcsections, node);
    }

    /// Every section that received entries, for the layout description.
    fn requested_sections(&self) -> Vec<SectionLayout> {
        let enc = self.enc;
        let pc_width = layout::pc_width(self.m);
        let mut out: Vec<SectionLayout> = self
            .used_kinds
            .iter()
            .map(|&kind| {
                let (entries, aux) = match kind {
                    Sanmd::Covered => (EntryKind::Function, vec![enc.feature_mask_bytes()]),
                    Sanmd::Atomics => (EntryKind::Instruction, vec![]),
                };
                SectionLayout {
                    requested: enc.requested_section(kind, self.version),
                    final_name: enc.final_section(kind, self.version),
                    options: enc.options().to_string(),
                    entries,
                    size: entries.size_field_bytes(),
                    aux,
                    version: Some(self.version),
                    pc_width,
                    stack_args: enc.llvm16_stack_args(kind).then_some(FEATURE_UAR),
                }
            })
            .collect();
        for (rule, _) in self
            .config
            .records
            .iter()
            .zip(&self.record_used)
            .filter(|(_, used)| **used)
        {
            let entries = EntryKind::Instruction;
            out.push(SectionLayout {
                requested: rule.section.clone(),
                final_name: rule.section.clone(),
                options: String::new(),
                entries,
                size: entries.size_field_bytes(),
                aux: rule.aux.iter().map(|a| a.bytes()).collect(),
                version: None,
                pc_width,
                stack_args: None,
            });
        }
        out
    }
}
