//! `cargo xtask impact`: the benchmark of issue 13's change memory, reach and test selection.
//! Each fixture project (`tests/fixtures/<eco>/impact_shop`) gets each of its injected bugs
//! (`tests/fixtures/impact_bugs.json`) in a fresh copy, once under git and once without, and
//! the bench measures what an agent relies on: `pith select` holds every failing test's file
//! (recall), how much of the suite it selects, where the injected line ranks among a red
//! run's `suspects` — made beside edits that change nothing (`harmless`) and after an earlier
//! bug was made, run red and undone, neither of which may be a suspect — and what `pith test --changed` costs against the full run while failing
//! every test the full run fails. It also times a red full run with `--trace always` against
//! one with `--trace never` (what re-running the failing tests with line tracing costs), and
//! measures the dynamic-import hole: how many test files each fixture's graph marks dynamic
//! (every change selects them) and what they add to every selection. Kept apart from `bench`
//! because its unit is a bug, not a runner's output: the targets are about selection and
//! suspects, not bytes.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use crate::bench;

pub struct Options {
    /// Substrings of `eco/kind` row names to keep; empty keeps all.
    pub filters: Vec<String>,
    pub markdown_out: Option<PathBuf>,
    /// Where the public projects' checkouts are: measure those (`impact_public`) instead of
    /// the fixtures.
    pub public: Option<PathBuf>,
}

/// The bugs, relative to the repository root.
pub const BUGS: &str = "tests/fixtures/impact_bugs.json";
/// The median selection, as a share of the suite's test files, at most.
const SHARE_TARGET: f64 = 0.25;
/// Wrong-result bugs whose injected line is the first suspect, at least.
const TOP1_TARGET: f64 = 0.80;
/// Wrong-result bugs whose injected line is among the first three suspects, at least.
const TOP3_TARGET: f64 = 0.95;
/// A red run with tracing against one without, wall time, at most (median).
const TRACE_TARGET: f64 = 1.3;
/// Pairs of red runs (`--trace never`, `--trace always`) per pass, in alternating order.
const TRACE_PAIRS: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One assertion catches it.
    WrongResult,
    /// A shared helper: many tests fail, each at its own assertion.
    Helper,
    /// Raised a few calls below the tests.
    DeepException,
    /// A compile or import error.
    CompileError,
    /// A build or test-config file.
    Config,
    /// A wrong result in a module that only a test's import by a computed name reaches.
    Dynamic,
}

impl Kind {
    fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "wrongResult" => Kind::WrongResult,
            "helper" => Kind::Helper,
            "deepException" => Kind::DeepException,
            "compileError" => Kind::CompileError,
            "config" => Kind::Config,
            "dynamic" => Kind::Dynamic,
            other => bail!("unknown bug kind {other:?}"),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::WrongResult => "wrongResult",
            Kind::Helper => "helper",
            Kind::DeepException => "deepException",
            Kind::CompileError => "compileError",
            Kind::Config => "config",
            Kind::Dynamic => "dynamic",
        }
    }

    /// A wrong result, as the suspects target counts them: an off-by-one in a library
    /// function, a negated condition in a shared helper (or in a module loaded by name).
    /// Nothing in the runner's output names their line, so the suspects are the only pointer
    /// an agent gets.
    pub fn wrong_result(self) -> bool {
        matches!(self, Kind::WrongResult | Kind::Helper | Kind::Dynamic)
    }
}

pub struct Project {
    pub eco: String,
    /// The fixture's directory under `tests/fixtures`, or a public project's name.
    pub fixture: String,
    /// A public project: where it comes from and how it is set up (else a fixture).
    pub public: Option<crate::impact_public::Public>,
    pub node_modules: bool,
    pub bugs: Vec<Bug>,
    /// Edits that change no test's outcome, made beside each bug outside its file.
    pub harmless: Vec<Edit>,
}

/// One replacement of `old` (there exactly once) by `new` in `file`.
pub struct Edit {
    pub file: String,
    pub old: String,
    pub new: String,
}

pub struct Bug {
    pub kind: Kind,
    pub file: String,
    pub old: String,
    pub new: String,
    /// Test files a build or import failure stops from running, where the runner names no
    /// failing test in them.
    pub blocked: Vec<String>,
}

/// Reads the bug list (`BUGS`).
pub fn load(root: &Path) -> Result<Vec<Project>> {
    let doc = read_list(root, BUGS)?;
    let mut projects = Vec::new();
    for p in doc["projects"]
        .as_array()
        .context("no \"projects\" array")?
    {
        let mut project = project_of(BUGS, p)?;
        project.fixture = str_of(BUGS, p, "fixture")?;
        projects.push(project);
    }
    Ok(projects)
}

/// The JSON list at `rel` under the repository root.
pub(crate) fn read_list(root: &Path, rel: &str) -> Result<Value> {
    let path = root.join(rel);
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {rel}"))
}

/// The string at `key` of `v`, an entry of the list `list`.
pub(crate) fn str_of(list: &str, v: &Value, key: &str) -> Result<String> {
    v[key]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("{list}: a {key:?} string is missing"))
}

