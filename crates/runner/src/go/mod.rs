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
//! Re-running: ids are grouped by package and parent test, and each group runs as
//! `go test -json -run '^TestA$/^(x|y)$' <packages>` (names escaped, anchored at every level),
//! which selects exactly the requested tests and their subtests; results are kept only for
//! those all the same. Ids whose package `go list` does not know, or whose test did not run in
//! a package that ran to its end, are `not_found`; an id that starts with `-` is never passed on.
//!
//! `-timeout` is set from pith's deadline (less a margin, rounded down to two significant
//! digits so go's test cache, which keys on the flag's value, still hits), so go's own timeout
//! panic, which names the running tests, arrives before pith kills the process group. go's
//! test cache is kept: a cached result replays the run it records, output included.
//!
//! Every module of a workspace is a project of its own (the engine runs each `go.mod` in its
//! directory): ids under a module nested inside this one belong to that module, and under a
//! `go.work` only this module's packages run here (go 1.26 keeps `./...` inside the module;
//! `go list` names each package's module, and when another module's packages show up the
//! packages are passed by name instead), so no package runs twice.
//!
//! go's output is read line by line as it comes ([`process::run_lines`]), never held whole: a
//! test that prints without end costs the bounded head and tail of its output, no more.

pub(crate) mod events;
mod locate;
mod output;
mod verdict;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pith_model::{Run, Status};

use crate::process::{self, End};
use crate::{Adapter, Context, ParseError, PathMap, RunnerError};

pub use verdict::test_id;
use verdict::{Judge, Requested, Selection};

/// One line telling how to get Go.
const GO_HINT: &str = "install Go: https://go.dev/dl/";
/// Where Go's installer puts it, for a caller whose PATH lacks it.
const GO_INSTALL: &str = "/usr/local/go/bin/go";
/// Flags GOFLAGS may carry that change which tests run or how go reports them: pith selects
/// tests itself and reads go's JSON, so these are taken out of the GOFLAGS go sees. Every other
/// flag (`-tags`, `-mod`, `-race`, `-count=1`, `-short`...) stays: it is part of how the
/// project builds and tests, and the tests see GOFLAGS as the caller set it, less these.
const SELECTION_FLAGS: &[&str] = &[
    "run", "skip", "list", "failfast", "fuzz", "bench", "json", "c", "o",
];
/// Entries walked at most looking for modules nested in this one.
const NESTED_SEARCH_LIMIT: usize = 100_000;

/// `go test` in a Go module (a directory with a `go.mod`).
#[derive(Debug, Clone)]
pub struct Go {
    dir: PathBuf,
    /// The module path from go.mod: ids of this module start with it.
    module: Option<String>,
    /// Paths of the modules nested below this one's directory (their own `go.mod`): their
    /// packages are theirs, though their paths may extend this module's. Found on first use.
    nested: OnceLock<Vec<String>>,
}

/// The adapters this ecosystem contributes for the project in `dir`.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    let markers = pith_model::ecosystem::GO.root_markers;
    if markers.iter().any(|m| dir.join(m).is_file()) {
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
            nested: OnceLock::new(),
        }
    }

    fn in_module(&self, pkg: &str) -> bool {
        let under = |m: &str| pkg == m || pkg.strip_prefix(m).is_some_and(|r| r.starts_with('/'));
        self.module.as_deref().is_none_or(under)
            && !self
                .nested
                .get_or_init(|| nested_modules(&self.dir))
                .iter()
                .any(|m| under(m))
    }
}

