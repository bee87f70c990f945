//! Go: `go test -json ./...` in the module's directory, read event by event.
//!
//! Test ids are `<import path>.<TestName>` with subtests in full, as go names them
//! (`example.com/shop/cart.TestTotal/empty_cart`): the package go runs and the `-run` path that
//! selects the test. They never hold a space (go rewrites spaces in subtest names to `_`), so
//! they are not Rust ids (`<binary> <test>`), and the package part is the module's own import
//! path, so they are not pytest's `file.py::name` either. A package's own failure (an `init`
//! panic, a `TestMain` that exits) is named by its import path alone. (A module whose path is a
//! single word, `module calc`, gives ids of GoogleTest's `Suite.Test` shape.)
//!
//! Counts are over leaf tests: a parent that failed only because a subtest did is not a
//! failure of its own. A failure's message is its panic, or else its first `t.Log`/`t.Error`
//! entry (go does not tell them apart), located through the package's directory, which
//! `go list` gives once per run.
//!
//! Re-running: ids are grouped by package and subtest depth, and each group runs as
//! `go test -json -run '^TestA$/^sub$' <packages>` (names escaped, one alternation per level);
//! a level-wise pattern may select siblings that were not asked for, so results are kept only
//! for the requested tests and their subtests. Ids whose package `go list` does not know, or
//! whose test did not run in a package that ran to its end, are `not_found`.
//!
//! `-timeout` is set from pith's deadline (less a margin, rounded down to two significant
//! digits so go's test cache, which keys on the flag's value, still hits), so go's own timeout
//! panic, which names the running tests, arrives before pith kills the process group. go's
//! test cache is kept: a cached result replays the run it records, output included.

mod events;
mod locate;
mod output;
mod verdict;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pith_model::{Run, Status};

use crate::process::{self, End};
use crate::{text, Adapter, Context, ParseError, PathMap, RunnerError};

pub use verdict::test_id;
use verdict::{Judge, Requested, Selection};

/// One line telling how to get Go.
const GO_HINT: &str = "install Go: https://go.dev/dl/";
/// Where Go's installer puts it, for a caller whose PATH lacks it.
const GO_INSTALL: &str = "/usr/local/go/bin/go";
/// Variables of the caller's shell that would change what `go test` does (`-count`,
/// `-failfast`, `-run` and the like can ride in GOFLAGS): pith's answer must not depend on
/// them.
const SCRUBBED_ENV: &[&str] = &["GOFLAGS"];

/// `go test` in a Go module (a directory with a `go.mod`).
#[derive(Debug, Clone)]
pub struct Go {
    dir: PathBuf,
    /// The module path from go.mod: ids of this module start with it.
    module: Option<String>,
}

/// The adapters this ecosystem contributes for the project in `dir`.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    if dir.join("go.mod").is_file() {
        vec![Box::new(Go::new(dir))]
    } else {
        Vec::new()
    }
}

impl Go {
    /// The module at `dir`.
    pub fn new(dir: &Path) -> Self {
        Go {
            dir: dir.to_path_buf(),
            module: locate::module_path(dir),
        }
    }

    fn in_module(&self, pkg: &str) -> bool {
        self.module
            .as_deref()
            .is_none_or(|m| pkg == m || pkg.strip_prefix(m).is_some_and(|r| r.starts_with('/')))
    }
}