/// A project's bugs and harmless edits, as the list `list` gives them.
pub(crate) fn project_of(list: &str, p: &Value) -> Result<Project> {
    let str_of = |v: &Value, key: &str| str_of(list, v, key);
    let mut bugs = Vec::new();
    for b in p["bugs"]
        .as_array()
        .context("a project has no \"bugs\" array")?
    {
        bugs.push(Bug {
            kind: Kind::parse(&str_of(b, "kind")?)?,
            file: str_of(b, "file")?,
            old: str_of(b, "old")?,
            new: str_of(b, "new")?,
            blocked: strings(&b["blocked"]),
        });
    }
    let mut harmless = Vec::new();
    for h in p["harmless"].as_array().into_iter().flatten() {
        harmless.push(Edit {
            file: str_of(h, "file")?,
            old: str_of(h, "old")?,
            new: str_of(h, "new")?,
        });
    }
    Ok(Project {
        harmless,
        eco: str_of(p, "eco")?,
        fixture: String::new(),
        public: None,
        node_modules: p["nodeModules"].as_bool().unwrap_or(false),
        bugs,
    })
}

/// What one pass (with git or without) of one bug measured.
struct Pass {
    /// Test files the full run fails (and the bug's `blocked` ones).
    failing: BTreeSet<String>,
    /// Of `failing`, the ones the selection lacks.
    missed: Vec<String>,
    /// Selected test files, and the suite's.
    selected: usize,
    /// Selected test files for the bug alone, before the harmless edits were made.
    selected_alone: usize,
    suite: usize,
    /// The selection is everything, and why.
    all: Option<String>,
    /// The injected line's place among the suspects, 1-based.
    rank: Option<usize>,
    /// Suspects on a harmless edit's lines, and on the line of the earlier bug undone.
    harmless: usize,
    undone: usize,
    full: Duration,
    changed: Duration,
    /// Failing tests of the full run the `--changed` run did not fail (or, when neither names
    /// a test, the statuses when they differ).
    lost: Vec<String>,
    /// Red full runs with `--trace always` and with `--trace never`, side by side.
    trace: Tracing,
    /// The red run (`--trace auto`, the default) traced: the static reach left a choice.
    auto_traced: bool,
}

/// What tracing a red run costs, from pairs of full runs told `--trace always` and
/// `--trace never`, taken in alternating order so a drift in the machine's load falls on both.
#[derive(Default)]
struct Tracing {
    always: Vec<Duration>,
    never: Vec<Duration>,
    /// The `always` runs answered `reach: traced` (else the runner does not trace, or had
    /// nothing to trace, and the ratio says nothing about tracing).
    traced: bool,
    /// A verdict of an `always` run differed from its `never` run's (tracing must not).
    verdicts: Vec<String>,
}

impl Tracing {
    /// `always` over `never`, total wall time; `None` when nothing was traced.
    fn ratio(&self) -> Option<f64> {
        let sum = |v: &[Duration]| v.iter().map(Duration::as_secs_f64).sum::<f64>();
        (self.traced && !self.never.is_empty())
            .then(|| sum(&self.always) / sum(&self.never).max(1e-3))
    }
}

impl Pass {
    fn share(&self) -> f64 {
        self.share_of(self.selected)
    }

    /// The share of the bug alone's selection.
    fn share_alone(&self) -> f64 {
        self.share_of(self.selected_alone)
    }

    fn share_of(&self, selected: usize) -> f64 {
        if self.suite == 0 {
            1.0
        } else {
            selected as f64 / self.suite as f64
        }
    }
}

struct Row {
    name: String,
    eco: String,
    kind: Kind,
    git: Pass,
    /// The pass without git; none for a public project, which is published in git.
    plain: Option<Pass>,
}

impl Row {
    fn passes(&self) -> Vec<&Pass> {
        std::iter::once(&self.git).chain(&self.plain).collect()
    }
}

pub fn run(opts: &Options) -> Result<()> {
    let root = bench::repo_root();
    let projects = match &opts.public {
        Some(dir) => crate::impact_public::load(&root, dir)?,
        None => load(&root)?,
    };
    let pith = bench::build_pith(&root)?;
    let mut tmp = tempfile::Builder::new().prefix("pith-impact-").tempdir()?;
    // The copies stay for a look afterwards when asked.
    tmp.disable_cleanup(std::env::var_os("XTASK_KEEP").is_some());
    // The Rust fixture's builds stay in the temp area, shared across its copies.
    let target_dir = tmp.path().join("cargo-target");
    eprintln!("impact: working in {}", tmp.path().display());
    let mut rows = Vec::new();
    for p in &projects {
        for bug in &p.bugs {
            let name = match p.public {
                Some(_) => format!("{}/{}", p.fixture, bug.kind.name()),
                None => format!("{}/{}", p.eco, bug.kind.name()),
            };
            if !crate::scenario::selected(&name, &opts.filters) {
                continue;
            }
            let case = Case {
                root: &root,
                pith: &pith,
                project: p,
                bug,
                env: &[("CARGO_TARGET_DIR", &target_dir)],
            };
            let n = rows.len();
            let git = case.measure(&tmp.path().join(format!("{n}-git")), true)?;
            let plain = match p.public {
                Some(_) => None,
                None => Some(case.measure(&tmp.path().join(format!("{n}-plain")), false)?),
            };
            rows.push(Row {
                name,
                eco: p.eco.clone(),
                kind: bug.kind,
                git,
                plain,
            });
        }
    }
    ensure!(!rows.is_empty(), "no bug matches {:?}", opts.filters);
    let mut dynamic = Vec::new();
    for p in projects.iter().filter(|p| p.public.is_none()) {
        if rows.iter().any(|r| r.eco == p.eco) {
            let ws = tmp.path().join(format!("probe-{}", p.eco));
            dynamic.push((p.eco.clone(), probe_dynamic(&root, &pith, p, &ws)?));
        }
    }
    let table = table(&rows);
    print!("{table}");
    if let Some(path) = &opts.markdown_out {
        fs::write(path, &table).with_context(|| format!("writing {}", path.display()))?;
    }
    let misses = summary(&rows, &dynamic);
    if misses > 0 {
        bail!("{misses} impact target(s) missed");
    }
    Ok(())
}