/// The module paths of the `go.mod` files below `dir` (not `dir`'s own), where go's `./...`
/// would stop: directories go ignores (`testdata`, `vendor`, names starting with `.` or `_`)
/// are not searched.
fn nested_modules(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>, budget: &mut usize) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(['.', '_'])
                || ["testdata", "vendor", "node_modules"].contains(&name.as_ref())
                || !e.file_type().is_ok_and(|t| t.is_dir())
            {
                continue;
            }
            let sub = e.path();
            if sub.join("go.mod").is_file() {
                out.extend(locate::module_path(&sub));
            }
            walk(&sub, out, budget);
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out, &mut NESTED_SEARCH_LIMIT.clone());
    out
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
        // Read as a test wherever it can be one: `example.com/m/inner.TestI` is a test of the
        // nested module's package, never a package of this one.
        let mut tests = splits(id).peekable();
        if tests.peek().is_some() {
            return tests.any(|(pkg, _)| self.in_module(pkg));
        }
        self.module.is_some() && is_import_path(id) && self.in_module(id)
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
            Listing::Ok(listed) => listed,
            Listing::Stop(run) => return Ok(*run),
        };
        // Under a go.work, packages of other modules may be in reach: only this module's run.
        let foreign = |l: &locate::Listed| {
            l.module
                .as_deref()
                .is_some_and(|m| self.module.as_deref().is_some_and(|own| m != own))
        };
        let own: Vec<String> = listed
            .iter()
            .filter(|l| !foreign(l))
            .map(|l| l.pkg.clone())
            .collect();
        let whole = if listed.iter().any(foreign) && !own.is_empty() {
            own
        } else {
            vec!["./...".to_owned()]
        };
        let dirs = locate::Dirs::of(listed, &self.dir, ctx.root);
        if tests.is_empty() {
            return self.go_test(ctx, &go, &dirs, None, &whole, None);
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
    Ok(Vec<locate::Listed>),
    /// go could not list the module at all: this is the answer.
    Stop(Box<Run>),
}

