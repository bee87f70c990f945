//! Cargo's `--message-format json` stream: one JSON object per line with a `reason`. We read
//! the artifacts (to know each test binary's id, package and executable) and the compiler's
//! error diagnostics. Lines that are not cargo messages (libtest's text, garbage) are skipped.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One compiled target, as cargo announced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub package: String,
    /// The package's version, when its id names one.
    pub version: Option<String>,
    /// The package directory (where its `Cargo.toml` is; the test binary's cwd).
    pub package_dir: PathBuf,
    pub kind: TargetKind,
    /// The target's name (`api` for `tests/api.rs`; the crate name for a lib).
    pub target: String,
    /// The nextest binary id: `pkg`, `pkg::bin/NAME`, `pkg::NAME`, `pkg::example/NAME`...
    pub binary_id: String,
    /// Set for executables (test binaries, bins, examples).
    pub executable: Option<PathBuf>,
    /// Built for testing (`profile.test`; a `harness = false` target too).
    pub test: bool,
    /// The target's doc comments are tested (`cargo test --doc`): libraries only.
    pub doctest: bool,
    /// The target's root source file.
    pub src_path: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetKind {
    Lib,
    Bin,
    Test,
    Example,
    Bench,
    /// Build scripts and anything unknown: never a test binary.
    Other,
}

impl TargetKind {
    fn from_kinds(kinds: &[String]) -> Self {
        let k = |name: &str| kinds.iter().any(|x| x == name);
        if k("test") {
            TargetKind::Test
        } else if k("bin") {
            TargetKind::Bin
        } else if k("example") {
            TargetKind::Example
        } else if k("bench") {
            TargetKind::Bench
        } else if ["lib", "rlib", "dylib", "cdylib", "staticlib", "proc-macro"]
            .iter()
            .any(|n| k(n))
        {
            TargetKind::Lib
        } else {
            TargetKind::Other
        }
    }
}

/// nextest's binary id for a target of a package. Doctests (which nextest does not run) get
/// `pkg::doc`.
pub fn binary_id(package: &str, kind: TargetKind, target: &str) -> String {
    match kind {
        TargetKind::Lib => package.to_owned(),
        TargetKind::Bin => format!("{package}::bin/{target}"),
        TargetKind::Test => format!("{package}::{target}"),
        TargetKind::Example => format!("{package}::example/{target}"),
        TargetKind::Bench => format!("{package}::bench/{target}"),
        TargetKind::Other => format!("{package}::build/{target}"),
    }
}

/// A compiler error diagnostic, paths as rustc printed them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub package_dir: Option<PathBuf>,
    /// Candidate locations, best first: the primary span, then the macro call sites it came
    /// from (the caller picks the first inside the project).
    pub spans: Vec<(String, u32)>,
    /// The macro the primary span is inside (`twice!`), when the error is in an expansion.
    pub macro_name: Option<String>,
    pub code: Option<String>,
    pub message: String,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Messages {
    pub artifacts: Vec<Artifact>,
    /// Error-level diagnostics, in order, not yet deduplicated.
    pub errors: Vec<Diagnostic>,
    /// `build-finished`'s `success`, when cargo got that far.
    pub build_success: Option<bool>,
    /// Whether any cargo message was seen at all.
    pub any: bool,
    /// The diagnostics as cargo renders them for a person (`rendered`), every level.
    pub printed: pith_model::gain::Printed,
}

#[derive(Deserialize)]
struct Msg {
    reason: String,
    #[serde(default)]
    package_id: Option<String>,
    #[serde(default)]
    manifest_path: Option<String>,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    profile: Option<Profile>,
    #[serde(default)]
    executable: Option<String>,
    #[serde(default)]
    message: Option<RustcMessage>,
    #[serde(default)]
    success: Option<bool>,
}

#[derive(Deserialize)]
struct Target {
    #[serde(default)]
    kind: Vec<String>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    doctest: bool,
    #[serde(default)]
    src_path: Option<String>,
}