/// One bug in one project, measured in a fresh copy.
struct Case<'a> {
    root: &'a Path,
    pith: &'a Path,
    project: &'a Project,
    bug: &'a Bug,
    env: &'a [(&'a str, &'a Path)],
}

impl Case<'_> {
    /// Copies the fixture to `ws` (committed when `git`), has pith see it green, injects the
    /// bug and measures: `pith select`, `pith test --changed` before any red run (what the
    /// selection fails, while "what failed last time" adds nothing to it), a red full run (its
    /// suspects and failures), `pith test --changed` and the full run again, both timed warm,
    /// then pairs of red full runs with `--trace never` and `--trace always`.
    fn measure(&self, ws: &Path, git: bool) -> Result<Pass> {
        let p = self.project;
        eprintln!(
            "impact: {}/{} ({})",
            p.eco,
            self.bug.kind.name(),
            if git { "git" } else { "no git" }
        );
        if let Some(public) = &p.public {
            public.prepare(ws, self.env)?;
        } else {
            bench::copy_dir(&self.root.join("tests/fixtures").join(&p.fixture), ws)
                .with_context(|| format!("copying {}", p.fixture))?;
            if p.node_modules {
                let modules = self.root.join("tests/fixtures/js/node_modules");
                std::os::unix::fs::symlink(&modules, ws.join("node_modules"))
                    .context("linking node_modules")?;
            }
            if git {
                commit_all(ws)?;
            }
        }
        // Files written within a clock tick of a run's start may have changed after its scan:
        // its generation does not vouch for them, and without git every file of a fresh copy
        // would count as changed since that green run. An agent's files are older.
        std::thread::sleep(Duration::from_millis(50));
        let green = self.pith(ws, &["test"])?;
        ensure!(
            green.json["status"] == "TestsPassed",
            "{} is not green before the bug: {}",
            p.fixture,
            green.line
        );
        // A later mtime than the green run's, whatever the clock's resolution.
        std::thread::sleep(Duration::from_millis(20));
        // Work in progress, as an agent leaves it: an earlier bug made, run red and put right,
        // and edits that change nothing beside the bug.
        let earlier = self.earlier();
        if let Some(e) = earlier {
            let path = ws.join(&e.file);
            let before = fs::read(&path).with_context(|| format!("reading {}", e.file))?;
            inject(ws, e)?;
            self.pith(ws, &["test"])?;
            std::thread::sleep(Duration::from_millis(20));
            fs::write(&path, before).with_context(|| format!("writing {}", e.file))?;
        }
        // The bug alone selects what it selects; the harmless edits beside it add theirs.
        let line = inject(ws, self.bug)?;
        std::thread::sleep(Duration::from_millis(20));
        let alone = self.pith(ws, &["select"])?;
        for h in p.harmless.iter().filter(|h| h.file != self.bug.file) {
            apply(ws, &h.file, &h.old, &h.new)?;
        }
        std::thread::sleep(Duration::from_millis(20));
        let named = |text: &str, file: &str| -> Result<Vec<u32>> {
            let content = fs::read_to_string(ws.join(file))?;
            let at = content.find(text).context("an edit is gone")?;
            let first = content[..at].matches('\n').count() as u32 + 1;
            Ok((first..=first + text.matches('\n').count() as u32).collect())
        };
        let mut harmless_lines = Vec::new();
        for h in p.harmless.iter().filter(|h| h.file != self.bug.file) {
            for l in named(&h.new, &h.file)? {
                harmless_lines.push((h.file.clone(), l));
            }
        }
        let undone_lines: Vec<(String, u32)> = match earlier {
            Some(e) => named(&e.old, &e.file)?
                .into_iter()
                .map(|l| (e.file.clone(), l))
                .collect(),
            None => Vec::new(),
        };
        let select = self.pith(ws, &["select"])?;
        // This run is the selection plus what the earlier bug failed (passing now): what it
        // fails is what the selection holds.
        let selection_run = self.pith(ws, &["test", "--changed"])?;
        let selection_failures = self.failures(ws)?;
        let red = self.pith(ws, &["test"])?;
        ensure!(
            red.json["status"] != "TestsPassed",
            "{}/{}: the bug fails nothing: {}",
            p.eco,
            self.bug.kind.name(),
            red.line
        );
        let red_failures = self.failures(ws)?;
        let changed = self.pith(ws, &["test", "--changed"])?;
        let full = self.pith(ws, &["test"])?;
        let trace = self.tracing(ws, git)?;

        let mut failing: BTreeSet<String> = self.bug.blocked.iter().cloned().collect();
        let tests = test_files(ws);
        for f in &red_failures {
            // A doctest lives in a source file, no test file a selection names: whether the
            // `--changed` run fails it too is `lost`'s to say.
            if is_doctest(ws, &f.id) {
                continue;
            }
            let file = test_file_of(ws, &tests, f)
                .with_context(|| format!("no test file for failure {f:?} ({})", red.line))?;
            failing.insert(file);
        }
        let shown = strings(&select.json["tests"]);
        let more = select.json["moreTests"].as_u64().unwrap_or(0) as usize;
        let all = select.json["all"].as_str().map(str::to_owned);
        let suite = select.json["suite"].as_u64().unwrap_or(0) as usize;
        let selection_ids: BTreeSet<&str> =
            selection_failures.iter().map(|f| f.id.as_str()).collect();
        // A selection longer than `pith select`'s 150 B shows its nearest files and counts the
        // rest. A failing file among the rest is held when the count is the whole suite, or
        // by the `--changed` run before the red one, which runs the whole selection and
        // nothing else: the file's failing tests fail there too, or, for a file a build
        // failure stops, the run fails the same way.
        let whole = all.is_some() || shown.len() + more >= suite;
        let same_status = selection_run.json["status"] == red.json["status"];
        let missed: Vec<String> = failing
            .iter()
            .filter(|f| {
                let held = more > 0
                    && (fails_in(ws, &tests, &selection_failures, f)
                        || (self.bug.blocked.contains(f) && same_status));
                !whole && !shown.contains(f) && !held
            })
            .cloned()
            .collect();
        let mut lost: Vec<String> = red_failures
            .iter()
            .filter(|f| !selection_ids.contains(f.id.as_str()))
            .map(|f| f.id.clone())
            .collect();
        if red_failures.is_empty() && !same_status {
            lost.push(format!(
                "status {} → {}",
                red.json["status"], selection_run.json["status"]
            ));
        }
        for miss in missed.iter().chain(&lost) {
            eprintln!("impact: {}: MISS {miss}: {}", p.eco, select.line);
        }
        let selected_alone = if alone.json["all"].is_string() {
            suite
        } else {
            strings(&alone.json["tests"]).len()
                + alone.json["moreTests"].as_u64().unwrap_or(0) as usize
        };
        Ok(Pass {
            selected_alone,
            selected: if all.is_some() {
                suite
            } else {
                shown.len() + more
            },
            suite,
            all,
            rank: rank(&strings(&red.json["suspects"]), &self.bug.file, line),
            harmless: on_lines(&strings(&red.json["suspects"]), &harmless_lines),
            undone: on_lines(&strings(&red.json["suspects"]), &undone_lines),
            failing,
            missed,
            full: full.wall,
            changed: changed.wall,
            lost,
            trace,
            auto_traced: red.json["reach"] == "traced",
        })
    }

    /// The project's first wrong-result bug in another file than this one's: made, run red and
    /// undone before this bug is made.
    fn earlier(&self) -> Option<&Bug> {
        self.project
            .bugs
            .iter()
            .find(|b| b.kind.wrong_result() && b.file != self.bug.file)
    }

    /// [`TRACE_PAIRS`] pairs of red full runs, `--trace never` and `--trace always`, the
    /// first of each pair alternating (and the other way round in the other pass).
    fn tracing(&self, ws: &Path, git: bool) -> Result<Tracing> {
        let mut t = Tracing {
            traced: true,
            ..Tracing::default()
        };
        for i in 0..TRACE_PAIRS {
            let order = if (i + usize::from(git)) % 2 == 0 {
                ["always", "never"]
            } else {
                ["never", "always"]
            };
            let mut verdicts = Vec::new();
            for when in order {
                let a = self.pith(ws, &["test", "--trace", when])?;
                let verdict = format!(
                    "{} {}/{}",
                    a.json["status"], a.json["passed"], a.json["failed"]
                );
                if when == "always" {
                    t.always.push(a.wall);
                    t.traced &= a.json["reach"] == "traced";
                } else {
                    t.never.push(a.wall);
                }
                verdicts.push(verdict);
            }
            if verdicts[0] != verdicts[1] {
                t.verdicts
                    .push(format!("{} vs {}", verdicts[0], verdicts[1]));
            }
        }
        Ok(t)
    }

    /// `pith ARGS --root WS` in `ws`, its one-line answer parsed.
    fn pith(&self, ws: &Path, args: &[&str]) -> Result<Answered> {
        let mut argv: Vec<std::ffi::OsString> = vec![self.pith.into()];
        argv.extend(args.iter().map(Into::into));
        argv.extend(["--root".into(), ws.into()]);
        let sample = bench::run_once(&argv, ws, self.env)?;
        let line = String::from_utf8_lossy(&sample.stdout).trim().to_owned();
        let json = serde_json::from_str(&line).with_context(|| {
            format!(
                "pith {args:?} answered no JSON: {line:?} (stderr {:?})",
                String::from_utf8_lossy(&sample.stderr)
            )
        })?;
        Ok(Answered {
            json,
            line,
            wall: sample.wall,
        })
    }

    /// Every failure of the last run, through `pith failures`' pages.
    fn failures(&self, ws: &Path) -> Result<Vec<Failed>> {
        let mut out = Vec::new();
        let mut page = 1u64;
        loop {
            let a = self.pith(ws, &["failures", "--stacks", "--page", &page.to_string()])?;
            for f in a.json["failures"].as_array().into_iter().flatten() {
                out.push(Failed {
                    id: f["test"].as_str().unwrap_or_default().to_owned(),
                    frames: strings(&f["frames"]),
                });
            }
            match a.json["nextPage"].as_u64() {
                Some(next) if next > page => page = next,
                _ => return Ok(out),
            }
        }
    }
}