impl Go {
    /// `go list` once per run: every package's directory, to locate `file.go:12` lines, its
    /// module and its compiled test files. Read line by line: a module of many thousands of
    /// packages costs what is kept of each, not the text.
    fn list(&self, ctx: &Context<'_>, go: &Path) -> Result<Listing, RunnerError> {
        let mut cmd = command(go, &self.dir);
        cmd.args(["list", "-e", "-f", locate::LIST_FORMAT, "./..."]);
        let mut listed: Vec<locate::Listed> = Vec::new();
        let mut sink = |line: &[u8]| {
            listed.extend(locate::Listed::parse(&String::from_utf8_lossy(line)));
        };
        let out = match process::run_lines(cmd, ctx.deadline, ctx.cancel, &mut sink) {
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
            run.duration = out.elapsed;
            crate::verdict::stopped(&mut run, None, crate::verdict::tail(ctx.paths, &stderr));
            return Ok(Listing::Stop(Box::new(run)));
        }
        // Anything else go list cannot do, go test will say in its own words.
        Ok(Listing::Ok(listed))
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
        let mut stream = events::Stream::default();
        let out = match process::run_lines(cmd, ctx.deadline, ctx.cancel, &mut |l| stream.push(l)) {
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

/// go in `dir`, in the caller's environment but for two things the tests could see:
/// - GOFLAGS loses the flags that would choose tests or reshape go's report behind pith's back
///   ([`SELECTION_FLAGS`]); the rest of it is the project's build, kept.
/// - GOTOOLCHAIN is `local` unless the caller chose a policy: with go's default (`auto`) a
///   go.mod asking for a newer Go makes go download a toolchain from the network mid-run; pith
///   answers about the Go that is installed, with a hint when it is too old.
fn command(go: &Path, dir: &Path) -> Command {
    let mut cmd = crate::base_command(go, dir);
    if let Some(flags) = std::env::var_os("GOFLAGS") {
        let flags = flags.to_string_lossy();
        let kept = kept_goflags(&flags);
        if kept != flags.trim() {
            if kept.is_empty() {
                cmd.env_remove("GOFLAGS");
            } else {
                cmd.env("GOFLAGS", kept);
            }
        }
    }
    if std::env::var_os("GOTOOLCHAIN").is_none_or(|v| v.is_empty()) {
        cmd.env("GOTOOLCHAIN", "local");
    }
    cmd
}

/// GOFLAGS (space-separated `-flag=value` entries) without the [`SELECTION_FLAGS`], and
/// without what runs a test more than once (`-count` other than 1, `-cpu` with several
/// values): each run reports under the one name, and the last would hide a failing one.
fn kept_goflags(flags: &str) -> String {
    flags
        .split_whitespace()
        .filter(|f| {
            let name = f.trim_start_matches('-');
            let (name, value) = name.split_once('=').unwrap_or((name, ""));
            let name = name.strip_prefix("test.").unwrap_or(name);
            let repeats =
                (name == "count" && value != "1") || (name == "cpu" && value.contains(','));
            !(SELECTION_FLAGS.contains(&name) || repeats)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn missing(hint: String) -> Run {
    crate::verdict::runner_missing("go", hint)
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

/// A requested id as a package `go list` knows and a test name (or the package alone). An id
/// that starts with `-` is never one: it would reach go as an option.
fn resolve(id: &str, dirs: &locate::Dirs) -> Option<Requested> {
    if id.starts_with('-') {
        return None;
    }
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
        // One pattern per parent: `^TestA$/^(x|y)$` selects exactly those subtests, where one
        // per depth (`^(TestA|TestB)$/^(x|y)$`) would also run TestA/y and TestB/x.
        let parent = |r: &Requested| {
            let n = name(r);
            n.rsplit_once('/')
                .map(|(p, _)| p.to_owned())
                .unwrap_or_default()
        };
        let mut parents: Vec<String> = Vec::new();
        for r in &roots {
            let p = parent(r);
            if !parents.contains(&p) {
                parents.push(p);
            }
        }
        for p in parents {
            let group: Vec<&Requested> = roots.iter().filter(|r| parent(r) == p).copied().collect();
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

/// go's `-run` pattern for test names that share their parent: each level an anchored
/// alternation of the names at that level, regexp metacharacters escaped.
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
            nested: OnceLock::new(),
        }
    }

    #[test]
    fn ids_of_a_nested_module_are_not_the_outer_modules() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("go.mod"), "module example.com/m\n").unwrap();
        std::fs::create_dir_all(d.path().join("inner")).unwrap();
        std::fs::write(
            d.path().join("inner/go.mod"),
            "module example.com/m/inner\n",
        )
        .unwrap();
        std::fs::create_dir_all(d.path().join("testdata/x")).unwrap();
        std::fs::write(
            d.path().join("testdata/x/go.mod"),
            "module example.com/m/td\n",
        )
        .unwrap();
        let outer = Go::new(d.path());
        let inner = Go::new(&d.path().join("inner"));
        assert!(outer.owns("example.com/m.TestA"));
        assert!(outer.owns("example.com/m/pkg.TestA"));
        assert!(outer.owns("example.com/m/td.TestA"));
        assert!(!outer.owns("example.com/m/inner.TestI"));
        assert!(!outer.claims("example.com/m/inner/sub.TestI"));
        assert!(inner.owns("example.com/m/inner/sub.TestI"));
    }

    #[test]
    fn goflags_keep_the_build_and_lose_the_selection() {
        assert_eq!(
            kept_goflags("-tags=integration -run=TestA -count=1 -mod=vendor --failfast -test.skip=X -count=3 -race -cpu=1,4 -vet=off"),
            "-tags=integration -count=1 -mod=vendor -race -vet=off"
        );
        assert_eq!(kept_goflags("  "), "");
    }

    #[test]
    fn an_id_that_looks_like_an_option_is_never_resolved() {
        let dirs = locate::Dirs::listed(
            "-run\t/ws\n-x.TestA\t/ws\n",
            Path::new("/ws"),
            Path::new("/ws"),
        );
        assert!(resolve("-run", &dirs).is_none());
        assert!(resolve("-x.TestA", &dirs).is_none());
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

        // Subtests of two parents: one exact pattern each, never a cross product.
        let reqs = [
            r("p.TestA/x", "p", Some("TestA/x")),
            r("p.TestB/y", "p", Some("TestB/y")),
            r("p.TestA/z", "p", Some("TestA/z")),
        ];
        let patterns: Vec<Option<String>> = super::plan(&reqs).into_iter().map(|p| p.0).collect();
        assert_eq!(
            patterns,
            [
                Some("^TestA$/^(x|z)$".to_owned()),
                Some("^TestB$/^y$".to_owned())
            ]
        );
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
