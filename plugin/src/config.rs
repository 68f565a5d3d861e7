//! What the pass is asked to do: parsed from `pcmap<…>` pipeline parameters
//! (under `opt`) or from `PCMAP_*` environment variables (under `clang`).
//!
//! | parameter         | environment               | meaning                          |
//! |-------------------|---------------------------|----------------------------------|
//! | covered/atomics/uar, all | `PCMAP_FEATURES=a,b` | SanitizerBinaryMetadata features |
//! | sites / no-sites  | `PCMAP_FEATURES=sites`    | stack map sites (sites.rs)       |
//! | native / compact  | `PCMAP_ENCODING=…`        | which LLVM release to mirror     |
//! | ignorelist=FILE (repeatable) | `PCMAP_IGNORELIST=FILE,FILE` | functions/sources to skip |
//! | [no-]weak-callbacks | `PCMAP_WEAK_CALLBACKS=0\|1` | `-sanitizer-metadata-weak-callbacks` |
//! | [no-]nosanitize-attr | `PCMAP_NOSANITIZE_ATTR=0\|1` | `-sanitizer-metadata-nosanitize-attr` |
//! | record=RULE       | `PCMAP_RECORD=RULE,RULE`  | generic PC sections (record.rs)  |
//! | stats             | `PCMAP_STATS=1`           | one stats line per module        |

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::encoding::Encoding;
use crate::ignorelist::Ignorelist;
use crate::record::{self, Rule};

/// Which SanitizerBinaryMetadata features to emit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub covered: bool,
    pub atomics: bool,
    pub uar: bool,
}

impl Features {
    pub const ALL: Features = Features {
        covered: true,
        atomics: true,
        uar: true,
    };

    pub fn is_empty(&self) -> bool {
        !(self.covered || self.atomics || self.uar)
    }
}

/// Whether the pass describes the module's stack map sites (sites.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sites {
    /// Not named: described, unless the module is compiled for LTO (the
    /// link's optimizer changes the sites after the pass).
    #[default]
    Auto,
    /// `sites`: described; a module compiled for LTO is an error.
    Requested,
    /// `no-sites`: never described.
    Off,
}

/// The full configuration of one pass instance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub features: Features,
    pub sites: Sites,
    /// The encoding asked for; `None` lets the module decide
    /// ([`Config::encoding_for`]).
    pub encoding: Option<Encoding>,
    /// Every ignorelist given, combined (as clang combines several
    /// `-fexperimental-sanitize-metadata-ignorelist=`).
    pub ignorelist: Option<Ignorelist>,
    pub records: Vec<Rule>,
    pub stats: bool,
    /// `-sanitizer-metadata-weak-callbacks`; `None`: LLVM's default, weak.
    pub weak_callbacks: Option<bool>,
    /// `-sanitizer-metadata-nosanitize-attr`; `None`: the release's
    /// behaviour ([`Encoding::nosanitize_attr_default`]).
    pub nosanitize_attr: Option<bool>,
}

/// A configuration error; its message names the offending word or file.
#[derive(Debug, PartialEq, Eq)]
pub struct ConfigError(String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pcmap: {}", self.0)
    }
}

const FEATURE_WORDS: &str = "covered, atomics, uar, all, sites, no-sites";
const PARAM_WORDS: &str = "covered, atomics, uar, all, sites, no-sites, native, compact, stats, \
     [no-]weak-callbacks, [no-]nosanitize-attr, ignorelist=FILE, record=RULE";