impl Adapter for Go {
    fn name(&self) -> &'static str {
        "go"
    }

    /// `<import path>.<TestName>[/sub...]` of this module, or one of its packages alone.
    fn claims(&self, id: &str) -> bool {
        if id.is_empty() || id.contains(char::is_whitespace) {
            return false;
        }
        splits(id).any(|(pkg, _)| self.in_module(pkg))
            || (self.module.is_some() && is_import_path(id) && self.in_module(id))
    }

    /// Claimed under the module's own path (known from `go.mod`).
    fn owns(&self, id: &str) -> bool {
        self.module.is_some() && self.claims(id)
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let Some(go) = find_go() else {
            return Ok(missing(GO_HINT.to_owned()));
        };
        let listed = match self.list(ctx, &go)? {
            Listing::Ok(text) => text,
            Listing::Stop(run) => return Ok(*run),
        };
        let dirs = locate::Dirs::listed(&listed, &self.dir, ctx.root);
        if tests.is_empty() {
            return self.go_test(ctx, &go, &dirs, None, &["./...".to_owned()], None);
        }
        let mut run = Run::new("go");
        let mut reqs: Vec<Requested> = Vec::new();
        for id in tests {
            match resolve(id, &dirs) {
                Some(r) if !reqs.iter().any(|o| o.id == r.id) => reqs.push(r),
                Some(_) => {}
                None => run.not_found.push(id.clone()),
            }
        }
        for (pattern, pkgs, sel) in plan(&reqs) {
            if Instant::now() >= ctx.deadline {
                run.status = Some(Status::TimedOut);
                break;
            }
            let part = self.go_test(ctx, &go, &dirs, pattern.as_deref(), &pkgs, Some(&sel))?;
            run.absorb(part);
        }
        Ok(run)
    }
}

enum Listing {
    Ok(String),
    /// go could not list the module at all: this is the answer.
    Stop(Box<Run>),
}

impl Go {
    /// `go list` once per run: every package's directory, to locate `file.go:12` lines.
    fn list(&self, ctx: &Context<'_>, go: &Path) -> Result<Listing, RunnerError> {
        let mut cmd = command(go, &self.dir);
        cmd.args(["list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}", "./..."]);
        let out = match process::run(cmd, ctx.deadline, ctx.cancel) {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Listing::Stop(Box::new(missing(GO_HINT.to_owned()))))
            }
            Err(source) => return Err(spawn_error(go, source)),
        };
        let stderr = out.stderr_str();
        if let Some(hint) = toolchain_hint(&stderr) {
            return Ok(Listing::Stop(Box::new(missing(hint))));
        }
        if matches!(out.end, End::TimedOut | End::Cancelled) {
            let mut run = Run::new("go");
            run.status = Some(Status::TimedOut);
            run.duration = out.elapsed;
            let t = text::tail(&ctx.paths.scrub(&stderr));
            run.tail = (!t.is_empty()).then_some(t);
            return Ok(Listing::Stop(Box::new(run)));
        }
        // Anything else go list cannot do, go test will say in its own words.
        Ok(Listing::Ok(out.stdout_str()))
    }

    /// One `go test -json` over `pkgs`, judged.
    fn go_test(
        &self,
        ctx: &Context<'_>,
        go: &Path,
        dirs: &locate::Dirs,
        pattern: Option<&str>,
        pkgs: &[String],
        selection: Option<&Selection>,
    ) -> Result<Run, RunnerError> {
        let mut cmd = command(go, &self.dir);
        let remaining = ctx.deadline.saturating_duration_since(Instant::now());
        cmd.args(["test", "-json"])
            .arg(format!("-timeout={}s", go_timeout(remaining).as_secs()));
        if let Some(p) = pattern {
            cmd.arg(format!("-run={p}"));
        }
        cmd.args(pkgs);
        let out = match process::run(cmd, ctx.deadline, ctx.cancel) {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(missing(GO_HINT.to_owned()))
            }
            Err(source) => return Err(spawn_error(go, source)),
        };
        let stderr = out.stderr_str();
        if let Some(hint) = toolchain_hint(&stderr) {
            return Ok(missing(hint));
        }
        let stream = events::Stream::parse(&out.stdout_str());
        let judge = Judge {
            paths: ctx.paths,
            dirs,
            cwd: &self.dir,
            end: Some(out.end),
            stderr: &stderr,
            selection,
        };
        let mut run = judge.judge(&stream);
        run.duration = out.elapsed;
        Ok(run)
    }
}

