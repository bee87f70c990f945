//! Tracing for Maven: which lines of the changed JVM sources the failing tests execute, through
//! JaCoCo from Maven Central. The failing tests (at most [`MAX_TESTS`]) run again in one Maven
//! invocation with JaCoCo's agent in every JVM through `JAVA_TOOL_OPTIONS` (instrumenting only
//! the classes of the changed files, its data written into the scratch directory); JaCoCo's
//! command-line tool then reads the data against the compiled classes of the modules that hold
//! the changed files and writes its XML report, whose `<line nr ci>` entries with covered
//! instructions are the executed lines. The agent's and the tool's jars are fetched once
//! through the project's own Maven (`dependency:copy`) into pith's cache.
//!
//! Why the variable and not the plugin's `prepare-agent`: that goal reaches the test JVMs
//! through Surefire's `argLine` property, which a project that sets `<argLine>` itself (jsoup,
//! for one) drops; every JVM reads the variable. Maven's own JVM reads it too, and loads none
//! of the instrumented classes.
//!
//! One invocation for all tests, because a Maven start costs seconds; yet each test has its own
//! lines: the agent records a whole JVM, so pith's JUnit Platform listener (see `listener`)
//! resets the agent's data when a test starts and keeps it when the test ends, one `.exec` per
//! test. A test the listener could not see (JUnit 4 or TestNG providers) gets the run's lines
//! as a whole. The plugin's `report` goal is not used: it writes into the module's
//! `target/site`, which is the project's.
//!
//! Gradle is not traced (its test JVMs take their environment from a daemon that may predate
//! the run): the static reach stands.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use pith_model::impact::{Lines, Traced};
use quick_xml::events::Event;

use crate::process;
use crate::{Context, RunnerError};

use super::command::{absolute, Invocation, TestId};
use super::launch::{self, Launch};
use super::{listener, maven, Jvm, Tool};

/// Most tests re-run (one Maven invocation for all of them).
pub(super) const MAX_TESTS: usize = 5;

/// The JaCoCo release pith asks Maven for: its plugin and its command-line tool.
pub(super) const JACOCO: &str = "0.8.15";

/// Largest JaCoCo XML report read; past it, the static reach stands.
const MAX_REPORT: u64 = 64 << 20;

/// Where Maven keeps compiled classes and where a module's sources live, by language.
const SOURCE_ROOTS: &[&str] = &["src/main/java/", "src/main/kotlin/"];

/// A changed source file JaCoCo can report on: the workspace-relative name the answer uses, its
/// `package/File.java` key in JaCoCo's report, and its module's compiled classes.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    file: String,
    key: String,
    classes: PathBuf,
}

impl Jvm {
    /// See [`crate::Adapter::trace`]: Maven only, one traced run for all the tests.
    pub(super) fn trace_tests(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
        files: &[String],
    ) -> Result<Option<Traced>, RunnerError> {
        if self.tool != Tool::Maven {
            return Ok(None);
        }
        let targets = targets(ctx.root, &self.dir, files);
        let ids: Vec<TestId> = tests
            .iter()
            .filter_map(|t| TestId::parse(t))
            .take(MAX_TESTS)
            .collect();
        if targets.is_empty() || ids.is_empty() {
            return Ok(None);
        }
        let launches = launch::launches(&self.dir, Tool::Maven, &crate::on_path);
        let Some(launch) = launches
            .iter()
            .find(|l| l.tool == Tool::Maven && l.program.is_some())
        else {
            return Ok(None);
        };
        let fetch = |artifact: &str| fetch_jar(ctx, launch, &self.dir, artifact);
        let (Some(agent), Some(cli), Some(java)) = (
            fetch(&format!("org.jacoco.agent:{JACOCO}:jar:runtime")),
            fetch(&format!("org.jacoco.cli:{JACOCO}:jar:nodeps")),
            listener::jdk_tool("java"),
        ) else {
            return Ok(None);
        };
        let scratch = absolute(ctx.scratch);
        let exec = scratch.join("jacoco.exec");
        let per_test = scratch.join("jacoco-tests");
        let Some(program) = launch.program.as_deref() else {
            return Ok(None);
        };
        if std::fs::create_dir_all(&per_test).is_err() {
            return Ok(None);
        }
        let listener = listener::install(ctx.cache, &scratch, ctx.deadline);
        let inv = Invocation {
            program,
            dir: &self.dir,
            scratch: &scratch,
            listener: listener.as_deref(),
            events: &scratch.join("junit-events.txt"),
            selection: &ids,
        };
        let Some(options) = agent_options(&agent, &exec, &targets) else {
            return Ok(None);
        };
        let mut cmd = maven::command(&inv);
        // This re-run's verdict is never the answer: every traced test runs, whichever module
        // failed first (Maven reads options after the goal too).
        cmd.args(["-fae", "-Dmaven.test.failure.ignore=true"]);
        cmd.env(AGENT_ENV, options)
            .env(listener::JACOCO_ENV, &per_test);
        // The verdict of the re-run is not the answer's; only its execution data counts.
        let _ = process::run(cmd, ctx.deadline, ctx.cancel);
        if !exec.is_file() {
            return Ok(None);
        }
        let report = Report {
            ctx,
            java: &java,
            cli: &cli,
            targets: &targets,
            scratch: &scratch,
        };
        let kept = per_test_data(&per_test);
        let mut whole: Option<Option<Lines>> = None;
        let mut traced = Traced::default();
        for (n, id) in ids.iter().enumerate() {
            let own: Vec<PathBuf> = kept
                .iter()
                .filter(|(class, name, _)| id.wants(class, name))
                .map(|(_, _, exec)| exec.clone())
                .collect();
            let lines = if own.is_empty() {
                // The listener could not keep this test's own data (no listener, another
                // provider than the JUnit Platform): the run's as a whole.
                whole
                    .get_or_insert_with(|| report.lines(std::slice::from_ref(&exec), "all"))
                    .clone()
            } else {
                report.lines(&own, &n.to_string())
            };
            if let Some(lines) = lines {
                traced.tests.insert(id.full.clone(), lines);
            }
        }
        Ok((!traced.tests.is_empty()).then_some(traced))
    }
}

