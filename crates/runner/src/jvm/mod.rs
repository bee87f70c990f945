//! JVM: Maven (Surefire) and Gradle, both read through the JUnit XML reports they write
//! (`target/surefire-reports/TEST-*.xml`, `build/test-results/<task>/TEST-*.xml`, per module),
//! plus pith's JUnit Platform listener (see [`listener`]) for the test that was running when a
//! run was killed or its JVM exited.
//!
//! Test ids are Surefire's own `-Dtest` address: `pkg.Class#method`, the method part verbatim as
//! the report names it (`addsZero(int)[2]` for a parametrized invocation). A class-level failure
//! (`@BeforeAll`, a static initializer) is named by the class's source file, which re-runs the
//! class. Reports are the ones this run wrote: files are snapshotted before the run and only new
//! or rewritten ones are read, so stale reports of earlier runs never count.
//!
//! The tool's own account is evidence too: its exit code (0 or 1), Surefire's `Tests run:`
//! totals and Gradle's `N tests completed, F failed` (see `summary`), and each report's
//! declared counts and suite-level failures ([`junit::Report::disagreement`]) must agree with
//! the cases read, or the run is not green. A tool that cannot start (see `launch`) gives way
//! to the next one the project offers; only when none starts is the answer `RunnerMissing`.

pub mod build;
mod gradle;
mod launch;
pub mod listener;
mod maven;
pub mod stack;
mod summary;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use pith_model::{ExitMeaning, Failure, Phase, Run, Status};

use crate::junit::{self, Case, Outcome};
use crate::paths::PathMap;
use crate::process::{self, Captured};
use crate::verdict::{self, Ending, ExitCodes};
use crate::{text, Adapter, Context, RunnerError};

use stack::Sources;

/// The build tool that runs the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Maven,
    Gradle,
}

impl Tool {
    pub const fn name(self) -> &'static str {
        match self {
            Tool::Maven => "maven",
            Tool::Gradle => "gradle",
        }
    }
}

const GRADLE_FILES: &[&str] = &[
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
];

/// A Maven or Gradle project in `dir`. When both build files are there, the one with a wrapper
/// script wins, Maven otherwise: running the same tests twice would say nothing new.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    match tool_of(dir) {
        Some(tool) => vec![Box::new(Jvm::new(tool, dir))],
        None => Vec::new(),
    }
}

fn tool_of(dir: &Path) -> Option<Tool> {
    let maven = dir.join("pom.xml").is_file();
    let gradle = GRADLE_FILES.iter().any(|f| dir.join(f).is_file());
    match (maven, gradle) {
        (true, true) if dir.join("gradlew").is_file() && !dir.join("mvnw").is_file() => {
            Some(Tool::Gradle)
        }
        (true, _) => Some(Tool::Maven),
        (false, true) => Some(Tool::Gradle),
        (false, false) => None,
    }
}

/// Maven or Gradle in one project directory.
#[derive(Debug, Clone)]
pub struct Jvm {
    tool: Tool,
    dir: PathBuf,
}

impl Jvm {
    pub fn new(tool: Tool, dir: &Path) -> Self {
        Jvm {
            tool,
            dir: dir.to_path_buf(),
        }
    }
}

