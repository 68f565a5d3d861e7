//! The module pass: decides what gets PC-keyed metadata and attaches it.

use llvm_plugin::inkwell::module::Module;
use llvm_plugin::{LlvmModulePass, ModuleAnalysisManager, PreservedAnalyses};

use crate::config::Config;
use crate::md::{PcSections, SectionRequest};

/// Section that lists every function the pass analysed (LLVM 19 name, `!C`).
const COVERED_SECTION: &str = "sanmd_covered2!C";

pub struct PcmapPass {
    config: Config,
}

impl PcmapPass {
    pub fn new(config: Config) -> Self {
        Self { config }
    }
}

impl LlvmModulePass for PcmapPass {
    fn run_pass(&self, module: &mut Module<'_>, _: &ModuleAnalysisManager) -> PreservedAnalyses {
        if !self.config.features.covered {
            return PreservedAnalyses::All;
        }
        let ctx = module.get_context();
        let kind = ctx.get_kind_id("pcsections");
        let mask = ctx.i64_type().const_int(0, false);
        let md = PcSections::new(
            ctx,
            &[SectionRequest {
                name: COVERED_SECTION,
                aux: &[mask],
            }],
        );
        let mut changed = false;
        for f in module.get_functions() {
            if f.count_basic_blocks() == 0 {
                continue;
            }
            md.attach_to_function(kind, f);
            changed = true;
        }
        if changed {
            PreservedAnalyses::None
        } else {
            PreservedAnalyses::All
        }
    }
}