/// Reads an existing `go test -json` stream (for `pith test --report`). Base names are
/// located through the workspace's go.mod, or by searching the workspace (see [`locate`]).
pub fn parse_json(text: &str, paths: &PathMap) -> Result<Run, ParseError> {
    let stream = events::Stream::parse(text);
    if stream.events == 0 {
        return Err(ParseError::Malformed(
            "no go test -json events in the file".into(),
        ));
    }
    let dirs = locate::Dirs::for_report(paths.root());
    let judge = Judge {
        paths,
        dirs: &dirs,
        cwd: paths.root(),
        end: None,
        stderr: "",
        selection: None,
    };
    let mut run = judge.judge(&stream);
    run.duration = stream
        .packages
        .iter()
        .filter_map(|p| p.elapsed)
        .filter(|e| e.is_finite() && *e >= 0.0 && *e < 1e9)
        .map(Duration::from_secs_f64)
        .sum();
    Ok(run)
}

fn find_go() -> Option<PathBuf> {
    crate::on_path("go").or_else(|| {
        let p = PathBuf::from(GO_INSTALL);
        crate::is_executable(&p).then_some(p)
    })
}

/// go in `dir` with the environment pith sets: never a toolchain download (the answer is
/// about the Go that is installed), no flags from the caller's shell.
fn command(go: &Path, dir: &Path) -> Command {
    let mut cmd = crate::base_command(go, dir);
    for var in SCRUBBED_ENV {
        cmd.env_remove(var);
    }
    cmd.env("GOTOOLCHAIN", "local");
    cmd
}

fn missing(hint: String) -> Run {
    Run {
        status: Some(Status::RunnerMissing),
        hint: Some(hint),
        ..Run::new("go")
    }
}

fn spawn_error(go: &Path, source: std::io::Error) -> RunnerError {
    RunnerError::Spawn {
        program: go.display().to_string(),
        source,
    }
}

/// `go: go.mod requires go >= 1.99 (running go 1.26.8; GOTOOLCHAIN=local)`: the installed Go
/// is too old for the module, and pith does not let go download another.
fn toolchain_hint(stderr: &str) -> Option<String> {
    let line = stderr
        .lines()
        .find(|l| l.contains("requires go >= ") && l.contains("GOTOOLCHAIN=local"))?;
    let want = line
        .split("requires go >= ")
        .nth(1)?
        .split([' ', ')'])
        .next()?;
    let running = line
        .split("(running go ")
        .nth(1)
        .and_then(|r| r.split([';', ')']).next())
        .unwrap_or("?");
    Some(format!(
        "go.mod requires go >= {want} (installed: {running}): install Go {want} or newer: https://go.dev/dl/"
    ))
}

/// go's own `-timeout` for the time left: less a margin (a fifth, 2 to 30 s) for go to link
/// the test binary, then print what was running and exit before pith's deadline; rounded down
/// to two significant digits so that the value, part of go's test-cache key, is the same from
/// one run to the next.
pub fn go_timeout(remaining: Duration) -> Duration {
    let margin = (remaining / 5).clamp(Duration::from_secs(2), Duration::from_secs(30));
    let secs = remaining.saturating_sub(margin).as_secs();
    let mut step = 1;
    while secs / step >= 100 {
        step *= 10;
    }
    Duration::from_secs((secs / step * step).max(1))
}

/// Every way to read `id` as `<package>.<TestName>[/sub...]`, leftmost package first.
fn splits(id: &str) -> impl Iterator<Item = (&str, &str)> {
    id.match_indices('.').filter_map(move |(i, _)| {
        let (pkg, name) = (&id[..i], &id[i + 1..]);
        let top = name.split('/').next()?;
        (is_import_path(pkg) && output::is_test_func(top)).then_some((pkg, name))
    })
}

/// A plausible Go import path: no blanks, no `::`, not a file path.
fn is_import_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.ends_with('/')
        && !p.contains("::")
        && !p.contains("//")
        && p.chars()
            .all(|c| c.is_alphanumeric() || "-._~/+!".contains(c))
}

/// A requested id as a package `go list` knows and a test name (or the package alone).
fn resolve(id: &str, dirs: &locate::Dirs) -> Option<Requested> {
    if dirs.knows(id) {
        return Some(Requested {
            id: id.to_owned(),
            pkg: id.to_owned(),
            name: None,
        });
    }
    splits(id)
        .find(|(pkg, _)| dirs.knows(pkg))
        .map(|(pkg, name)| Requested {
            id: id.to_owned(),
            pkg: pkg.to_owned(),
            name: Some(name.to_owned()),
        })
}