/// The test files a fixture's graph marks dynamic (imports by a name computed at run time),
/// which every change selects; or why the probe could not tell.
struct Dynamic {
    /// How many, and the ones `pith select` names within its budget.
    files: Result<(usize, Vec<String>), String>,
    suite: usize,
}

/// A source file the fixture's graph places and no test imports, per ecosystem: a change to
/// it alone selects exactly the test files marked dynamic.
fn probe_file(eco: &str) -> Option<(&'static str, &'static str)> {
    Some(match eco {
        "python" => ("src/pith_probe.py", "X = 1\n"),
        "js" => ("src/pith_probe.js", "module.exports = 1;\n"),
        "go" => ("pithprobe/probe.go", "package pithprobe\n"),
        "rust" => ("src/pith_probe.rs", "pub const X: u8 = 1;\n"),
        "java" => (
            "src/main/java/pithprobe/Probe.java",
            "package pithprobe;\n\nclass Probe {}\n",
        ),
        _ => return None,
    })
}

/// The test files `p`'s graph marks dynamic: in a committed copy at `ws`, a new file no test
/// imports is the only change, and `pith select --rev HEAD` selects them and nothing else.
fn probe_dynamic(root: &Path, pith: &Path, p: &Project, ws: &Path) -> Result<Dynamic> {
    let Some((file, text)) = probe_file(&p.eco) else {
        return Ok(Dynamic {
            files: Err(format!("no probe file for {}", p.eco)),
            suite: 0,
        });
    };
    bench::copy_dir(&root.join("tests/fixtures").join(&p.fixture), ws)
        .with_context(|| format!("copying {}", p.fixture))?;
    commit_all(ws)?;
    let path = ws.join(file);
    fs::create_dir_all(path.parent().context("a probe file has a directory")?)?;
    fs::write(&path, text).with_context(|| format!("writing {file}"))?;
    let argv: Vec<std::ffi::OsString> = vec![
        pith.into(),
        "select".into(),
        "--rev".into(),
        "HEAD".into(),
        "--root".into(),
        ws.into(),
    ];
    let sample = bench::run_once(&argv, ws, &[])?;
    let line = String::from_utf8_lossy(&sample.stdout).trim().to_owned();
    let json: Value = serde_json::from_str(&line)
        .with_context(|| format!("pith select answered no JSON: {line:?}"))?;
    let suite = json["suite"].as_u64().unwrap_or(0) as usize;
    let files = match json["all"].as_str() {
        Some(why) => Err(format!("the probe selects everything: {why}")),
        None => {
            let shown = strings(&json["tests"]);
            let more = json["moreTests"].as_u64().unwrap_or(0) as usize;
            Ok((shown.len() + more, shown))
        }
    };
    Ok(Dynamic { files, suite })
}

