//! The one thing pith reads from a package's `Cargo.toml` itself: which targets say
//! `harness = false`. cargo's JSON messages do not tell (such a target is built for testing
//! like any other), yet it changes everything about its output: it prints no libtest block
//! under `cargo test` (or its own, libtest-mimic style), and nextest can run it only if it
//! answers `--list`. A line reader for the usual layout (`[[test]]` tables with `name`, `path`,
//! `harness` keys); anything it cannot read is taken as a harness target, as cargo's default.

use std::io::Read;
use std::path::Path;

use super::diag::{binary_id, TargetKind};

/// Manifests are small; one larger than this is not read.
const MAX_MANIFEST: u64 = 1 << 20;

/// The binary ids (`pkg::NAME`, `pkg::bin/NAME`, ...) of the targets of `package` (in
/// `dir`) whose manifest says `harness = false`.
pub fn harness_free(package: &str, dir: &Path) -> Vec<String> {
    read_manifest(dir).map_or_else(Vec::new, |text| parse(package, &text))
}

/// The package's `Cargo.toml` in `dir`, up to [`MAX_MANIFEST`] bytes.
fn read_manifest(dir: &Path) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(dir.join("Cargo.toml"))
        .and_then(|f| f.take(MAX_MANIFEST).read_to_string(&mut text))
        .ok()?;
    Some(text)
}

/// A package's manifest, read for what `cargo test` runs tests from.
pub struct Targets(Option<toml_edit::DocumentMut>);

impl Targets {
    /// The manifest of the package at `dir`.
    pub fn read(dir: &Path) -> Self {
        Targets(read_manifest(dir).and_then(|text| text.parse().ok()))
    }

    /// Whether `cargo test` runs tests from the package's file `rel` (package-relative,
    /// `/`-separated): its library's and binaries' sources (anything outside
    /// `tests/`, `benches/` and `examples/` counts, as it may be a module of them), an
    /// integration test target (`tests/NAME.rs`, `tests/NAME/main.rs` unless `autotests =
    /// false`, or a `[[test]]`'s `path`), a bench or example whose table says `test = true`.
    /// A module beside integration tests (`tests/common/mod.rs`) is a helper: no target of
    /// its own. A manifest that cannot be read counts every file.
    pub fn runs_tests_of(&self, rel: &str) -> bool {
        let Some(doc) = &self.0 else {
            return true;
        };
        let declared = |kind: &str, needs_test: bool| {
            doc.get(kind)
                .and_then(|t| t.as_array_of_tables())
                .into_iter()
                .flatten()
                .any(|t| {
                    let path = t.get("path").and_then(|p| p.as_str());
                    let tested = t.get("test").and_then(|v| v.as_bool());
                    path.is_some_and(|p| p.trim_start_matches("./") == rel)
                        && (if needs_test {
                            tested == Some(true)
                        } else {
                            tested != Some(false)
                        })
                })
        };
        if declared("test", false) || declared("bench", true) || declared("example", true) {
            return true;
        }
        let package = doc.get("package").and_then(|p| p.as_table_like());
        if let Some(rest) = rel.strip_prefix("tests/") {
            let auto = package
                .and_then(|p| p.get("autotests"))
                .and_then(|v| v.as_bool())
                .unwrap_or(true);
            let target = match rest.split_once('/') {
                None => rest.ends_with(".rs"),
                Some((dir, "main.rs")) => !dir.contains('/'),
                Some(_) => false,
            };
            return package.is_some() && auto && target;
        }
        !(rel.starts_with("benches/") || rel.starts_with("examples/"))
    }
}

/// A target table being read.
struct Table {
    kind: TargetKind,
    name: Option<String>,
    path: Option<String>,
    harness: bool,
}

