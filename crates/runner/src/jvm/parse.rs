//! The JUnit XML reports a run wrote (only those newer than the run's start) and the
//! listener's events, tallied into counts, failures and the tests that never ended.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use pith_model::{Failure, Phase, Run, Status};

use crate::junit::{self, Case, Outcome};
use crate::paths::PathMap;
use crate::{text, ParseError};

use super::command::{is_class_name, TestId};
use super::stack::Sources;
use super::{listener, stack, Tool};

/// The classes the reports account for (their cases' classes and their suites' names).
pub(super) fn reported_classes(reports: &[Written]) -> HashSet<String> {
    let mut out = HashSet::new();
    for w in reports {
        if let Ok(r) = &w.parsed {
            for s in &r.suites {
                out.insert(s.name.clone());
                for c in &s.cases {
                    out.insert(c.classname.clone());
                }
            }
        }
    }
    out
}

/// Report files as they were before the run: path → (modified, length).
pub(super) type Snapshot = HashMap<PathBuf, (Option<SystemTime>, u64)>;

pub(super) fn snapshot(dir: &Path, tool: Tool) -> Snapshot {
    report_files(dir, tool)
        .into_iter()
        .map(|(p, _)| {
            let meta = std::fs::metadata(&p).ok();
            let key = (
                meta.as_ref().and_then(|m| m.modified().ok()),
                meta.map_or(0, |m| m.len()),
            );
            (p, key)
        })
        .collect()
}

/// Directories never searched for modules.
pub(super) const SKIP_DIRS: &[&str] = &["src", "node_modules"];

/// Every `TEST-*.xml` under the project's modules, with its module directory.
pub(super) fn report_files(dir: &Path, tool: Tool) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, usize)> = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = stack.pop() {
        let report_dirs: Vec<PathBuf> = match tool {
            Tool::Maven => vec![d.join("target").join("surefire-reports")],
            Tool::Gradle => std::fs::read_dir(d.join("build").join("test-results"))
                .map(|it| it.flatten().map(|e| e.path()).collect())
                .unwrap_or_default(),
        };
        for rd in report_dirs {
            if let Ok(entries) = std::fs::read_dir(&rd) {
                for e in entries.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if name.starts_with("TEST-") && name.ends_with(".xml") {
                        out.push((e.path(), d.clone()));
                    }
                }
            }
        }
        if depth >= 8 {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let build_dir = matches!(
                (tool, name.as_str()),
                (Tool::Maven, "target") | (Tool::Gradle, "build")
            );
            if name.starts_with('.') || SKIP_DIRS.contains(&name.as_str()) || build_dir {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push((e.path(), depth + 1));
            }
        }
    }
    out.sort();
    out
}

/// One report this run wrote.
pub(super) struct Written {
    pub(super) file: PathBuf,
    pub(super) module: PathBuf,
    pub(super) parsed: Result<junit::Report, crate::ParseError>,
}

/// The reports new or rewritten since `before`.
pub(super) fn collect(dir: &Path, tool: Tool, before: &Snapshot) -> Vec<Written> {
    let mut out = Vec::new();
    for (file, module) in report_files(dir, tool) {
        let meta = std::fs::metadata(&file).ok();
        let key = (
            meta.as_ref().and_then(|m| m.modified().ok()),
            meta.map_or(0, |m| m.len()),
        );
        if before.get(&file) == Some(&key) {
            continue;
        }
        let parsed = read_report(&file);
        out.push(Written {
            file,
            module,
            parsed,
        });
    }
    out
}

/// The largest report file read: a report is one class's results, and one this large is a
/// test's output gone wild. It is not read, and the class is answered as a report that could
/// not be read (never green).
pub(super) const REPORT_LIMIT: u64 = 256 << 20;

/// One report file, streamed: memory holds what is kept of it (texts cut to their head and
/// tail), not the file.
pub(super) fn read_report(file: &Path) -> Result<junit::Report, crate::ParseError> {
    let f = std::fs::File::open(file).map_err(|e| crate::ParseError::Malformed(e.to_string()))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > REPORT_LIMIT {
        return Err(crate::ParseError::Malformed(format!(
            "it is {} MB, over pith's {} MB limit",
            len >> 20,
            REPORT_LIMIT >> 20
        )));
    }
    junit::read_from(std::io::Read::take(f, REPORT_LIMIT))
}

/// How report names map to ids and events.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ids {
    /// `Class#name`, JUnit's `name()` reported as `name` (Surefire).
    Surefire,
    /// `Class#name` verbatim (Gradle).
    Verbatim,
    /// A report of unknown origin: `Class#name` for JVM class names, else `classname name`.
    Generic,
}