struct Answered {
    json: Value,
    line: String,
    wall: Duration,
}

/// One failure of a run: its test id and its frames (`file:line source`).
#[derive(Debug)]
struct Failed {
    id: String,
    frames: Vec<String>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// `git init` and one commit of everything, in `ws` (an empty one where all is committed).
pub(crate) fn commit_all(ws: &Path) -> Result<()> {
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "--allow-empty", "-m", "green"],
    ] {
        let status = Command::new("git")
            .args([
                "-c",
                "user.name=bench",
                "-c",
                "user.email=bench@example.com",
            ])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(ws)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .context("running git")?;
        ensure!(status.success(), "git {args:?} failed in {}", ws.display());
    }
    Ok(())
}

/// Applies `bug` in `ws`; returns the first line it changes (1-based, in the new text).
fn inject(ws: &Path, bug: &Bug) -> Result<u32> {
    apply(ws, &bug.file, &bug.old, &bug.new)
}

/// Replaces `old` (there exactly once) by `new` in `file`; the first line changed.
fn apply(ws: &Path, file: &str, old: &str, new: &str) -> Result<u32> {
    let path = ws.join(file);
    let text = fs::read_to_string(&path).with_context(|| format!("reading {file}"))?;
    ensure!(
        text.matches(old).count() == 1,
        "{file}: {old:?} is not there exactly once"
    );
    let edited = text.replacen(old, new, 1);
    fs::write(&path, &edited).with_context(|| format!("writing {file}"))?;
    Ok(first_changed_line(&text, &edited))
}

/// How many `suspects` (`"file:line source"`) name one of `lines`.
fn on_lines(suspects: &[String], lines: &[(String, u32)]) -> usize {
    suspects
        .iter()
        .filter(|s| {
            let place = s.split(' ').next().unwrap_or("");
            lines.iter().any(|(f, l)| place == format!("{f}:{l}"))
        })
        .count()
}

/// The first line (1-based) where `new` differs from `old`.
fn first_changed_line(old: &str, new: &str) -> u32 {
    let mut olds = old.lines();
    let mut n = 0u32;
    for line in new.lines() {
        n += 1;
        if olds.next() != Some(line) {
            return n;
        }
    }
    n + 1
}

/// Where `file:line` is among `suspects` (`"file:line source"`), 1-based.
fn rank(suspects: &[String], file: &str, line: u32) -> Option<usize> {
    let at = format!("{file}:{line}");
    suspects
        .iter()
        .position(|s| s == &at || s.strip_prefix(&at).is_some_and(|r| r.starts_with(' ')))
        .map(|i| i + 1)
}