/// Parses the parameters of `pcmap<covered;atomics;uar;…>`; `None` means the
/// bare name `pcmap`: every feature, the default encoding, sites.
pub fn parse_pipeline_params(params: Option<&str>) -> Result<Config, ConfigError> {
    let Some(params) = params else {
        return Ok(Config {
            features: Features::ALL,
            ..Config::default()
        });
    };
    let origin = "pass parameter";
    let mut cfg = Config::default();
    for word in params.split(';').map(str::trim).filter(|w| !w.is_empty()) {
        if set_feature(&mut cfg, word)? {
            continue;
        }
        match word.split_once('=') {
            None => match word {
                "stats" => cfg.stats = true,
                "weak-callbacks" | "no-weak-callbacks" => {
                    set_switch(&mut cfg.weak_callbacks, word, "weak-callbacks")?
                }
                "nosanitize-attr" | "no-nosanitize-attr" => {
                    set_switch(&mut cfg.nosanitize_attr, word, "nosanitize-attr")?
                }
                _ => cfg.encoding = Some(parse_encoding(word, origin, PARAM_WORDS)?),
            },
            Some(("ignorelist", path)) => add_ignorelist(&mut cfg, Path::new(path))?,
            Some(("record", rule)) => cfg.records.push(parse_rule(rule)?),
            Some(_) => return Err(unknown(origin, word, PARAM_WORDS)),
        }
    }
    finish(cfg, origin)
}

/// Reads the configuration of a clang run from `lookup` (the environment).
/// A value that is not UTF-8 is an error naming the variable, never taken
/// as unset; `PCMAP_IGNORELIST` holds paths, which may be any bytes.
pub fn from_env(lookup: impl Fn(&str) -> Option<OsString>) -> Result<Config, ConfigError> {
    let text = |key: &str| env_text(key, lookup(key));
    let mut cfg = Config {
        features: Features::ALL,
        ..Config::default()
    };
    if let Some(v) = text("PCMAP_FEATURES")? {
        cfg.features = Features::default();
        for word in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            if !set_feature(&mut cfg, word)? {
                return Err(unknown("PCMAP_FEATURES value", word, FEATURE_WORDS));
            }
        }
    }
    if let Some(v) = text("PCMAP_ENCODING")? {
        cfg.encoding = Some(parse_encoding(
            v.trim(),
            "PCMAP_ENCODING value",
            "native, compact",
        )?);
    }
    if let Some(v) = lookup("PCMAP_IGNORELIST") {
        for path in v.as_bytes().split(|&b| b == b',').filter(|p| !p.is_empty()) {
            add_ignorelist(&mut cfg, Path::new(OsStr::from_bytes(path)))?;
        }
    }
    cfg.weak_callbacks = env_bool(text("PCMAP_WEAK_CALLBACKS")?, "PCMAP_WEAK_CALLBACKS")?;
    cfg.nosanitize_attr = env_bool(text("PCMAP_NOSANITIZE_ATTR")?, "PCMAP_NOSANITIZE_ATTR")?;
    if let Some(v) = text("PCMAP_RECORD")? {
        for rule in v.split(',').map(str::trim).filter(|r| !r.is_empty()) {
            cfg.records.push(parse_rule(rule)?);
        }
    }
    if let Some(v) = text("PCMAP_STATS")? {
        cfg.stats = match v.trim() {
            "1" => true,
            "0" | "" => false,
            other => return Err(unknown("PCMAP_STATS value", other, "0, 1")),
        };
    }
    finish(cfg, "PCMAP_FEATURES value")
}

/// The text of variable `key`'s value; one that is not UTF-8 is an error
/// naming the variable and where its first bad byte is.
fn env_text(key: &str, value: Option<OsString>) -> Result<Option<String>, ConfigError> {
    value
        .map(|v| {
            v.into_string().map_err(|v| {
                let bytes = v.as_bytes();
                let at = std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |_| 0);
                ConfigError(format!(
                    "{key} is not UTF-8 text ('{}': byte {:#04x} at offset {at})",
                    shown(&v),
                    bytes[at]
                ))
            })
        })
        .transpose()
}

