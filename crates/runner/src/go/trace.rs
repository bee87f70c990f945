//! Tracing for Go: which lines of the changed `.go` files each failing test executes. The
//! package of the failing tests is built once as a test binary with coverage of the packages
//! that hold the changed files (`go test -c -coverpkg=<those packages>`, into the scratch
//! directory), then each failing top-level test runs alone from it, in the package's
//! directory as `go test` would run it (`-test.run='^TestX$' -test.coverprofile=<scratch>`),
//! and the profile's executed blocks become lines. A profile covers the whole process, so it
//! cannot tell subtests apart: a subtest asked for alone runs alone (`^TestX$/^case$`), several
//! of one parent share the parent's run and its lines. Building once saves the link of a
//! `go test` per test (1.4 s each on zap). Coverage is go's own instrumentation, cached in go's
//! build cache: no project file is touched.
//!
//! A profile names files by import path (`example.com/m/pkg/file.go`); the module path from
//! go.mod maps them back to the module's directory, and so to the workspace.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use pith_model::impact::{Lines, Traced};

use crate::process;
use crate::{Context, RunnerError};

use super::command::{command, find_go, go_timeout, quote_meta, run_pattern, splits};
use super::Go;

/// Most top-level tests re-run: each is a `go test` of its own.
pub(super) const MAX_TESTS: usize = 5;

/// Lines one coverage block may span; a longer one is not go's.
const MAX_BLOCK_LINES: u32 = 100_000;

/// The changed files go can instrument: profile name (`<import path>/<file>.go`) → the file as
/// given (workspace-relative), and the import paths of their packages.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Targets {
    pub(super) files: HashMap<String, String>,
    pub(super) packages: Vec<String>,
}

impl Go {
    /// See [`crate::Adapter::trace`]: each package's instrumented test binary is built once,
    /// then run once per top-level test, at most [`MAX_TESTS`] in all.
    pub(super) fn trace_tests(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
        files: &[String],
    ) -> Result<Option<Traced>, RunnerError> {
        let (Some(go), Some(module)) = (find_go(), self.module.as_deref()) else {
            return Ok(None);
        };
        let targets = targets(module, &self.dir, ctx.root, files, |p| self.in_module(p));
        if targets.packages.is_empty() {
            return Ok(None);
        }
        let groups = self.top_tests(tests);
        let mut traced = Traced::default();
        let mut any = false;
        let mut built: Vec<(String, Option<PathBuf>)> = Vec::new();
        for (n, ((pkg, top), ids)) in groups.into_iter().enumerate() {
            if Instant::now() >= ctx.deadline {
                break;
            }
            let binary = match built.iter().find(|(p, _)| *p == pkg) {
                Some((_, b)) => b.clone(),
                None => {
                    let b = self.build(ctx, &go, &pkg, &targets, built.len());
                    built.push((pkg.clone(), b.clone()));
                    b
                }
            };
            let (Some(binary), Some(dir)) = (binary, self.package_dir(module, &pkg)) else {
                continue;
            };
            let pattern = match ids.as_slice() {
                [(_, name)] => run_pattern(&[name.as_str()]),
                _ => format!("^{}$", quote_meta(&top)),
            };
            let Some(profile) = profile(ctx, &binary, &dir, &pattern, n) else {
                continue;
            };
            let lines = parse_profile(&profile, &targets.files);
            for (file, seen) in seen_lines(&profile, &targets.files) {
                traced.seen.entry(file).or_default().extend(seen);
            }
            any = true;
            for (id, _) in ids {
                traced.tests.insert(id, lines.clone());
            }
        }
        Ok(any.then_some(traced))
    }

    /// `go test -c` of `pkg` with coverage of the target packages, into the scratch directory;
    /// `None` when it does not build (the static reach stands).
    fn build(
        &self,
        ctx: &Context<'_>,
        go: &Path,
        pkg: &str,
        targets: &Targets,
        n: usize,
    ) -> Option<PathBuf> {
        let binary = ctx.scratch.join(format!("go-trace-{n}.test"));
        let mut cmd = command(go, &self.dir);
        cmd.args(["test", "-c", "-covermode=set"])
            .arg(format!("-coverpkg={}", targets.packages.join(",")))
            .arg("-o")
            .arg(&binary)
            .arg(pkg);
        let out = process::run(cmd, ctx.deadline, ctx.cancel).ok()?;
        (out.success() && binary.is_file()).then_some(binary)
    }

    /// A package's directory: go runs its tests there.
    fn package_dir(&self, module: &str, pkg: &str) -> Option<PathBuf> {
        if pkg == module {
            return Some(self.dir.clone());
        }
        let rest = pkg.strip_prefix(module)?.strip_prefix('/')?;
        Some(self.dir.join(rest)).filter(|d| d.is_dir())
    }

