//! Which build tool runs a JVM project, and whether it started. A project may offer several
//! (a Gradle wrapper beside a `pom.xml`, a Maven wrapper beside Maven on PATH); a tool that
//! cannot start here — not installed, a wrapper that cannot download its distribution or lacks
//! its jar, a JDK it does not support — is the tool's failure, not the project's: pith tries
//! the next one, and only when none starts is the answer `RunnerMissing`, naming what failed.
//! A tool that started and then failed the build (a compile error, a dependency that does not
//! resolve) is the project's answer, never a reason to try another.
//!
//! The order: the preferred tool's wrapper, then the other tool when the project has its build
//! file (Maven before an unpinned Gradle: the wrapper pins the project's Gradle version and a
//! Gradle from PATH is a guess, while the `pom.xml` pins its plugins), then the preferred tool
//! from PATH.
//!
//! One launch is tried by [`Jvm::attempt`]: the tool runs, and what it left is judged unless it
//! never started.

use std::path::{Path, PathBuf};

use pith_model::Run;

use super::command::{Invocation, TestId};
use super::detect::has_build_file;
use super::judge::{java_missing, judge, output_of, output_tail};
use super::parse::{collect, reported_classes, snapshot};
use super::{gradle, listener, maven, surefire, Jvm, Tool, JAVA_HINT};
use crate::{process, text, verdict, Context, RunnerError};

/// One way to run the project's tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launch {
    pub tool: Tool,
    /// The program to start; `None` when the tool is not installed (on PATH).
    pub program: Option<PathBuf>,
    /// The project's own wrapper script (`./gradlew`, `./mvnw`).
    pub wrapper: bool,
}

impl Launch {
    /// How the answer names it: `./gradlew`, `mvn`.
    pub fn label(&self) -> String {
        match (self.wrapper, self.tool) {
            (true, Tool::Maven) => "./mvnw".to_owned(),
            (true, Tool::Gradle) => "./gradlew".to_owned(),
            (false, Tool::Maven) => "mvn".to_owned(),
            (false, Tool::Gradle) => "gradle".to_owned(),
        }
    }
}

const fn names(tool: Tool) -> (&'static str, &'static str) {
    match tool {
        Tool::Maven => ("mvnw", "mvn"),
        Tool::Gradle => ("gradlew", "gradle"),
    }
}

/// The wrapper of `tool` in `dir`, when the project has one. A wrapper that is not executable
/// (checked out without its mode bit) is left out: the tool on PATH runs instead.
fn wrapper(dir: &Path, tool: Tool) -> Option<Launch> {
    let w = dir.join(names(tool).0);
    crate::is_executable(&w).then_some(Launch {
        tool,
        program: Some(w),
        wrapper: true,
    })
}

fn installed(tool: Tool, on_path: &dyn Fn(&str) -> Option<PathBuf>) -> Launch {
    Launch {
        tool,
        program: on_path(names(tool).1),
        wrapper: false,
    }
}