#[derive(Deserialize)]
struct Profile {
    #[serde(default)]
    test: bool,
}

#[derive(Deserialize)]
struct RustcMessage {
    #[serde(default)]
    message: String,
    #[serde(default)]
    rendered: Option<String>,
    #[serde(default)]
    level: String,
    #[serde(default)]
    code: Option<Code>,
    #[serde(default)]
    spans: Vec<Span>,
}

#[derive(Deserialize)]
struct Code {
    #[serde(default)]
    code: String,
}

#[derive(Deserialize)]
struct Span {
    #[serde(default)]
    file_name: String,
    #[serde(default)]
    line_start: u32,
    #[serde(default)]
    is_primary: bool,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    expansion: Option<Box<Expansion>>,
}

#[derive(Deserialize)]
struct Expansion {
    span: Span,
    #[serde(default)]
    macro_decl_name: Option<String>,
}

/// Whether a line looks like one of cargo's JSON messages.
pub fn is_message(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('{') && t.contains("\"reason\"")
}

/// Compiler errors kept at most: a broken macro can emit thousands, an answer shows a few.
const MAX_ERRORS: usize = 1000;

/// Reads every cargo message in `out`, skipping everything else.
pub fn parse(out: &str) -> Messages {
    let mut m = Messages::default();
    for line in out.lines() {
        m.line(line);
    }
    m
}

impl Messages {
    /// One line of cargo's stdout: read when it is one of cargo's messages. Returns whether
    /// it was.
    pub fn line(&mut self, line: &str) -> bool {
        if !is_message(line) {
            return false;
        }
        let Ok(msg) = serde_json::from_str::<Msg>(line.trim()) else {
            return false;
        };
        self.any = true;
        self.take(msg);
        true
    }

    fn take(&mut self, msg: Msg) {
        let m = self;
        match msg.reason.as_str() {
            "compiler-artifact" => {
                let (Some(id), Some(manifest), Some(target)) =
                    (&msg.package_id, &msg.manifest_path, &msg.target)
                else {
                    return;
                };
                let package = package_name(id, manifest);
                let kind = TargetKind::from_kinds(&target.kind);
                let art = Artifact {
                    binary_id: binary_id(&package, kind, &target.name),
                    package,
                    version: package_version(id),
                    package_dir: Path::new(manifest)
                        .parent()
                        .map(Path::to_path_buf)
                        .unwrap_or_default(),
                    kind,
                    target: target.name.clone(),
                    executable: msg.executable.as_deref().map(PathBuf::from),
                    test: msg.profile.as_ref().is_some_and(|p| p.test),
                    doctest: kind == TargetKind::Lib && target.doctest,
                    src_path: target.src_path.as_deref().map(PathBuf::from),
                };
                if !m.artifacts.contains(&art) {
                    m.artifacts.push(art);
                }
            }
            "compiler-message" => {
                let Some(rm) = msg.message else { return };
                if let Some(r) = &rm.rendered {
                    m.printed.push(r);
                }
                if rm.level != "error"
                    || rm.message.starts_with("aborting due to")
                    || m.errors.len() >= MAX_ERRORS
                {
                    return;
                }
                let mut spans = Vec::new();
                let primary = rm.spans.iter().find(|s| s.is_primary).or(rm.spans.first());
                let mut cur = primary;
                let mut depth = 0;
                while let Some(s) = cur {
                    if !s.file_name.is_empty() && depth < 32 {
                        spans.push((s.file_name.clone(), s.line_start));
                    }
                    depth += 1;
                    cur = s.expansion.as_ref().map(|e| &e.span).filter(|_| depth < 32);
                }
                m.errors.push(Diagnostic {
                    package_dir: msg
                        .manifest_path
                        .as_deref()
                        .and_then(|p| Path::new(p).parent())
                        .map(Path::to_path_buf),
                    spans,
                    macro_name: primary
                        .and_then(|p| p.expansion.as_ref())
                        .and_then(|e| e.macro_decl_name.clone())
                        .filter(|n| !n.is_empty()),
                    code: rm.code.map(|c| c.code).filter(|c| !c.is_empty()),
                    // rustc's headline ("mismatched types") says what kind of error; the
                    // primary span's label ("expected `u32`, found `&str`") says what to fix.
                    message: match primary
                        .and_then(|p| p.label.as_deref())
                        .filter(|l| !l.is_empty())
                    {
                        Some(label) if !rm.message.contains(label) => {
                            format!("{}: {label}", rm.message)
                        }
                        _ => rm.message,
                    },
                });
            }
            "build-finished" => m.build_success = msg.success,
            _ => {}
        }
    }
}

