//! `pcmap` — an LLVM pass plugin that attaches `!pcsections` metadata in
//! the manner of LLVM's SanitizerBinaryMetadata pass, plus ignorelists,
//! generic PC sections, statistics and stack map sites.
//!
//! One source, one plugin per LLVM release: the cargo feature `llvmN`
//! selects the release (llvm-sys's bindings, the headers of the C++ half),
//! and the plugin is `libpcmap_plugin-llvmN.so`. On LLVM 16 the pass writes
//! LLVM 16's encoding (`native`) or LLVM 19's (`compact`, finished by
//! `pcmap emit`); on LLVM 19 it is LLVM 19's own pass, whose backend writes
//! the compact sections final (encoding.rs).
//!
//! Under `opt -load-pass-plugin=… -passes='pcmap<…>'` the pass is
//! configured by its parameters; under `clang -fpass-plugin=…` it runs at
//! the optimizer-last extension point and reads `PCMAP_*` variables.
//!
//! It instruments at compile time only, LTO's included (the pre-link
//! pipelines reach optimizer-last too). Loaded into an LTO link
//! (`ld.lld --load-pass-plugin`), where it would instrument merged or
//! already instrumented modules a second time, it fails the link instead.
//! Loaded into another LLVM release than its own, it refuses before the
//! host calls any of its C++ (llvm.rs, the plugin entry).
//!
//! Only `llvm.rs` (and the C++ half, cpp/) calls LLVM; every `unsafe` block
//! says why it is sound. The plugin entry there calls what this file
//! implements of [`llvm::PassPlugin`] for each PassBuilder callback, so
//! modules import only lower ones: `release.rs` at the bottom, then
//! `llvm.rs`, this file at the top.
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_code)]

// The bindings of the release the plugin is built for: one `llvmN` feature.
#[cfg(feature = "llvm16")]
extern crate llvm_sys_160 as llvm_sys;
#[cfg(feature = "llvm19")]
extern crate llvm_sys_191 as llvm_sys;

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
pub mod release;
mod sites;
pub mod stats;
mod structors;

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use config::Config;
use llvm::{Module, PassPlugin, Pcmap};
use release::{plugin_file_name, LLVM_MAJOR};

/// The state of one PassBuilder's registration: what its extension points
/// saw.
#[derive(Default)]
pub(crate) struct Registration {
    /// Every compile pipeline (per-module and LTO pre-link, at every -O)
    /// passes the pipeline-start extension point before optimizer-last; the
    /// ThinLTO link-time (backend) pipeline reaches optimizer-last only.
    compile_pipeline: Cell<bool>,
}

/// A pass instance, owned by the host's pass manager.
pub(crate) enum Pass {
    Instrument(Config),
    /// Fails an LTO link the plugin was loaded into (`ld.lld
    /// --load-pass-plugin`): what kind of link.
    RefuseLtoLink(&'static str),
}

static LTO_LINK_REPORTED: AtomicBool = AtomicBool::new(false);

/// What the plugin entry (llvm.rs) calls for each PassBuilder callback.
impl PassPlugin for Pcmap {
    type Registration = Registration;
    type Pass = Pass;

    /// `pcmap` or `pcmap<…>` in a pipeline text: its pass. `None` for
    /// another element, and for bad parameters (printed: opt then reports
    /// the element as unparsable and exits non-zero).
    fn parse_pipeline_element(element: &str) -> Option<Pass> {
        let params = config::split_pipeline_name(element)?;
        match config::parse_pipeline_params(params) {
            Ok(cfg) => Some(Pass::Instrument(cfg)),
            Err(e) => {
                eprintln!("{e}");
                None
            }
        }
    }

    fn pipeline_start(registration: &Registration) {
        registration.compile_pipeline.set(true);
    }

    /// The pass of the optimizer-last extension point: the instrumentation
    /// configured by the environment in a compile, a refusal in a ThinLTO
    /// backend.
    fn optimizer_last(registration: &Registration) -> Pass {
        if !registration.compile_pipeline.replace(false) {
            return Pass::RefuseLtoLink("ThinLTO backend");
        }
        match config::from_env(|k| std::env::var_os(k)) {
            Ok(cfg) => Pass::Instrument(cfg),
            Err(e) => {
                // The error names itself (`pcmap: …`).
                eprintln!("{e}");
                llvm::exit_failure()
            }
        }
    }

    /// The pass of the full-LTO-early extension point, reached only by a
    /// full LTO link.
    fn full_lto_early() -> Pass {
        Pass::RefuseLtoLink("full LTO")
    }

    /// Runs `pass` on `m`; returns whether it changed.
    fn run(pass: &Pass, m: Module<'_>) -> bool {
        match pass {
            Pass::Instrument(cfg) => pass::run(cfg, m),
            Pass::RefuseLtoLink(link) => {
                // Link-time modules are merged (full LTO) or were compiled
                // already (ThinLTO backends), possibly with the pass:
                // instrumenting them would register sections twice
                // (structors created in the backends do not merge), and
                // compact sections would stay unfinished. ThinLTO runs one
                // backend per module, in parallel: the first error fails the
                // link, the others would only repeat it.
                if !LTO_LINK_REPORTED.swap(true, Ordering::Relaxed) {
                    m.emit_error(&format!(
                        "pcmap: loaded into an LTO link ({link}): pcmap instruments when compiling; give -fpass-plugin={} to the clang -flto compile steps, not to the link",
                        plugin_file_name(LLVM_MAJOR)
                    ));
                }
                false
            }
        }
    }
}