/// `s` for a message: its text, with each byte that is not UTF-8 as `\xNN`.
fn shown(s: &OsStr) -> String {
    let mut out = String::new();
    for chunk in s.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// `name` / `no-name` sets `switch` on / off; both is an error.
fn set_switch(switch: &mut Option<bool>, word: &str, name: &str) -> Result<(), ConfigError> {
    let on = word == name;
    if *switch == Some(!on) {
        return Err(ConfigError(format!(
            "'{name}' and 'no-{name}' contradict each other"
        )));
    }
    *switch = Some(on);
    Ok(())
}

/// A `0`/`1` variable's value; unset is `None`.
fn env_bool(value: Option<String>, key: &str) -> Result<Option<bool>, ConfigError> {
    match value.as_deref().map(str::trim) {
        None => Ok(None),
        Some("1") => Ok(Some(true)),
        Some("0") => Ok(Some(false)),
        Some(other) => Err(unknown(&format!("{key} value"), other, "0, 1")),
    }
}

impl Config {
    /// Whether the callbacks are weak: declared `extern_weak` and called
    /// only when linked in (LLVM 16 and 19 alike by default).
    pub fn weak_callbacks(&self) -> bool {
        self.weak_callbacks.unwrap_or(true)
    }

    /// Whether `no_sanitize_thread` clears a function's atomics bit.
    pub fn nosanitize_attr(&self, encoding: Encoding) -> bool {
        self.nosanitize_attr
            .unwrap_or_else(|| encoding.nosanitize_attr_default())
    }

    /// The encoding for a module; `lto` says it is bitcode for an LTO link.
    /// Unasked, that is compact, or native under LTO: an LTO link writes the
    /// program at once, so no object exists for `pcmap emit` to finish
    /// compact sections, while LLVM 16 writes native ones final. `None`:
    /// compact was asked for under LTO, which cannot be honoured.
    pub fn encoding_for(&self, lto: bool) -> Option<Encoding> {
        match (self.encoding, lto) {
            (Some(Encoding::Compact), true) => None,
            (Some(e), _) => Some(e),
            (None, true) => Some(Encoding::Native),
            (None, false) => Some(Encoding::Compact),
        }
    }

    /// Whether to describe the stack map sites of a module; `lto` says it is
    /// bitcode for an LTO link. `None`: sites were asked for under LTO,
    /// which cannot be honoured (they change when the link optimizes).
    pub fn sites_for(&self, lto: bool) -> Option<bool> {
        match (self.sites, lto) {
            (Sites::Requested, true) => None,
            (Sites::Requested, false) => Some(true),
            (Sites::Auto, lto) => Some(!lto),
            (Sites::Off, _) => Some(false),
        }
    }
}

/// Applies a feature word (`covered`, …, `sites`, `no-sites`); `false` if
/// `word` is none.
fn set_feature(cfg: &mut Config, word: &str) -> Result<bool, ConfigError> {
    let f = &mut cfg.features;
    match word {
        "covered" => f.covered = true,
        "atomics" => f.atomics = true,
        "uar" => f.uar = true,
        // clang's -fexperimental-sanitize-metadata=all.
        "all" => *f = Features::ALL,
        "sites" | "no-sites" => {
            let sites = match word {
                "sites" => Sites::Requested,
                _ => Sites::Off,
            };
            if cfg.sites != Sites::Auto && cfg.sites != sites {
                return Err(ConfigError(
                    "'sites' and 'no-sites' contradict each other".to_string(),
                ));
            }
            cfg.sites = sites;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn parse_encoding(word: &str, origin: &str, expected: &str) -> Result<Encoding, ConfigError> {
    match word {
        "native" => Ok(Encoding::Native),
        "compact" => Ok(Encoding::Compact),
        _ => Err(unknown(origin, word, expected)),
    }
}

fn unknown(origin: &str, word: &str, expected: &str) -> ConfigError {
    ConfigError(format!("unknown {origin} '{word}' (expected {expected})"))
}

/// The largest ignorelist read, far above any real one (LLVM's own lists
/// are kilobytes): a path such as `/dev/zero` or a runaway file fails here
/// instead of growing the compiler until the kernel kills it.
pub const IGNORELIST_MAX_BYTES: u64 = 64 << 20;

fn load_ignorelist(path: &Path) -> Result<Ignorelist, ConfigError> {
    let text = read_bounded(path, IGNORELIST_MAX_BYTES)?;
    Ignorelist::parse(&text)
        .map_err(|e| ConfigError(format!("ignorelist '{}' {e}", shown(path.as_os_str()))))
}

/// Reads `path` and adds its entries to the ignorelists read so far.
fn add_ignorelist(cfg: &mut Config, path: &Path) -> Result<(), ConfigError> {
    let list = load_ignorelist(path)?;
    match &mut cfg.ignorelist {
        Some(all) => all.extend(list),
        None => cfg.ignorelist = Some(list),
    }
    Ok(())
}

/// Reads at most `limit` bytes of UTF-8 text from `path`; more is an error.
fn read_bounded(path: &Path, limit: u64) -> Result<String, ConfigError> {
    use std::io::Read as _;
    let name = shown(path.as_os_str());
    let cannot = |e: std::io::Error| ConfigError(format!("cannot read ignorelist '{name}': {e}"));
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() as u64 > limit {
        let most = match limit % (1 << 20) {
            0 => format!("{} MiB", limit >> 20),
            _ => format!("{limit} bytes"),
        };
        return Err(ConfigError(format!(
            "ignorelist '{name}' is larger than {most}, the most pcmap reads"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        ConfigError(format!(
            "ignorelist '{name}' is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

fn parse_rule(text: &str) -> Result<Rule, ConfigError> {
    Rule::parse(text).map_err(|e| ConfigError(e.to_string()))
}

fn finish(cfg: Config, origin: &str) -> Result<Config, ConfigError> {
    if cfg.features.is_empty() && cfg.records.is_empty() && cfg.sites != Sites::Requested {
        return Err(ConfigError(format!(
            "empty {origin}: name at least one feature (covered, atomics, uar, sites) or record rule"
        )));
    }
    record::check_rules(&cfg.records).map_err(|e| ConfigError(e.to_string()))?;
    Ok(cfg)
}

/// The pipeline element name users write in `-passes=`.
pub const PASS_NAME: &str = "pcmap";

/// Splits `pcmap<a;b>` into `Some("a;b")`, `pcmap` into `None`; any other
/// pipeline element is not ours.
pub fn split_pipeline_name(element: &str) -> Option<Option<&str>> {
    let rest = element.strip_prefix(PASS_NAME)?;
    if rest.is_empty() {
        return Some(None);
    }
    rest.strip_prefix('<')?.strip_suffix('>').map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn env_bytes(key: &'static str, value: &'static [u8]) -> impl Fn(&str) -> Option<OsString> {
        move |k| (k == key).then(|| OsStr::from_bytes(value).to_os_string())
    }

    #[test]
    fn pipeline_names() {
        assert_eq!(split_pipeline_name("pcmap"), Some(None));
        assert_eq!(split_pipeline_name("pcmap<uar>"), Some(Some("uar")));
        assert_eq!(split_pipeline_name("pcmapx"), None);
        assert_eq!(split_pipeline_name("sanmd-module"), None);
    }

    #[test]
    fn params_subset_and_errors() {
        let c = parse_pipeline_params(Some("covered;uar;native;stats")).unwrap();
        assert_eq!(
            c.features,
            Features {
                covered: true,
                atomics: false,
                uar: true
            }
        );
        assert_eq!(c.encoding, Some(Encoding::Native));
        assert!(c.stats);
        assert_eq!(parse_pipeline_params(None).unwrap().encoding, None);
        let e = parse_pipeline_params(Some("covered;bogus")).unwrap_err();
        assert!(e.to_string().contains("'bogus'"), "{e}");
        assert!(parse_pipeline_params(Some("")).is_err());
        assert!(parse_pipeline_params(Some("native")).is_err());
        assert!(parse_pipeline_params(Some("record=call@c")).is_ok());
        assert!(parse_pipeline_params(Some("covered;colour=red")).is_err());
        let e = parse_pipeline_params(Some("ignorelist=/nonexistent/x")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/x"), "{e}");
    }

    #[test]
    fn environment() {
        let c = from_env(env(&[])).unwrap();
        assert_eq!(c.features, Features::ALL);
        assert_eq!(c.encoding, None);
        let c = from_env(env(&[
            ("PCMAP_FEATURES", "atomics"),
            ("PCMAP_ENCODING", "native"),
        ]))
        .unwrap();
        assert!(c.features.atomics && !c.features.covered);
        assert_eq!(c.encoding, Some(Encoding::Native));
        for bad in [
            ("PCMAP_FEATURES", "atomics,nope"),
            ("PCMAP_FEATURES", ""),
            ("PCMAP_ENCODING", "zip"),
            ("PCMAP_STATS", "yes"),
            ("PCMAP_RECORD", "call"),
            ("PCMAP_IGNORELIST", "/nonexistent"),
        ] {
            assert!(from_env(env(&[bad])).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sites_words() {
        // On unless named off; alone they are a complete configuration.
        assert_eq!(parse_pipeline_params(None).unwrap().sites, Sites::Auto);
        assert_eq!(
            parse_pipeline_params(Some("covered")).unwrap().sites,
            Sites::Auto
        );
        let c = parse_pipeline_params(Some("sites")).unwrap();
        assert!(c.features.is_empty() && c.sites == Sites::Requested);
        let c = parse_pipeline_params(Some("atomics;no-sites")).unwrap();
        assert_eq!(c.sites, Sites::Off);
        assert!(parse_pipeline_params(Some("no-sites")).is_err());
        let e = parse_pipeline_params(Some("sites;no-sites")).unwrap_err();
        assert!(e.to_string().contains("contradict"), "{e}");
        let c = from_env(env(&[("PCMAP_FEATURES", "sites")])).unwrap();
        assert!(c.features.is_empty() && c.sites == Sites::Requested);
        let c = from_env(env(&[("PCMAP_FEATURES", "uar")])).unwrap();
        assert_eq!(c.sites, Sites::Auto);
        let c = from_env(env(&[("PCMAP_FEATURES", "uar,no-sites")])).unwrap();
        assert_eq!(c.sites, Sites::Off);
        assert!(from_env(env(&[("PCMAP_FEATURES", "no-sites")])).is_err());
        assert!(from_env(env(&[("PCMAP_FEATURES", "no-sites,sites")])).is_err());
        // Sites change when an LTO link optimizes: off there unless asked
        // for, which is an error.
        let mut c = Config::default();
        assert_eq!(c.sites_for(false), Some(true));
        assert_eq!(c.sites_for(true), Some(false));
        c.sites = Sites::Requested;
        assert_eq!(c.sites_for(false), Some(true));
        assert_eq!(c.sites_for(true), None);
        c.sites = Sites::Off;
        assert_eq!(c.sites_for(false), Some(false));
        assert_eq!(c.sites_for(true), Some(false));
    }

    #[test]
    fn encoding_per_module() {
        let mut c = from_env(env(&[])).unwrap();
        assert_eq!(c.encoding_for(false), Some(Encoding::Compact));
        assert_eq!(c.encoding_for(true), Some(Encoding::Native));
        c.encoding = Some(Encoding::Compact);
        assert_eq!(c.encoding_for(false), Some(Encoding::Compact));
        assert_eq!(c.encoding_for(true), None);
        c.encoding = Some(Encoding::Native);
        assert_eq!(c.encoding_for(false), Some(Encoding::Native));
        assert_eq!(c.encoding_for(true), Some(Encoding::Native));
    }

    #[test]
    fn llvm19_options() {
        // Defaults: weak callbacks; no_sanitize_thread honoured in LLVM 19's
        // encoding only.
        let c = parse_pipeline_params(Some("covered")).unwrap();
        assert!(c.weak_callbacks());
        assert!(c.nosanitize_attr(Encoding::Compact));
        assert!(!c.nosanitize_attr(Encoding::Native));
        let c = parse_pipeline_params(Some("all;no-weak-callbacks;nosanitize-attr")).unwrap();
        assert_eq!(c.features, Features::ALL);
        assert!(!c.weak_callbacks());
        assert!(c.nosanitize_attr(Encoding::Native));
        let c = parse_pipeline_params(Some("uar;no-nosanitize-attr;weak-callbacks")).unwrap();
        assert!(c.weak_callbacks() && !c.nosanitize_attr(Encoding::Compact));
        for bad in [
            "covered;nosanitize-attr;no-nosanitize-attr",
            "covered;no-weak-callbacks;weak-callbacks",
            "weak-callbacks",
        ] {
            assert!(parse_pipeline_params(Some(bad)).is_err(), "{bad}");
        }
        let c = from_env(env(&[
            ("PCMAP_FEATURES", "all"),
            ("PCMAP_WEAK_CALLBACKS", "0"),
            ("PCMAP_NOSANITIZE_ATTR", "0"),
        ]))
        .unwrap();
        assert_eq!(c.features, Features::ALL);
        assert!(!c.weak_callbacks() && !c.nosanitize_attr(Encoding::Compact));
        for bad in [
            ("PCMAP_WEAK_CALLBACKS", "yes"),
            ("PCMAP_NOSANITIZE_ATTR", "2"),
        ] {
            assert!(from_env(env(&[bad])).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ignorelists_combine() {
        let dir = std::env::temp_dir().join(format!("pcmap-lists-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a");
        let b = dir.join("b");
        std::fs::write(&a, "fun:first\n").unwrap();
        std::fs::write(&b, "src:*.c\n").unwrap();
        let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
        let check = |c: Config| {
            let l = c.ignorelist.unwrap();
            assert!(l.ignores_function("first") && l.ignores_source("x.c"));
        };
        check(
            parse_pipeline_params(Some(&format!("covered;ignorelist={a};ignorelist={b}"))).unwrap(),
        );
        check(from_env(env(&[("PCMAP_IGNORELIST", &format!("{a},{b}"))])).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ignorelist_size_bound() {
        let dir = std::env::temp_dir().join(format!("pcmap-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("list");
        let path = path.to_str().unwrap();
        std::fs::write(path, "fun:a\n").unwrap();
        let path = Path::new(path);
        assert_eq!(read_bounded(path, 6).unwrap(), "fun:a\n");
        let e = read_bounded(path, 5).unwrap_err().to_string();
        assert!(e.contains("larger than 5 bytes"), "{e}");
        std::fs::write(path, b"fun:\xff\n").unwrap();
        let e = read_bounded(path, 64).unwrap_err().to_string();
        assert!(e.contains("not UTF-8") && e.contains("offset 4"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        // An endless file stops at the bound.
        let e = read_bounded(Path::new("/dev/zero"), 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'/dev/zero' is larger than 1 MiB"), "{e}");
    }

    /// A value that is not UTF-8 is one error naming the variable, never
    /// unset: `covered\xff` once turned every feature on.
    #[test]
    fn values_not_utf8() {
        for key in [
            "PCMAP_FEATURES",
            "PCMAP_ENCODING",
            "PCMAP_WEAK_CALLBACKS",
            "PCMAP_NOSANITIZE_ATTR",
            "PCMAP_RECORD",
            "PCMAP_STATS",
        ] {
            let e = from_env(env_bytes(key, b"covered\xff"))
                .unwrap_err()
                .to_string();
            assert_eq!(
                e,
                format!("pcmap: {key} is not UTF-8 text ('covered\\xff': byte 0xff at offset 7)")
            );
        }
    }

    /// `PCMAP_IGNORELIST` holds paths, which may be any bytes: a list at a
    /// Latin-1 path is read, and one that is missing is named.
    #[test]
    fn ignorelist_paths_not_utf8() {
        let dir = std::env::temp_dir().join(format!("pcmap-latin1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut name = dir.as_os_str().as_bytes().to_vec();
        name.extend_from_slice(b"/caf\xe9.txt");
        let path = OsStr::from_bytes(&name);
        std::fs::write(path, "fun:skipped\n").unwrap();
        let c = from_env(|k| (k == "PCMAP_IGNORELIST").then(|| path.to_os_string())).unwrap();
        assert!(c.ignorelist.unwrap().ignores_function("skipped"));
        std::fs::remove_file(path).unwrap();
        let e = from_env(|k| (k == "PCMAP_IGNORELIST").then(|| path.to_os_string()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cannot read ignorelist '") && e.contains("/caf\\xe9.txt': No such file"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
