//! A `go test -json` stream judged into a [`Run`]: counts over leaf tests, failures (built in
//! [`super::failure`]) located through their packages' directories, build errors deduplicated
//! across the packages that repeat them, and the abnormal ends (a panic, go's own timeout, a
//! binary that died mid-test, a package that failed outside any test, a stream cut short) told
//! apart, never green.
//!
//! Completeness is checked against what the packages declare: a test binary that ended without
//! running every `func TestX` its compiled test files declare (a `TestMain` that never calls
//! `m.Run`, or exits 0 before it) is not green, whatever go's exit says; and go's exit code
//! itself is part of the run ([`Run::exit`]).
//!
//! Layout: here, the judge's inputs and the walk over the stream; `package` (one package that
//! built), `cut` (tests that never ended), `ending` (how go ended, build errors, the exit).

mod cut;
mod ending;
mod package;

use std::path::Path;
use std::time::Duration;

use pith_model::output::TestOutput;
use pith_model::{Exit, Frame, Outcome as ModelOutcome, Run, Status, TestOutcome};

use super::events::{Stream, Test};
use super::lines::{compact, is_go_progress, owned};
use super::locate::Dirs;
use crate::paths::PathMap;
use crate::process::End;
use ending::exit_meaning;

/// Requested tests: each id split into its package and its test name (`None`: the whole
/// package).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub ids: Vec<Requested>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requested {
    /// As the caller gave it.
    pub id: String,
    pub pkg: String,
    pub name: Option<String>,
}

impl Selection {
    /// Whether `name` of `pkg` was asked for, itself or through an ancestor.
    fn keeps(&self, pkg: &str, name: &str) -> bool {
        self.ids.iter().any(|r| {
            r.pkg == pkg
                && r.name.as_deref().is_none_or(|n| {
                    name == n || name.strip_prefix(n).is_some_and(|s| s.starts_with('/'))
                })
        })
    }
}

/// What the judge needs besides the stream.
pub struct Judge<'a> {
    pub paths: &'a PathMap,
    pub dirs: &'a Dirs,
    /// Where go ran: build diagnostics are relative to it.
    pub cwd: &'a Path,
    /// How the go process ended; `None` for a saved report.
    pub end: Option<End>,
    pub stderr: &'a str,
    /// Re-running by id: only these tests count.
    pub selection: Option<&'a Selection>,
    /// go's `-timeout` was the project's own (the caller's GOFLAGS, or go's default), stricter
    /// than pith's deadline: a test it stops failed by the project's rule, as it does by hand
    /// (TestsFailed), where pith's own deadline would be TimedOut.
    pub projects_timeout: bool,
    /// The caller's GOFLAGS choose the tests (`-run`, `-skip`): a package run whole that ran
    /// fewer tests than it declares ran what was asked, as it does by hand.
    pub narrowed: bool,
}

/// The test id of `name` in `pkg`: `<import path>.<TestName/sub>`.
pub fn test_id(pkg: &str, name: &str) -> String {
    format!("{pkg}.{name}")
}

