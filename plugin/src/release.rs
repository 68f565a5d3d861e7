//! The LLVM release this plugin is built for ([`LLVM_MAJOR`], from the
//! `llvmN` feature), the plugin's file name for each release, and the
//! refusal a host of another release gets (the version guard's message:
//! llvm.rs).

use std::path::Path;

// `LLVM_MAJOR`, written by build.rs from the feature.
include!(concat!(env!("OUT_DIR"), "/llvm_major.rs"));

/// The plugin of LLVM release `major`, as scripts/setup names it.
pub fn plugin_file_name(major: u32) -> String {
    format!("libpcmap_plugin-llvm{major}.so")
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
