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
mod command;
mod detect;
mod gradle;
mod judge;
mod launch;
pub mod listener;
mod maven;
mod parse;
pub mod stack;
mod summary;
mod surefire;
mod test_set;
mod trace;

use std::path::{Path, PathBuf};

use pith_model::Run;

use crate::verdict;
use crate::{text, Adapter, Context, RunnerError};

use command::absolute;
use launch::{Attempt, Session};

pub use command::class_of_path;
pub(crate) use command::Invocation;
pub use command::TestId;
pub use detect::detect;
pub use parse::{parse_report, parse_report_from};

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

    /// A test class's source path is its own id (the class it declares by convention). Only
    /// classes the build runs: for Maven, those its module's Surefire `includes` and
    /// `excludes` let through (see `test_set`); else Surefire's and Gradle's defaults
    /// (`Test*`, `*Test`, `*Tests`, `*TestCase`). A helper class matches no test, and the
    /// classes using it are selected with it.
    fn ids_for_files(&self, project: Option<&str>, files: &[String]) -> Option<Vec<String>> {
        let by_name = |f: &str| {
            command::class_of_path(f).is_some_and(|c| {
                let name = c.rsplit('.').next().unwrap_or(&c);
                name.starts_with("Test")
                    || name.ends_with("Test")
                    || name.ends_with("Tests")
                    || name.ends_with("TestCase")
            })
        };
        // The workspace root: the project's directory less its relative path.
        let depth = project.map_or(0, |r| r.split('/').filter(|s| !s.is_empty()).count());
        let root = self.dir.ancestors().nth(depth).unwrap_or(&self.dir);
        let mut sets: std::collections::HashMap<PathBuf, test_set::TestSet> = Default::default();
        let mut runs = |f: &str| {
            if self.tool != Tool::Maven || command::class_of_path(f).is_none() {
                return by_name(f);
            }
            let file = root.join(f);
            let module = file
                .ancestors()
                .skip(1)
                .take_while(|d| d.starts_with(&self.dir))
                .find(|d| d.join("pom.xml").is_file());
            let Some(module) = module else {
                return by_name(f);
            };
            let set = sets
                .entry(module.to_path_buf())
                .or_insert_with(|| test_set::TestSet::of(root, module));
            let rel = file
                .strip_prefix(module)
                .map(|p| p.to_string_lossy().replace('\\', "/"));
            match rel.ok().and_then(|r| set.runs(&r)) {
                Some(runs) => runs,
                None => by_name(f),
            }
        };
        Some(files.iter().filter(|f| runs(f)).cloned().collect())
    }

    /// The classes [`Adapter::ids_for_files`] would run: a class's path is its id.
    fn test_files(
        &self,
        _root: &Path,
        project: Option<&str>,
        files: &[String],
    ) -> Option<Vec<String>> {
        self.ids_for_files(project, files)
    }

    /// The tests pith's JUnit listener saw finish (its `F` lines), as it writes them.
    fn progress(&self, scratch: &Path) -> Option<crate::Counter> {
        let events = absolute(scratch).join("junit-events.txt");
        Some(Box::new(move || {
            std::fs::read(&events).map_or(0, |b| {
                b.split(|&c| c == b'\n')
                    .filter(|l| l.starts_with(b"F\t"))
                    .count() as u64
            })
        }))
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
        let scratch = absolute(ctx.scratch);
        let session = Session {
            ctx,
            listener: listener::install(ctx.cache, ctx.scratch, ctx.deadline),
            events: scratch.join("junit-events.txt"),
            scratch,
            selection: &selection,
            requested: !tests.is_empty(),
        };
        // The tools that did not start, each with why, and the last one's output.
        let mut failed: Vec<String> = Vec::new();
        let mut failed_tail: Option<String> = None;
        // A tool that ran a test plugin pith does not read: why, when nothing else ran.
        let mut unsupported: Option<String> = None;
        for l in &launches {
            let mut run = match self.attempt(&session, l)? {
                Attempt::Answer(run) => return Ok(run),
                Attempt::Failed(why) => {
                    failed.push(why);
                    continue;
                }
                Attempt::NotStarted(why, tail) => {
                    failed.push(why);
                    failed_tail = tail;
                    continue;
                }
                Attempt::Unsupported(why) => {
                    failed.push(format!("{}: {why}", l.label()));
                    unsupported.get_or_insert(why);
                    continue;
                }
                Attempt::Ran(run) => run,
            };
            not_found.append(&mut run.not_found);
            run.not_found = not_found;
            if !failed.is_empty() && !run.status().is_green() {
                run.hint = Some(text::first_line(&format!(
                    "{} ran because {}",
                    l.label(),
                    failed.join("; ")
                )));
            }
            return Ok(run);
        }
        // Nothing could start: the tools' failure, not the project's. A tool that ran a
        // version pith does not read says so alone when it is the only reason.
        let hint = match unsupported {
            Some(why) if failed.len() == 1 => why,
            _ => text::first_line(&format!("no build tool could start: {}", failed.join("; "))),
        };
        Ok(Run {
            tail: failed_tail,
            ..verdict::runner_missing(self.tool.name(), hint)
        })
    }

    fn can_trace(&self) -> bool {
        matches!(self.tool, Tool::Maven)
    }

    /// Maven through JaCoCo (see `trace`); Gradle: `None`.
    fn trace(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
        files: &[String],
    ) -> Result<Option<pith_model::impact::Traced>, RunnerError> {
        self.trace_tests(ctx, tests, files)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_finished_so_far_are_the_listeners_f_lines() {
        let dir = tempfile::tempdir().unwrap();
        let count = Jvm::new(Tool::Maven, Path::new("/ws"))
            .progress(dir.path())
            .unwrap();
        assert_eq!(count(), 0);
        let events = "S\tdemo.CalcTest\tadds()\nF\tdemo.CalcTest\tadds()\tSUCCESSFUL\nS\tdemo.CalcTest\tsubs()\n";
        std::fs::write(dir.path().join("junit-events.txt"), events).unwrap();
        assert_eq!(count(), 1);
    }

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
}
