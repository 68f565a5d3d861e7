//! `pcmap` — an LLVM 16 pass plugin that attaches `!pcsections` metadata in
//! the manner of LLVM's SanitizerBinaryMetadata pass (LLVM 16's or LLVM 19's
//! encoding), plus ignorelists, generic PC sections and statistics.
//!
//! Under `opt-16 -load-pass-plugin=libpcmap_plugin.so -passes='pcmap<…>'` the
//! pass is configured by its parameters; under `clang-16 -fpass-plugin=…` it
//! runs at the optimizer-last extension point and reads `PCMAP_*` variables.

mod analysis;
pub mod config;
pub mod encoding;
pub mod ignorelist;
pub mod layout;
mod llvm;
mod md;
mod pass;
pub mod record;
pub mod stats;
mod structors;

use llvm_plugin::{PassBuilder, PipelineParsing};

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

    builder.add_optimizer_last_ep_callback(|manager, _level| {
        match std::panic::catch_unwind(|| config::from_env(|k| std::env::var(k).ok())) {
            Ok(Ok(cfg)) => manager.add_pass(pass::PcmapPass::new(cfg)),
            Ok(Err(e)) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
            Err(_) => fail("internal error while reading the PCMAP_* environment"),
        }
    });
}
