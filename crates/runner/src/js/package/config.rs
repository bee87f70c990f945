//! What the project's runner configuration says where the script's words alone cannot tell:
//! whether jest's configuration names reporters (pith's `--reporters` would replace them) or
//! mentions coverage, which reporters vitest's names (named again beside pith's), and the
//! configuration file jest's root directory follows.

use std::path::Path;

use serde_json::Value;

use super::{option_name, Script};

/// Whether jest's configuration for `dir` declares reporters of its own: the `--config` the
/// script names (a file, or JSON given inline), else `jest.config.*`, else `package.json`'s
/// `jest` key. A configuration file is code, so a mention of `reporters` in it counts.
pub fn config_has_reporters(dir: &Path, script: &Script) -> bool {
    match config_text(dir, script) {
        Config::Text(t) => t.contains("reporters"),
        Config::Package(jest) => jest.get("reporters").is_some(),
        Config::Unreadable | Config::Absent => false,
    }
}

/// The reporters vitest's configuration names (`test.reporters` in the `--config` file the
/// script names, else `vitest.config.*`, else `vite.config.*`), as `--reporter` values, each
/// with the options the command line can carry (`outputFile`): vitest's `--reporter` replaces
/// the configuration's, so pith, adding its own, names them again. Only literal names are
/// read; a list built by code is not, and such a configuration loses its reporters to pith's
/// (its tests and verdict are the same; its reporters' output is not written).
pub fn vitest_config_reporters(dir: &Path, script: &Script) -> Vec<String> {
    match vitest_config_text(dir, script) {
        Config::Text(t) => reporters_in(&t),
        _ => Vec::new(),
    }
}

/// Whether vitest's configuration (as [`vitest_config_reporters`] finds it) mentions any of
/// `words`: a reading that errs towards yes (a named file pith cannot read does).
pub fn vitest_config_mentions(dir: &Path, script: &Script, words: &[&str]) -> bool {
    match vitest_config_text(dir, script) {
        Config::Text(t) => words.iter().any(|w| t.contains(w)),
        Config::Unreadable => true,
        Config::Package(_) | Config::Absent => false,
    }
}

fn vitest_config_text(dir: &Path, script: &Script) -> Config {
    if let Some(named) = config_option(script) {
        return named.map_or(Config::Absent, |v| {
            std::fs::read_to_string(dir.join(v)).map_or(Config::Unreadable, Config::Text)
        });
    }
    // Vite's own order of lookup, not the language table's JavaScript and TypeScript: the
    // first file found is the configuration.
    ["vitest", "vite"]
        .iter()
        .flat_map(|base| {
            ["ts", "mts", "cts", "js", "mjs", "cjs"].map(|e| format!("{base}.config.{e}"))
        })
        .find_map(|f| std::fs::read_to_string(dir.join(f)).ok())
        .map_or(Config::Absent, Config::Text)
}

/// The literal reporter names of a `reporters:` key in configuration code.
fn reporters_in(text: &str) -> Vec<String> {
    let Some(at) = text.find("reporters") else {
        return Vec::new();
    };
    let rest = text[at + "reporters".len()..].trim_start();
    let Some(rest) = rest.strip_prefix(':') else {
        return Vec::new();
    };
    let rest = rest.trim_start();
    if let Some((name, _)) = string_literal(rest) {
        return vec![name];
    }
    let Some(mut rest) = rest.strip_prefix('[') else {
        return Vec::new();
    };
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start().trim_start_matches(',').trim_start();
        if rest.starts_with(']') || rest.is_empty() {
            return out;
        }
        if let Some((name, after)) = string_literal(rest) {
            out.push(name);
            rest = after;
        } else if let Some(tuple) = rest.strip_prefix('[') {
            // `['junit', { outputFile: 'x.xml' }]`: the name; its options stay the config's.
            let Some((name, after)) = string_literal(tuple.trim_start()) else {
                return Vec::new();
            };
            out.push(name);
            let Some(end) = after.find(']') else {
                return Vec::new();
            };
            rest = &after[end + 1..];
        } else {
            // A reporter built by code: the list cannot be named on the command line.
            return Vec::new();
        }
    }
}