pub(super) fn case_id(ids: Ids, classname: &str, name: &str) -> String {
    if classname.is_empty() {
        return name.to_owned();
    }
    match ids {
        // A JVM class has a package or a capital (`demo.CalcTest`, `CalcTest`); nextest's
        // binary ids (`single`, `crate::api`) and Go packages do not.
        Ids::Generic
            if !(is_class_name(classname)
                && (classname.contains('.') || classname.starts_with(char::is_uppercase))) =>
        {
            format!("{classname} {name}")
        }
        _ => format!("{classname}#{name}"),
    }
}

/// A name the listener reported, as the tool's report would spell it.
pub(super) fn event_name(ids: Ids, name: &str) -> String {
    match ids {
        Ids::Surefire => name.strip_suffix("()").unwrap_or(name).to_owned(),
        _ => name.to_owned(),
    }
}

/// Turns cases into counts and failures.
pub(super) struct Tally<'a, 'p> {
    pub(super) run: &'a mut Run,
    pub(super) paths: &'p PathMap,
    pub(super) sources: Sources<'p>,
    pub(super) ids: Ids,
    pub(super) requested: Option<&'a [TestId]>,
    /// Which requested ids matched something.
    pub(super) matched: Vec<bool>,
    /// The compact traces of classes that failed to load, for the run's tail.
    pub(super) load_traces: Vec<String>,
}

impl<'a, 'p> Tally<'a, 'p> {
    pub(super) fn new(
        run: &'a mut Run,
        paths: &'p PathMap,
        ids: Ids,
        requested: Option<&'a [TestId]>,
    ) -> Self {
        let n = requested.map_or(0, <[TestId]>::len);
        Tally {
            run,
            paths,
            sources: Sources::new(paths),
            ids,
            requested,
            matched: vec![false; n],
            load_traces: Vec::new(),
        }
    }

    /// Whether a test was asked for (everything is, without a selection).
    pub(super) fn wanted(&mut self, class: &str, name: &str) -> bool {
        let Some(req) = self.requested else {
            return true;
        };
        let mut any = false;
        for (i, r) in req.iter().enumerate() {
            if r.wants(class, name) || (name.is_empty() && r.class == class) {
                self.matched[i] = true;
                any = true;
            }
        }
        any
    }

    /// The id of a class-level failure: its source file when found (re-runs the class).
    pub(super) fn class_id(&mut self, class: &str, module: Option<&Path>) -> String {
        let outer = class.split('$').next().unwrap_or(class);
        let simple = outer.rsplit('.').next().unwrap_or(outer);
        for ext in ["java", "kt", "groovy", "scala"] {
            if let Some(rel) = self.sources.find(outer, &format!("{simple}.{ext}"), module) {
                return rel;
            }
        }
        class.to_owned()
    }

    pub(super) fn suite(&mut self, suite: &junit::Suite, module: Option<&Path>) {
        if !self.load_failure(suite, module) {
            for case in &suite.cases {
                self.case(case, module);
            }
        }
        self.suite_faults(suite, module);
    }

    /// What the suite itself reports failing outside its cases: a `<failure>`/`<error>` of its
    /// own (a class-level setup failure), or a forked JVM's crash in its output. Each is a
    /// failure named by the suite's class, as a class-level case is.
    pub(super) fn suite_faults(&mut self, suite: &junit::Suite, module: Option<&Path>) {
        let class = suite
            .cases
            .first()
            .map(|c| c.classname.as_str())
            .filter(|c| !c.is_empty())
            .unwrap_or(&suite.name)
            .to_owned();
        let crash = [&suite.stderr, &suite.stdout].into_iter().find_map(|t| {
            t.lines()
                .find(|l| FORK_CRASH[..2].iter().any(|p| l.contains(p)))
                .map(|l| l.trim().to_owned())
        });
        if suite.faults.is_empty() && crash.is_none() {
            return;
        }
        if !self.wanted(&class, "") {
            return;
        }
        let test = if class.is_empty() {
            "(suite)".to_owned()
        } else {
            self.class_id(&class, module)
        };
        let empty = Case::default();
        for fault in &suite.faults {
            let mut f = self.failure(&empty, Some(fault), module);
            f.test = test.clone();
            f.phase = Phase::Setup;
            self.run.failed += 1;
            self.run.failures.push(f);
        }
        if let Some(line) = crash.filter(|_| suite.faults.is_empty()) {
            self.run.failed += 1;
            self.run.failures.push(Failure {
                test,
                message: text::first_line(&self.paths.scrub(&line)),
                kind: Some("JVM exit".to_owned()),
                ..Failure::default()
            });
        }
    }