/// The `go test` invocations that run `reqs`: a `-run` pattern (none: whole packages), the
/// packages it applies to, and the requests it answers.
fn plan(reqs: &[Requested]) -> Vec<(Option<String>, Vec<String>, Selection)> {
    // (package, pattern) pairs first: one pattern per subtest depth within a package.
    let mut pairs: Vec<(String, Option<String>, Vec<Requested>)> = Vec::new();
    let mut pkgs: Vec<&str> = Vec::new();
    for r in reqs {
        if !pkgs.contains(&r.pkg.as_str()) {
            pkgs.push(&r.pkg);
        }
    }
    for pkg in pkgs {
        let mine: Vec<&Requested> = reqs.iter().filter(|r| r.pkg == pkg).collect();
        if mine.iter().any(|r| r.name.is_none()) {
            pairs.push((pkg.to_owned(), None, mine.into_iter().cloned().collect()));
            continue;
        }
        // A test asked for with one of its parents runs with the parent; it stays in the
        // parent's selection so that its absence is still noticed.
        let name = |r: &Requested| r.name.clone().unwrap_or_default();
        let under = |r: &Requested, o: &Requested| {
            name(r)
                .strip_prefix(name(o).as_str())
                .is_some_and(|s| s.starts_with('/'))
        };
        let roots: Vec<&Requested> = mine
            .iter()
            .filter(|r| !mine.iter().any(|o| under(r, o)))
            .copied()
            .collect();
        let mut depths: Vec<usize> = roots.iter().map(|r| name(r).split('/').count()).collect();
        depths.sort_unstable();
        depths.dedup();
        for d in depths {
            let group: Vec<&Requested> = roots
                .iter()
                .filter(|r| name(r).split('/').count() == d)
                .copied()
                .collect();
            let names: Vec<String> = group.iter().map(|r| name(r)).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut sel: Vec<Requested> = group.iter().map(|r| (*r).clone()).collect();
            sel.extend(
                mine.iter()
                    .filter(|r| group.iter().any(|g| under(r, g)))
                    .map(|r| (*r).clone()),
            );
            pairs.push((pkg.to_owned(), Some(run_pattern(&names)), sel));
        }
    }
    let mut out: Vec<(Option<String>, Vec<String>, Selection)> = Vec::new();
    for (pkg, pattern, group) in pairs {
        match out.iter_mut().find(|(p, _, _)| *p == pattern) {
            Some((_, pkgs, sel)) => {
                pkgs.push(pkg);
                sel.ids.extend(group);
            }
            None => out.push((pattern, vec![pkg], Selection { ids: group })),
        }
    }
    out
}

/// go's `-run` pattern for test names of one depth: each level an anchored alternation of the
/// names at that level, regexp metacharacters escaped.
fn run_pattern(names: &[&str]) -> String {
    let depth = names
        .iter()
        .map(|n| n.split('/').count())
        .max()
        .unwrap_or(0);
    let mut levels: Vec<String> = Vec::new();
    for i in 0..depth {
        let mut alts: Vec<String> = Vec::new();
        for n in names {
            if let Some(seg) = n.split('/').nth(i) {
                let q = quote_meta(seg);
                if !alts.contains(&q) {
                    alts.push(q);
                }
            }
        }
        levels.push(if alts.len() == 1 {
            format!("^{}$", alts[0])
        } else {
            format!("^({})$", alts.join("|"))
        });
    }
    levels.join("/")
}