fn string_literal(s: &str) -> Option<(String, &str)> {
    let q = s.chars().next().filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let end = s[1..].find(q)?;
    let name = &s[1..=end];
    (!name.contains('\n') && !name.contains("${")).then(|| (name.to_owned(), &s[end + 2..]))
}

/// Whether jest's configuration mentions `word` anywhere, case aside: a reading that errs
/// towards yes (a configuration file pith cannot read does).
pub fn config_mentions(dir: &Path, script: &Script, word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    let mentions = |text: &str| text.to_ascii_lowercase().contains(&word);
    match config_text(dir, script) {
        Config::Text(t) => mentions(&t),
        Config::Package(jest) => mentions(&jest.to_string()),
        Config::Unreadable => true,
        Config::Absent => false,
    }
}

/// jest's configuration as pith reads it: the file or inline JSON the script names (`--config`),
/// else the first `jest.config.*`, else `package.json`'s `jest`.
enum Config {
    Text(String),
    Package(Value),
    /// Named but not readable.
    Unreadable,
    Absent,
}

fn config_text(dir: &Path, script: &Script) -> Config {
    if let Some(value) = config_option(script) {
        return match value {
            Some(v) if v.trim_start().starts_with('{') => Config::Text(v),
            Some(v) => {
                std::fs::read_to_string(dir.join(v)).map_or(Config::Unreadable, Config::Text)
            }
            None => Config::Absent,
        };
    }
    // Jest's own order of lookup (JSON included), not the language table's extensions.
    for ext in ["js", "ts", "mjs", "cjs", "cts", "mts", "json"] {
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("jest.config.{ext}"))) {
            return Config::Text(text);
        }
    }
    std::fs::read(dir.join("package.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|mut v| v.get_mut("jest").map(Value::take))
        .map_or(Config::Absent, Config::Package)
}

/// What the script's jest `--config` (`-c`) says: `None` without one, `Some(None)` when it has
/// no value.
fn config_option(script: &Script) -> Option<Option<String>> {
    let words = &script.words;
    let i = words
        .iter()
        .position(|w| matches!(option_name(&w.text), "config" | "c"))?;
    Some(match words[i].text.split_once('=') {
        Some((_, v)) => Some(v.to_owned()),
        None => words.get(i + 1).map(|w| w.text.clone()),
    })
}

/// The configuration file the script names with `--config`, relative to `dir` (not inline
/// JSON): jest's root directory is its directory unless it says otherwise.
pub fn config_file(dir: &Path, script: &Script) -> Option<std::path::PathBuf> {
    let v = config_option(script)??;
    (!v.trim_start().starts_with('{')).then(|| dir.join(v))
}

#[cfg(test)]
mod tests {
    use super::super::classify::from_script;
    use super::*;

    #[test]
    fn reporters_in_the_configuration_are_seen() {
        let d = tempfile::tempdir().unwrap();
        let plain = Script::default();
        std::fs::write(
            d.path().join("package.json"),
            r#"{"jest":{"reporters":["default"]}}"#,
        )
        .unwrap();
        assert!(config_has_reporters(d.path(), &plain));
        std::fs::write(d.path().join("package.json"), r#"{"jest":{}}"#).unwrap();
        assert!(!config_has_reporters(d.path(), &plain));
        std::fs::write(
            d.path().join("jest.config.js"),
            "module.exports = { reporters: ['default', 'jest-junit'] };",
        )
        .unwrap();
        assert!(config_has_reporters(d.path(), &plain));
        let (_, named) = from_script("jest --config other.config.js").unwrap();
        std::fs::write(d.path().join("other.config.js"), "module.exports = {};").unwrap();
        assert!(!config_has_reporters(d.path(), &named));
    }
}