    /// A test class whose static initialization failed: every test errors with the same cause.
    /// One collection failure, named by the class's file, stands for all of them. A class the
    /// tests use that failed to initialize (the library's own) is no load failure: each test
    /// ran and errored, and stays a test's failure.
    pub(super) fn load_failure(&mut self, suite: &junit::Suite, module: Option<&Path>) -> bool {
        let is_init = |c: &Case| {
            c.outcome == Outcome::Errored
                && c.fault.as_ref().is_some_and(|f| {
                    let t = f.type_name.as_deref().unwrap_or("");
                    let initialized = if t.ends_with("ExceptionInInitializerError") {
                        initialized_classes(&f.text)
                    } else if t.ends_with("NoClassDefFoundError") {
                        // Surefire's message is the exception's own; Gradle's starts with
                        // its type (`java.lang.NoClassDefFoundError: Could not …`).
                        const SAYS: &str = "Could not initialize class ";
                        match f
                            .message
                            .as_deref()
                            .and_then(|m| m.find(SAYS).map(|at| &m[at + SAYS.len()..]))
                        {
                            Some(class) => vec![class.trim()],
                            None => return false,
                        }
                    } else {
                        return false;
                    };
                    // No `<clinit>` frame to tell by: the test class, as before.
                    initialized.is_empty()
                        || initialized
                            .iter()
                            .any(|k| is_class_or_nested(k, &c.classname))
                })
        };
        if suite.cases.is_empty() || !suite.cases.iter().all(is_init) {
            return false;
        }
        let class = suite.cases[0].classname.clone();
        if !self.wanted(&class, "") {
            return true;
        }
        let best = suite
            .cases
            .iter()
            .find(|c| {
                c.fault
                    .as_ref()
                    .and_then(|f| f.type_name.as_deref())
                    .is_some_and(|t| t.ends_with("ExceptionInInitializerError"))
            })
            .unwrap_or(&suite.cases[0]);
        let mut f = self.failure(best, best.fault.as_ref(), module);
        let chain = stack::parse(best.fault.as_ref().map_or("", |f| f.text.as_str()));
        let trace = stack::compact(&chain, &mut self.sources, module);
        if !trace.trim().is_empty() {
            self.load_traces.push(trace);
        }
        f.test = self.class_id(&class, module);
        f.phase = Phase::Collect;
        if !self
            .run
            .failures
            .iter()
            .any(|o| o.test == f.test && o.phase == Phase::Collect)
        {
            self.run.failures.push(f);
        }
        true
    }

    pub(super) fn case(&mut self, case: &Case, module: Option<&Path>) {
        let class_level =
            case.name.is_empty() || case.name == case.classname || case.name == "classMethod";
        if !self.wanted(&case.classname, if class_level { "" } else { &case.name }) {
            return;
        }
        match case.outcome {
            Outcome::Skipped => self.run.skipped += 1,
            Outcome::Passed => {
                self.run.passed += 1;
                // Passed on a retry of the project's own policy (Surefire's
                // `rerunFailingTestsCount`, Gradle's test-retry, nextest's retries): green, and
                // listed with its first failed attempt.
                if let Some(retry) = case.retries.iter().find(|r| r.element.is_flaky()) {
                    let f = self.failure(case, Some(retry), module);
                    self.run.flaky.push(f);
                }
                // The history's record of a pass: flaky, recovered, and the last pass that
                // suspects compare with.
                let id = case_id(self.ids, &case.classname, &case.name);
                self.run
                    .outcomes
                    .push(pith_model::TestOutcome::passed(id, None));
            }
            Outcome::Failed | Outcome::Errored => {
                self.run.failed += 1;
                let mut f = self.failure(case, case.fault.as_ref(), module);
                if class_level && !case.classname.is_empty() {
                    // `@BeforeAll` and the like: the class's tests never ran.
                    f.test = self.class_id(&case.classname, module);
                    f.phase = Phase::Setup;
                }
                self.run.test_output.extend(case.own_output(&f.test));
                self.run.failures.push(f);
            }
        }
    }