/// What turns execution data into lines: JaCoCo's command-line tool on the changed modules'
/// classes.
struct Report<'a> {
    ctx: &'a Context<'a>,
    java: &'a Path,
    cli: &'a Path,
    targets: &'a [Target],
    scratch: &'a Path,
}

impl Report<'_> {
    /// The lines of the targets `execs` (merged) executed; `None` when JaCoCo could not
    /// report.
    fn lines(&self, execs: &[PathBuf], name: &str) -> Option<Lines> {
        let xml = self.scratch.join(format!("jacoco-{name}.xml"));
        let mut cmd = crate::base_command(self.java, self.scratch);
        cmd.arg("-jar").arg(self.cli).arg("report").args(execs);
        let classes: BTreeSet<&PathBuf> = self.targets.iter().map(|t| &t.classes).collect();
        for dir in classes {
            cmd.arg("--classfiles").arg(dir);
        }
        cmd.arg("--xml").arg(&xml).arg("--quiet");
        let ran = process::run(cmd, self.ctx.deadline, self.ctx.cancel).ok()?;
        let size = std::fs::metadata(&xml).ok()?.len();
        if !ran.success() || size > MAX_REPORT {
            return None;
        }
        let covered = covered_lines(&std::fs::read_to_string(&xml).ok()?);
        let mut lines = Lines::new();
        for t in self.targets {
            if let Some(l) = covered.get(&t.key).filter(|l| !l.is_empty()) {
                lines.insert(t.file.clone(), l.clone());
            }
        }
        Some(lines)
    }
}

/// Each test's own execution data the listener kept: (class, JUnit's legacy reporting name,
/// its `.exec` file), from `tests.txt` in `dir`.
fn per_test_data(dir: &Path) -> Vec<(String, String, PathBuf)> {
    let Ok(text) = std::fs::read_to_string(dir.join("tests.txt")) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, '\t');
            let (file, class, name) = (parts.next()?, parts.next()?, parts.next()?);
            let exec = dir.join(format!("{file}.exec"));
            let plain = !file.is_empty() && !file.contains(['/', '.']);
            (plain && exec.is_file()).then(|| (class.to_owned(), name.to_owned(), exec))
        })
        .collect()
}

/// The changed files of this project (`dir`) under a Maven source root whose module has
/// compiled classes; test sources and other files are not instrumented.
fn targets(root: &Path, dir: &Path, files: &[String]) -> Vec<Target> {
    let mut out = Vec::new();
    for file in files {
        if !(file.ends_with(".java") || file.ends_with(".kt")) || !root.join(file).starts_with(dir)
        {
            continue;
        }
        let found = SOURCE_ROOTS.iter().find_map(|src| {
            let at = if file.starts_with(src) {
                0
            } else {
                file.find(&format!("/{src}"))? + 1
            };
            Some((&file[..at], &file[at + src.len()..]))
        });
        let Some((module, key)) = found else {
            continue;
        };
        let classes = root.join(module).join("target/classes");
        if classes.is_dir() && !key.is_empty() {
            out.push(Target {
                file: file.clone(),
                key: key.to_owned(),
                classes,
            });
        }
    }
    out
}