    /// The requested ids with their test names, grouped by (package, top-level test), in the
    /// order asked, at most [`MAX_TESTS`] groups; ids that name no test of this module are left
    /// out.
    #[allow(clippy::type_complexity)]
    fn top_tests(&self, tests: &[String]) -> Vec<((String, String), Vec<(String, String)>)> {
        let mut out: Vec<((String, String), Vec<(String, String)>)> = Vec::new();
        for id in tests.iter().filter(|id| !id.starts_with('-')) {
            let Some((pkg, name)) = splits(id).find(|(pkg, _)| self.in_module(pkg)) else {
                continue;
            };
            let key = (
                pkg.to_owned(),
                name.split('/').next().unwrap_or(name).to_owned(),
            );
            let named = (id.clone(), name.to_owned());
            if let Some((_, ids)) = out.iter_mut().find(|(k, _)| *k == key) {
                ids.push(named);
            } else if out.len() < MAX_TESTS {
                out.push((key, vec![named]));
            }
        }
        out
    }
}

/// Runs the tests `pattern` selects from `binary` in `dir` (as `go test` does) and returns
/// the coverage profile it wrote, whatever the tests' verdict.
fn profile(
    ctx: &Context<'_>,
    binary: &Path,
    dir: &Path,
    pattern: &str,
    n: usize,
) -> Option<String> {
    let profile = ctx.scratch.join(format!("go-trace-{n}.cov"));
    let _ = std::fs::remove_file(&profile);
    let remaining = ctx.deadline.saturating_duration_since(Instant::now());
    let mut cmd = crate::base_command(binary, dir);
    cmd.arg(format!("-test.run={pattern}"))
        .arg("-test.count=1")
        .arg(format!(
            "-test.timeout={}s",
            go_timeout(remaining).as_secs()
        ))
        .arg(format!("-test.coverprofile={}", profile.display()));
    process::run(cmd, ctx.deadline, ctx.cancel).ok()?;
    super::locate::read_source(&profile)
}

/// The changed files of the module at `dir` (import path `module`) that go builds: existing
/// `.go` files that are not tests (go does not instrument those), in packages of this module.
pub(super) fn targets(
    module: &str,
    dir: &Path,
    root: &Path,
    files: &[String],
    in_module: impl Fn(&str) -> bool,
) -> Targets {
    let mut t = Targets::default();
    for f in files {
        if !f.ends_with(".go") || f.ends_with("_test.go") || !root.join(f).is_file() {
            continue;
        }
        let Ok(rel) = root.join(f).strip_prefix(dir).map(Path::to_path_buf) else {
            continue;
        };
        let Some(rel) = rel.to_str().map(|r| r.replace('\\', "/")) else {
            continue;
        };
        // Directories go ignores (`testdata`, `_x`, `.x`) hold no package.
        let parts: Vec<&str> = rel.split('/').collect();
        let (dirs, _) = parts.split_at(parts.len() - 1);
        if dirs
            .iter()
            .any(|d| *d == "testdata" || d.starts_with(['_', '.']))
        {
            continue;
        }
        let pkg = match rel.rsplit_once('/') {
            Some((d, _)) => format!("{module}/{d}"),
            None => module.to_owned(),
        };
        if !in_module(&pkg) {
            continue;
        }
        t.files.insert(format!("{module}/{rel}"), f.clone());
        if !t.packages.contains(&pkg) {
            t.packages.push(pkg);
        }
    }
    t
}

/// The lines a coverage profile says ran, for the files in `files` (profile name → the name
/// wanted). Lines: `mode: set`, then `name.go:l1.c1,l2.c2 statements count`; a block whose
/// count is above zero ran lines `l1..=l2`. Anything else is skipped.
pub(super) fn parse_profile(text: &str, files: &HashMap<String, String>) -> Lines {
    blocks_lines(text, files, executed_block)
}

/// Every line of a block the profile names, ran or not, for the files in `files`: what go
/// instruments (statements in function bodies; a package-level declaration is no block).
pub(super) fn seen_lines(text: &str, files: &HashMap<String, String>) -> Lines {
    blocks_lines(text, files, block)
}

/// The lines of the blocks `pick` reads from the profile's lines, by the name wanted.
fn blocks_lines(
    text: &str,
    files: &HashMap<String, String>,
    pick: fn(&str) -> Option<(&str, u32, u32)>,
) -> Lines {
    let mut lines = Lines::new();
    for (file, first, last) in text.lines().filter_map(pick) {
        if let Some(wanted) = files.get(file) {
            lines
                .entry(wanted.clone())
                .or_default()
                .extend(first..=last);
        }
    }
    lines
}