impl Adapter for Jvm {
    fn name(&self) -> &'static str {
        self.tool.name()
    }

    /// `pkg.Class#method...`, or a JVM source file (`src/test/java/pkg/Class.java`).
    fn claims(&self, id: &str) -> bool {
        TestId::parse(id).is_some()
    }

    fn run(&self, ctx: &Context<'_>, tests: &[String]) -> Result<Run, RunnerError> {
        let mut not_found: Vec<String> = Vec::new();
        let mut selection: Vec<TestId> = Vec::new();
        for t in tests {
            match TestId::parse(t) {
                Some(id) => selection.push(id),
                None => not_found.push(t.clone()),
            }
        }
        if !tests.is_empty() && selection.is_empty() {
            return Ok(Run {
                not_found,
                ..Run::new(self.tool.name())
            });
        }
        let launches = launch::launches(&self.dir, self.tool, &crate::on_path);
        if launches.iter().all(|l| l.program.is_none()) {
            return Ok(missing(self.tool));
        }
        let listener = listener::install(ctx.cache, ctx.scratch, ctx.deadline);
        let scratch = absolute(ctx.scratch);
        let events_path = scratch.join("junit-events.txt");
        let requested = (!tests.is_empty()).then_some(selection.as_slice());
        // The tools that did not start, each with why, and the last one's output.
        let mut failed: Vec<String> = Vec::new();
        let mut failed_tail: Option<String> = None;
        for l in &launches {
            let Some(program) = l.program.as_deref() else {
                failed.push(format!("{} is not installed", l.label()));
                continue;
            };
            let _ = std::fs::remove_file(&events_path);
            let before = snapshot(&self.dir, l.tool);
            let inv = Invocation {
                program,
                dir: &self.dir,
                scratch: &scratch,
                listener: listener.as_deref(),
                events: &events_path,
                selection: &selection,
            };
            let cmd = match l.tool {
                Tool::Maven => maven::command(&inv),
                Tool::Gradle => gradle::command(&inv)
                    .map_err(|e| RunnerError::io(format!("writing {}", scratch.display()), e))?,
            };
            let cap = match process::run(cmd, ctx.deadline, ctx.cancel) {
                Ok(c) => c,
                Err(e) => {
                    failed.push(format!("{} could not be started ({e})", l.label()));
                    continue;
                }
            };
            let reports = collect(&self.dir, l.tool, &before);
            let output = output_of(&cap);
            if cap.end.code().is_some_and(|c| c != 0) && reports.is_empty() && java_missing(&output)
            {
                // No tool starts without a JVM: trying the next one would say nothing more.
                return Ok(Run {
                    status: Some(Status::RunnerMissing),
                    hint: Some(JAVA_HINT.to_owned()),
                    ..Run::new(l.tool.name())
                });
            }
            if let Some(why) = launch::not_started(l, cap.end.code(), &output, !reports.is_empty())
            {
                failed.push(format!("{}: {why}", l.label()));
                failed_tail = output_tail(ctx.paths, &output);
                continue;
            }
            // The listener's events matter only for classes no report accounts for (their JVM
            // died or was killed): only theirs are kept.
            let reported = reported_classes(&reports);
            let events = listener::read(&events_path, &|class| !reported.contains(class));
            let mut run = judge(ctx, l.tool, &cap, &output, &reports, &events, requested);
            not_found.append(&mut run.not_found);
            run.not_found = not_found;
            run.duration = cap.elapsed;
            if !failed.is_empty() && !run.status().is_green() {
                run.hint = Some(text::first_line(&format!(
                    "{} ran because {}",
                    l.label(),
                    failed.join("; ")
                )));
            }
            return Ok(run);
        }
        // Nothing could start: the tools' failure, not the project's.
        Ok(Run {
            status: Some(Status::RunnerMissing),
            hint: Some(text::first_line(&format!(
                "no build tool could start: {}",
                failed.join("; ")
            ))),
            tail: failed_tail,
            ..Run::new(self.tool.name())
        })
    }
}

/// What a finished tool printed, stdout then stderr.
fn output_of(cap: &Captured) -> String {
    verdict::combined(&[&cap.stdout_str(), &cap.stderr_str()])
}

/// The classes the reports account for (their cases' classes and their suites' names).
fn reported_classes(reports: &[Written]) -> HashSet<String> {
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

fn missing(tool: Tool) -> Run {
    let hint = match tool {
        Tool::Maven => "Maven is not installed: install it (e.g. apt-get install maven) or add the Maven wrapper (mvnw) to the project",
        Tool::Gradle => "Gradle is not installed: add the Gradle wrapper (gradlew) to the project or install Gradle (https://gradle.org/install)",
    };
    verdict::runner_missing(tool.name(), hint.to_owned())
}

const JAVA_HINT: &str =
    "no Java runtime found: install a JDK (e.g. apt-get install default-jdk) or set JAVA_HOME";

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// What a command builder needs.
pub(crate) struct Invocation<'a> {
    pub program: &'a Path,
    pub dir: &'a Path,
    pub scratch: &'a Path,
    /// The listener's classpath directory, when it could be compiled.
    pub listener: Option<&'a Path>,
    pub events: &'a Path,
    pub selection: &'a [TestId],
}

/// A requested test: a class, or a method of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestId {
    /// The id as given.
    pub full: String,
    pub class: String,
    /// The method part verbatim (`addsZero(int)[2]`); `None` for a whole class.
    pub method: Option<String>,
}

const SOURCE_EXTS: &[&str] = &[".java", ".kt", ".groovy", ".scala"];