/// The workspace's test files, relative, by the fixtures' and the public projects'
/// conventions: `tests/**/test_*.py`, `*_test.go`, `*.test.js`, mocha's `test/*.js`, a Cargo
/// `tests/*.rs`, Maven's `src/test/java/**/*Test.java`.
fn test_files(ws: &Path) -> Vec<String> {
    let mut out = Vec::new();
    walk(ws, ws, &mut out);
    out.retain(|f| {
        let name = f.rsplit('/').next().unwrap_or(f);
        (f.starts_with("tests/") && name.starts_with("test_") && name.ends_with(".py"))
            || name.ends_with("_test.go")
            || name.ends_with(".test.js")
            || (f.starts_with("test/") && name.ends_with(".js") && !f[5..].contains('/'))
            || (f.starts_with("tests/") && name.ends_with(".rs") && !f[6..].contains('/'))
            || (f.starts_with("src/test/java/") && name.ends_with("Test.java"))
    });
    out.sort();
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        if matches!(
            name.to_str(),
            Some("node_modules" | "target" | ".git" | ".pith" | "__pycache__" | ".venv")
        ) {
            continue;
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            walk(root, &path, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

/// The test file a failure belongs to: the file its id starts with (`tests/test_x.py::t`,
/// `tests/x.test.js > t`), else the test file whose stem is a word of the id (a Maven class,
/// a Cargo test target), else the one declaring the id's last word as a function (Go), else
/// the first test file among its frames.
fn test_file_of(ws: &Path, tests: &[String], f: &Failed) -> Option<String> {
    let head = f.id.split("::").next()?.split(" > ").next()?.trim();
    if tests.iter().any(|t| t == head) {
        return Some(head.to_owned());
    }
    let words: Vec<&str> =
        f.id.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
    let stem = |t: &str| {
        let name = t.rsplit('/').next().unwrap_or(t);
        name.split('.').next().unwrap_or(name).to_owned()
    };
    if let Some(t) = tests.iter().find(|t| words.contains(&stem(t).as_str())) {
        return Some(t.clone());
    }
    // Go (`example.com/shop/cart.TestTotal/sub`): the file declaring one of its words.
    let declared = tests.iter().find(|t| {
        fs::read_to_string(ws.join(t)).is_ok_and(|text| {
            words.iter().any(|w| {
                ["func ", "fn ", "def "]
                    .iter()
                    .any(|k| text.contains(&format!("{k}{w}(")))
            })
        })
    });
    if let Some(t) = declared {
        return Some(t.clone());
    }
    f.frames.iter().find_map(|fr| {
        let file = fr.split(':').next()?;
        tests.iter().find(|t| *t == file).cloned()
    })
}

/// Whether a failure's id names a doctest: cargo's `pkg::doc src/lib.rs - Item (line N)`,
/// pytest's `src/pkg/mod.py::pkg.mod.item` (a module under no `tests/`).
fn is_doctest(ws: &Path, id: &str) -> bool {
    if id.contains("::doc ") || id.starts_with("doc ") {
        return true;
    }
    let head = id.split("::").next().unwrap_or(id);
    head.ends_with(".py")
        && !head.starts_with("tests/")
        && !head.contains("/tests/")
        && ws.join(head).is_file()
}

/// Whether the failing tests of test file `file` fail in the run `failures`.
fn fails_in(ws: &Path, tests: &[String], failures: &[Failed], file: &str) -> bool {
    failures
        .iter()
        .any(|f| test_file_of(ws, tests, f).as_deref() == Some(file))
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    }
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// Both passes in one cell: `git / no git`, one value when they agree.
fn pair(git: String, plain: String) -> String {
    if git == plain {
        git
    } else {
        format!("{git} / {plain}")
    }
}

fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| bug | failing files | recall | selected (bug alone) | with the harmless edits | suspect rank | harmless · undone named | full run | `--changed` | tracing |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let cell = |f: &dyn Fn(&Pass) -> String| match &r.plain {
            Some(plain) => pair(f(&r.git), f(plain)),
            None => f(&r.git),
        };
        let recall = cell(&|p| {
            let got = p.failing.len() - p.missed.len();
            format!("{got}/{}", p.failing.len())
        });
        let selected = cell(&|p| {
            let share = format!("{}/{} ({:.0}%)", p.selected, p.suite, 100.0 * p.share());
            if p.all.is_some() {
                format!("all: {share}")
            } else {
                share
            }
        });
        let alone = cell(&|p| {
            format!(
                "{}/{} ({:.0}%)",
                p.selected_alone,
                p.suite,
                100.0 * p.share_alone()
            )
        });
        let rank = cell(&|p| p.rank.map_or("—".into(), |r| r.to_string()));
        let others = cell(&|p| format!("{} · {}", p.harmless, p.undone));
        let tracing = cell(&|p| p.trace.ratio().map_or("—".into(), |x| format!("{x:.2}×")));
        out.push_str(&format!(
            "| {} | {} | {recall} | {alone} | {selected} | {rank} | {others} | {} | {} | {tracing} |\n",
            r.name,
            cell(&|p| p.failing.len().to_string()),
            cell(&|p| secs(p.full)),
            cell(&|p| secs(p.changed)),
        ));
    }
    out.push_str("\nCells read `with git / without git` where the two passes differ.\n");
    out
}

/// Prints the summary lines and each missed target; returns how many were missed.
fn summary(rows: &[Row], dynamic: &[(String, Dynamic)]) -> usize {
    let passes: Vec<(&Row, &Pass)> = rows
        .iter()
        .flat_map(|r| r.passes().into_iter().map(move |p| (r, p)))
        .collect();
    let failing: usize = passes.iter().map(|(_, p)| p.failing.len()).sum();
    let missed: usize = passes.iter().map(|(_, p)| p.missed.len()).sum();
    let lost: usize = passes.iter().map(|(_, p)| p.lost.len()).sum();
    let share = median(passes.iter().map(|(_, p)| p.share_alone()).collect());
    let share_wip = median(passes.iter().map(|(_, p)| p.share()).collect());
    let wrong: Vec<&Pass> = passes
        .iter()
        .filter(|(r, _)| r.kind.wrong_result())
        .map(|(_, p)| *p)
        .collect();
    let top = |n: usize| {
        wrong
            .iter()
            .filter(|p| p.rank.is_some_and(|r| r <= n))
            .count()
    };
    let (top1, top3) = (top(1), top(3));
    let share_of = |n: usize| {
        if wrong.is_empty() {
            1.0
        } else {
            n as f64 / wrong.len() as f64
        }
    };
    let (top1_share, top3_share) = (share_of(top1), share_of(top3));
    let harmless: usize = passes.iter().map(|(_, p)| p.harmless).sum();
    let undone: usize = passes.iter().map(|(_, p)| p.undone).sum();
    let ratio = median(
        passes
            .iter()
            .map(|(_, p)| p.changed.as_secs_f64() / p.full.as_secs_f64().max(1e-3))
            .collect(),
    );
    let recall = if failing == 0 {
        1.0
    } else {
        (failing - missed) as f64 / failing as f64
    };
    println!();
    println!(
        "- recall: {:.0}% ({} of {failing} failing test files selected, {} bugs, {} runs; target 100%)",
        100.0 * recall,
        failing - missed,
        rows.len(),
        passes.len()
    );
    println!(
        "- selection: median {:.0}% of the suite's test files for the bug alone (target ≤ {:.0}%), {:.0}% with the harmless edits beside it",
        100.0 * share,
        100.0 * SHARE_TARGET,
        100.0 * share_wip
    );
    println!(
        "- suspects: the injected line first for {top1} of {} wrong-result runs ({:.0}%; target ≥ {:.0}%), in the top 3 for {top3} ({:.0}%; target ≥ {:.0}%)",
        wrong.len(),
        100.0 * top1_share,
        100.0 * TOP1_TARGET,
        100.0 * top3_share,
        100.0 * TOP3_TARGET
    );
    println!(
        "- suspects on a harmless edit's line: {harmless}; on the undone earlier bug's line: {undone} (target 0), over {} runs",
        passes.len()
    );
    println!(
        "- `pith test --changed`: median {ratio:.2}× the full run's wall time; {} full-run failures not failing in it",
        lost
    );
    let traced = tracing_line(rows);
    let changed_verdicts: Vec<&String> =
        passes.iter().flat_map(|(_, p)| &p.trace.verdicts).collect();
    println!("{}", dynamic_line(dynamic));
    let mut misses = 0;
    let mut miss = |ok: bool, what: String| {
        if !ok {
            println!("MISS {what}");
            misses += 1;
        }
    };
    miss(
        missed == 0,
        format!("recall: {missed} failing test file(s) not selected"),
    );
    miss(
        lost == 0,
        format!("--changed: {lost} failure(s) of the full run lost"),
    );
    miss(
        share <= SHARE_TARGET,
        format!("median selection {:.0}%", 100.0 * share),
    );
    miss(
        top1_share >= TOP1_TARGET,
        format!("top-1 suspects {:.0}%", 100.0 * top1_share),
    );
    miss(
        top3_share >= TOP3_TARGET,
        format!("top-3 suspects {:.0}%", 100.0 * top3_share),
    );
    miss(
        undone == 0,
        format!("{undone} suspect(s) on an undone line"),
    );
    miss(
        traced.is_none_or(|t| t <= TRACE_TARGET),
        format!(
            "tracing: median {:.2}× a red run without it",
            traced.unwrap_or(0.0)
        ),
    );
    miss(
        changed_verdicts.is_empty(),
        format!("tracing changed a verdict: {changed_verdicts:?}"),
    );
    misses
}

/// Prints what tracing costs: the median ratio over the passes that traced, per ecosystem and
/// overall, and the ecosystems whose runner traced nothing; returns the overall median.
fn tracing_line(rows: &[Row]) -> Option<f64> {
    let mut ecos: Vec<&str> = Vec::new();
    for r in rows {
        if !ecos.contains(&r.eco.as_str()) {
            ecos.push(&r.eco);
        }
    }
    let mut each = Vec::new();
    let mut untraced = Vec::new();
    let mut all = Vec::new();
    for eco in ecos {
        let ratios: Vec<f64> = rows
            .iter()
            .filter(|r| r.eco == eco)
            .flat_map(|r| r.passes())
            .filter_map(|p| p.trace.ratio())
            .collect();
        if ratios.is_empty() {
            untraced.push(eco);
        } else {
            all.extend(&ratios);
            each.push(format!("{eco} {:.2}×", median(ratios)));
        }
    }
    let untraced = if untraced.is_empty() {
        String::new()
    } else {
        format!("; no tracing in {}", untraced.join(", "))
    };
    if all.is_empty() {
        println!("- tracing: no red run traced anything{untraced}");
        return None;
    }
    let overall = median(all.clone());
    let passes = rows.iter().flat_map(|r| r.passes());
    let auto = passes.clone().filter(|p| p.auto_traced).count();
    println!(
        "- tracing: a red full run with `--trace always` takes median {overall:.2}× the wall time of one with `--trace never` over {} traced runs ({}{untraced}; target ≤ {TRACE_TARGET}×); the default `--trace auto` traced {auto} of {} red runs",
        all.len(),
        each.join(", "),
        passes.count()
    );
    Some(overall)
}

/// The dynamic-import hole: the test files each fixture's graph marks dynamic (what a new
/// file no test imports selects), with their share of the suite. They are selected by every
/// change until a run observed what they load (pytest), and by an added file in any case.
fn dynamic_line(dynamic: &[(String, Dynamic)]) -> String {
    let each: Vec<String> = dynamic
        .iter()
        .map(|(eco, d)| match &d.files {
            Ok((0, _)) => format!("{eco} 0 of {}", d.suite),
            Ok((n, shown)) => format!(
                "{eco} {n} of {} ({}; {:.0}% of the suite)",
                d.suite,
                shown.join(", "),
                100.0 * *n as f64 / d.suite.max(1) as f64
            ),
            Err(why) => format!("{eco} unknown ({why})"),
        })
        .collect();
    format!(
        "- dynamic imports: test files the graph marks dynamic (selected by an added file, and by every change until a run observed what they load: pytest observes, the others do not): {}",
        each.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_changed_line_is_in_the_new_text() {
        assert_eq!(first_changed_line("a\nb\nc\n", "a\nB\nc\n"), 2);
        assert_eq!(first_changed_line("a\nb\n", "a\nb\nc\n"), 3);
        assert_eq!(first_changed_line("a\n", "x\ny\na\n"), 1);
    }

    #[test]
    fn a_suspect_ranks_by_file_and_line_only() {
        let s: Vec<String> = ["src/a.py:12 x = 1", "src/b.py:3 y", "src/a.py:1 z"]
            .map(String::from)
            .to_vec();
        assert_eq!(rank(&s, "src/a.py", 12), Some(1));
        assert_eq!(rank(&s, "src/a.py", 1), Some(3));
        assert_eq!(rank(&s, "src/b.py", 30), None);
        assert_eq!(rank(&s, "src/a.py", 11), None);
    }

    #[test]
    fn failures_map_to_their_test_files() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path();
        for (f, text) in [
            ("tests/test_tax.py", "def test_north():\n"),
            ("cart/cart_test.go", "func TestTotal(t *testing.T) {}\n"),
            ("src/test/java/shop/CartTest.java", "class CartTest {}\n"),
            ("tests/tax.rs", "fn north() {}\n"),
        ] {
            fs::create_dir_all(ws.join(f).parent().unwrap()).unwrap();
            fs::write(ws.join(f), text).unwrap();
        }
        let tests = test_files(ws);
        assert_eq!(tests.len(), 4, "{tests:?}");
        let of = |id: &str, frames: &[&str]| {
            let f = Failed {
                id: id.into(),
                frames: frames.iter().map(|s| s.to_string()).collect(),
            };
            test_file_of(ws, &tests, &f)
        };
        assert_eq!(
            of("tests/test_tax.py::test_north", &[]).unwrap(),
            "tests/test_tax.py"
        );
        assert_eq!(
            of("example.com/shop/cart.TestTotal/sub", &[]).unwrap(),
            "cart/cart_test.go"
        );
        assert_eq!(
            of("shop.CartTest.total", &[]).unwrap(),
            "src/test/java/shop/CartTest.java"
        );
        assert_eq!(of("tax north", &[]).unwrap(), "tests/tax.rs");
        assert_eq!(of("??", &["tests/tax.rs:3 x"]).unwrap(), "tests/tax.rs");
        assert_eq!(of("nothing", &["src/x.rs:1"]), None);
    }

    #[test]
    fn every_bug_applies_to_its_fixture_once() {
        let root = bench::repo_root();
        let projects = load(&root).unwrap();
        assert!(projects.len() >= 5);
        for p in &projects {
            let kinds: BTreeSet<&str> = p.bugs.iter().map(|b| b.kind.name()).collect();
            assert!(kinds.len() >= 5, "{}: a bug of each kind", p.eco);
            assert_eq!(kinds.len(), p.bugs.len(), "{}: each kind once", p.eco);
            for b in &p.bugs {
                let path = root.join("tests/fixtures").join(&p.fixture).join(&b.file);
                let text = fs::read_to_string(&path).unwrap();
                assert_eq!(text.matches(&b.old).count(), 1, "{}: {:?}", b.file, b.old);
                assert_ne!(b.old, b.new);
            }
            // The harmless edits apply one after another, and never where an earlier bug is.
            assert!(p.harmless.len() >= 2, "{}: harmless edits", p.eco);
            let ws = tempfile::tempdir().unwrap();
            bench::copy_dir(&root.join("tests/fixtures").join(&p.fixture), ws.path()).unwrap();
            for h in &p.harmless {
                apply(ws.path(), &h.file, &h.old, &h.new).unwrap();
            }
        }
    }

    #[test]
    fn a_suspect_is_on_a_line_by_its_place_alone() {
        let suspects = ["a.py:3 x = 1".to_owned(), "b.py:30 y".to_owned()];
        let lines = [("a.py".to_owned(), 3), ("b.py".to_owned(), 3)];
        assert_eq!(on_lines(&suspects, &lines), 1);
    }

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(Vec::new()), 0.0);
    }
}