/// `(file, first line, last line)` of a profile line whose block ran.
fn executed_block(line: &str) -> Option<(&str, u32, u32)> {
    let count: u64 = line.trim_end().rsplit(' ').next()?.parse().ok()?;
    (count > 0).then_some(())?;
    block(line)
}

/// `(file, first line, last line)` of a profile line's block.
fn block(line: &str) -> Option<(&str, u32, u32)> {
    let mut fields = line.trim_end().rsplitn(3, ' ');
    let _count: u64 = fields.next()?.parse().ok()?;
    let _statements: u64 = fields.next()?.parse().ok()?;
    let (file, span) = fields.next()?.rsplit_once(':')?;
    let (start, end) = span.split_once(',')?;
    let line_of = |pos: &str| pos.split_once('.')?.0.parse::<u32>().ok();
    let (first, last) = (line_of(start)?, line_of(end)?);
    (first > 0 && first <= last && last - first <= MAX_BLOCK_LINES).then_some((file, first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted() -> HashMap<String, String> {
        HashMap::from([(
            "example.com/m/price/price.go".to_owned(),
            "go/price/price.go".to_owned(),
        )])
    }

    #[test]
    fn executed_blocks_become_lines_of_the_wanted_files() {
        let profile = "mode: set\n\
            example.com/m/price/price.go:3.28,4.13 1 1\n\
            example.com/m/price/price.go:4.13,6.3 1 0\n\
            example.com/m/price/price.go:7.2,7.14 1 1\n\
            example.com/m/price/price.go:7.2,7.14 1 0\n\
            example.com/m/other/o.go:1.1,9.2 3 1\n";
        let lines = parse_profile(profile, &wanted());
        assert_eq!(lines.len(), 1);
        let got: Vec<u32> = lines["go/price/price.go"].iter().copied().collect();
        assert_eq!(got, [3, 4, 7]);
        // What go could see: every block, ran or not (line 2, a `const`, is in none).
        let seen = seen_lines(profile, &wanted());
        let got: Vec<u32> = seen["go/price/price.go"].iter().copied().collect();
        assert_eq!(got, [3, 4, 5, 6, 7]);
    }

    #[test]
    fn odd_profiles_are_skipped_line_by_line() {
        let w = wanted();
        let f = "example.com/m/price/price.go";
        for odd in [
            String::new(),
            "mode: set".to_owned(),
            format!("{f}:3.28,4.13 1"),
            format!("{f}:3.28,4.13 x 1"),
            format!("{f}:4.1,3.13 1 1"),
            format!("{f}:0.1,3.13 1 1"),
            format!("{f}:3,4 1 1"),
            format!("{f}:3.1,999999999.1 1 1"),
            format!("{f}:3.1;4.1 1 1"),
            format!("{f} 1 1"),
            format!("{f}:3.1,4.1 1 -1"),
            "\u{0}\u{fffd} 1 1".to_owned(),
        ] {
            assert!(parse_profile(&odd, &w).is_empty(), "{odd:?}");
        }
        // A name with a colon and spaces in its directory still reads from the right.
        let spaced = HashMap::from([("example.com/m/a b:c/x.go".to_owned(), "x.go".to_owned())]);
        let lines = parse_profile("example.com/m/a b:c/x.go:2.1,2.9 1 4\n", &spaced);
        assert_eq!(lines["x.go"].len(), 1);
    }

    #[test]
    fn targets_are_the_changed_non_test_go_files_of_the_module() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        let dir = root.join("go");
        for f in [
            "go/price/price.go",
            "go/price/price_test.go",
            "go/main.go",
            "go/testdata/x.go",
            "go/inner/i.go",
            "other/o.go",
        ] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "package x\n").unwrap();
        }
        let files: Vec<String> = [
            "go/price/price.go",
            "go/price/price_test.go",
            "go/main.go",
            "go/testdata/x.go",
            "go/inner/i.go",
            "go/gone.go",
            "go/README.md",
            "other/o.go",
        ]
        .map(String::from)
        .to_vec();
        let t = targets("example.com/m", &dir, root, &files, |p| {
            p != "example.com/m/inner"
        });
        assert_eq!(t.packages, ["example.com/m/price", "example.com/m"]);
        assert_eq!(t.files.len(), 2);
        assert_eq!(t.files["example.com/m/price/price.go"], "go/price/price.go");
        assert_eq!(t.files["example.com/m/main.go"], "go/main.go");
    }
}