fn parse(package: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<Table> = None;
    let done = |t: Option<Table>, out: &mut Vec<String>| {
        let Some(t) = t.filter(|t| !t.harness) else {
            return;
        };
        let name = match (t.kind, t.name, t.path) {
            // A lib's binary id is its package's, whatever its crate is called.
            (TargetKind::Lib, ..) => package.to_owned(),
            (_, Some(n), _) => n,
            (_, None, Some(p)) => match Path::new(&p).file_stem() {
                Some(s) => s.to_string_lossy().into_owned(),
                None => return,
            },
            _ => return,
        };
        let id = binary_id(package, t.kind, &name);
        if !out.contains(&id) {
            out.push(id);
        }
    };
    for raw in text.lines() {
        let line = strip_comment(raw).trim();
        if line.starts_with('[') {
            done(cur.take(), &mut out);
            let header: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            let kind = match header.as_str() {
                "[lib]" => Some(TargetKind::Lib),
                "[[bin]]" => Some(TargetKind::Bin),
                "[[test]]" => Some(TargetKind::Test),
                "[[bench]]" => Some(TargetKind::Bench),
                "[[example]]" => Some(TargetKind::Example),
                _ => None,
            };
            cur = kind.map(|kind| Table {
                kind,
                name: None,
                path: None,
                harness: true,
            });
            continue;
        }
        let Some(t) = cur.as_mut() else { continue };
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "name" => t.name = string(value),
            "path" => t.path = string(value),
            "harness" => t.harness = value != "false",
            _ => {}
        }
    }
    done(cur.take(), &mut out);
    out
}

/// A TOML string value, basic or literal, without escapes worth decoding in a target name.
fn string(value: &str) -> Option<String> {
    let v = value.trim();
    let inner = v
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))?;
    (!inner.is_empty()).then(|| inner.to_owned())
}

/// The line without a `#` comment (a `#` inside a string is kept).
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '#') => return &line[..i],
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    #[test]
    fn test_targets_are_what_cargo_test_runs() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = |text: &str| std::fs::write(dir.path().join("Cargo.toml"), text).unwrap();
        let runs = |rel: &str| super::Targets::read(dir.path()).runs_tests_of(rel);
        manifest("[package]\nname = \"shop\"\nversion = \"0.1.0\"\n");
        assert!(runs("src/lib.rs"));
        assert!(runs("src/cart/mod.rs"));
        assert!(runs("tests/cart.rs"));
        assert!(runs("tests/suite/main.rs"));
        assert!(!runs("tests/common/mod.rs"), "a helper module");
        assert!(!runs("tests/suite/parts.rs"));
        assert!(!runs("benches/speed.rs"));
        assert!(!runs("examples/demo.rs"));
        manifest(
            "[package]\nname = \"shop\"\nautotests = false\n\n[[test]]\nname = \"it\"\npath = \"tests/it/all.rs\"\n\n[[bench]]\nname = \"b\"\npath = \"benches/b.rs\"\ntest = true\n",
        );
        assert!(runs("tests/it/all.rs"));
        assert!(!runs("tests/cart.rs"), "autotests = false");
        assert!(runs("benches/b.rs"));
        // A virtual manifest's own `tests/` is no package's.
        manifest("[workspace]\nmembers = [\"a\"]\n");
        assert!(!runs("tests/x.rs"));
        // Unreadable: everything counts.
        manifest("[package\n");
        assert!(runs("tests/common/mod.rs"));
    }

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn harness_free_targets_of_every_kind() {
        let m = r#"
[package]
name = "hf"   # harness = false here is not a target's

[lib]
harness = false

[[test]]
name = "custom"
harness = false # a comment

[[test]]
name = "normal"

[[test]]
path = "tests/by_path.rs"
harness=false

[[bin]]
name = "tool"
harness = false

[[bench]]
name = "speed"
harness = false

[dependencies]
harness = false
"#;
        assert_eq!(
            parse("hf", m),
            [
                "hf",
                "hf::custom",
                "hf::by_path",
                "hf::bin/tool",
                "hf::bench/speed"
            ]
        );
        assert!(parse("x", "[package]\nname = \"x\"\n").is_empty());
        assert!(harness_free("x", Path::new("/nonexistent")).is_empty());
    }

    proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,500}") {
            let _ = parse("p", &s);
            let _ = parse("p", &format!("[[test]]\n{s}"));
        }
    }
}