/// Go's `regexp.QuoteMeta`.
fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(module: Option<&str>) -> Go {
        Go {
            dir: PathBuf::from("/ws"),
            module: module.map(str::to_owned),
        }
    }

    #[test]
    fn claims_go_ids_of_its_module_only() {
        let g = go(Some("example.com/shop"));
        assert!(g.claims("example.com/shop/cart.TestTotal"));
        assert!(g.claims("example.com/shop.TestX/sub_with.dot/deeper"));
        assert!(g.claims("example.com/shop/cart.ExampleTotal"));
        assert!(g.claims("example.com/shop/cart"));
        assert!(!g.claims("example.com/other.TestX"));
        assert!(!g.claims("example.com/shopping.TestX"));
        assert!(!g.claims("shop tests::it_works"));
        assert!(!g.claims("tests/test_x.py::TestC::test_m"));
        assert_eq!(splits("example.com/shop/cart.Testlower").count(), 0);
        assert!(!g.claims(""));
        let single = go(Some("calc"));
        assert!(single.claims("calc.TestAdd"));
        assert!(!single.claims("calc tests::add"));
        assert!(!single.claims("calc::api public_api"));
        let any = go(None);
        assert!(any.claims("gopkg.in/yaml.v3.TestDecode"));
        assert!(!any.claims("mycrate tests::TestX"));
        assert!(!any.claims("tests/test_a.py::TestA"));
    }

    #[test]
    fn ids_split_at_the_test_function() {
        let s: Vec<(&str, &str)> = splits("gopkg.in/yaml.v3.TestDecode/a.TestB").collect();
        assert_eq!(s[0], ("gopkg.in/yaml.v3", "TestDecode/a.TestB"));
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(splits("a.b").count(), 0);
    }

    #[test]
    fn run_patterns_escape_and_anchor_each_level() {
        assert_eq!(run_pattern(&["TestA"]), "^TestA$");
        assert_eq!(run_pattern(&["TestA", "TestB"]), "^(TestA|TestB)$");
        assert_eq!(
            run_pattern(&["TestT/1_+_2_=_3", "TestT/a.(b)"]),
            "^TestT$/^(1_\\+_2_=_3|a\\.\\(b\\))$"
        );
        assert_eq!(
            run_pattern(&["TestT/already/title"]),
            "^TestT$/^already$/^title$"
        );
    }

    #[test]
    fn plans_group_by_package_and_depth() {
        let r = |id: &str, pkg: &str, name: Option<&str>| Requested {
            id: id.into(),
            pkg: pkg.into(),
            name: name.map(str::to_owned),
        };
        let reqs = [
            r("p.TestA", "p", Some("TestA")),
            r("q.TestA", "q", Some("TestA")),
            r("p.TestB/x", "p", Some("TestB/x")),
            r("w", "w", None),
            r("p.TestB/x/y", "p", Some("TestB/x/y")),
        ];
        let plan = plan(&reqs);
        assert_eq!(plan.len(), 3);
        assert_eq!(plan[0].0.as_deref(), Some("^TestA$"));
        assert_eq!(plan[0].1, ["p", "q"]);
        assert_eq!(plan[1].0.as_deref(), Some("^TestB$/^x$"));
        // Under a requested parent: no run of its own, but still answered for.
        assert_eq!(plan[1].2.ids.len(), 2);
        assert_eq!(plan[2].0, None);
        assert_eq!(plan[2].1, ["w"]);
    }

    #[test]
    fn go_timeout_leaves_a_margin_and_is_stable() {
        let s = |secs: f64| go_timeout(Duration::from_secs_f64(secs)).as_secs();
        assert_eq!(s(600.0), 570);
        assert_eq!(s(599.9), 560);
        assert_eq!(s(590.5), 560);
        assert_eq!(s(15.0), 12);
        assert_eq!(s(5.0), 3);
        assert_eq!(s(4.99), 2);
        assert_eq!(s(0.5), 1);
        assert_eq!(s(3600.0), 3500);
    }

    #[test]
    fn toolchain_too_old_is_a_hint() {
        let e = "go: go.mod requires go >= 1.99 (running go 1.26.8; GOTOOLCHAIN=local)\n";
        assert_eq!(
            toolchain_hint(e).unwrap(),
            "go.mod requires go >= 1.99 (installed: 1.26.8): install Go 1.99 or newer: https://go.dev/dl/"
        );
        assert_eq!(toolchain_hint("go: other\n"), None);
    }

    #[test]
    fn detects_go_modules() {
        let d = tempfile::tempdir().unwrap();
        assert!(detect(d.path()).is_empty());
        std::fs::write(d.path().join("go.mod"), "module example.com/x\n").unwrap();
        let found = detect(d.path());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name(), "go");
        assert!(found[0].claims("example.com/x.TestA"));
    }
}
