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
//! `-timeout` is the project's (the caller's GOFLAGS, else go's ten minutes), within pith's
//! deadline (less a margin, rounded down to two significant digits so go's test cache, which
//! keys on the flag's value, still hits): go's own timeout panic names the running tests before
//! pith kills the process group, and a test slower than the project allows fails as it does by
//! hand. go's test cache is kept: a cached result replays the run it records, output included.
//! GOTOOLCHAIN and GOFLAGS are the caller's (see `command`).
//!
//! Every module of a workspace is a project of its own (the engine runs each `go.mod` in its
//! directory): ids under a module nested inside this one belong to that module, and under a
//! `go.work` only this module's packages run here (go 1.26 keeps `./...` inside the module;
//! `go list` names each package's module, and when another module's packages show up the
//! packages are passed by name instead), so no package runs twice. A module the `go.work`
//! leaves out of `use` runs on its own (`GOWORK=off`), as go refuses `./...` in it otherwise.
//! Where no `go.work` reaches the module, a whole run's `go list` runs beside `go test ./...`
//! rather than before it.
//!
//! go's output is read line by line as it comes ([`process::run_lines`]), never held whole: a
//! test that prints without end costs the bounded head and tail of its output, no more.
//!
//! Tracing (`trace`): the failing tests' package is built once with coverage of the changed
//! files' packages (`go test -c -coverpkg`), its failing top-level tests run from it one by
//! one, and each one's coverage profile tells the lines it ran.
//!
//! Go 1.21 and newer: an older go on PATH is answered `RunnerMissing` before anything runs
//! (`version`, which reads its GOROOT's `VERSION` file rather than start a process).
//!
//! Layout: `detect` (the module and the modules nested in it), `command` (go's environment, its
//! `-timeout`, ids into `-run` patterns), `events` (the stream read), `judge` (the stream into a
//! run) with `failure` (one failed test), `output` and `locate` (what go prints and where its
//! files are), `lines` (the lines worth a message or a tail); a saved report is read back
//! through the judge ([`parse_json`]).

mod command;
mod constraint;
mod detect;
pub(crate) mod events;
mod failure;
mod judge;
mod lines;
mod listcache;
mod locate;
mod output;
mod trace;
mod version;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use pith_model::{Run, Status};

use crate::process::{self, End};
use crate::{Adapter, Context, ParseError, PathMap, RunnerError};

use command::{
    command, find_go, is_import_path, missing, plan, resolve, spawn_error, splits, toolchain_hint,
    GO_HINT,
};
use detect::nested_modules;
use judge::{Judge, Requested, Selection};

pub use command::go_timeout;
pub use detect::detect;
pub use judge::test_id;

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
        projects_timeout: false,
        narrowed: false,
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