/// Every way to run the project in `dir` whose preferred tool is `preferred`, in the order they
/// are tried (see the module's doc). `on_path` finds a program on PATH.
pub(crate) fn launches(
    dir: &Path,
    preferred: Tool,
    on_path: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<Launch> {
    let other = match preferred {
        Tool::Maven => Tool::Gradle,
        Tool::Gradle => Tool::Maven,
    };
    let has = |tool: Tool| has_build_file(dir, tool);
    let mut out: Vec<Launch> = Vec::new();
    out.extend(wrapper(dir, preferred));
    let preferred_installed = installed(preferred, on_path);
    match preferred {
        // Maven from PATH runs any pom: it comes right after the wrapper.
        Tool::Maven => out.push(preferred_installed.clone()),
        Tool::Gradle => {}
    }
    if has(other) {
        out.extend(wrapper(dir, other));
        out.push(installed(other, on_path));
    }
    if preferred == Tool::Gradle {
        out.push(preferred_installed);
    }
    out
}

/// Why a tool that ran never got to the project (one line), or `None` when it did, whatever
/// became of the build. `output` is its stdout and stderr, `wrote` whether it wrote any test
/// report. Only a failed exit with no report can be a failure to start, and only with the
/// words a wrapper, a launcher or a JVM too old or too new for the tool print.
pub(crate) fn not_started(
    launch: &Launch,
    code: Option<i32>,
    output: &str,
    wrote: bool,
) -> Option<String> {
    if wrote || matches!(code, None | Some(0)) {
        return None;
    }
    if java_missing(output) {
        return Some("no Java runtime found (JAVA_HOME, java on PATH)".to_owned());
    }
    let lines: Vec<String> = output
        .lines()
        .map(|l| text::strip_ansi(l).trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    if let Some(why) = wrapper_failed(launch, &lines).or_else(|| wrong_jdk(&lines)) {
        return Some(why);
    }
    // The script itself could not run what it needs (`sh: 1: java: not found`, a missing
    // interpreter): a shell's "not found" exit codes.
    if matches!(code, Some(126 | 127)) {
        let why = lines.last().cloned().unwrap_or_default();
        return Some(format!("exited {} ({})", code.unwrap_or(0), cut(&why)));
    }
    None
}

/// Why the project's wrapper could not start its tool, from its output's non-empty `lines`:
/// its jar is missing, its own exception (a download that failed), the script-only Maven
/// wrapper's one line.
fn wrapper_failed(launch: &Launch, lines: &[String]) -> Option<String> {
    let has = |needle: &str| lines.iter().any(|l| l.contains(needle));
    // A wrapper jar that is not there: the JVM cannot find the wrapper's main class.
    for main in [
        "org.gradle.wrapper.GradleWrapperMain",
        "org.apache.maven.wrapper.MavenWrapperMain",
    ] {
        if lines
            .iter()
            .any(|l| l.contains("Could not find or load main class") && l.contains(main))
        {
            let jar = if main.contains("gradle") {
                "gradle/wrapper/gradle-wrapper.jar"
            } else {
                ".mvn/wrapper/maven-wrapper.jar"
            };
            return Some(format!("its wrapper jar ({jar}) is missing"));
        }
    }
    // The wrapper's own exception (a download that failed, properties it cannot read): its
    // frames are the wrapper's, not Gradle's or Maven's.
    let wrapper_frames = has("at org.gradle.wrapper.") || has("at org.apache.maven.wrapper.");
    let exception = lines
        .iter()
        .find_map(|l| l.strip_prefix("Exception in thread \"main\" "))
        .map(short_exception);
    let downloading = lines
        .iter()
        .find_map(|l| l.strip_prefix("Downloading "))
        .map(|u| u.trim().to_owned());
    if wrapper_frames || (launch.wrapper && exception.is_some()) {
        let what = exception.unwrap_or_else(|| "the wrapper failed".to_owned());
        return Some(match downloading {
            Some(url) => format!("{what} while downloading {url}"),
            None => what,
        });
    }
    // The script-only Maven wrapper (3.3) says why in one line of its own.
    if !(launch.wrapper && launch.tool == Tool::Maven) {
        return None;
    }
    [
        "Failed to fetch",
        "mvnw cannot run",
        "cannot read distributionUrl",
        "distributionUrl is not valid",
        "Failed to validate Maven distribution",
        "failed to unzip",
        "failed to untar",
        "cannot exec ",
    ]
    .iter()
    .find_map(|needle| line_with(lines, needle))
}

/// A JDK the tool does not run on, from its output's non-empty `lines`: Gradle's Groovy
/// cannot read the JDK's classes, Gradle or Maven says which Java it needs, or its own classes
/// are newer than the JVM.
fn wrong_jdk(lines: &[String]) -> Option<String> {
    let said = [
        "Unsupported class file major version",
        "Could not initialize class org.codehaus.groovy.vmplugin",
        "Gradle requires JVM",
        "requires Java",
        "Unsupported Java",
    ]
    .iter()
    .find_map(|needle| line_with(lines, needle))
    .or_else(|| {
        lines
            .iter()
            .find(|l| {
                l.contains("has been compiled by a more recent version of the Java Runtime")
                    && (l.contains("org/gradle/")
                        || l.contains("org/apache/maven/")
                        || l.contains("org/codehaus/plexus/"))
            })
            .cloned()
    })?;
    Some(format!("does not run on this JDK: {}", cut(&said)))
}

/// The first of `lines` that holds `needle`.
fn line_with(lines: &[String], needle: &str) -> Option<String> {
    lines.iter().find(|l| l.contains(needle)).cloned()
}

/// What every launch of one run shares.
pub(super) struct Session<'a, 'c> {
    pub(super) ctx: &'a Context<'c>,
    /// pith's JUnit Platform listener, when it could be installed.
    pub(super) listener: Option<PathBuf>,
    /// Where the listener writes its events.
    pub(super) events: PathBuf,
    pub(super) scratch: PathBuf,
    pub(super) selection: &'a [TestId],
    /// Some tests were asked for (else all run).
    pub(super) requested: bool,
}

/// What became of one launch.
pub(super) enum Attempt {
    /// The tool ran the project: its run, judged.
    Ran(Run),
    /// The answer, whatever the other tools would do (no Java runtime).
    Answer(Run),
    /// The tool is not installed or could not be started: the line that says so.
    Failed(String),
    /// The tool started but never got to the project: the line that says why, and its
    /// output's tail.
    NotStarted(String, Option<String>),
    /// The tool ran a test plugin pith does not read (a Surefire outside its range): the
    /// line that says which, and the range.
    Unsupported(String),
}

impl Jvm {
    /// Runs the project's tests with one launch and judges what it left.
    pub(super) fn attempt(&self, s: &Session<'_, '_>, l: &Launch) -> Result<Attempt, RunnerError> {
        let Some(program) = l.program.as_deref() else {
            return Ok(Attempt::Failed(format!("{} is not installed", l.label())));
        };
        let _ = std::fs::remove_file(&s.events);
        let before = snapshot(&self.dir, l.tool);
        let inv = Invocation {
            program,
            dir: &self.dir,
            scratch: &s.scratch,
            listener: s.listener.as_deref(),
            events: &s.events,
            selection: s.selection,
        };
        let cmd = match l.tool {
            Tool::Maven => maven::command(&inv),
            Tool::Gradle => gradle::command(&inv)
                .map_err(|e| RunnerError::io(format!("writing {}", s.scratch.display()), e))?,
        };
        let cap = match process::run(cmd, s.ctx.deadline, s.ctx.cancel) {
            Ok(c) => c,
            Err(e) => {
                let why = format!("{} could not be started ({e})", l.label());
                return Ok(Attempt::Failed(why));
            }
        };
        let reports = collect(&self.dir, l.tool, &before);
        let output = output_of(&cap);
        if cap.end.code().is_some_and(|c| c != 0) && reports.is_empty() && java_missing(&output) {
            // No tool starts without a JVM: trying the next one would say nothing more.
            let run = verdict::runner_missing(l.tool.name(), JAVA_HINT.to_owned());
            return Ok(Attempt::Answer(run));
        }
        if let Some(why) = not_started(l, cap.end.code(), &output, !reports.is_empty()) {
            let tail = output_tail(s.ctx.paths, &output);
            return Ok(Attempt::NotStarted(format!("{}: {why}", l.label()), tail));
        }
        // Whatever its reports say, pith does not vouch for reading them (see `surefire`).
        if l.tool == Tool::Maven {
            if let Some(why) = surefire::outside(&cap.stdout_str()) {
                return Ok(Attempt::Unsupported(why));
            }
        }
        // The listener's events matter only for classes no report accounts for (their JVM
        // died or was killed): only theirs are kept.
        let reported = reported_classes(&reports);
        let events = listener::read(&s.events, &|class| !reported.contains(class));
        let requested = s.requested.then_some(s.selection);
        let mut run = judge(s.ctx, l.tool, &cap, &output, &reports, &events, requested);
        run.duration = cap.elapsed;
        run.printed = cap.printed();
        Ok(Attempt::Ran(run))
    }
}

/// `java.net.UnknownHostException: services.gradle.org` → `UnknownHostException:
/// services.gradle.org`.
fn short_exception(line: &str) -> String {
    let line = line.trim();
    let (class, rest) = match line.split_once(':') {
        Some((c, r)) => (c, Some(r.trim())),
        None => (line, None),
    };
    let simple = class.rsplit('.').next().unwrap_or(class);
    match rest {
        Some(r) if !r.is_empty() => cut(&format!("{simple}: {r}")),
        _ => simple.to_owned(),
    }
}

fn cut(s: &str) -> String {
    const MAX: usize = 160;
    if s.len() <= MAX {
        return s.to_owned();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exe(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn labels(v: &[Launch]) -> Vec<String> {
        v.iter()
            .map(|l| match &l.program {
                Some(_) => l.label(),
                None => format!("{} (missing)", l.label()),
            })
            .collect()
    }

    #[test]
    fn the_wrapper_first_then_the_other_build_then_the_unpinned_tool() {
        let d = tempfile::tempdir().unwrap();
        let all = |n: &str| Some(PathBuf::from(format!("/usr/bin/{n}")));
        let none = |_: &str| None;
        std::fs::write(d.path().join("pom.xml"), "<project/>").unwrap();
        std::fs::write(d.path().join("build.gradle"), "").unwrap();
        exe(&d.path().join("gradlew"));
        assert_eq!(
            labels(&launches(d.path(), Tool::Gradle, &all)),
            ["./gradlew", "mvn", "gradle"]
        );
        assert_eq!(
            labels(&launches(d.path(), Tool::Gradle, &none)),
            ["./gradlew", "mvn (missing)", "gradle (missing)"]
        );
        exe(&d.path().join("mvnw"));
        assert_eq!(
            labels(&launches(d.path(), Tool::Maven, &all)),
            ["./mvnw", "mvn", "./gradlew", "gradle"]
        );
        std::fs::remove_file(d.path().join("build.gradle")).unwrap();
        assert_eq!(
            labels(&launches(d.path(), Tool::Maven, &all)),
            ["./mvnw", "mvn"]
        );
        // A wrapper without its mode bit is not run.
        let g = tempfile::tempdir().unwrap();
        std::fs::write(g.path().join("settings.gradle"), "").unwrap();
        std::fs::write(g.path().join("gradlew"), "#!/bin/sh\n").unwrap();
        assert_eq!(labels(&launches(g.path(), Tool::Gradle, &all)), ["gradle"]);
    }

    fn wrapper_launch(tool: Tool) -> Launch {
        Launch {
            tool,
            program: Some(PathBuf::from("/ws/gradlew")),
            wrapper: true,
        }
    }

    #[test]
    fn a_wrapper_that_cannot_download_did_not_start() {
        // What Gradle's wrapper prints here (services.gradle.org does not resolve).
        let out = "Downloading https://services.gradle.org/distributions/gradle-4.4.1-bin.zip\n\nException in thread \"main\" java.net.UnknownHostException: services.gradle.org\n\tat java.base/sun.nio.ch.NioSocketImpl.connect(NioSocketImpl.java:572)\n\tat org.gradle.wrapper.Download.downloadInternal(Download.java:66)\n\tat org.gradle.wrapper.WrapperExecutor.execute(WrapperExecutor.java:107)\n\tat org.gradle.wrapper.GradleWrapperMain.main(GradleWrapperMain.java:61)\n";
        let g = wrapper_launch(Tool::Gradle);
        assert_eq!(
            not_started(&g, Some(1), out, false).as_deref(),
            Some("UnknownHostException: services.gradle.org while downloading https://services.gradle.org/distributions/gradle-4.4.1-bin.zip")
        );
        // Reports written, or a clean exit: it ran.
        assert_eq!(not_started(&g, Some(1), out, true), None);
        assert_eq!(not_started(&g, Some(0), out, false), None);
        assert_eq!(not_started(&g, None, out, false), None);
        assert_eq!(
            not_started(&g, Some(1), "Error: Could not find or load main class org.gradle.wrapper.GradleWrapperMain\nCaused by: java.lang.ClassNotFoundException: org.gradle.wrapper.GradleWrapperMain\n", false).as_deref(),
            Some("its wrapper jar (gradle/wrapper/gradle-wrapper.jar) is missing")
        );
        let m = wrapper_launch(Tool::Maven);
        assert_eq!(
            not_started(&m, Some(1), "wget: Failed to fetch https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/3.9.9/apache-maven-3.9.9-bin.zip\n", false).as_deref(),
            Some("wget: Failed to fetch https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/3.9.9/apache-maven-3.9.9-bin.zip")
        );
    }

    #[test]
    fn a_jdk_the_tool_does_not_support_did_not_start() {
        let g = Launch {
            tool: Tool::Gradle,
            program: Some(PathBuf::from("/usr/bin/gradle")),
            wrapper: false,
        };
        let out = "FAILURE: Build failed with an exception.\n\n* What went wrong:\nCould not open cp_settings generic class cache for settings file '/ws/settings.gradle' (/root/.gradle/caches/6.8.1/scripts/x).\n> BUG! exception in phase 'semantic analysis' in source unit '_BuildScript_' Unsupported class file major version 61\n";
        let why = not_started(&g, Some(1), out, false).unwrap();
        assert!(why.starts_with("does not run on this JDK: > BUG!"), "{why}");
        assert!(why.contains("major version 61"), "{why}");
        assert!(not_started(&g, Some(1), "Gradle requires JVM 17 or later to run. Your build is currently configured to use JVM 11.\n", false).is_some());
    }

    #[test]
    fn a_failed_build_is_the_projects() {
        let mvn = Launch {
            tool: Tool::Maven,
            program: Some(PathBuf::from("/usr/bin/mvn")),
            wrapper: false,
        };
        for out in [
            "[ERROR] COMPILATION ERROR : \n[ERROR] /ws/src/main/java/demo/Calc.java:[5,16] cannot find symbol\n",
            "[ERROR] Failed to execute goal on project x: Could not resolve dependencies for project demo:x:jar:1.0: Could not find artifact junit:nope:jar:9 in central\n",
            "[ERROR] Non-resolvable parent POM for demo:x:1.0\n",
        ] {
            assert_eq!(not_started(&mvn, Some(1), out, false), None, "{out}");
        }
        let g = wrapper_launch(Tool::Gradle);
        assert_eq!(
            not_started(&g, Some(1), "FAILURE: Build failed with an exception.\n* What went wrong:\nA problem occurred evaluating root project 'x'.\n", false),
            None
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}", code in proptest::option::of(-3i32..200)) {
            let _ = not_started(&wrapper_launch(Tool::Maven), code, &s, false);
            let _ = short_exception(&s);
        }
    }
}
