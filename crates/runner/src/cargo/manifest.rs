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
    let mut text = String::new();
    let read = std::fs::File::open(dir.join("Cargo.toml"))
        .and_then(|f| f.take(MAX_MANIFEST).read_to_string(&mut text));
    if read.is_err() {
        return Vec::new();
    }
    parse(package, &text)
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