/// The variable every JVM reads its options from; the caller's own options stay, first.
const AGENT_ENV: &str = "JAVA_TOOL_OPTIONS";

/// `JAVA_TOOL_OPTIONS` with JaCoCo's agent writing to `exec` and instrumenting only the
/// classes of the changed files (and their nested classes, `Name$*`, and Kotlin's `NameKt`);
/// `None` when a path would not survive the variable's splitting on whitespace or the agent's
/// on `,` and `=`.
fn agent_options(agent: &Path, exec: &Path, targets: &[Target]) -> Option<String> {
    let plain = |p: &Path| {
        let s = p.to_str()?;
        (!s.contains(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '"'))
            .then(|| s.to_owned())
    };
    let classes: BTreeSet<String> = targets
        .iter()
        .map(|t| {
            let stem = t.key.rsplit_once('.').map_or(t.key.as_str(), |(s, _)| s);
            format!("{}*", stem.replace('/', "."))
        })
        .collect();
    let own = format!(
        "-javaagent:{}=destfile={},append=true,dumponexit=true,includes={}",
        plain(agent)?,
        plain(exec)?,
        classes.into_iter().collect::<Vec<_>>().join(":")
    );
    Some(match std::env::var(AGENT_ENV) {
        Ok(theirs) if !theirs.trim().is_empty() => format!("{theirs} {own}"),
        _ => own,
    })
}

/// A JaCoCo jar (`org.jacoco.<artifact>`, `name:version:type:classifier`) in pith's cache,
/// fetched through the project's Maven the first time (`dependency:copy` from the
/// repositories Maven is configured with); `None` when it cannot be had (offline, no
/// repository serves it).
fn fetch_jar(ctx: &Context<'_>, launch: &Launch, dir: &Path, artifact: &str) -> Option<PathBuf> {
    let mut parts = artifact.split(':');
    let (name, version, kind, classifier) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let file = format!("{name}-{version}-{classifier}.{kind}");
    let home = ctx.cache.join("jvm").join(format!("jacoco-{JACOCO}"));
    let jar = home.join(&file);
    if jar.is_file() {
        return Some(jar);
    }
    let stage = absolute(ctx.scratch).join("jacoco-jars");
    let mut cmd = crate::base_command(launch.program.as_deref()?, dir);
    cmd.args(["-B", "-q", "-Dstyle.color=never", "dependency:copy"])
        .arg(format!("-Dartifact=org.jacoco:{artifact}"))
        .arg(format!("-DoutputDirectory={}", stage.display()))
        .arg("-Dmdep.stripVersion=false")
        .env_remove("MAVEN_ARGS");
    let fetched = process::run(cmd, ctx.deadline, ctx.cancel).is_ok_and(|c| c.success());
    if !fetched || !stage.join(&file).is_file() {
        return None;
    }
    std::fs::create_dir_all(&home).ok()?;
    // Another run may have won the race: its copy is as good as ours.
    if std::fs::rename(stage.join(&file), &jar).is_err() && !jar.is_file() {
        return None;
    }
    Some(jar)
}