    pub(super) fn failure(
        &mut self,
        case: &Case,
        fault: Option<&junit::Fault>,
        module: Option<&Path>,
    ) -> Failure {
        let empty = junit::Fault::default();
        let fault = fault.unwrap_or(&empty);
        let chain = stack::parse(&fault.text);
        let d = stack::describe(fault.type_name.as_deref(), fault.message.as_deref(), &chain);
        let mut frames = stack::frames(&chain, d.located_by, &mut self.sources, module, self.paths);
        if !frames.iter().any(|f| f.project) {
            // Writers that give no trace but a location (pytest's `file`/`line`).
            if let (Some(file), Some(line)) = (case.file.as_deref(), case.line) {
                let mut fr = self.paths.frame(file, line, None);
                if fr.project {
                    self.paths.fill_code(std::slice::from_mut(&mut fr));
                    frames.push(fr);
                }
            }
        }
        let mut message = text::first_line(&self.paths.scrub(&d.message));
        if message.is_empty() {
            message = "failed".to_owned();
        }
        let mut f = Failure {
            test: case_id(self.ids, &case.classname, &case.name),
            message,
            kind: d.kind,
            frames,
            ..Failure::default()
        };
        crate::detail::fill(&mut f, self.paths, &stack::detail_text(&chain));
        f
    }

    /// A test the listener saw end whose class wrote no report (its JVM died or was killed).
    pub(super) fn event(&mut self, e: &listener::Event) {
        let name = event_name(self.ids, &e.name);
        if !self.wanted(&e.class, &name) {
            return;
        }
        let Some((status, throwable)) = &e.finished else {
            return;
        };
        match status.as_str() {
            "SUCCESSFUL" => {
                self.run.passed += 1;
                let id = case_id(self.ids, &e.class, &name);
                self.run
                    .outcomes
                    .push(pith_model::TestOutcome::passed(id, None));
            }
            "ABORTED" => self.run.skipped += 1,
            _ => {
                self.run.failed += 1;
                let chain = stack::parse(throwable);
                let d = stack::describe(None, None, &chain);
                let message = text::first_line(&self.paths.scrub(&d.message));
                let mut f = Failure {
                    test: case_id(self.ids, &e.class, &name),
                    message: if message.is_empty() {
                        "failed".to_owned()
                    } else {
                        message
                    },
                    kind: d.kind,
                    ..Failure::default()
                };
                crate::detail::fill(&mut f, self.paths, &stack::detail_text(&chain));
                self.run.failures.push(f);
            }
        }
    }

    /// Requested ids that matched nothing.
    pub(super) fn unmatched(&self) -> Vec<String> {
        self.requested
            .map(|req| {
                req.iter()
                    .zip(&self.matched)
                    .filter(|(_, m)| !**m)
                    .map(|(r, _)| r.full.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Surefire's words for a forked test JVM that ended without finishing; the first two are
/// also looked for in a report's suite-level output (the others are too plain to mean a crash
/// there, where a test's own output is).
pub(super) const FORK_CRASH: &[&str] = &[
    "The forked VM terminated without properly saying goodbye",
    "The forked VM terminated without saying properly goodbye",
    "Crashed tests:",
    "There was an error in the forked process",
];

/// Reads a JUnit XML report (for `pith test --report`) into a run: ids are
/// `classname#name` for JVM-like class names (Surefire's own `-Dtest` address), otherwise
/// `classname name`; Java, JavaScript and Python stack frames that point into the workspace
/// become project frames.
pub fn parse_report(text: &str, paths: &PathMap) -> Result<Run, ParseError> {
    parse_report_from(text.as_bytes(), paths)
}

/// [`parse_report`] from a stream (a report file), in memory bounded by what is kept of it.
pub fn parse_report_from(input: impl std::io::Read, paths: &PathMap) -> Result<Run, ParseError> {
    let report = junit::read_from(input)?;
    Ok(report_run(&report, paths))
}

/// A JUnit report of unknown origin (`pith test --report`) as a run.
fn report_run(report: &junit::Report, paths: &PathMap) -> Run {
    let mut run = Run::new("junit");
    let mut t = Tally::new(&mut run, paths, Ids::Generic, None);
    for s in &report.suites {
        t.suite(s, None);
    }
    let load_tail = crate::tails::tail(&paths.scrub(&t.load_traces.join("\n")));
    if !load_tail.is_empty() {
        run.tail = Some(load_tail);
    }
    // The report's own totals must agree with its cases.
    run.reason = report.disagreement();
    if !report.complete {
        run.status = Some(Status::Crashed);
        run.tail =
            Some("the report ends early: it was cut off or is not well-formed XML".to_owned());
    }
    run
}

/// The classes whose static initializer a stack trace passes through (`at X.<clinit>(`).
fn initialized_classes(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("at "))
        .filter_map(|f| f.split_once(".<clinit>(").map(|(class, _)| class))
        // `app//demo.Calc`, `java.base/java.lang.X`: the class loader and module go.
        .map(|class| class.rsplit('/').next().unwrap_or(class))
        .collect()
}

/// `class` is `test` or a class nested in it (`Test$Inner`).
fn is_class_or_nested(class: &str, test: &str) -> bool {
    class == test || class.strip_prefix(test).is_some_and(|r| r.starts_with('$'))
}