impl Adapter for Go {
    fn name(&self) -> &'static str {
        "go"
    }

    /// The tests `go test -json` said ended so far (see [`ends_a_test`]).
    fn progress(&self, scratch: &Path) -> Option<crate::Counter> {
        let done = scratch.join(DONE_FILE);
        Some(Box::new(move || {
            std::fs::metadata(&done).map_or(0, |m| m.len())
        }))
    }

    /// A test file selects the tests it declares (`<package>.TestX`, its fuzz targets and its
    /// examples that have output, as `go test` runs them); a file pith cannot read, its
    /// package (the module path and the file's directory below the module's); a file that
    /// declares no test, nothing (a helper: the files using it are selected with it).
    fn ids_for_files(&self, project: Option<&str>, files: &[String]) -> Option<Vec<String>> {
        let module = self.module.as_deref()?;
        let mut ids: Vec<String> = Vec::new();
        let mut add = |id: String| {
            if !ids.contains(&id) {
                ids.push(id);
            }
        };
        for f in files.iter().filter(|f| f.ends_with("_test.go")) {
            let inside = match project {
                Some(p) => f.strip_prefix(p)?.strip_prefix('/')?,
                None => f.as_str(),
            };
            let package = match inside.rsplit_once('/') {
                Some((dir, _)) => format!("{module}/{dir}"),
                None => module.to_owned(),
            };
            match std::fs::read_to_string(self.dir.join(inside)) {
                Ok(text) => {
                    for name in test_functions(&text) {
                        add(format!("{package}.{name}"));
                    }
                }
                Err(_) => add(package),
            }
        }
        Some(ids)
    }

    /// `_test.go` files go builds here (build constraints, `_GOOS` names; see
    /// `constraint`), outside the directories go skips (`testdata`, `vendor`, `_x`, `.x`).
    fn test_files(
        &self,
        root: &Path,
        _project: Option<&str>,
        files: &[String],
    ) -> Option<Vec<String>> {
        let tags = constraint::Tags::here(std::env::var("GOFLAGS").ok().as_deref());
        let built = |f: &&String| {
            let (dirs, name) = f.rsplit_once('/').unwrap_or(("", f));
            name.ends_with("_test.go")
                && !name.starts_with(['_', '.'])
                && !dirs
                    .split('/')
                    .any(|d| d == "testdata" || d == "vendor" || d.starts_with(['_', '.']))
                && constraint::head(&root.join(f.as_str())).is_none_or(|t| tags.builds(name, &t))
        };
        Some(files.iter().filter(built).cloned().collect())
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
        if let Some(hint) = version::out_of_range(&go, &self.dir, ctx) {
            return Ok(missing(hint));
        }
        if tests.is_empty() && !command::in_workspace(&self.dir) {
            return self.run_whole(ctx, &go);
        }
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

    fn can_trace(&self) -> bool {
        true
    }

    /// Each failing test's top-level function (at most five; a subtest asked for alone: that
    /// subtest) alone again from a test binary built with coverage of the changed files'
    /// packages: see `trace`. Subtests of one function asked for together share its lines.
    fn trace(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
        files: &[String],
    ) -> Result<Option<pith_model::impact::Traced>, RunnerError> {
        self.trace_tests(ctx, tests, files)
    }
}

/// In the run's scratch directory: one byte per test that ended, as `go test -json` says so.
const DONE_FILE: &str = "go-tests-done";

