//! `pcmap` — an LLVM 16 pass plugin that attaches `!pcsections` metadata in
//! the manner of LLVM's SanitizerBinaryMetadata pass (LLVM 16's or LLVM 19's
//! encoding), plus ignorelists, generic PC sections and statistics.
//!
//! Under `opt-16 -load-pass-plugin=libpcmap_plugin.so -passes='pcmap<…>'` the
//! pass is configured by its parameters; under `clang-16 -fpass-plugin=…` it
//! runs at the optimizer-last extension point and reads `PCMAP_*` variables.
//!
//! It instruments at compile time only, LTO's included (the pre-link
//! pipelines reach optimizer-last too). Loaded into an LTO link
//! (`ld.lld --load-pass-plugin`), where it would instrument merged or
//! already instrumented modules a second time, it fails the link instead.
//!
//! Only `llvm.rs` calls LLVM; every `unsafe` block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_code)]

mod analysis;
pub mod config;
mod description;
pub mod encoding;
pub mod ignorelist;
pub mod layout;
#[allow(unsafe_code)]
mod llvm;
mod md;
mod pass;
pub mod record;
mod registration;
mod sites;
pub mod stats;
mod structors;

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

use llvm_plugin::inkwell::module::Module as InkwellModule;
use llvm_plugin::{
    LlvmModulePass, ModuleAnalysisManager, PassBuilder, PipelineParsing, PreservedAnalyses,
};

/// The pipeline element name users write in `-passes=`.
pub const PASS_NAME: &str = "pcmap";

/// Reports a fatal error the way every pcmap message looks and fails the
/// compilation; used where LLVM offers the plugin no error channel.
pub(crate) fn fail(message: &str) -> ! {
    eprintln!("pcmap: {message}");
    std::process::exit(1)
}

#[llvm_plugin::plugin(name = "pcmap", version = "0.2")]
fn plugin_registrar(builder: &mut PassBuilder) {
    builder.add_module_pipeline_parsing_callback(|element, manager| {
        let Some(params) = config::split_pipeline_name(element) else {
            return PipelineParsing::NotParsed;
        };
        match std::panic::catch_unwind(|| config::parse_pipeline_params(params)) {
            Ok(Ok(cfg)) => {
                manager.add_pass(pass::PcmapPass::new(cfg));
                PipelineParsing::Parsed
            }
            Ok(Err(e)) => {
                // opt then reports the element as unparsable and exits non-zero.
                eprintln!("{e}");
                PipelineParsing::NotParsed
            }
            Err(_) => fail("internal error while parsing pass parameters"),
        }
    });

    // Every compile pipeline (per-module and LTO pre-link, at every -O)
    // passes the pipeline-start extension point before optimizer-last; the
    // ThinLTO link-time (backend) pipeline reaches optimizer-last only.
    let compile_pipeline = Rc::new(Cell::new(false));
    let started = Rc::clone(&compile_pipeline);
    builder.add_pipeline_start_ep_callback(move |_, _| started.set(true));

    builder.add_full_lto_early_ep_callback(|manager, _| {
        manager.add_pass(LtoLinkRefusal("full LTO"));
    });

    builder.add_optimizer_last_ep_callback(move |manager, _level| {
        if !compile_pipeline.replace(false) {
            manager.add_pass(LtoLinkRefusal("ThinLTO backend"));
            return;
        }
        match std::panic::catch_unwind(|| config::from_env(|k| std::env::var_os(k))) {
            Ok(Ok(cfg)) => manager.add_pass(pass::PcmapPass::new(cfg)),
            Ok(Err(e)) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
            Err(_) => fail("internal error while reading the PCMAP_* environment"),
        }
    });
}

/// Fails an LTO link the plugin was loaded into (`ld.lld --load-pass-plugin`).
/// Link-time modules are merged (full LTO) or were compiled already (ThinLTO backends),
/// possibly with the pass: instrumenting them would register sections twice
/// (structors created in the backends do not merge), and compact sections
/// would stay unfinished.
struct LtoLinkRefusal(&'static str);

static LTO_LINK_REPORTED: AtomicBool = AtomicBool::new(false);

impl LlvmModulePass for LtoLinkRefusal {
    fn run_pass(
        &self,
        module: &mut InkwellModule<'_>,
        _: &ModuleAnalysisManager,
    ) -> PreservedAnalyses {
        // ThinLTO runs one backend per module, in parallel: the first error
        // fails the link, the others would only repeat it.
        if LTO_LINK_REPORTED.swap(true, Ordering::Relaxed) {
            return PreservedAnalyses::All;
        }
        llvm::Module::new(module).emit_error(&format!(
            "pcmap: loaded into an LTO link ({}): pcmap instruments when compiling; give -fpass-plugin=libpcmap_plugin.so to the clang -flto compile steps, not to the link",
            self.0
        ));
        PreservedAnalyses::All
    }
}
