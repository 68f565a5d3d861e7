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
//! says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_code)]

// The bindings of the release the plugin is built for: one `llvmN` feature.
#[cfg(feature = "llvm16")]
extern crate llvm_sys_160 as llvm_sys;
#[cfg(feature = "llvm19")]
extern crate llvm_sys_191 as llvm_sys;

// `LLVM_MAJOR`, written by build.rs from the feature.
include!(concat!(env!("OUT_DIR"), "/llvm_major.rs"));

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
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use config::Config;

/// The pipeline element name users write in `-passes=`.
pub const PASS_NAME: &str = "pcmap";

/// The plugin of LLVM release `major`, as scripts/setup names it.
pub fn plugin_file_name(major: u32) -> String {
    format!("libpcmap_plugin-llvm{major}.so")
}

/// Reports a fatal error the way every pcmap message looks and fails the
/// compilation; used where LLVM offers the plugin no error channel. Files
/// the host registered for removal (clang's temporary output) are removed
/// first.
pub(crate) fn fail(message: &str) -> ! {
    eprintln!("pcmap: {message}");
    llvm::exit_failure()
}

/// The refusal of a host of another LLVM release: `plugin` (the plugin's
/// file as the host loaded it) is built for LLVM `built`, `program` runs
/// LLVM `host` (major, minor, patch). Names the plugin to use when it is
/// beside this one.
pub fn wrong_llvm_message(
    built: u32,
    host: (u32, u32, u32),
    plugin: Option<&Path>,
    program: &str,
) -> String {
    let (major, minor, patch) = host;
    let this = plugin.and_then(Path::file_name).map_or_else(
        || "the pcmap plugin".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let wanted = plugin_file_name(major);
    let beside = plugin.map_or_else(
        || Path::new(&wanted).to_path_buf(),
        |p| p.with_file_name(&wanted),
    );
    let what = if beside.is_file() {
        format!("use {} (pcmap cc picks it)", beside.display())
    } else {
        format!("pcmap has no plugin for LLVM {major} here (no {wanted} beside it)")
    };
    format!("{this} is built for LLVM {built}, {program} runs LLVM {major}.{minor}.{patch}: {what}")
}

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

/// `pcmap` or `pcmap<…>` in a pipeline text: its pass. `None` for another
/// element, and for bad parameters (printed: opt then reports the element
/// as unparsable and exits non-zero).
pub(crate) fn parse_pipeline_element(element: &str) -> Option<Pass> {
    let params = config::split_pipeline_name(element)?;
    match config::parse_pipeline_params(params) {
        Ok(cfg) => Some(Pass::Instrument(cfg)),
        Err(e) => {
            eprintln!("{e}");
            None
        }
    }
}

impl Registration {
    pub(crate) fn pipeline_start(&self) {
        self.compile_pipeline.set(true);
    }

    /// The pass of the optimizer-last extension point: the instrumentation
    /// configured by the environment in a compile, a refusal in a ThinLTO
    /// backend.
    pub(crate) fn optimizer_last(&self) -> Pass {
        if !self.compile_pipeline.replace(false) {
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
}

/// The pass of the full-LTO-early extension point, reached only by a full
/// LTO link.
pub(crate) fn full_lto_early() -> Pass {
    Pass::RefuseLtoLink("full LTO")
}

static LTO_LINK_REPORTED: AtomicBool = AtomicBool::new(false);

impl Pass {
    /// Runs on `m`; returns whether it changed.
    pub(crate) fn run(&self, m: llvm::Module<'_>) -> bool {
        match self {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_llvm_names_both_releases_and_the_plugin_to_use() {
        let dir = std::env::temp_dir().join(format!("pcmap-wrong-llvm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let this = dir.join("libpcmap_plugin.so");
        assert_eq!(
            wrong_llvm_message(16, (19, 1, 7), Some(&this), "clang-19"),
            "libpcmap_plugin.so is built for LLVM 16, clang-19 runs LLVM 19.1.7: pcmap has no plugin for LLVM 19 here (no libpcmap_plugin-llvm19.so beside it)"
        );
        let other = dir.join(plugin_file_name(19));
        std::fs::write(&other, b"").unwrap();
        assert_eq!(
            wrong_llvm_message(16, (19, 1, 7), Some(&this), "clang-19"),
            format!(
                "libpcmap_plugin.so is built for LLVM 16, clang-19 runs LLVM 19.1.7: use {} (pcmap cc picks it)",
                other.display()
            )
        );
        assert!(wrong_llvm_message(19, (16, 0, 6), None, "opt")
            .starts_with("the pcmap plugin is built for LLVM 19, opt runs LLVM 16.0.6: "));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