/// The package name from a package id: `path+file:///ws/crates/a#0.1.0` (name = last path
/// component), `path+file:///ws/x#a@0.1.0`, `registry+https://...#serde@1.0.0`, or the old
/// `a 0.1.0 (path+file:///ws/crates/a)`. Falls back to the manifest's directory name.
pub fn package_name(id: &str, manifest_path: &str) -> String {
    if !id.contains('#') {
        if let Some((name, _)) = id.split_once(' ') {
            return name.to_owned();
        }
    }
    if let Some((url, frag)) = id.rsplit_once('#') {
        if let Some((name, _)) = frag.split_once('@') {
            return name.to_owned();
        }
        if let Some(last) = url.trim_end_matches('/').rsplit('/').next() {
            if !last.is_empty() {
                return last.to_owned();
            }
        }
    }
    Path::new(manifest_path)
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The version in a package id (the forms [`package_name`] reads): `...#0.1.0`,
/// `...#a@0.1.0`, `a 0.1.0 (...)`.
pub fn package_version(id: &str) -> Option<String> {
    let v = match id.rsplit_once('#') {
        Some((_, frag)) => frag.rsplit_once('@').map_or(frag, |(_, v)| v),
        None => id.split(' ').nth(1)?,
    };
    let ok = v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c));
    ok.then(|| v.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ARTIFACTS: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///tmp/exp/workspace/crates/a#0.1.0","manifest_path":"/tmp/exp/workspace/crates/a/Cargo.toml","target":{"kind":["lib"],"crate_types":["lib"],"name":"a","src_path":"/tmp/exp/workspace/crates/a/src/lib.rs","edition":"2021","doc":true,"doctest":true,"test":true},"profile":{"opt_level":"0","debuginfo":2,"debug_assertions":true,"overflow_checks":true,"test":false},"features":[],"filenames":["/tmp/exp/workspace/target/debug/deps/liba-1.rlib"],"executable":null,"fresh":false}
running 1 test
{"reason":"compiler-artifact","package_id":"path+file:///tmp/exp/workspace/crates/b#0.1.0","manifest_path":"/tmp/exp/workspace/crates/b/Cargo.toml","target":{"kind":["test"],"crate_types":["bin"],"name":"api","src_path":"/tmp/exp/workspace/crates/b/tests/api.rs","edition":"2021","doc":false,"doctest":false,"test":true},"profile":{"opt_level":"0","debuginfo":2,"debug_assertions":true,"overflow_checks":true,"test":true},"features":[],"filenames":["/tmp/exp/workspace/target/debug/deps/api-f701c7ee4429dc55"],"executable":"/tmp/exp/workspace/target/debug/deps/api-f701c7ee4429dc55","fresh":false}
{"reason":"build-finished","success":true}
"#;

    const ERRORS: &str = r#"{"reason":"compiler-message","package_id":"path+file:///tmp/exp/compile_error#0.1.0","manifest_path":"/tmp/exp/compile_error/Cargo.toml","target":{"kind":["lib"],"crate_types":["lib"],"name":"compile_error","src_path":"/tmp/exp/compile_error/src/lib.rs","edition":"2021","doc":true,"doctest":true,"test":true},"message":{"rendered":"error[E0308]: mismatched types\n --> src/lib.rs:2:5\n","$message_type":"diagnostic","children":[],"level":"error","message":"mismatched types","spans":[{"byte_end":40,"byte_start":29,"column_end":16,"column_start":5,"expansion":null,"file_name":"src/lib.rs","is_primary":true,"label":"expected `u32`, found `&str`","line_end":2,"line_start":2,"suggested_replacement":null,"suggestion_applicability":null,"text":[]},{"byte_end":22,"byte_start":19,"column_end":23,"column_start":20,"expansion":null,"file_name":"src/lib.rs","is_primary":false,"label":"expected `u32` because of return type","line_end":1,"line_start":1,"suggested_replacement":null,"suggestion_applicability":null,"text":[]}],"code":{"code":"E0308","explanation":"Expected type did not match the received type."}}}
{"reason":"compiler-message","package_id":"path+file:///tmp/exp/compile_error#0.1.0","manifest_path":"/tmp/exp/compile_error/Cargo.toml","target":{"kind":["lib"],"crate_types":["lib"],"name":"compile_error","src_path":"/tmp/exp/compile_error/src/lib.rs","edition":"2021","doc":true,"doctest":true,"test":true},"message":{"rendered":"For more information about this error, try `rustc --explain E0308`.\n","$message_type":"diagnostic","children":[],"level":"failure-note","message":"For more information about this error, try `rustc --explain E0308`.","spans":[],"code":null}}
{"reason":"compiler-message","package_id":"path+file:///tmp/x#0.1.0","manifest_path":"/tmp/x/Cargo.toml","target":{"kind":["lib"],"name":"x"},"message":{"level":"warning","message":"unused variable: `y`","spans":[{"file_name":"src/lib.rs","line_start":3,"is_primary":true}],"code":{"code":"unused_variables"}}}
{"reason":"compiler-message","package_id":"path+file:///tmp/x#0.1.0","manifest_path":"/tmp/x/Cargo.toml","target":{"kind":["lib"],"name":"x"},"message":{"level":"error","message":"aborting due to 1 previous error","spans":[],"code":null}}
{"reason":"compiler-message","package_id":"path+file:///tmp/x#0.1.0","manifest_path":"/tmp/x/Cargo.toml","target":{"kind":["lib"],"name":"x"},"message":{"level":"error","message":"boom","spans":[{"file_name":"/rustc/abc/library/core/src/macros/mod.rs","line_start":9,"is_primary":true,"expansion":{"span":{"file_name":"src/lib.rs","line_start":7,"is_primary":false,"expansion":null}}}],"code":null}}
{"reason":"build-finished","success":false}
"#;

    #[test]
    fn artifacts_and_ids() {
        let m = parse(ARTIFACTS);
        assert_eq!(m.build_success, Some(true));
        assert_eq!(m.artifacts.len(), 2);
        assert_eq!(m.artifacts[0].binary_id, "a");
        assert_eq!(m.artifacts[0].version.as_deref(), Some("0.1.0"));
        assert_eq!(
            m.artifacts[0].package_dir,
            Path::new("/tmp/exp/workspace/crates/a")
        );
        assert!(!m.artifacts[0].test);
        assert_eq!(m.artifacts[1].binary_id, "b::api");
        assert_eq!(m.artifacts[1].kind, TargetKind::Test);
        assert!(m.artifacts[1].test);
        assert_eq!(
            m.artifacts[1].executable.as_deref(),
            Some(Path::new(
                "/tmp/exp/workspace/target/debug/deps/api-f701c7ee4429dc55"
            ))
        );
    }

    #[test]
    fn errors_only() {
        let m = parse(ERRORS);
        assert_eq!(m.build_success, Some(false));
        assert_eq!(m.errors.len(), 2);
        assert_eq!(m.errors[0].spans, vec![("src/lib.rs".to_owned(), 2)]);
        assert_eq!(m.errors[0].code.as_deref(), Some("E0308"));
        assert_eq!(
            m.errors[0].message,
            "mismatched types: expected `u32`, found `&str`"
        );
        assert_eq!(m.errors[1].spans.len(), 2);
        assert_eq!(m.errors[1].spans[1], ("src/lib.rs".to_owned(), 7));
        assert_eq!(m.errors[1].code, None);
        // What a person reads: each diagnostic as rustc renders it, the note included.
        assert!(m
            .printed
            .text
            .starts_with("error[E0308]: mismatched types\n --> src/lib.rs:2:5\n"));
        assert!(m.printed.text.contains("rustc --explain E0308"));
        assert!(!m.printed.text.contains("\"reason\""));
    }

    #[test]
    fn ids_of_every_kind() {
        assert_eq!(binary_id("p", TargetKind::Lib, "p"), "p");
        assert_eq!(binary_id("p", TargetKind::Bin, "cli"), "p::bin/cli");
        assert_eq!(binary_id("p", TargetKind::Test, "api"), "p::api");
        assert_eq!(
            binary_id("p", TargetKind::Example, "demo"),
            "p::example/demo"
        );
        assert_eq!(binary_id("p", TargetKind::Bench, "speed"), "p::bench/speed");
        assert_eq!(
            TargetKind::from_kinds(&["proc-macro".into()]),
            TargetKind::Lib
        );
        assert_eq!(
            TargetKind::from_kinds(&["cdylib".into(), "rlib".into()]),
            TargetKind::Lib
        );
        assert_eq!(
            TargetKind::from_kinds(&["custom-build".into()]),
            TargetKind::Other
        );
    }

    #[test]
    fn package_names() {
        assert_eq!(
            package_name("path+file:///ws/crates/a#0.1.0", "/ws/crates/a/Cargo.toml"),
            "a"
        );
        assert_eq!(
            package_name("path+file:///ws/x#my-pkg@0.1.0", "/ws/x/Cargo.toml"),
            "my-pkg"
        );
        assert_eq!(
            package_name(
                "registry+https://github.com/rust-lang/crates.io-index#serde@1.0.0",
                ""
            ),
            "serde"
        );
        assert_eq!(
            package_name("a 0.1.0 (path+file:///ws/a)", "/ws/a/Cargo.toml"),
            "a"
        );
        assert_eq!(package_name("", "/ws/zz/Cargo.toml"), "zz");
    }

    #[test]
    fn package_versions() {
        let v = |id: &str| package_version(id);
        assert_eq!(
            v("path+file:///ws/crates/a#0.1.0").as_deref(),
            Some("0.1.0")
        );
        assert_eq!(
            v("path+file:///ws/x#my-pkg@1.2.3-rc.1").as_deref(),
            Some("1.2.3-rc.1")
        );
        assert_eq!(v("a 0.1.0 (path+file:///ws/a)").as_deref(), Some("0.1.0"));
        assert_eq!(v("path+file:///ws/x#my-pkg"), None);
        assert_eq!(v(""), None);
    }

    proptest! {
        #[test]
        fn never_panics_on_garbage(s in "(?s).{0,2000}") {
            let _ = parse(&s);
        }

        #[test]
        fn never_panics_on_truncation(cut in 0usize..6000) {
            let all = format!("{ARTIFACTS}{ERRORS}");
            let s: String = all.chars().take(cut).collect();
            let _ = parse(&s);
        }

        #[test]
        fn never_panics_on_json_shaped_garbage(a in "[a-z\\-\"{}:,\\[\\]0-9 ]{0,200}") {
            let _ = parse(&format!("{{\"reason\":\"compiler-message\",{a}"));
            let _ = parse(&format!("{{\"reason\":\"compiler-artifact\",{a}"));
            let _ = package_name(&a, &a);
            let _ = package_version(&a);
        }
    }
}