impl TestId {
    pub fn parse(id: &str) -> Option<TestId> {
        // An id is never an option: `-x`, `-Dtest=...` name no test.
        if id.starts_with('-') {
            return None;
        }
        if let Some(class) = class_of_path(id) {
            return Some(TestId {
                full: id.to_owned(),
                class,
                method: None,
            });
        }
        let (class, method) = id.split_once('#')?;
        (is_class_name(class) && method.chars().next().is_some_and(|c| !c.is_whitespace())).then(
            || TestId {
                full: id.to_owned(),
                class: class.to_owned(),
                method: Some(method.to_owned()),
            },
        )
    }

    /// The Java method name the id selects (`addsZero` of `addsZero(int)[2]`); `None` when the
    /// name part is a display name no filter can select (`[1] 1`).
    pub fn method_base(&self) -> Option<&str> {
        let m = self.method.as_deref()?;
        let end = m.find(['(', '[', ' ']).unwrap_or(m.len());
        let base = &m[..end];
        (!base.is_empty() && is_identifier(base)).then_some(base)
    }

    /// Whether the reported test `class#name` is one this id asked for.
    fn wants(&self, class: &str, name: &str) -> bool {
        if self.class != class {
            return false;
        }
        match self.method.as_deref() {
            None => true,
            Some(m) if m == name => true,
            // A method asked for by its bare name takes all its invocations.
            Some(m) => self.method_base() == Some(m) && base_of(name) == Some(m),
        }
    }
}

fn base_of(name: &str) -> Option<&str> {
    let end = name.find(['(', '[']).unwrap_or(name.len());
    let base = &name[..end];
    (!base.is_empty()).then_some(base)
}

fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// `pkg.Outer$Inner`: dotted identifiers.
fn is_class_name(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_identifier)
}

/// `src/test/java/demo/CalcTest.java` → `demo.CalcTest`.
pub fn class_of_path(path: &str) -> Option<String> {
    let ext = SOURCE_EXTS.iter().find(|e| path.ends_with(*e))?;
    let stem = &path[..path.len() - ext.len()];
    if stem.is_empty() || path.contains(char::is_whitespace) || path.contains('#') {
        return None;
    }
    let parts: Vec<&str> = stem
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    // The package starts after the source root: `src/<set>/<lang>/`, else after `src/`.
    let start = parts
        .iter()
        .rposition(|p| ["java", "kotlin", "groovy", "scala"].contains(p))
        .map(|i| i + 1)
        .or_else(|| parts.iter().rposition(|p| *p == "src").map(|i| i + 1))
        .unwrap_or(parts.len().saturating_sub(1));
    let class = parts.get(start..)?.join(".");
    is_class_name(&class).then_some(class)
}

/// Report files as they were before the run: path → (modified, length).
type Snapshot = HashMap<PathBuf, (Option<SystemTime>, u64)>;

