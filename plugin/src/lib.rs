//! `pcmap` — an LLVM 16 pass plugin that attaches `!pcsections` metadata in
//! the manner of LLVM's SanitizerBinaryMetadata pass.
//!
//! Under `opt-16 -load-pass-plugin=libpcmap_plugin.so -passes='pcmap<…>'` the
//! pass is configured by its parameters; under `clang-16 -fpass-plugin=…` it
//! runs at the optimizer-last extension point and reads `PCMAP_*` variables.

pub mod config;
mod md;
mod pass;

use llvm_plugin::{PassBuilder, PipelineParsing};

/// The pipeline element name users write in `-passes=`.
pub const PASS_NAME: &str = "pcmap";

#[llvm_plugin::plugin(name = "pcmap", version = "0.1")]
fn plugin_registrar(builder: &mut PassBuilder) {
    builder.add_module_pipeline_parsing_callback(|element, manager| {
        let Some(params) = config::split_pipeline_name(element) else {
            return PipelineParsing::NotParsed;
        };
        match config::parse_pipeline_params(params) {
            Ok(cfg) => {
                manager.add_pass(pass::PcmapPass::new(cfg));
                PipelineParsing::Parsed
            }
            Err(e) => {
                // opt then reports the element as unparsable and exits non-zero.
                eprintln!("{e}");
                PipelineParsing::NotParsed
            }
        }
    });

    builder.add_optimizer_last_ep_callback(|manager, _level| {
        let value = std::env::var("PCMAP_FEATURES").ok();
        match config::parse_features_env(value.as_deref()) {
            Ok(cfg) => manager.add_pass(pass::PcmapPass::new(cfg)),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    });
}