/// JaCoCo's XML report as `package/File.java` → the lines with covered instructions
/// (`<package name>` / `<sourcefile name>` / `<line nr ci>`). Malformed XML ends the reading
/// where it breaks: what was read stands.
fn covered_lines(xml: &str) -> HashMap<String, BTreeSet<u32>> {
    let mut out: HashMap<String, BTreeSet<u32>> = HashMap::new();
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut package = String::new();
    let mut source: Option<String> = None;
    loop {
        let (e, empty) = match reader.read_event() {
            Ok(Event::Start(e)) => (e, false),
            Ok(Event::Empty(e)) => (e, true),
            Ok(Event::End(e)) => {
                if e.local_name().as_ref() == "sourcefile" {
                    source = None;
                }
                continue;
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => continue,
        };
        let attr = |key: &str| {
            e.try_get_attribute(key).ok().flatten().and_then(|a| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(|v| v.into_owned())
            })
        };
        match e.local_name().as_ref() {
            "package" if !empty => package = attr("name").unwrap_or_default(),
            "sourcefile" if !empty => {
                source = attr("name").map(|n| match package.as_str() {
                    "" => n,
                    p => format!("{p}/{n}"),
                });
            }
            "line" => {
                let (Some(key), Some(nr)) = (&source, attr("nr").and_then(|n| n.parse().ok()))
                else {
                    continue;
                };
                let ran = attr("ci").and_then(|c| c.parse::<u64>().ok()) > Some(0);
                let lines = out.entry(key.clone()).or_default();
                if ran {
                    lines.insert(nr);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="JaCoCo Coverage Report"><sessioninfo id="vm-1" start="1" dump="2"/><package name="shop"><class name="shop/Cart" sourcefilename="Cart.java"><method name="total" desc="([D)J" line="10"><counter type="LINE" missed="0" covered="1"/></method></class><sourcefile name="Cart.java"><line nr="10" mi="0" ci="8" mb="0" cb="0"/><line nr="14" mi="6" ci="0" mb="0" cb="0"/><counter type="LINE" missed="1" covered="1"/></sourcefile><sourcefile name="Stock.java"><line nr="11" mi="4" ci="0" mb="0" cb="0"/></sourcefile></package><package name=""><sourcefile name="Top.java"><line nr="3" mi="0" ci="1" mb="0" cb="0"/></sourcefile></package></report>"#;

    #[test]
    fn covered_lines_are_the_lines_with_covered_instructions() {
        let c = covered_lines(REPORT);
        assert_eq!(c["shop/Cart.java"], BTreeSet::from([10]));
        assert!(c["shop/Stock.java"].is_empty());
        assert_eq!(c["Top.java"], BTreeSet::from([3]));
    }

    #[test]
    fn a_malformed_report_keeps_what_was_read_and_never_panics() {
        let cut = &REPORT[..REPORT.find("<sourcefile name=\"Stock").unwrap() + 10];
        assert_eq!(covered_lines(cut)["shop/Cart.java"], BTreeSet::from([10]));
        for junk in [
            "",
            "<line nr=\"3\" ci=\"1\"/>",
            "<package><sourcefile name=\"A.java\"><line nr=\"x\" ci=\"-1\"/>",
            "<<<>>>&&;",
            "<sourcefile name=\"&bogus;\"><line nr=\"4294967296\" ci=\"1\"/></sourcefile>",
        ] {
            let c = covered_lines(junk);
            assert!(c.values().all(|l| l.is_empty()), "{junk}: {c:?}");
        }
    }

    #[test]
    fn per_test_data_is_the_listeners_index_of_files_that_exist() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("tests.txt"),
            "a-0\tshop.CartTest\ttotal()\na-1\tshop.CartTest\tgone()\n../x\tshop.X\ty()\nbroken\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("a-0.exec"), b"x").unwrap();
        std::fs::write(dir.path().join("x.exec"), b"x").unwrap();
        assert_eq!(
            per_test_data(dir.path()),
            [(
                "shop.CartTest".to_owned(),
                "total()".to_owned(),
                dir.path().join("a-0.exec")
            )]
        );
        assert!(per_test_data(&dir.path().join("none")).is_empty());
    }

    #[test]
    fn agent_options_instrument_only_the_changed_classes() {
        let t = |key: &str| Target {
            file: format!("src/main/java/{key}"),
            key: key.to_owned(),
            classes: PathBuf::from("/ws/target/classes"),
        };
        let targets = [t("shop/Cart.java"), t("shop/api/Route.kt"), t("Top.java")];
        let agent = Path::new("/cache/jvm/jacoco-0.8.15/org.jacoco.agent-0.8.15-runtime.jar");
        let o = agent_options(agent, Path::new("/s/jacoco.exec"), &targets).unwrap();
        assert!(o.ends_with(
            "-javaagent:/cache/jvm/jacoco-0.8.15/org.jacoco.agent-0.8.15-runtime.jar=destfile=/s/jacoco.exec,append=true,dumponexit=true,includes=Top*:shop.Cart*:shop.api.Route*"
        ), "{o}");
        for bad in ["/my dir/j.exec", "/a,b/j.exec", "/a=b/j.exec"] {
            assert!(
                agent_options(agent, Path::new(bad), &targets).is_none(),
                "{bad}"
            );
        }
    }

    #[test]
    fn targets_are_main_sources_of_modules_with_classes() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        for d in ["target/classes", "api/target/classes"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let files: Vec<String> = [
            "src/main/java/shop/Cart.java",
            "api/src/main/kotlin/shop/api/Route.kt",
            "src/test/java/shop/CartTest.java",
            "web/src/main/java/shop/web/Page.java",
            "pom.xml",
            "src/main/java/Top.java",
        ]
        .map(String::from)
        .to_vec();
        let t = targets(root, root, &files);
        let got: Vec<(&str, &str)> = t
            .iter()
            .map(|t| (t.file.as_str(), t.key.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("src/main/java/shop/Cart.java", "shop/Cart.java"),
                ("api/src/main/kotlin/shop/api/Route.kt", "shop/api/Route.kt"),
                ("src/main/java/Top.java", "Top.java"),
            ]
        );
        assert_eq!(t[1].classes, root.join("api/target/classes"));
        // Another project's files are not this one's to trace.
        assert!(targets(root, &root.join("api"), &files[..1]).is_empty());
    }
}