fn snapshot(dir: &Path, tool: Tool) -> Snapshot {
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
const SKIP_DIRS: &[&str] = &["src", "node_modules"];

/// Every `TEST-*.xml` under the project's modules, with its module directory.
fn report_files(dir: &Path, tool: Tool) -> Vec<(PathBuf, PathBuf)> {
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
struct Written {
    file: PathBuf,
    module: PathBuf,
    parsed: Result<junit::Report, crate::ParseError>,
}

/// The reports new or rewritten since `before`.
fn collect(dir: &Path, tool: Tool, before: &Snapshot) -> Vec<Written> {
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
const REPORT_LIMIT: u64 = 256 << 20;

/// One report file, streamed: memory holds what is kept of it (texts cut to their head and
/// tail), not the file.
fn read_report(file: &Path) -> Result<junit::Report, crate::ParseError> {
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
enum Ids {
    /// `Class#name`, JUnit's `name()` reported as `name` (Surefire).
    Surefire,
    /// `Class#name` verbatim (Gradle).
    Verbatim,
    /// A report of unknown origin: `Class#name` for JVM class names, else `classname name`.
    Generic,
}

fn case_id(ids: Ids, classname: &str, name: &str) -> String {
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
fn event_name(ids: Ids, name: &str) -> String {
    match ids {
        Ids::Surefire => name.strip_suffix("()").unwrap_or(name).to_owned(),
        _ => name.to_owned(),
    }
}

/// Turns cases into counts and failures.
struct Tally<'a, 'p> {
    run: &'a mut Run,
    paths: &'p PathMap,
    sources: Sources<'p>,
    ids: Ids,
    requested: Option<&'a [TestId]>,
    /// Which requested ids matched something.
    matched: Vec<bool>,
    /// The compact traces of classes that failed to load, for the run's tail.
    load_traces: Vec<String>,
}

impl<'a, 'p> Tally<'a, 'p> {
    fn new(
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
    fn wanted(&mut self, class: &str, name: &str) -> bool {
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
    fn class_id(&mut self, class: &str, module: Option<&Path>) -> String {
        let outer = class.split('$').next().unwrap_or(class);
        let simple = outer.rsplit('.').next().unwrap_or(outer);
        for ext in ["java", "kt", "groovy", "scala"] {
            if let Some(rel) = self.sources.find(outer, &format!("{simple}.{ext}"), module) {
                return rel;
            }
        }
        class.to_owned()
    }

    fn suite(&mut self, suite: &junit::Suite, module: Option<&Path>) {
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
    fn suite_faults(&mut self, suite: &junit::Suite, module: Option<&Path>) {
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

    /// A class whose static initialization failed: every test errors with the same cause. One
    /// collection failure, named by the class's file, stands for all of them.
    fn load_failure(&mut self, suite: &junit::Suite, module: Option<&Path>) -> bool {
        let is_init = |c: &Case| {
            c.outcome == Outcome::Errored
                && c.fault.as_ref().is_some_and(|f| {
                    let t = f.type_name.as_deref().unwrap_or("");
                    t.ends_with("ExceptionInInitializerError")
                        || (t.ends_with("NoClassDefFoundError")
                            && f.message
                                .as_deref()
                                .is_some_and(|m| m.starts_with("Could not initialize class")))
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

    fn case(&mut self, case: &Case, module: Option<&Path>) {
        let class_level =
            case.name.is_empty() || case.name == case.classname || case.name == "classMethod";
        if !self.wanted(&case.classname, if class_level { "" } else { &case.name }) {
            return;
        }
        match case.outcome {
            Outcome::Skipped => self.run.skipped += 1,
            Outcome::Passed if case.flaky() => {
                self.run.failed += 1;
                let retry = case.retries.iter().find(|r| r.element.is_flaky());
                let mut f = self.failure(case, retry, module);
                f.flaky = true;
                self.run.failures.push(f);
            }
            Outcome::Passed => self.run.passed += 1,
            Outcome::Failed | Outcome::Errored => {
                self.run.failed += 1;
                let mut f = self.failure(case, case.fault.as_ref(), module);
                if class_level && !case.classname.is_empty() {
                    // `@BeforeAll` and the like: the class's tests never ran.
                    f.test = self.class_id(&case.classname, module);
                    f.phase = Phase::Setup;
                }
                self.run.failures.push(f);
            }
        }
    }

    fn failure(
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
        Failure {
            test: case_id(self.ids, &case.classname, &case.name),
            message,
            kind: d.kind,
            frames,
            ..Failure::default()
        }
    }

    /// A test the listener saw end whose class wrote no report (its JVM died or was killed).
    fn event(&mut self, e: &listener::Event) {
        let name = event_name(self.ids, &e.name);
        if !self.wanted(&e.class, &name) {
            return;
        }
        let Some((status, throwable)) = &e.finished else {
            return;
        };
        match status.as_str() {
            "SUCCESSFUL" => self.run.passed += 1,
            "ABORTED" => self.run.skipped += 1,
            _ => {
                self.run.failed += 1;
                let chain = stack::parse(throwable);
                let d = stack::describe(None, None, &chain);
                let message = text::first_line(&self.paths.scrub(&d.message));
                self.run.failures.push(Failure {
                    test: case_id(self.ids, &e.class, &name),
                    message: if message.is_empty() {
                        "failed".to_owned()
                    } else {
                        message
                    },
                    kind: d.kind,
                    ..Failure::default()
                });
            }
        }
    }

    /// Requested ids that matched nothing.
    fn unmatched(&self) -> Vec<String> {
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

/// A JUnit report of unknown origin (`pith test --report`) as a run.
pub fn report_run(report: &junit::Report, paths: &PathMap) -> Run {
    let mut run = Run::new("junit");
    let mut t = Tally::new(&mut run, paths, Ids::Generic, None);
    for s in &report.suites {
        t.suite(s, None);
    }
    let load_tail = text::tail(&paths.scrub(&t.load_traces.join("\n")));
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

/// Console lines Maven and Gradle print that explain nothing about the project: their own
/// stack frames, help links, the fork's command line.
fn noise(line: &str) -> bool {
    let l = line.trim_start();
    // Maven's progress and advice (`[INFO] Building x`, `[WARNING] ...`) say nothing of a
    // failure; its `[ERROR]` lines do.
    if l.starts_with("[INFO]") || l.starts_with("[WARNING]") || l.starts_with("[DEBUG]") {
        return true;
    }
    let l = l.strip_prefix("[ERROR]").map_or(l, str::trim_start);
    l.is_empty()
        || l.starts_with("at ")
        || (l.starts_with("...") && l.ends_with("more"))
        || l.starts_with("Command was ")
        || l.starts_with("-> [Help")
        || l.starts_with("[Help ")
        || l.starts_with("To see the full stack trace")
        || l.starts_with("Re-run Maven using")
        || l.starts_with("For more information about the errors")
        || l.starts_with("See dump files")
        || l.starts_with("See ") && l.ends_with("for the individual test results.")
        || l.starts_with("* Try:")
        || l.starts_with("> Run with --")
        || l.starts_with("> Get more help")
        || l.starts_with("Get more help at")
        || l.starts_with("After correcting the problems, you can resume the build")
        || l.starts_with("mvn <args> -rf ")
        // Surefire's exception repeats the line above it; its advice misleads after System.exit.
        || l.starts_with("org.apache.maven.surefire.booter.SurefireBooterForkException")
        || l.starts_with("Error occurred in starting fork")
        // Debian's `gradle` script probes the JVM with `java -version` before every build.
        || l.starts_with("openjdk version \"")
        || l.starts_with("OpenJDK Runtime Environment (build")
        || l.starts_with("OpenJDK 64-Bit Server VM (build")
}

fn output_tail(paths: &PathMap, output: &str) -> Option<String> {
    // Maven prints a fork's crash twice, once per reporting layer: each line once is enough.
    let mut seen: HashSet<&str> = HashSet::new();
    verdict::tail_of_lines(paths, output.lines(), |l| {
        !noise(&text::strip_ansi(l)) && seen.insert(l.trim())
    })
}

/// Surefire's words for a forked test JVM that ended without finishing; the first two are
/// also looked for in a report's suite-level output (the others are too plain to mean a crash
/// there, where a test's own output is).
const FORK_CRASH: &[&str] = &[
    "The forked VM terminated without properly saying goodbye",
    "The forked VM terminated without saying properly goodbye",
    "Crashed tests:",
    "There was an error in the forked process",
];

/// The forked test JVM ended without finishing (Surefire's wording).
fn fork_crashed(output: &str) -> bool {
    FORK_CRASH.iter().any(|p| output.contains(p))
        || output.contains("Process 'Gradle Test Executor")
            && output.contains("finished with non-zero exit value")
}

/// `Process Exit Code: 3` (Surefire) or `finished with non-zero exit value 3` (Gradle).
fn fork_exit_code(output: &str) -> Option<i32> {
    output.lines().find_map(|l| {
        let l = l.trim();
        l.split_once("Process Exit Code: ")
            .or_else(|| l.split_once("finished with non-zero exit value "))
            .and_then(|(_, n)| n.trim().parse().ok())
    })
}

/// The classes Surefire lists under `Crashed tests:`.
fn crashed_classes(output: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut lines = output.lines().map(|l| {
        let l = text::strip_ansi(l).into_owned();
        let t = l.trim_start();
        t.strip_prefix("[ERROR]")
            .map_or(t, str::trim_start)
            .to_owned()
    });
    while let Some(l) = lines.next() {
        if l == "Crashed tests:" {
            for c in lines.by_ref() {
                let name = c.trim();
                if !is_class_name(name) {
                    break;
                }
                if !out.iter().any(|o| o == name) {
                    out.push(name.to_owned());
                }
            }
        }
    }
    out
}

/// Whether the build tool says the build (not the tests) failed before tests could run.
fn compile_failed(output: &str) -> bool {
    output.contains("COMPILATION ERROR")
        || output.contains("Compilation failure")
        || output.contains("Compilation failed")
        || output.contains("Compilation error")
        || output.lines().any(|l| {
            l.split_once("Execution failed for task '")
                .is_some_and(|(_, task)| task.contains(":compile"))
        })
}

fn java_missing(output: &str) -> bool {
    output.contains("JAVA_HOME environment variable is not defined correctly")
        || output.contains("JAVA_HOME is not set and no 'java' command")
        || output.contains("JAVA_HOME is set to an invalid directory")
        || output.contains("java: not found")
}

/// Maven and Gradle exit 0 when the build succeeded (with pith's
/// `maven.test.failure.ignore`, failed tests included: the reports say which) and 1 when it
/// failed; nothing else is documented.
const EXIT_CODES: &ExitCodes = &[(0, ExitMeaning::Passed), (1, ExitMeaning::Failed)];

/// What a finished Maven/Gradle process, its reports and the listener's events say.
fn judge(
    ctx: &Context<'_>,
    tool: Tool,
    cap: &Captured,
    output: &str,
    reports: &[Written],
    events: &[listener::Event],
    requested: Option<&[TestId]>,
) -> Run {
    let mut run = Run::new(tool.name());
    let ids = match tool {
        Tool::Maven => Ids::Surefire,
        Tool::Gradle => Ids::Verbatim,
    };
    run.exit = verdict::exit(cap.end, |c| verdict::meaning(EXIT_CODES, c));

    let mut t = Tally::new(&mut run, ctx.paths, ids, requested);
    let mut reported: HashSet<String> = HashSet::new();
    let mut unreadable: Vec<(&Written, String)> = Vec::new();
    // Every case the reports hold, whatever was asked for: the tool's own totals count them all.
    let mut seen = summary::Totals::default();
    let mut reason: Option<String> = None;
    for w in reports {
        match &w.parsed {
            Ok(report) => {
                for s in &report.suites {
                    t.suite(s, Some(&w.module));
                    for c in &s.cases {
                        reported.insert(c.classname.clone());
                    }
                    reported.insert(s.name.clone());
                    seen.run += s.cases.len() as u64;
                    seen.failed +=
                        (s.cases.iter().filter(|c| c.is_failure()).count() + s.faults.len()) as u64;
                }
                if !report.complete {
                    unreadable.push((w, "the report ends early".to_owned()));
                }
                if reason.is_none() {
                    reason = report.disagreement();
                }
            }
            Err(e) => unreadable.push((w, e.to_string())),
        }
    }
    // Tests whose class wrote no report: the listener saw them (and they count among what
    // the tool ran).
    for e in events.iter().filter(|e| !reported.contains(&e.class)) {
        t.event(e);
        if let Some((status, _)) = &e.finished {
            seen.run += 1;
            seen.failed += u64::from(status != "SUCCESSFUL" && status != "ABORTED");
        }
    }
    let running: Vec<String> = events
        .iter()
        .filter(|e| e.finished.is_none())
        .filter(|e| {
            let name = event_name(ids, &e.name);
            t.wanted(&e.class, &name)
        })
        .map(|e| case_id(ids, &e.class, &event_name(ids, &e.name)))
        .collect();
    for (w, why) in &unreadable {
        let class = w
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .and_then(|n| {
                n.strip_prefix("TEST-")
                    .and_then(|s| s.strip_suffix(".xml"))
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let module = Some(w.module.as_path());
        let test = if is_class_name(&class) {
            t.class_id(&class, module)
        } else {
            ctx.paths
                .relativize(&w.file.to_string_lossy(), None)
                .unwrap_or_else(|| class.clone())
        };
        t.run.failures.push(Failure {
            test,
            message: text::first_line(&format!("its test report could not be read: {why}")),
            phase: Phase::Collect,
            ..Failure::default()
        });
    }
    let mut unmatched = t.unmatched();
    let load_tail = text::tail(&ctx.paths.scrub(&t.load_traces.join("\n")));
    drop(t);

    let build_failed = compile_failed(output);
    if build_failed {
        run.build_errors = build::parse(output, ctx.paths);
    }

    match Ending::of(cap.end) {
        Ending::Stopped => {
            verdict::stopped(&mut run, Some(running), output_tail(ctx.paths, output));
        }
        Ending::Killed(signal) => {
            let why = verdict::killed_by(tool.name(), &signal);
            crash_failures(&mut run, ctx, ids, running, &[], &why, Some(signal));
            verdict::crashed(&mut run, None, output_tail(ctx.paths, output));
        }
        Ending::Exited(_) if fork_crashed(output) => {
            run.status = Some(Status::Crashed);
            let why = match fork_exit_code(output) {
                Some(code) => format!(
                    "the test JVM exited with code {code} during this test (System.exit or a crash)"
                ),
                None => "the test JVM ended during this test (System.exit or a crash)".to_owned(),
            };
            let classes = if running.is_empty() {
                crashed_classes(output)
            } else {
                Vec::new()
            };
            crash_failures(
                &mut run,
                ctx,
                ids,
                running,
                &classes,
                &why,
                Some("JVM exit".to_owned()),
            );
            run.tail = output_tail(ctx.paths, output);
        }
        Ending::Exited(_) if build_failed => {
            run.status = Some(Status::BuildFailed);
            if run.build_errors.is_empty() {
                run.tail = output_tail(ctx.paths, output);
            }
            // Nothing ran that was asked for: the ids are not missing, the build is.
            unmatched.clear();
        }
        Ending::Exited(code) => {
            let tests_failed = run.failed > 0
                || output.contains("There are test failures")
                || output.contains("There were failing tests")
                || output.contains("There were test failures");
            let no_match = output.contains("No tests found for given includes");
            let nothing_ran = reports.is_empty() && events.is_empty();
            if code != 0 && !tests_failed && !no_match && nothing_ran {
                // Not the tests: a dependency that does not resolve, a broken build file.
                run.status = Some(Status::BuildFailed);
                run.tail = output_tail(ctx.paths, output);
                unmatched.clear();
            } else if code != 0 && run.failed == 0 && run.failures.is_empty() {
                // Tests ran and none failed, yet the build failed after them (a coverage
                // check, a plugin bound to the test phase): the exit says not green.
                run.tail = output_tail(ctx.paths, output);
            } else if run.collection_errors() > 0 {
                run.tail = if load_tail.is_empty() {
                    output_tail(ctx.paths, output)
                } else {
                    Some(load_tail)
                };
            }
            // The tool's own count of what it ran and failed must match the reports.
            let said = match tool {
                Tool::Maven => summary::surefire(output),
                Tool::Gradle => summary::gradle(output),
            };
            if reason.is_none() {
                reason = said.and_then(|said| summary::disagreement(tool.name(), said, seen));
            }
        }
    }
    if reason.is_some() {
        run.reason = reason;
        if run.tail.is_none() {
            run.tail = output_tail(ctx.paths, output);
        }
    }
    // A test that was running when the run ended was found, whatever became of it.
    run.not_found = unmatched
        .into_iter()
        .filter(|id| !run.running.contains(id) && !run.failures.iter().any(|f| &f.test == id))
        .collect();
    run
}

/// Each test that was running when the JVM died becomes a failure; lacking the listener's
/// events, each class Surefire says crashed does.
fn crash_failures(
    run: &mut Run,
    ctx: &Context<'_>,
    _ids: Ids,
    running: Vec<String>,
    classes: &[String],
    why: &str,
    kind: Option<String>,
) {
    let mut sources = Sources::new(ctx.paths);
    let named: Vec<String> = if running.is_empty() {
        classes
            .iter()
            .map(|c| {
                let simple = c.rsplit('.').next().unwrap_or(c);
                ["java", "kt", "groovy", "scala"]
                    .iter()
                    .find_map(|ext| sources.find(c, &format!("{simple}.{ext}"), None))
                    .unwrap_or_else(|| c.clone())
            })
            .collect()
    } else {
        running.clone()
    };
    let how = verdict::Stopped {
        message: &text::first_line(why),
        kind: kind.as_deref(),
        frames: &[],
    };
    verdict::fail_running(run, &named, &how);
    run.running = named;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_claimed_strictly() {
        let a = Jvm::new(Tool::Maven, Path::new("/ws"));
        for id in [
            "demo.CalcTest#adds",
            "CalcTest#adds",
            "demo.CalcTest#addsZero(int)[2]",
            "demo.Outer$Inner#m",
            "demo.T#[1] 1",
            "src/test/java/demo/CalcTest.java",
            "app/src/test/kotlin/demo/CalcTest.kt",
        ] {
            assert!(a.claims(id), "{id}");
        }
        for id in [
            "mycrate tests::it_works",
            "mycrate::api tests::x",
            "tests/test_x.py::test_y",
            "demo.CalcTest",
            "-x",
            "-Dtest=demo.CalcTest#adds",
            "-src/test/java/demo/CalcTest.java",
            "--tests=demo.CalcTest#adds",
            "#adds",
            "demo..X#m",
            "demo.X# m",
            "github.com/x/y TestZ",
            "src/foo.test.js",
            "My.Namespace.Tests.Adds",
            "",
        ] {
            assert!(!a.claims(id), "{id}");
        }
    }

    #[test]
    fn classes_from_source_paths() {
        assert_eq!(
            class_of_path("src/test/java/demo/CalcTest.java").as_deref(),
            Some("demo.CalcTest")
        );
        assert_eq!(
            class_of_path("mod/src/it/kotlin/a/b/X.kt").as_deref(),
            Some("a.b.X")
        );
        assert_eq!(class_of_path("src/X.java").as_deref(), Some("X"));
        assert_eq!(class_of_path("X.java").as_deref(), Some("X"));
        assert_eq!(class_of_path("src/test/java/x-y/Z.java"), None);
        assert_eq!(class_of_path(".java"), None);
    }

    #[test]
    fn selection_matches_invocations() {
        let whole = TestId::parse("demo.T#adds").unwrap();
        assert!(whole.wants("demo.T", "adds"));
        assert!(whole.wants("demo.T", "adds(int)[3]"));
        assert!(!whole.wants("demo.T", "addsMore"));
        assert!(!whole.wants("demo.U", "adds"));
        let one = TestId::parse("demo.T#adds(int)[2]").unwrap();
        assert_eq!(one.method_base(), Some("adds"));
        assert!(one.wants("demo.T", "adds(int)[2]"));
        assert!(!one.wants("demo.T", "adds(int)[3]"));
        let display = TestId::parse("demo.T#[1] 1").unwrap();
        assert_eq!(display.method_base(), None);
        let class = TestId::parse("src/test/java/demo/T.java").unwrap();
        assert!(class.wants("demo.T", "anything"));
    }

    #[test]
    fn detection_prefers_the_wrapped_tool() {
        let d = tempfile::tempdir().unwrap();
        assert!(tool_of(d.path()).is_none());
        std::fs::write(d.path().join("pom.xml"), "<project/>").unwrap();
        assert_eq!(tool_of(d.path()), Some(Tool::Maven));
        std::fs::write(d.path().join("build.gradle"), "").unwrap();
        assert_eq!(tool_of(d.path()), Some(Tool::Maven));
        std::fs::write(d.path().join("gradlew"), "").unwrap();
        assert_eq!(tool_of(d.path()), Some(Tool::Gradle));
        std::fs::remove_file(d.path().join("pom.xml")).unwrap();
        std::fs::remove_file(d.path().join("build.gradle")).unwrap();
        std::fs::write(d.path().join("settings.gradle.kts"), "").unwrap();
        assert_eq!(tool_of(d.path()), Some(Tool::Gradle));
        assert_eq!(detect(d.path())[0].name(), "gradle");
    }

    #[test]
    fn crash_output_names_classes_and_code() {
        let out = "[ERROR] The forked VM terminated without properly saying goodbye. VM crash or System.exit called?\n[ERROR] Command was /bin/sh -c cd '/ws' && java -jar x.jar\n[ERROR] Process Exit Code: 3\n[ERROR] Crashed tests:\n[ERROR] demo.ExitTest\n[ERROR] org.apache.maven.surefire.booter.SurefireBooterForkException: The forked VM terminated\n[ERROR] Crashed tests:\n[ERROR] demo.ExitTest\n[ERROR] \tat org.apache.maven.plugin.surefire.booterclient.ForkStarter.fork(ForkStarter.java:643)\n";
        assert!(fork_crashed(out));
        assert_eq!(fork_exit_code(out), Some(3));
        assert_eq!(crashed_classes(out), ["demo.ExitTest"]);
        let tail = output_tail(&PathMap::new(Path::new("/ws")), out).unwrap();
        assert!(!tail.contains("ForkStarter"), "{tail}");
        assert!(!tail.contains("Command was"), "{tail}");
        assert!(tail.contains("Process Exit Code: 3"), "{tail}");
    }

    #[test]
    fn debian_gradle_jvm_probe_is_not_in_tails() {
        // Debian's Gradle 4.4.1 script, a build script that does not compile.
        let out = "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\nOpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nA problem occurred evaluating root project 'x'.\n";
        let tail = output_tail(&PathMap::new(Path::new("/ws")), out).unwrap();
        assert!(
            !tail.contains("openjdk") && !tail.contains("OpenJDK"),
            "{tail}"
        );
        assert!(tail.contains("A problem occurred evaluating"), "{tail}");
    }

    #[test]
    fn compile_failures_are_told_from_test_failures() {
        assert!(compile_failed("[ERROR] COMPILATION ERROR : \n"));
        assert!(compile_failed(
            "* What went wrong:\nExecution failed for task ':app:compileTestJava'.\n"
        ));
        assert!(!compile_failed(
            "> Task :compileJava\n* What went wrong:\nExecution failed for task ':test'.\n"
        ));
        assert!(java_missing(
            "Error: JAVA_HOME is not set and no 'java' command could be found in your PATH."
        ));
    }

    proptest::proptest! {
        #[test]
        fn id_and_output_helpers_never_panic(s in "(?s).{0,300}") {
            let _ = TestId::parse(&s).map(|t| (t.method_base().map(str::to_owned), t.wants("a.B", &s)));
            let _ = class_of_path(&s);
            let _ = crashed_classes(&s);
            let _ = fork_exit_code(&s);
            let _ = output_tail(&PathMap::new(Path::new("/ws")), &s);
        }
    }
}