impl Judge<'_> {
    /// How answers name a package: its import path; a GOPATH-less local one (`_/abs/dir`, from
    /// old Go) as `./dir` relative to the workspace, or by its last element when outside it.
    pub(super) fn pkg_name(&self, pkg: &str) -> String {
        let Some(abs) = pkg.strip_prefix('_').filter(|p| p.starts_with('/')) else {
            return pkg.to_owned();
        };
        match self.paths.relativize(abs, None) {
            Some(rel) => format!("./{rel}"),
            None if self.paths.relativize(&format!("{abs}/x"), None).as_deref() == Some("x") => {
                ".".to_owned()
            }
            None => abs
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .filter(|s| !s.is_empty())
                .unwrap_or(pkg)
                .to_owned(),
        }
    }

    fn id(&self, pkg: &str, name: &str) -> String {
        test_id(&self.pkg_name(pkg), name)
    }

    /// The stream as a run: each package that built judged, then what the stream cannot say
    /// alone (requested tests that never ran, how go ended, go's exit code).
    pub fn judge(&self, stream: &Stream) -> Run {
        let mut run = Run::new("go");
        let mut st = State::default();
        for pkg in &stream.packages {
            if self
                .selection
                .is_some_and(|s| !s.ids.iter().any(|r| r.pkg == pkg.name))
            {
                continue;
            }
            if pkg.build_failed() {
                st.build_failed.push(pkg.name.clone());
                continue;
            }
            self.package(pkg, &mut run, &mut st);
        }
        self.build_errors(stream, &mut run, &st);
        let mut never_ran = self.requested_never_ran(stream, &mut run, &mut st);
        self.completeness(stream, &mut st, &mut never_ran);
        if !never_ran.is_empty() {
            run.reason = Some(never_ran.join("; "));
        }
        self.ending(stream, &mut run, &mut st);
        self.declarations(stream, &mut run);
        self.fill_code(&mut run);
        // Each test's own events' output, as plain `go test -v` shows it (`=== RUN` to
        // `--- FAIL`), for `pith output --test`.
        run.test_output = stream
            .packages
            .iter()
            .flat_map(|p| p.tests.iter().map(move |t| (p, t)))
            .filter_map(|(p, t)| TestOutput::of_lines(self.id(&p.name, &t.name), t.output.all()))
            .collect();
        // go's exit also answers for tests run beside the requested ones; when one of those
        // failed, it says nothing about the answer's.
        run.exit = self
            .end
            .and_then(End::code)
            .filter(|_| !st.unselected_failed)
            .map(|c| Exit::new(c, exit_meaning(c, self.stderr)));
        if st.tail.is_empty() && run.doubt().is_some() {
            // Not green on the exit alone: what go printed on its own account explains it.
            st.tail.extend(self.stderr_lines());
            st.tail
                .extend(stream.text.all().iter().map(|l| l.to_string()));
        }
        if !st.tail.is_empty() && run.tail.is_none() {
            run.tail = crate::verdict::tail(self.paths, &st.tail.join("\n"));
        }
        run.status = st.status;
        run
    }

    /// Requested tests of packages that ran to their end without them: a line of the reason
    /// each when the package declares the test (or a sibling stopped the binary first), else
    /// `not_found`.
    fn requested_never_ran(&self, stream: &Stream, run: &mut Run, st: &mut State) -> Vec<String> {
        let mut never_ran: Vec<String> = Vec::new();
        if let Some(sel) = self.selection {
            for r in &sel.ids {
                let Some(name) = &r.name else { continue };
                let Some(p) = stream.package(&r.pkg).filter(|p| {
                    p.outcome.is_some() && !p.build_failed() && !st.cut_short.contains(&p.name)
                }) else {
                    continue;
                };
                if p.get(name).is_some() {
                    continue;
                }
                if let Some((_, by)) = st.stopped_by.iter().find(|(pkg, _)| *pkg == p.name) {
                    never_ran.push(format!(
                        "{} never ran: {by}, run beside it, stopped the test binary",
                        r.id
                    ));
                    continue;
                }
                // A test the package declares whose binary never ran it is no missing id.
                let top = name.split('/').next().unwrap_or(name);
                let declared = self
                    .dirs
                    .declared(&r.pkg)
                    .is_some_and(|d| d.iter().any(|n| n == top));
                if declared && p.get(top).is_none() {
                    never_ran.push(format!(
                        "{} never ran {top}, which it declares",
                        self.pkg_name(&p.name)
                    ));
                    st.tail.extend(compact(&owned(&p.output.all())));
                } else {
                    run.not_found.push(r.id.clone());
                }
            }
        }
        never_ran
    }

    /// Source lines for every frame at once: each file is read once, however many failures
    /// point into it.
    fn fill_code(&self, run: &mut Run) {
        let sizes: Vec<usize> = run.failures.iter().map(|f| f.frames.len()).collect();
        let mut all: Vec<Frame> = run
            .failures
            .iter_mut()
            .flat_map(|f| std::mem::take(&mut f.frames))
            .collect();
        self.paths.fill_code(&mut all);
        let mut all = all.into_iter();
        for (f, n) in run.failures.iter_mut().zip(sizes) {
            f.frames = all.by_ref().take(n).collect();
        }
    }

    /// Packages run whole that ended without running every test their compiled test files
    /// declare: `TestMain` returned or exited before `m.Run`, or the binary stopped early with
    /// a zero exit. Each is one line of `never_ran`.
    fn completeness(&self, stream: &Stream, st: &mut State, never_ran: &mut Vec<String>) {
        if self.narrowed && self.selection.is_none() {
            return;
        }
        for pkg in &stream.packages {
            let whole = self
                .selection
                .is_none_or(|s| s.ids.iter().any(|r| r.pkg == pkg.name && r.name.is_none()));
            if !whole
                || pkg.outcome.is_none()
                || pkg.build_failed()
                || st.cut_short.contains(&pkg.name)
            {
                continue;
            }
            let Some(declared) = self.dirs.declared(&pkg.name) else {
                continue;
            };
            let missing: Vec<&String> = declared.iter().filter(|n| pkg.get(n).is_none()).collect();
            if missing.is_empty() {
                continue;
            }
            let names: Vec<&str> = missing.iter().take(3).map(|n| n.as_str()).collect();
            let more = if missing.len() > names.len() {
                ", …"
            } else {
                ""
            };
            never_ran.push(format!(
                "{} never ran {} of its {} tests ({}{more})",
                self.pkg_name(&pkg.name),
                missing.len(),
                declared.len(),
                names.join(", ")
            ));
            st.tail.extend(compact(&owned(&pkg.output.all())));
        }
    }

    fn stderr_lines(&self) -> Vec<String> {
        self.stderr
            .lines()
            .filter(|l| !is_go_progress(l))
            .map(str::to_owned)
            .collect()
    }
}