/// Whether a `go test -json` line is a test's (not a package's) pass, fail or skip.
fn ends_a_test(line: &[u8]) -> bool {
    let has = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
    has(br#""Test":""#)
        && (has(br#""Action":"pass""#) || has(br#""Action":"fail""#) || has(br#""Action":"skip""#))
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
        self.list_keeping(ctx, go, None)
    }

    /// [`Go::list`], its lines also put in `lines` when go listed every package it was asked
    /// for (exit 0).
    fn list_keeping(
        &self,
        ctx: &Context<'_>,
        go: &Path,
        lines: Option<&mut Vec<String>>,
    ) -> Result<Listing, RunnerError> {
        let mut cmd = command(go, &self.dir);
        cmd.args(["list", "-e", "-f", locate::LIST_FORMAT, "./..."]);
        let mut listed: Vec<locate::Listed> = Vec::new();
        let mut raw: Vec<String> = Vec::new();
        let keep = lines.is_some();
        let mut sink = |line: &[u8]| {
            let line = String::from_utf8_lossy(line);
            listed.extend(locate::Listed::parse(&line));
            if keep {
                raw.push(line.into_owned());
            }
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
        if let (Some(lines), true) = (lines, out.success()) {
            *lines = raw;
        }
        // Anything else go list cannot do, go test will say in its own words.
        Ok(Listing::Ok(listed))
    }

    /// [`Go::list`] from pith's cache when nothing it reads changed since (see `listcache`),
    /// else listed and kept.
    fn list_cached(&self, ctx: &Context<'_>, go: &Path) -> Result<Listing, RunnerError> {
        let key = listcache::fingerprint(&self.dir, go, locate::LIST_FORMAT);
        if let Some(lines) = key.and_then(|k| listcache::load(ctx.cache, &self.dir, k)) {
            let listed = lines
                .iter()
                .filter_map(|l| locate::Listed::parse(l))
                .collect();
            return Ok(Listing::Ok(listed));
        }
        let mut lines = Vec::new();
        let listing = self.list_keeping(ctx, go, Some(&mut lines))?;
        // Kept only when nothing moved while go listed: the lines are then the key's.
        if let Some(k) = key.filter(|_| matches!(listing, Listing::Ok(_)) && !lines.is_empty()) {
            if listcache::fingerprint(&self.dir, go, locate::LIST_FORMAT) == Some(k) {
                listcache::save(ctx.cache, &self.dir, k, &lines);
            }
        }
        Ok(listing)
    }

    /// The whole module where no go.work reaches it: `go test ./...` stays inside the module
    /// whatever `go list` says, so the listing (which the judge needs) runs beside the tests
    /// instead of before them, or comes from pith's cache when the module's packages did not
    /// change, and a green run costs what `go test ./...` costs.
    fn run_whole(&self, ctx: &Context<'_>, go: &Path) -> Result<Run, RunnerError> {
        let whole = ["./...".to_owned()];
        let (listing, tested) = std::thread::scope(|s| {
            let lister = s.spawn(|| self.list_cached(ctx, go));
            let tested = self.go_test_process(ctx, go, None, &whole);
            (lister.join(), tested)
        });
        let listing = listing.unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        let listed = match listing {
            Listing::Ok(listed) => listed,
            Listing::Stop(run) => return Ok(*run),
        };
        let dirs = locate::Dirs::of(listed, &self.dir, ctx.root);
        Ok(match tested? {
            Tested::Ran(ran) => self.judge_test(ctx, &dirs, ran, None),
            Tested::Stop(run) => *run,
        })
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
        match self.go_test_process(ctx, go, pattern, pkgs)? {
            Tested::Ran(ran) => Ok(self.judge_test(ctx, dirs, ran, selection)),
            Tested::Stop(run) => Ok(*run),
        }
    }

    /// `go test -json` over `pkgs`, its stream read; not judged yet (that needs the listing).
    fn go_test_process(
        &self,
        ctx: &Context<'_>,
        go: &Path,
        pattern: Option<&str>,
        pkgs: &[String],
    ) -> Result<Tested, RunnerError> {
        let mut cmd = command(go, &self.dir);
        let remaining = ctx.deadline.saturating_duration_since(Instant::now());
        let limit = command::test_timeout(remaining);
        cmd.args(["test", "-json"])
            .arg(format!("-timeout={}ms", limit.as_millis()));
        if let Some(p) = pattern {
            cmd.arg(format!("-run={p}"));
        }
        cmd.args(pkgs);
        let mut stream = events::Stream::default();
        // One byte a test that ended, for a heartbeat on another thread (see `progress`).
        let mut done = std::fs::File::create(ctx.scratch.join(DONE_FILE)).ok();
        let mut sink = |l: &[u8]| {
            if let (Some(f), true) = (done.as_mut(), ends_a_test(l)) {
                let _ = std::io::Write::write_all(f, b".");
            }
            stream.push(l)
        };
        let out = match process::run_lines(cmd, ctx.deadline, ctx.cancel, &mut sink) {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Tested::Stop(Box::new(missing(GO_HINT.to_owned()))))
            }
            Err(source) => return Err(spawn_error(go, source)),
        };
        if let Some(hint) = toolchain_hint(&out.stderr_str()) {
            return Ok(Tested::Stop(Box::new(missing(hint))));
        }
        Ok(Tested::Ran(Box::new(Ran {
            stream,
            out,
            projects_timeout: limit < go_timeout(remaining),
        })))
    }

    /// A `go test` run judged, with the listing's directories.
    fn judge_test(
        &self,
        ctx: &Context<'_>,
        dirs: &locate::Dirs,
        ran: Box<Ran>,
        selection: Option<&Selection>,
    ) -> Run {
        let Ran {
            stream,
            out,
            projects_timeout,
        } = *ran;
        let stderr = out.stderr_str();
        let judge = Judge {
            paths: ctx.paths,
            dirs,
            cwd: &self.dir,
            end: Some(out.end),
            stderr: &stderr,
            selection,
            projects_timeout,
            narrowed: command::callers_selection(),
        };
        let mut run = judge.judge(&stream);
        run.duration = out.elapsed;
        run.printed = stream.printed();
        run.printed.append(out.printed());
        run
    }
}

/// What one `go test` process left to judge.
struct Ran {
    stream: events::Stream,
    out: process::Captured,
    /// go's `-timeout` was the project's (see [`Judge::projects_timeout`]).
    projects_timeout: bool,
}

enum Tested {
    Ran(Box<Ran>),
    /// go could not run the tests at all: this is the answer.
    Stop(Box<Run>),
}

/// The tests `go test` runs from a test file's text: its `TestX`, `FuzzX` and, where an
/// output comment makes them run, `ExampleX` functions (`X` not starting with a lower-case
/// letter; not `TestMain`), read as gofmt lays them out (a declaration at the first column,
/// its closing brace too).
fn test_functions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("func ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let kind = ["Test", "Fuzz", "Example"].into_iter().find(|k| {
            name.strip_prefix(k)
                .is_some_and(|x| !x.starts_with(char::is_lowercase))
        });
        let runs = match kind {
            Some("Example") => {
                let mut output = false;
                for body in lines.by_ref() {
                    if body == "}" {
                        break;
                    }
                    let t = body.trim_start();
                    output |= t.starts_with("// Output:") || t.starts_with("// Unordered output:");
                }
                output
            }
            Some(_) => name != "TestMain",
            None => false,
        };
        if runs && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_ends_with_its_pass_fail_or_skip_not_its_packages() {
        let ended = [
            r#"{"Time":"t","Action":"pass","Package":"m/p","Test":"TestA","Elapsed":0}"#,
            r#"{"Time":"t","Action":"fail","Package":"m/p","Test":"TestB/sub","Elapsed":0}"#,
            r#"{"Time":"t","Action":"skip","Package":"m/p","Test":"TestC","Elapsed":0}"#,
        ];
        for l in ended {
            assert!(ends_a_test(l.as_bytes()), "{l}");
        }
        let not = [
            r#"{"Time":"t","Action":"pass","Package":"m/p","Elapsed":0.1}"#,
            r#"{"Time":"t","Action":"run","Package":"m/p","Test":"TestA"}"#,
            r#"{"Time":"t","Action":"output","Package":"m/p","Test":"TestA","Output":"\"Action\":\"pass\""}"#,
            "ok  \tm/p\t0.01s",
        ];
        for l in not {
            assert!(!ends_a_test(l.as_bytes()), "{l}");
        }
    }

    fn go(module: Option<&str>) -> Go {
        Go {
            dir: PathBuf::from("/ws"),
            module: module.map(str::to_owned),
            nested: OnceLock::new(),
        }
    }

    #[test]
    fn a_selected_test_file_runs_the_tests_it_declares() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "cart/cart_test.go",
            "package cart\n\nimport \"testing\"\n\nfunc TestMain(m *testing.M) { m.Run() }\n\nfunc TestTotal(t *testing.T) {\n\tt.Run(\"empty\", func(t *testing.T) {})\n}\n\nfunc Testable(t *testing.T) {}\n\nfunc FuzzParse(f *testing.F) {}\n\nfunc BenchmarkTotal(b *testing.B) {}\n\nfunc ExampleTotal() {\n\tfmt.Println(1)\n\t// Output: 1\n}\n\nfunc ExampleCount() {\n\tfmt.Println(2)\n}\n\nfunc helper() {}\n",
        );
        write(
            "cart/helpers_test.go",
            "package cart\n\nfunc fixture() int { return 1 }\n",
        );
        write(
            "root_test.go",
            "package shop\n\nfunc TestRoot(t *testing.T) {}\n",
        );
        let g = Go {
            dir: dir.path().to_path_buf(),
            ..go(Some("example.com/shop"))
        };
        let files = [
            "cart/cart_test.go",
            "cart/helpers_test.go",
            "root_test.go",
            "cart/gone_test.go",
            "cart/cart.go",
        ]
        .map(String::from);
        assert_eq!(
            g.ids_for_files(None, &files).unwrap(),
            [
                "example.com/shop/cart.TestTotal",
                "example.com/shop/cart.FuzzParse",
                "example.com/shop/cart.ExampleTotal",
                "example.com/shop.TestRoot",
                // Unreadable: its package whole.
                "example.com/shop/cart",
            ]
        );
        // In a module below the workspace's root.
        let nested = ["svc/root_test.go".to_owned()];
        assert_eq!(
            g.ids_for_files(Some("svc"), &nested).unwrap(),
            ["example.com/shop.TestRoot"]
        );
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
}
