//! What the pass is asked to do: parsed from `pcmap<…>` pipeline parameters
//! (under `opt`) or from `PCMAP_*` environment variables (under `clang`).

use std::fmt;

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

/// The full configuration of one pass instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub features: Features,
}

#[derive(Debug, PartialEq, Eq)]
pub enum ConfigError {
    UnknownWord { word: String, origin: &'static str },
    Empty { origin: &'static str },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownWord { word, origin } => write!(
                f,
                "pcmap: unknown {origin} '{word}' (expected covered, atomics, uar)"
            ),
            ConfigError::Empty { origin } => {
                write!(f, "pcmap: empty {origin}: name at least one feature")
            }
        }
    }
}

/// Parses the parameters of `pcmap<covered;atomics;uar>`; `None` means the
/// bare name `pcmap`, which asks for every feature.
pub fn parse_pipeline_params(params: Option<&str>) -> Result<Config, ConfigError> {
    match params {
        None => Ok(Config {
            features: Features::ALL,
        }),
        Some(p) => parse_words(p.split(';'), "pass parameter"),
    }
}

/// Parses `PCMAP_FEATURES=covered,atomics,uar`; unset means every feature.
pub fn parse_features_env(value: Option<&str>) -> Result<Config, ConfigError> {
    match value {
        None => Ok(Config {
            features: Features::ALL,
        }),
        Some(v) => parse_words(v.split(','), "PCMAP_FEATURES value"),
    }
}

fn parse_words<'a>(
    words: impl Iterator<Item = &'a str>,
    origin: &'static str,
) -> Result<Config, ConfigError> {
    let mut features = Features::default();
    for word in words.map(str::trim).filter(|w| !w.is_empty()) {
        match word {
            "covered" => features.covered = true,
            "atomics" => features.atomics = true,
            "uar" => features.uar = true,
            _ => {
                return Err(ConfigError::UnknownWord {
                    word: word.to_string(),
                    origin,
                })
            }
        }
    }
    if features.is_empty() {
        return Err(ConfigError::Empty { origin });
    }
    Ok(Config { features })
}

/// Splits `pcmap<a;b>` into `Some("a;b")`, `pcmap` into `None`; any other
/// pipeline element is not ours.
pub fn split_pipeline_name(element: &str) -> Option<Option<&str>> {
    let rest = element.strip_prefix(crate::PASS_NAME)?;
    if rest.is_empty() {
        return Some(None);
    }
    rest.strip_prefix('<')?.strip_suffix('>').map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipeline_names() {
        assert_eq!(split_pipeline_name("pcmap"), Some(None));
        assert_eq!(split_pipeline_name("pcmap<uar>"), Some(Some("uar")));
        assert_eq!(split_pipeline_name("pcmapx"), None);
        assert_eq!(split_pipeline_name("sanmd-module"), None);
    }

    #[test]
    fn params_subset_and_errors() {
        let c = parse_pipeline_params(Some("covered;uar")).unwrap();
        assert_eq!(
            c.features,
            Features {
                covered: true,
                atomics: false,
                uar: true
            }
        );
        let e = parse_pipeline_params(Some("covered;bogus")).unwrap_err();
        assert!(e.to_string().contains("'bogus'"), "{e}");
        assert!(parse_pipeline_params(Some("")).is_err());
        assert_eq!(parse_features_env(None).unwrap().features, Features::ALL);
        assert!(parse_features_env(Some("atomics,nope")).is_err());
    }
}