#[derive(Default)]
struct State {
    status: Option<Status>,
    build_failed: Vec<String>,
    /// Packages whose binary stopped before running everything.
    cut_short: Vec<String>,
    tail: Vec<String>,
    /// A test that was not requested (run by a level-wise pattern) failed: go's exit covers
    /// more than the answer's tests.
    unselected_failed: bool,
    /// (package, test) where a test that was not requested stopped the binary.
    stopped_by: Vec<(String, String)>,
}

impl State {
    fn raise(&mut self, s: Status) {
        self.status = Some(self.status.map_or(s, |o| o.max(s)));
    }
}

fn outcome(test: String, outcome: ModelOutcome, duration: Option<Duration>) -> TestOutcome {
    TestOutcome {
        test,
        outcome,
        duration,
    }
}

/// A test that started and never ended, unless it is a parent paused in `t.Run` (go pauses
/// parallel subtests' parents).
fn unended(t: &Test) -> bool {
    t.outcome.is_none() && !t.paused
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::failure::{example_mismatch, looks_absolute};
    use pith_model::BuildError;

    const OLD_BUILD: &str = include_str!("../../../../../tests/fixtures/go/streams/old_build.json");
    const OLD_BUILD_ERR: &str =
        include_str!("../../../../../tests/fixtures/go/streams/old_build.stderr");
    const KILLED: &str = include_str!("../../../../../tests/fixtures/go/streams/killed.json");
    const TIMEOUT: &str = include_str!("../../../../../tests/fixtures/go/streams/timeout.json");
    const GOROUTINE_PANIC: &str =
        include_str!("../../../../../tests/fixtures/go/streams/goroutine_panic.json");

    fn judge(stream: &str, stderr: &str, end: Option<End>) -> Run {
        let root = Path::new("/ws");
        let paths = PathMap::new(root);
        let dirs = Dirs::listed("", root, root);
        Judge {
            paths: &paths,
            dirs: &dirs,
            cwd: root,
            end,
            stderr,
            selection: None,
            projects_timeout: false,
            narrowed: false,
        }
        .judge(&Stream::parse(stream))
    }

    #[test]
    fn old_go_build_errors_come_from_stderr() {
        let run = judge(OLD_BUILD, OLD_BUILD_ERR, Some(End::Exited(1)));
        assert_eq!(run.status(), Status::BuildFailed);
        assert_eq!(
            run.build_errors,
            [BuildError {
                file: Some("calc/calc.go".into()),
                line: Some(6),
                code: None,
                message: "invalid operation: n * \"2\" (mismatched types int and untyped string)"
                    .into(),
            }]
        );
        assert_eq!(run.passed, 1);
        // Without the text, the package still did not build.
        let run = judge(OLD_BUILD, "", Some(End::Exited(1)));
        assert_eq!(run.status(), Status::BuildFailed);
        assert_eq!(
            run.build_errors[0].message,
            "example.com/build_error/calc failed to build"
        );
    }

    #[test]
    fn a_killed_run_names_the_running_leaf() {
        let run = judge(KILLED, "", Some(End::TimedOut));
        assert_eq!(run.status(), Status::TimedOut);
        assert_eq!(
            run.running,
            ["example.com/hang/slow.TestSleepsForever/inner"]
        );
        assert_eq!((run.passed, run.failed), (2, 0));
        // The same stream saved and read back: it stops mid-run, so it is not green.
        let run = judge(KILLED, "", None);
        assert_eq!(run.status(), Status::Crashed);
        assert!(run.tail.unwrap().contains("example.com/hang/slow"));
    }

    #[test]
    fn the_projects_own_timeout_fails_the_test_and_stops_nothing_of_pith() {
        let root = Path::new("/ws");
        let paths = PathMap::new(root);
        let dirs = Dirs::listed("", root, root);
        let run = Judge {
            paths: &paths,
            dirs: &dirs,
            cwd: root,
            end: Some(End::Exited(1)),
            stderr: "",
            selection: None,
            projects_timeout: true,
            narrowed: false,
        }
        .judge(&Stream::parse(TIMEOUT));
        assert_eq!(run.status(), Status::TestsFailed);
        assert!(run.running.is_empty(), "{run:#?}");
        assert_eq!(run.failed, 1);
        assert_eq!(run.failures[0].message, "test timed out after 2s");
    }

    #[test]
    fn go_timeouts_fail_the_running_test_with_its_frames() {
        let run = judge(TIMEOUT, "", Some(End::Exited(1)));
        assert_eq!(run.status(), Status::TimedOut);
        assert_eq!(
            run.running,
            ["example.com/hang/slow.TestSleepsForever/inner"]
        );
        assert_eq!(run.failures.len(), 1);
        let f = &run.failures[0];
        assert_eq!(f.message, "test timed out after 2s");
        assert_eq!(f.kind.as_deref(), Some("timeout"));
        assert_eq!(
            f.top_project_frame().map(Frame::location).as_deref(),
            Some("slow/slow_test.go:13")
        );
        assert_eq!(run.failed, 1);
        let tail = run.tail.unwrap();
        assert!(tail.contains("running tests:"), "{tail}");
        assert!(!tail.contains("goroutine"), "{tail}");
    }

    #[test]
    fn a_goroutine_panic_fails_the_test_that_started_it() {
        let run = judge(GOROUTINE_PANIC, "", Some(End::Exited(1)));
        assert_eq!(run.status(), Status::TestsFailed);
        assert_eq!(run.failures.len(), 1, "{:?}", run.failures);
        let f = &run.failures[0];
        assert_eq!(f.test, "example.com/gpanic.TestGoroutine/sub");
        assert_eq!(f.message, "panic: from goroutine");
        assert_eq!(f.kind.as_deref(), Some("panic"));
        let frames: Vec<String> = f.project_frames().map(Frame::location).collect();
        assert_eq!(frames, ["g_test.go:12", "g_test.go:12"]);
        assert_eq!((run.passed, run.failed), (1, 1));
    }

    #[test]
    fn thousands_of_subtests_are_judged_quickly() {
        let mut text = String::new();
        for i in 0..20_000 {
            let t = format!("TestTable/case_{i}");
            text.push_str(&format!(
                "{{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"{t}\"}}\n"
            ));
            if i % 2 == 0 {
                text.push_str(&format!("{{\"Action\":\"output\",\"Package\":\"p\",\"Test\":\"{t}\",\"Output\":\"    t_test.go:9: bad {i}\\n\"}}\n"));
            }
            let action = if i % 2 == 0 { "fail" } else { "pass" };
            text.push_str(&format!(
                "{{\"Action\":\"{action}\",\"Package\":\"p\",\"Test\":\"{t}\"}}\n"
            ));
        }
        text.push_str("{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"TestTable\"}\n");
        text.push_str("{\"Action\":\"fail\",\"Package\":\"p\"}\n");
        let start = std::time::Instant::now();
        let run = judge(&text, "", Some(End::Exited(1)));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert_eq!((run.passed, run.failed), (10_000, 10_000));
        assert_eq!(run.failures[1].message, "bad 2");
    }

    #[test]
    fn example_output_mismatches_read_as_one_line() {
        let lines = [
            "--- FAIL: ExampleHello (0.00s)",
            "got:",
            "hello",
            "world",
            "want:",
            "Hello",
            "world",
        ];
        assert_eq!(
            example_mismatch(&lines).unwrap(),
            r#"got "hello\nworld", want "Hello\nworld""#
        );
        assert_eq!(example_mismatch(&["got:", "x"]), None);
    }

    #[test]
    fn foreign_absolute_paths_shrink_to_base_names() {
        let lines = [
            "    C:\\work\\calc\\calc_test.go:12: off by one",
            "    /home/other/calc/calc_test.go:13: off by two",
        ];
        let text = lines
            .iter()
            .map(|l| format!("{{\"Action\":\"output\",\"Package\":\"p\",\"Test\":\"TestA\",\"Output\":{}}}\n", serde_json::to_string(&format!("{l}\n")).unwrap()))
            .collect::<String>()
            + "{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"TestA\"}\n";
        let run = judge(&text, "", None);
        assert_eq!(run.failures[0].frames, [Frame::project("calc_test.go", 12)]);
        assert!(looks_absolute("/a") && looks_absolute("C:/a") && !looks_absolute("a/b.go"));
    }

    #[test]
    fn a_module_without_packages_ran_nothing() {
        let err = "go: warning: \"./...\" matched no packages\nno packages to test\n";
        let run = judge("", err, Some(End::Exited(1)));
        assert_eq!(run.status(), Status::NoTestsRan);
        assert!(run.build_errors.is_empty());
        assert!(run.tail.unwrap().contains("no packages to test"));
    }

    #[test]
    fn tails_drop_dumps_framing_and_timings() {
        let lines: Vec<String> = [
            "=== RUN   TestX",
            "panic: boom",
            "",
            "goroutine 1 [running]:",
            "main.f()",
            "\t/ws/a.go:3 +0x1",
            "FAIL\texample.com/x\t0.012s",
            "ok  \texample.com/y\t(cached)",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            compact(&lines),
            [
                "panic: boom",
                "FAIL\texample.com/x",
                "ok  \texample.com/y\t(cached)"
            ]
        );
    }

    #[test]
    fn local_import_paths_are_named_from_the_workspace() {
        let paths = PathMap::new(Path::new("/ws"));
        let dirs = Dirs::listed("", Path::new("/ws"), Path::new("/ws"));
        let j = Judge {
            paths: &paths,
            dirs: &dirs,
            cwd: Path::new("/ws"),
            end: None,
            stderr: "",
            selection: None,
            projects_timeout: false,
            narrowed: false,
        };
        assert_eq!(j.pkg_name("_/ws/reports/go"), "./reports/go");
        assert_eq!(j.pkg_name("_/ws"), ".");
        assert_eq!(j.pkg_name("_/home/x/reports/go"), "go");
        assert_eq!(j.pkg_name("example.com/x"), "example.com/x");
    }

    #[test]
    fn selections_keep_requested_tests_and_their_subtests() {
        let sel = Selection {
            ids: vec![
                Requested {
                    id: "p.TestA/x".into(),
                    pkg: "p".into(),
                    name: Some("TestA/x".into()),
                },
                Requested {
                    id: "q".into(),
                    pkg: "q".into(),
                    name: None,
                },
            ],
        };
        assert!(sel.keeps("p", "TestA/x"));
        assert!(sel.keeps("p", "TestA/x/deep"));
        assert!(!sel.keeps("p", "TestA/xy"));
        assert!(!sel.keeps("p", "TestA"));
        assert!(sel.keeps("q", "TestAnything"));
        assert!(!sel.keeps("r", "TestA/x"));
    }

    proptest::proptest! {
        #[test]
        fn truncated_streams_never_panic_nor_pass(cut in 0usize..12_000, which in 0usize..4) {
            let (s, err) = [(OLD_BUILD, OLD_BUILD_ERR), (KILLED, ""), (TIMEOUT, ""), (GOROUTINE_PANIC, "")][which];
            let mut end = cut.min(s.len());
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let part = &s[..end];
            let run = judge(part, err, None);
            let stream = Stream::parse(part);
            if stream.packages.iter().any(|p| p.outcome.is_none()) {
                proptest::prop_assert!(!run.status().is_green());
            }
        }

        #[test]
        fn garbage_never_panics(s in "(?s).{0,800}") {
            let _ = judge(&s, &s, Some(End::Exited(1)));
        }
    }
}
