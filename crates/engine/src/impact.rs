//! What a change reaches, from the store's change memory and the index's import graph: the
//! suspects of a red run (changed lines its failing tests reach), the tests of a file, the
//! tests the current changes select, and a file's or symbol's blast radius. The graph is
//! static: a test reaches a file when the test's files depend on it, transitively. Where the
//! graph cannot see (a file it does not read, a build or test-config file, a deleted file, a
//! test with dynamic imports), selection errs towards running more, never fewer.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use pith_index::Graph;
use pith_model::impact::{Baseline, Blast, FileTests, Reach, Selection, Suspect, Suspects, Traced};
use pith_model::{Failure, Report};
use pith_store::{ChangeKind, Changes, Since, Store};

use crate::symbols::SymbolError;

/// Suspects a red answer names at most.
const SUSPECTS: usize = 3;
/// Failing tests whose reach is looked at: the answer shows fewer; past this the biggest
/// causes have spoken.
const FAILURES_TRACED: usize = 64;
/// A suspect's source text is cut here.
const SOURCE_CHARS: usize = 100;
/// A hunk longer than this is a rewrite or a new file: weaker evidence than a few lines.
const LONG_HUNK: u32 = 20;

/// Expected failures of an impact query, each one clear line.
#[derive(Debug, thiserror::Error)]
pub enum ImpactError {
    #[error(transparent)]
    Symbol(#[from] SymbolError),
    #[error(transparent)]
    Index(#[from] pith_index::IndexError),
    #[error(transparent)]
    State(#[from] pith_store::StoreError),
    #[error("{0} is outside the workspace")]
    Outside(String),
    #[error("{0:?} is not a git revision")]
    BadRevision(String),
}

/// Re-runs some of a run's failing tests with line tracing on the given files (the run's
/// index in the report, test ids, workspace-relative files); `None` when its runner cannot.
pub(crate) type Tracer<'a> = &'a dyn Fn(usize, &[String], &[String]) -> Option<Traced>;

/// Failing tests re-run with tracing at most, per project: the answer shows a few.
const TESTS_TRACED: usize = 5;

/// Sets the report's suspects and each failure's own: the changed lines (against the last run
/// in which that test passed, else git `HEAD`) that the failing tests reach, best first. A
/// failure in a line that changed is the strongest sign; then a changed file its frames pass
/// through; then nearness in the graph. When that leaves a choice (several changed hunks, none
/// under a frame) or a failing test reaches no change the graph sees, the failing tests run
/// again with line tracing on the changed files (`trace`), and what they executed decides.
/// Nothing when there is nothing to compare with or nothing changed. `mode` may force the
/// traced re-run or forbid it (`pith test --trace`).
pub(crate) fn find_suspects(
    store: &Store,
    root: &Path,
    report: &mut Report,
    mode: crate::Trace,
    trace: Tracer,
) {
    let failing: Vec<(usize, usize)> = report
        .runs
        .iter()
        .enumerate()
        .flat_map(|(r, run)| (0..run.failures.len()).map(move |f| (r, f)))
        .take(FAILURES_TRACED)
        .collect();
    if failing.is_empty() {
        return;
    }
    let mut memo: HashMap<Option<u64>, Option<Changes>> = HashMap::new();
    let mut graph: Option<Graph> = None;
    let mut first_baseline = None;
    let mut judged: Vec<Judged> = Vec::new();
    for (r, f) in failing {
        let failure = &report.runs[r].failures[f];
        let pass = store.last_pass(&failure.test).ok().flatten();
        let changes = memo.entry(pass).or_insert_with(|| {
            let since = pass.map_or_else(|| Since::Git("HEAD".into()), Since::Generation);
            store
                .changes(&since)
                .ok()
                .filter(|c| !matches!(c.baseline, pith_store::Baseline::None))
                .map(|c| code_only(root, c))
        });
        let Some(changes) = changes.as_ref().filter(|c| !c.files.is_empty()) else {
            continue;
        };
        if graph.is_none() {
            graph = graph_of(store, root).ok();
        }
        let Some(g) = graph.as_ref() else { return };
        first_baseline.get_or_insert(baseline_of(&changes.baseline));
        let scored = score(g, changes, failure, report.runs[r].dir.as_deref());
        judged.push(Judged {
            run: r,
            failure: f,
            pass,
            scored,
        });
    }
    let traced = traced_lines(report, &judged, &memo, mode, trace);
    let mut tally: BTreeMap<(String, u32), Tally> = BTreeMap::new();
    for Judged {
        run: r,
        failure: f,
        pass,
        mut scored,
    } in judged
    {
        let test = &report.runs[r].failures[f].test;
        if let Some((t, lines)) = traced.as_ref().and_then(|t| Some(t).zip(t.tests.get(test))) {
            let changes = memo.get(&pass).and_then(Option::as_ref);
            scored = retrace(root, scored, lines, t, changes);
        }
        let own_trace = traced.as_ref().is_none_or(|t| t.tests.contains_key(test));
        if let Some((file, line)) = own_suspect(&scored, own_trace) {
            report.runs[r].failures[f].suspect = Some(suspect_at(root, file, *line));
        }
        for (key, s) in scored {
            let t = tally.entry(key).or_default();
            t.hits += s.hit as u32;
            t.score += s.score;
            t.tests += 1;
        }
    }
    let mut ranked: Vec<((String, u32), Tally)> = tally.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let lines: Vec<Suspect> = ranked
        .into_iter()
        .take(SUSPECTS)
        .map(|((file, line), _)| suspect_at(root, &file, line))
        .collect();
    if let (false, Some(baseline)) = (lines.is_empty(), first_baseline) {
        report.suspects = Some(Suspects {
            reach: if traced.is_some() {
                Reach::Traced
            } else {
                Reach::Static
            },
            baseline,
            lines,
        });
    }
}

/// Changed files traced inside a run at most: past it, the run is not traced (a red run then
/// traces in a second start, when worth it).
const PLANNED_FILES: usize = 200;

/// What a run traces in itself, should it be red: the files changed since the last green run
/// (else the uncommitted changes against git `HEAD`), those that exist. The failing tests
/// usually last passed there; one that passed longer ago is traced again after the run if
/// its own changes reach further. `None` when nothing changed or too much did.
pub(crate) fn trace_plan(store: &Store, root: &Path) -> Option<pith_runner::TracePlan> {
    let mut files: Vec<String> = match store.last_green().ok()? {
        Some(g) => {
            let (count, files) = store.changed_since(g, PLANNED_FILES + 1).ok()?;
            if count > PLANNED_FILES as u64 {
                return None;
            }
            files
        }
        None => {
            let changes = store.changes(&Since::Git("HEAD".into())).ok()?;
            changes.files.into_iter().map(|c| c.path).collect()
        }
    };
    files.retain(|f| root.join(f).is_file());
    files.sort();
    files.dedup();
    (!files.is_empty() && files.len() <= PLANNED_FILES).then_some(pith_runner::TracePlan { files })
}

/// A failure's own suspect: its best changed line. In a traced run, a failure that was not
/// traced itself (`own_trace` false) names none but one a frame is on: the graph's guess is
/// weaker than what the traced tests ran, which the run's suspects already say.
fn own_suspect(scored: &[((String, u32), Score)], own_trace: bool) -> Option<(&String, &u32)> {
    scored
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .filter(|(_, s)| own_trace || s.hit)
        .map(|((f, l), _)| (f, l))
}

/// The lines the failing tests executed in the changed files, when tracing is worth its run:
/// no failure's frame is on a changed line already, and the graph leaves more than one
/// changed hunk, or a failing test reaches none. Each project's first failing tests run again.
/// `Always` skips the "worth it" test (to measure what tracing costs), `Never` traces nothing.
fn traced_lines(
    report: &Report,
    judged: &[Judged],
    memo: &HashMap<Option<u64>, Option<Changes>>,
    mode: crate::Trace,
    trace: Tracer,
) -> Option<Traced> {
    if judged.is_empty() || matches!(mode, crate::Trace::Never) {
        return None;
    }
    // What the runs traced in themselves costs nothing more: taken whenever it is there.
    let mut all = Traced::default();
    for j in judged {
        let run = &report.runs[j.run];
        let test = &run.failures[j.failure].test;
        if let Some(lines) = run.traced.as_ref().and_then(|t| t.tests.get(test)) {
            all.tests.insert(test.clone(), lines.clone());
        }
    }
    for t in report.runs.iter().filter_map(|r| r.traced.as_ref()) {
        all.files.extend(t.files.iter().cloned());
        for (file, lines) in &t.imported {
            all.imported.entry(file.clone()).or_default().extend(lines);
        }
    }
    let wanted = match mode {
        crate::Trace::Auto => worth_tracing(judged),
        crate::Trace::Always => true,
        crate::Trace::Never => false,
    };
    let files: Vec<String> = memo
        .values()
        .flatten()
        .flat_map(|c| &c.files)
        .filter(|c| !matches!(c.kind, ChangeKind::Deleted))
        .map(|c| c.path.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // A second start only for what the run did not trace: its tests, or files beyond its own.
    let covered = |j: &&Judged| {
        let test = &report.runs[j.run].failures[j.failure].test;
        let mine = memo.get(&j.pass).and_then(Option::as_ref);
        all.tests.contains_key(test)
            && mine.is_none_or(|c| {
                c.files
                    .iter()
                    .filter(|c| !matches!(c.kind, ChangeKind::Deleted))
                    .all(|c| all.files.contains(&c.path))
            })
    };
    if wanted && !files.is_empty() {
        let mut by_run: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        // The tests the changes broke (they passed before) first: a test that never passed
        // under pith may fail for reasons of its own, and the re-run holds only a few.
        let mut order: Vec<&Judged> = judged.iter().filter(|j| !covered(j)).collect();
        order.sort_by_key(|j| j.pass.is_none());
        for j in order {
            let tests = by_run.entry(j.run).or_default();
            if tests.len() < TESTS_TRACED {
                tests.push(report.runs[j.run].failures[j.failure].test.clone());
            }
        }
        for (r, tests) in by_run {
            if let Some(t) = trace(r, &tests, &files) {
                all.tests.extend(t.tests);
                all.files.extend(files.iter().cloned());
                for (file, lines) in t.imported {
                    all.imported.entry(file).or_default().extend(lines);
                }
            }
        }
    }
    (!all.tests.is_empty()).then_some(all)
}

/// Whether the static reach leaves a choice tracing can settle: no failure's frame is on a
/// changed line, and there is more than one changed hunk or a failing test reaches none.
fn worth_tracing(judged: &[Judged]) -> bool {
    let nailed = judged.iter().any(|j| j.scored.iter().any(|(_, s)| s.hit));
    let hunks: BTreeSet<&(String, u32)> = judged
        .iter()
        .flat_map(|j| j.scored.iter().map(|(k, _)| k))
        .collect();
    let unreached = judged.iter().any(|j| j.scored.is_empty());
    !nailed && (hunks.len() > 1 || unreached)
}

/// A traced test's evidence: a changed hunk it executed counts, at its first executed line,
/// above anything the graph says (a hunk of import-time code counts as executed by a test
/// that reaches its file: the import ran it before tracing began); one in a file it was
/// traced through but did not execute does not count at all, but for a deleted line's mark
/// (a single blank line, which nothing executes); one in a file the trace did not cover keeps
/// the graph's word.
fn retrace(
    root: &Path,
    scored: Vec<((String, u32), Score)>,
    lines: &pith_model::impact::Lines,
    trace: &Traced,
    changes: Option<&Changes>,
) -> Vec<((String, u32), Score)> {
    let traced = &trace.files;
    let Some(changes) = changes else {
        return scored;
    };
    // A file that was not traced tells nothing: the graph's word on it stands.
    let mut out: Vec<((String, u32), Score)> = scored
        .iter()
        .filter(|((f, _), _)| !traced.contains(f))
        .cloned()
        .collect();
    for change in changes
        .files
        .iter()
        .filter(|c| !matches!(c.kind, ChangeKind::Deleted) && traced.contains(&c.path))
    {
        let ran = lines.get(&change.path);
        // Its import ran these before any test was traced, for the tests that import it.
        let reached = scored.iter().any(|((f, _), _)| *f == change.path);
        let imported = trace.imported.get(&change.path).filter(|_| reached);
        let mut text: Option<String> = None;
        for h in &change.hunks {
            let executed = ran
                .and_then(|l| l.range(h.start..=h.end).next().copied())
                .or_else(|| imported.and_then(|l| l.range(h.start..=h.end).next().copied()));
            if let Some(line) = executed {
                let hit = scored
                    .iter()
                    .any(|((f, l), s)| *f == change.path && *l == line && s.hit);
                out.push((
                    (change.path.clone(), line),
                    Score {
                        hit,
                        score: 256 + u32::from(hit) * 64,
                    },
                ));
            } else if h.start == h.end {
                // A deleted line shows as the blank line after it, which no trace executes:
                // there the graph's word stands.
                let text = text.get_or_insert_with(|| {
                    std::fs::read_to_string(root.join(&change.path)).unwrap_or_default()
                });
                let blank = text
                    .lines()
                    .nth(h.start.saturating_sub(1) as usize)
                    .is_some_and(|l| l.trim().is_empty());
                let kept = scored
                    .iter()
                    .find(|((f, l), _)| *f == change.path && *l == h.start);
                if let (true, Some(entry)) = (blank, kept) {
                    out.push(entry.clone());
                }
            }
        }
    }
    out
}

/// One failure's place in the report, the generation of its test's last pass (the key of its
/// changes), and what the graph says of each changed hunk it reaches.
struct Judged {
    run: usize,
    failure: usize,
    pass: Option<u64>,
    scored: Vec<((String, u32), Score)>,
}

/// What one failure says of one changed line: whether a frame is on it, and how strongly
/// the failure points at it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Score {
    hit: bool,
    score: u32,
}

/// A changed line's evidence over every failing test: frames on it, then total strength,
/// then how many tests reach it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    hits: u32,
    score: u32,
    tests: u32,
}

impl Ord for Tally {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.hits, self.score, self.tests).cmp(&(o.hits, o.score, o.tests))
    }
}

impl PartialOrd for Tally {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// Every changed hunk `failure` reaches, at its best line, with its strength.
fn score(
    g: &Graph,
    changes: &Changes,
    failure: &Failure,
    dir: Option<&str>,
) -> Vec<((String, u32), Score)> {
    let reach = reach_of(g, failure, dir);
    let mut out = Vec::new();
    for change in &changes.files {
        if matches!(change.kind, ChangeKind::Deleted) {
            continue;
        }
        let Some(&distance) = reach.get(change.path.as_str()) else {
            continue;
        };
        let frames: Vec<u32> = failure
            .project_frames()
            .filter(|fr| fr.file == change.path)
            .map(|fr| fr.line)
            .collect();
        let is_test = pith_model::ecosystem::is_test_path(&change.path);
        for h in &change.hunks {
            let on = frames
                .iter()
                .copied()
                .find(|l| (h.start..=h.end).contains(l));
            let mut score = 64 / (1 + distance);
            if !frames.is_empty() {
                score += 64;
            }
            if h.end - h.start >= LONG_HUNK {
                score /= 2;
            }
            if is_test && on.is_none() {
                score /= 2;
            }
            let line = on.unwrap_or(h.start);
            out.push((
                (change.path.clone(), line),
                Score {
                    hit: on.is_some(),
                    score: score.max(1),
                },
            ));
        }
    }
    out
}

/// `changes` with each hunk narrowed to its lines of code: a hunk of comments and blank lines
/// alone runs nothing and is no suspect (an edited comment beside a bug must not outrank it),
/// but for a single blank line, which is how a deleted line often shows (the line after it).
/// A file that cannot be read, or of a language whose comments pith does not know, is kept.
fn code_only(root: &Path, mut changes: Changes) -> Changes {
    for change in &mut changes.files {
        if change.hunks.is_empty() || matches!(change.kind, ChangeKind::Deleted) {
            continue;
        }
        let Some(markers) = comment_markers(&change.path) else {
            continue;
        };
        let Ok(bytes) = std::fs::read(root.join(&change.path)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        let is_code = |n: u32| {
            let line = lines
                .get(n.saturating_sub(1) as usize)
                .map_or("", |l| l.trim());
            // A line past the end is a deletion's neighbour: where the removed code was.
            n as usize > lines.len()
                || (!line.is_empty() && line != "*" && !markers.iter().any(|m| line.starts_with(m)))
        };
        let blank = |n: u32| {
            lines
                .get(n.saturating_sub(1) as usize)
                .is_some_and(|l| l.trim().is_empty())
        };
        change.hunks.retain_mut(|h| {
            // A pure deletion is the one line after it, often a blank one: where code was.
            if h.start == h.end && blank(h.start) {
                return true;
            }
            let Some(start) = (h.start..=h.end).find(|&n| is_code(n)) else {
                return false;
            };
            let end = (start..=h.end).rev().find(|&n| is_code(n)).unwrap_or(start);
            (h.start, h.end) = (start, end);
            true
        });
    }
    changes
}

/// What starts a comment line in `path`'s language, where pith knows it.
fn comment_markers(path: &str) -> Option<&'static [&'static str]> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    match ext {
        "py" | "pyi" | "rb" | "sh" | "bash" | "pl" | "r" | "R" => Some(&["#"]),
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "go" | "rs" | "java"
        | "kt" | "kts" | "scala" | "cs" | "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh"
        | "swift" | "dart" => Some(&["//", "/*", "* ", "*/"]),
        _ => None,
    }
}

/// The files a failing test reaches and how far: every file its project frames name (the
/// test's own, the code it ran through) at distance 0, the test id's file when it names one,
/// and what they depend on.
fn reach_of(g: &Graph, failure: &Failure, dir: Option<&str>) -> HashMap<String, u32> {
    let mut entries: BTreeSet<String> =
        failure.project_frames().map(|fr| fr.file.clone()).collect();
    if let Some(file) = id_file(&failure.test) {
        entries.insert(file.to_owned());
        if let Some(d) = dir {
            entries.insert(format!("{d}/{file}"));
        }
    }
    let mut reach: HashMap<String, u32> = HashMap::new();
    for e in entries.iter().filter(|e| g.places(e)) {
        reach.entry(e.clone()).or_insert(0);
        for (dep, d) in g.dependencies(e) {
            let slot = reach.entry(dep).or_insert(d);
            *slot = (*slot).min(d);
        }
    }
    reach
}

/// The file a test id starts with, when it names one (`tests/test_x.py::t`,
/// `tests/a.test.ts > suite > t`, `src/test/java/demo/CalcTest.java`).
fn id_file(id: &str) -> Option<&str> {
    let file = id.split("::").next()?.split(" > ").next()?.trim();
    let named = file.contains('.') && !file.contains(' ') && file.contains('/');
    (named || file.ends_with(".py")).then_some(file)
}

fn baseline_of(b: &pith_store::Baseline) -> Baseline {
    match b {
        pith_store::Baseline::Run { .. } => Baseline::LastPass,
        _ => Baseline::Git,
    }
}

fn suspect_at(root: &Path, file: &str, line: u32) -> Suspect {
    let source = std::fs::read(root.join(file))
        .ok()
        .and_then(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .nth(line.saturating_sub(1) as usize)
                .map(|l| cut(l.trim(), SOURCE_CHARS))
        })
        .unwrap_or_default();
    Suspect {
        file: file.to_owned(),
        line,
        source,
    }
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// `pith tests-for FILE`: the test files that depend on `file`, nearest first.
pub fn tests_for_file(
    root: Option<&Path>,
    cwd: &Path,
    file: &str,
) -> Result<FileTests, ImpactError> {
    let root = workspace(root, cwd)?;
    let rel = relative(&root, cwd, file)?;
    let g = Graph::build(&root)?;
    if !g.places(&rel) {
        return Ok(FileTests {
            file: rel,
            tests: Vec::new(),
            unplaced: true,
        });
    }
    Ok(FileTests {
        tests: g.tests_of(&rel).into_iter().map(|(t, _)| t).collect(),
        file: rel,
        unplaced: false,
    })
}

/// `pith select`: the test files the changes select — since git revision `rev` when given,
/// else since the last green run, else the uncommitted changes against git `HEAD`.
pub fn select(
    root: Option<&Path>,
    cwd: &Path,
    rev: Option<&str>,
) -> Result<Selection, ImpactError> {
    if let Some(r) = rev.filter(|r| !is_revision(r)) {
        // Never an option to git, whatever it looks like.
        return Err(ImpactError::BadRevision(r.to_owned()));
    }
    let root = workspace(root, cwd)?;
    let mut store = Store::open(&root)?;
    store.scan()?;
    let (selection, _) = selection_in(&store, &root, rev)?;
    Ok(selection)
}

/// The selection in a scanned store, and the graph it was made on.
fn selection_in(
    store: &Store,
    root: &Path,
    rev: Option<&str>,
) -> Result<(Selection, Graph), ImpactError> {
    let (since, asked) = match rev {
        Some(r) => (Since::Git(r.to_owned()), Baseline::Git),
        None => match store.last_green()? {
            Some(g) => (Since::Generation(g), Baseline::LastGreen),
            None => (Since::Git("HEAD".into()), Baseline::Git),
        },
    };
    let changes = store.changes(&since)?;
    let g = graph_of(store, root)?;
    Ok((selection_of(&g, &changes, asked), g))
}

/// Which graphs the store keeps: this pith's, so another version's resolvers never answer.
const GRAPH_KEY: &str = concat!("import-graph ", env!("CARGO_PKG_VERSION"));

/// The import graph of the workspace as of the store's generation (which the caller has just
/// refreshed): the one kept for that generation, else built from the files and kept. The
/// store's walk and the graph's are one filter, so an edit the graph would read is a new
/// generation; a status polled with nothing changed reads no source again.
fn graph_of(store: &Store, root: &Path) -> Result<Graph, pith_index::IndexError> {
    let mut g = static_graph_of(store, root)?;
    // What runs saw test files load by computed names, for the test files as they are now:
    // kept apart from the cached graph, which depends on the files alone.
    if let Ok(loads) = store.observed_loads() {
        g.observe(&loads);
    }
    Ok(g)
}

fn static_graph_of(store: &Store, root: &Path) -> Result<Graph, pith_index::IndexError> {
    let generation = store.generation().ok();
    if let Some(g) = generation
        .and_then(|g| store.cached_graph(GRAPH_KEY, g).ok().flatten())
        .and_then(|bytes| Graph::from_bytes(&bytes))
    {
        return Ok(g);
    }
    let g = Graph::build(root)?;
    if let Some(generation) = generation {
        // Best effort: a busy database only costs the next call another build.
        let _ = store.cache_graph(GRAPH_KEY, generation, &g.to_bytes());
    }
    Ok(g)
}

/// What `pith test --changed` runs: the selection, and per project the ids of its selected
/// test files (empty: the whole project, for a runner that cannot select by file); `routed`
/// is `None` when everything runs.
pub(crate) struct Planned {
    pub selection: Selection,
    pub routed: Option<Vec<(usize, Vec<String>)>>,
}

impl Planned {
    /// The history's key for what ran: never the plain "everything" of a run without ids.
    pub fn key(&self) -> String {
        let mut key = String::from("changed");
        for (i, ids) in self.routed.iter().flatten() {
            key.push('\u{1f}');
            key.push_str(&i.to_string());
            for id in ids {
                key.push('\u{1e}');
                key.push_str(id);
            }
        }
        key
    }
}

/// Plans `pith test --changed`. Without the workspace state there is nothing to measure the
/// changes from: everything runs, and the answer says why.
pub(crate) fn plan(
    store: Option<&Store>,
    root: &Path,
    since: &crate::ChangedSince,
    found: &[crate::detect::Found],
) -> Result<Planned, crate::EngineError> {
    let rev = match since {
        crate::ChangedSince::LastGreen => None,
        crate::ChangedSince::Rev(r) => Some(r.as_str()),
    };
    if let Some(r) = rev.filter(|r| !is_revision(r)) {
        return Err(crate::EngineError::BadRevision(r.to_owned()));
    }
    let Some(store) = store else {
        return Ok(Planned {
            selection: Selection {
                all: Some("no workspace state to measure changes from".into()),
                ..Selection::default()
            },
            routed: None,
        });
    };
    let selection = match selection_in(store, root, rev) {
        Ok((s, _)) => s,
        Err(e) => Selection {
            all: Some(format!("changes unknown: {e}")),
            ..Selection::default()
        },
    };
    if selection.all.is_some() {
        return Ok(Planned {
            selection,
            routed: None,
        });
    }
    let mut routed = route_files(&selection.tests, found);
    // What failed last time runs again, whatever the changes reach: a fix is verified by the
    // run that follows it (a revert leaves nothing changed since the last green run).
    let failing: Vec<String> = store
        .failures(&[])
        .map(|d| d.failures.into_iter().map(|f| f.test).collect())
        .unwrap_or_default();
    let again = if failing.is_empty() {
        Vec::new()
    } else {
        crate::route(found, &failing)
    };
    for (project, ids) in again {
        let Some(i) = found.iter().position(|f| std::ptr::eq(f, project)) else {
            continue;
        };
        match routed.iter_mut().find(|(j, _)| *j == i) {
            // An empty list runs the whole project already.
            Some((_, list)) if list.is_empty() => {}
            Some((_, list)) => list.extend(
                ids.into_iter()
                    .filter(|id| !list.contains(id))
                    .collect::<Vec<_>>(),
            ),
            None => routed.push((i, ids)),
        }
    }
    routed.sort_by_key(|(i, _)| *i);
    let mut selection = selection;
    selection.failing = failing.len();
    Ok(Planned {
        selection,
        routed: Some(routed),
    })
}

/// Each selected test file goes to the deepest project holding it whose runner takes it, as
/// that runner's ids; a runner that cannot select by file runs its whole project when one of
/// its source files is selected.
fn route_files(tests: &[String], found: &[crate::detect::Found]) -> Vec<(usize, Vec<String>)> {
    let mut plan: BTreeMap<usize, Option<Vec<String>>> = BTreeMap::new();
    for file in tests {
        let mut holders: Vec<(usize, &crate::detect::Found)> = found
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.rel
                    .as_deref()
                    .is_none_or(|r| file.strip_prefix(r).is_some_and(|x| x.starts_with('/')))
            })
            .collect();
        holders.sort_by_key(|(_, p)| std::cmp::Reverse(p.rel.as_ref().map_or(0, String::len)));
        for (i, p) in holders {
            match p
                .adapter
                .ids_for_files(p.rel.as_deref(), std::slice::from_ref(file))
            {
                Some(ids) if ids.is_empty() => continue,
                Some(ids) => {
                    if let Some(list) = plan.entry(i).or_insert_with(|| Some(Vec::new())) {
                        list.extend(
                            ids.into_iter()
                                .filter(|id| !list.contains(id))
                                .collect::<Vec<_>>(),
                        );
                    }
                }
                None if is_source_of(p, file) => {
                    plan.insert(i, None);
                }
                None => continue,
            }
            break;
        }
    }
    plan.into_iter()
        .map(|(i, ids)| (i, ids.unwrap_or_default()))
        .collect()
}

/// Whether `file` is a source file of the project's ecosystem (any file of a Bazel
/// workspace: its targets are of every language).
fn is_source_of(p: &crate::detect::Found, file: &str) -> bool {
    let ext = file.rsplit_once('.').map_or("", |(_, e)| e);
    crate::detect::runs_every_file(p.adapter.name())
        || pith_model::ecosystem::by_runner(p.adapter.name())
            .is_some_and(|e| e.source_extensions.contains(&ext))
}

/// A git revision pith passes on: never an option, never empty.
fn is_revision(r: &str) -> bool {
    !r.is_empty() && !r.starts_with('-') && !r.contains(char::is_whitespace)
}

/// The selection for `changes` on graph `g`: the tests that reach a changed file, plus every
/// test the graph cannot vouch for (dynamic imports); or everything, with the reason, when a
/// change is one the graph cannot follow.
pub(crate) fn selection_of(g: &Graph, changes: &Changes, asked: Baseline) -> Selection {
    let suite: Vec<&str> = g.files().filter(|f| g.is_test(f)).collect();
    let mut sel = Selection {
        changed: changes.files.iter().map(|c| c.path.clone()).collect(),
        suite: suite.len(),
        ..Selection::default()
    };
    let baseline = match &changes.baseline {
        pith_store::Baseline::None => {
            sel.all = Some("nothing to compare with: no green run and no git".into());
            return sel;
        }
        pith_store::Baseline::Run { .. } => asked,
        pith_store::Baseline::Git { .. } => Baseline::Git,
    };
    sel.baseline = Some(baseline);
    let mut picked: BTreeMap<String, u32> = BTreeMap::new();
    for c in &changes.files {
        if let Some(why) = selects_all(g, &c.path, &c.kind) {
            sel.all = Some(why);
            return sel;
        }
        for (t, d) in g.tests_of(&c.path) {
            let slot = picked.entry(t).or_insert(d);
            *slot = (*slot).min(d);
        }
    }
    if !changes.files.is_empty() {
        // The known hole: a test that imports by a name computed at run time (or reaches code
        // that does) may reach anything; it runs whenever anything changed, unless a run saw
        // what it loads (those loads are edges now). A new file is one no such observation
        // can vouch for.
        let added = changes
            .files
            .iter()
            .any(|c| matches!(c.kind, ChangeKind::Added));
        for t in g.dynamic_tests(added) {
            picked.entry(t).or_insert(u32::MAX);
        }
    }
    let mut tests: Vec<(String, u32)> = picked.into_iter().collect();
    tests.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    sel.tests = tests.into_iter().map(|(t, _)| t).collect();
    sel
}

/// Why a change to `path` must select every test, if it must.
fn selects_all(g: &Graph, path: &str, kind: &ChangeKind) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match kind {
        ChangeKind::Deleted => return Some(format!("{path} deleted")),
        ChangeKind::Renamed { from } => return Some(format!("{from} renamed")),
        _ => {}
    }
    if pith_model::ecosystem::selects_all(name) {
        return Some(format!("{path} changed (build or test configuration)"));
    }
    if !g.places(path) {
        return Some(format!("{path} changed (not source pith can follow)"));
    }
    None
}

/// `pith blast TARGET`: what depends on a file, or on a symbol (the files that use it, and
/// theirs).
pub fn blast(root: Option<&Path>, cwd: &Path, target: &str) -> Result<Blast, ImpactError> {
    let root = workspace(root, cwd)?;
    let g = Graph::build(&root)?;
    let as_file = relative(&root, cwd, target).ok().filter(|f| g.places(f));
    let mut blast = Blast {
        target: target.trim().to_owned(),
        ..Blast::default()
    };
    let mut reached: BTreeMap<String, u32> = BTreeMap::new();
    match as_file {
        Some(file) => {
            blast.target = file.clone();
            for (f, d) in g.dependents(&file) {
                reached.insert(f, d);
            }
        }
        None => {
            let index = pith_index::Index::open(&root)?;
            let defs = index.definitions(target.trim(), None);
            let uses = index.usages(target.trim());
            if defs.is_empty() && uses.is_empty() {
                blast.unknown = true;
                return Ok(blast);
            }
            blast.symbols = defs
                .iter()
                .map(|d| format!("{}:{}", d.file, d.line))
                .collect();
            for u in &uses {
                reached.entry(u.file.clone()).or_insert(1);
                for (f, d) in g.dependents(&u.file) {
                    let slot = reached.entry(f).or_insert(d + 1);
                    *slot = (*slot).min(d + 1);
                }
            }
        }
    }
    let mut files: Vec<(String, u32)> = reached.into_iter().collect();
    files.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    blast.tests = files
        .iter()
        .filter(|(f, _)| g.is_test(f))
        .map(|(f, _)| f.clone())
        .collect();
    blast.files = files.into_iter().map(|(f, _)| f).collect();
    Ok(blast)
}

fn workspace(root: Option<&Path>, cwd: &Path) -> Result<PathBuf, ImpactError> {
    crate::root_of(root, cwd).map_err(|e| ImpactError::Symbol(SymbolError::Root(e)))
}

/// `file` as the workspace names it: relative to the root, `/`-separated, from an absolute
/// path or one relative to `cwd` — or to the root, as answers name files, when that is where
/// it exists.
fn relative(root: &Path, cwd: &Path, file: &str) -> Result<String, ImpactError> {
    let given = Path::new(file.trim());
    let full = if given.is_absolute() {
        given.to_path_buf()
    } else if !cwd.join(given).exists() && root.join(given).exists() {
        root.join(given)
    } else {
        cwd.join(given)
    };
    let mut parts: Vec<String> = Vec::new();
    for c in full.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    let root_parts: Vec<String> = root
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if parts.len() <= root_parts.len() || parts[..root_parts.len()] != root_parts[..] {
        return Err(ImpactError::Outside(file.trim().to_owned()));
    }
    Ok(parts[root_parts.len()..].join("/"))
}

/// Changed source files (since the last green run, else against git `HEAD`) that no test
/// reaches: the graph places them, they are not tests, and no test depends on them. Best
/// effort: a status never fails for it.
pub(crate) fn off_target(store: &Store, root: &Path) -> Vec<String> {
    let since = match store.last_green() {
        Ok(Some(g)) => Since::Generation(g),
        Ok(None) => Since::Git("HEAD".into()),
        Err(_) => return Vec::new(),
    };
    let Ok(changes) = store.changes(&since) else {
        return Vec::new();
    };
    let edited: Vec<&str> = changes
        .files
        .iter()
        .filter(|c| !matches!(c.kind, ChangeKind::Deleted))
        .map(|c| c.path.as_str())
        .filter(|p| !pith_model::ecosystem::is_test_path(p))
        .collect();
    if edited.is_empty() {
        return Vec::new();
    }
    let Ok(g) = graph_of(store, root) else {
        return Vec::new();
    };
    edited
        .into_iter()
        .filter(|p| {
            g.places(p) && !pith_model::ecosystem::selects_all(p.rsplit('/').next().unwrap_or(p))
        })
        .filter(|p| g.tests_of(p).is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pith_store::{FileChange, Hunk};

    /// A workspace of a Python package, its tests, a test with a dynamic import, data, and a
    /// Rust crate beside it.
    fn workspace() -> tempfile::TempDir {
        let ws = tempfile::tempdir().unwrap();
        let files = [
            ("pkg/__init__.py", ""),
            ("pkg/money.py", "def cents(x):\n    return round(x * 100)\n"),
            ("pkg/cart.py", "from pkg.money import cents\n"),
            ("pkg/other.py", "X = 1\n"),
            ("tests/test_money.py", "from pkg.money import cents\n"),
            ("tests/test_cart.py", "from pkg import cart\n"),
            ("tests/test_other.py", "from pkg.other import X\n"),
            (
                "tests/test_plugins.py",
                "import importlib\nm = importlib.import_module(NAME)\n",
            ),
            ("tests/conftest.py", "\n"),
            ("data/prices.json", "{}\n"),
            (
                "rs/Cargo.toml",
                "[package]\nname = \"rs\"\nversion = \"0.1.0\"\n",
            ),
            (
                "rs/src/lib.rs",
                "pub fn f() {}\n#[cfg(test)]\nmod tests {}\n",
            ),
            ("rs/build.rs", "fn main() {}\n"),
        ];
        for (path, text) in files {
            let p = ws.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        ws
    }

    #[test]
    fn the_tests_the_changes_broke_are_traced_before_those_that_never_passed() {
        let mut run = pith_model::Run::new("pytest");
        for i in 0..8 {
            run.failures.push(pith_model::Failure {
                test: format!("tests/test_x.py::test_{i}"),
                ..Default::default()
            });
        }
        let report = Report {
            runs: vec![run],
            ..Report::default()
        };
        let hunk = |line| (("pkg/money.py".to_owned(), line), Score::default());
        // Seven never passed under pith; the last one passed at generation 3.
        let judged: Vec<Judged> = (0..8)
            .map(|f| Judged {
                run: 0,
                failure: f,
                pass: (f == 7).then_some(3),
                scored: vec![hunk(1), hunk(9)],
            })
            .collect();
        let memo = HashMap::from([(
            Some(3),
            Some(changed(&[("pkg/money.py", ChangeKind::Modified)])),
        )]);
        let asked = std::cell::RefCell::new(Vec::new());
        let tracer = |_: usize, tests: &[String], _: &[String]| {
            asked.borrow_mut().extend(tests.iter().cloned());
            None
        };
        assert!(traced_lines(&report, &judged, &memo, crate::Trace::Auto, &tracer).is_none());
        let asked = asked.into_inner();
        assert_eq!(asked.len(), TESTS_TRACED);
        assert_eq!(asked[0], "tests/test_x.py::test_7");
    }

    #[test]
    fn the_trace_switch_forbids_or_forces_the_re_run() {
        let mut run = pith_model::Run::new("pytest");
        run.failures.push(pith_model::Failure {
            test: "tests/test_x.py::test_a".into(),
            ..Default::default()
        });
        let report = Report {
            runs: vec![run],
            ..Report::default()
        };
        let memo = HashMap::from([(
            Some(3),
            Some(changed(&[("pkg/money.py", ChangeKind::Modified)])),
        )]);
        let judged = |hunks: &[u32]| -> Vec<Judged> {
            vec![Judged {
                run: 0,
                failure: 0,
                pass: Some(3),
                scored: hunks
                    .iter()
                    .map(|l| (("pkg/money.py".to_owned(), *l), Score::default()))
                    .collect(),
            }]
        };
        let calls = |hunks: &[u32], mode| {
            let n = std::cell::Cell::new(0);
            let tracer = |_: usize, _: &[String], _: &[String]| {
                n.set(n.get() + 1);
                None
            };
            traced_lines(&report, &judged(hunks), &memo, mode, &tracer);
            n.get()
        };
        // One hunk: the static reach names it, and only `always` re-runs.
        assert_eq!(calls(&[1], crate::Trace::Auto), 0);
        assert_eq!(calls(&[1], crate::Trace::Always), 1);
        // Two hunks leave a choice: `auto` re-runs, `never` does not.
        assert_eq!(calls(&[1, 9], crate::Trace::Auto), 1);
        assert_eq!(calls(&[1, 9], crate::Trace::Never), 0);
    }

    #[test]
    fn an_untraced_failure_of_a_traced_run_names_only_a_line_a_frame_is_on() {
        let at = |l: u32, hit: bool, score: u32| (("m.py".to_owned(), l), Score { hit, score });
        let guessed = [at(3, false, 40), at(9, false, 20)];
        assert_eq!(own_suspect(&guessed, true), Some((&"m.py".to_owned(), &3)));
        assert_eq!(own_suspect(&guessed, false), None);
        let framed = [at(3, false, 40), at(9, true, 90)];
        assert_eq!(own_suspect(&framed, false), Some((&"m.py".to_owned(), &9)));
    }

    /// What the run traced in itself is taken as it is: no second start for a test it covers,
    /// one for a test whose changes reach past the files it traced; nothing under `never`.
    #[test]
    fn a_run_that_traced_itself_needs_no_second_start_for_what_it_covered() {
        let test = "tests/test_x.py::test_a";
        let mut run = pith_model::Run::new("pytest");
        run.failures.push(pith_model::Failure {
            test: test.into(),
            ..Default::default()
        });
        let mut own = Traced::default();
        own.files.insert("pkg/money.py".into());
        own.tests.insert(
            test.into(),
            [("pkg/money.py".to_owned(), [2].into())].into(),
        );
        run.traced = Some(own);
        let report = Report {
            runs: vec![run],
            ..Report::default()
        };
        let judged = vec![Judged {
            run: 0,
            failure: 0,
            pass: Some(3),
            scored: vec![
                (("pkg/money.py".to_owned(), 1), Score::default()),
                (("pkg/money.py".to_owned(), 9), Score::default()),
            ],
        }];
        let outcome = |files: &[(&str, ChangeKind)], mode| {
            let memo = HashMap::from([(Some(3), Some(changed(files)))]);
            let n = std::cell::Cell::new(0);
            let tracer = |_: usize, _: &[String], _: &[String]| {
                n.set(n.get() + 1);
                None
            };
            let traced = traced_lines(&report, &judged, &memo, mode, &tracer);
            (n.get(), traced.is_some_and(|t| t.tests.contains_key(test)))
        };
        let money = [("pkg/money.py", ChangeKind::Modified)];
        assert_eq!(outcome(&money, crate::Trace::Auto), (0, true));
        assert_eq!(outcome(&money, crate::Trace::Always), (0, true));
        assert_eq!(outcome(&money, crate::Trace::Never), (0, false));
        // Its last pass is older than what the run traced: the rest is traced again.
        let more = [
            ("pkg/money.py", ChangeKind::Modified),
            ("pkg/cart.py", ChangeKind::Modified),
        ];
        assert_eq!(outcome(&more, crate::Trace::Always), (1, true));
    }

    #[test]
    fn the_graph_kept_for_a_generation_is_never_an_older_one() {
        let ws = workspace();
        let mut store = Store::open(ws.path()).unwrap();
        let first = store.scan().unwrap();
        let g = graph_of(&store, ws.path()).unwrap();
        assert_eq!(g.tests_of("pkg/other.py").len(), 1);
        assert!(store.cached_graph(GRAPH_KEY, first).unwrap().is_some());
        // A new test importing the module: a new generation, and the graph says so.
        std::fs::write(
            ws.path().join("tests/test_more.py"),
            "from pkg.other import X\n",
        )
        .unwrap();
        let second = store.scan().unwrap();
        assert!(second > first);
        let tests: Vec<String> = graph_of(&store, ws.path())
            .unwrap()
            .tests_of("pkg/other.py")
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert_eq!(tests, ["tests/test_more.py", "tests/test_other.py"]);
        // What was kept for this generation is what answers, until something changes.
        let none = Graph::build(&ws.path().join("data")).unwrap();
        store
            .cache_graph(GRAPH_KEY, second, &none.to_bytes())
            .unwrap();
        assert!(graph_of(&store, ws.path())
            .unwrap()
            .tests_of("pkg/other.py")
            .is_empty());
        // Damaged bytes are not a graph: it is built again.
        store.cache_graph(GRAPH_KEY, second, b"junk").unwrap();
        assert_eq!(
            graph_of(&store, ws.path())
                .unwrap()
                .tests_of("pkg/other.py")
                .len(),
            2
        );
    }

    fn changed(paths: &[(&str, ChangeKind)]) -> Changes {
        Changes {
            baseline: pith_store::Baseline::Run { generation: 1 },
            files: paths
                .iter()
                .map(|(p, k)| FileChange {
                    path: (*p).into(),
                    kind: k.clone(),
                    hunks: vec![Hunk { start: 1, end: 1 }],
                })
                .collect(),
        }
    }

    #[test]
    fn comment_and_blank_lines_are_no_suspects() {
        let ws = tempfile::tempdir().unwrap();
        let py = "import x\n\n# a note\n\n\ndef f():\n    # why\n    return 1\n";
        std::fs::write(ws.path().join("m.py"), py).unwrap();
        let c = "/**\n * doc\n */\nint f(int *p) {\n  *p = 1; // set\n  return 0;\n}\n";
        std::fs::write(ws.path().join("m.c"), c).unwrap();
        std::fs::write(ws.path().join("notes.txt"), "# not code\n").unwrap();
        let file = |path: &str, hunks: &[(u32, u32)]| FileChange {
            path: path.into(),
            kind: ChangeKind::Modified,
            hunks: hunks
                .iter()
                .map(|&(start, end)| Hunk { start, end })
                .collect(),
        };
        let changes = Changes {
            baseline: pith_store::Baseline::Run { generation: 1 },
            files: vec![
                file("m.py", &[(2, 2), (2, 4), (3, 3), (3, 7), (9, 9)]),
                file("m.c", &[(1, 3), (2, 5)]),
                file("notes.txt", &[(1, 1)]),
            ],
        };
        let kept: Vec<(String, Vec<(u32, u32)>)> = code_only(ws.path(), changes)
            .files
            .into_iter()
            .map(|f| (f.path, f.hunks.iter().map(|h| (h.start, h.end)).collect()))
            .collect();
        assert_eq!(
            kept,
            [
                // One blank line (where a deleted line was): kept; blank and comment lines
                // otherwise: gone; a mixed hunk narrowed to its code; a line past the end (a
                // deletion's neighbour) kept.
                ("m.py".to_owned(), vec![(2, 2), (6, 6), (9, 9)]),
                // A dereference is code, a doc comment's lines are not.
                ("m.c".to_owned(), vec![(4, 5)]),
                ("notes.txt".to_owned(), vec![(1, 1)]),
            ]
        );
    }

    /// What tracing says of each changed hunk: executed, executed by the import before the
    /// trace (for a test that reaches the file), not executed, or not traced at all.
    #[test]
    fn a_trace_keeps_executed_and_imported_hunks_and_the_graphs_word_where_it_did_not_look() {
        let hunk = |path: &str, start: u32, end: u32| FileChange {
            path: path.into(),
            kind: ChangeKind::Modified,
            hunks: vec![Hunk { start, end }],
        };
        let changes = Changes {
            baseline: pith_store::Baseline::Run { generation: 1 },
            files: vec![
                hunk("ran.py", 5, 6),
                hunk("idle.py", 3, 3),
                hunk("consts.py", 2, 2),
                hunk("far.py", 2, 2),
                hunk("unseen.py", 9, 9),
                // A deleted line (the blank line after it) and a code line nobody ran.
                hunk("gone.py", 3, 3),
                hunk("gone.py", 6, 6),
            ],
        };
        let statically = |f: &str, l: u32| {
            (
                (f.to_owned(), l),
                Score {
                    hit: false,
                    score: 10,
                },
            )
        };
        // The graph: the test reaches every file but far.py.
        let scored = vec![
            statically("ran.py", 5),
            statically("idle.py", 3),
            statically("consts.py", 2),
            statically("unseen.py", 9),
            statically("gone.py", 3),
            statically("gone.py", 6),
        ];
        let mut lines = pith_model::impact::Lines::new();
        lines.insert("ran.py".into(), [6].into());
        let mut trace = Traced::default();
        for f in ["ran.py", "idle.py", "consts.py", "far.py", "gone.py"] {
            trace.files.insert(f.into());
        }
        trace.imported.insert("consts.py".into(), [1, 2].into());
        trace.imported.insert("far.py".into(), [2].into());
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(
            ws.path().join("gone.py"),
            "def f(x):\n    y = x\n\n\ndef g():\n    pass\n",
        )
        .unwrap();
        let mut kept: Vec<(String, u32)> =
            retrace(ws.path(), scored, &lines, &trace, Some(&changes))
                .into_iter()
                .map(|(k, _)| k)
                .collect();
        kept.sort();
        assert_eq!(
            kept,
            [
                ("consts.py".to_owned(), 2),
                ("gone.py".to_owned(), 3),
                ("ran.py".to_owned(), 6),
                ("unseen.py".to_owned(), 9)
            ]
        );
    }

    #[test]
    fn a_change_selects_the_tests_that_reach_it_and_those_with_dynamic_imports() {
        let ws = workspace();
        let g = Graph::build(ws.path()).unwrap();
        let sel = selection_of(
            &g,
            &changed(&[("pkg/money.py", ChangeKind::Modified)]),
            Baseline::LastGreen,
        );
        assert_eq!(sel.all, None);
        assert_eq!(sel.baseline, Some(Baseline::LastGreen));
        assert_eq!(
            sel.tests,
            [
                "tests/test_money.py",
                "tests/test_cart.py",
                "tests/test_plugins.py"
            ]
        );
        assert_eq!(sel.suite, 5, "four test modules and the Rust crate's tests");
    }

    /// Once a run saw what the dynamic test loads, it goes with those loads like any import;
    /// a new file may be one it would load (a plugin directory it lists), so an addition still
    /// selects it.
    #[test]
    fn a_dynamic_test_a_run_observed_is_selected_by_what_it_loads() {
        let ws = workspace();
        std::fs::write(ws.path().join("pkg/new.py"), "Y = 2\n").unwrap();
        let mut g = Graph::build(ws.path()).unwrap();
        let mut loads = BTreeMap::new();
        loads.insert(
            "tests/test_plugins.py".to_owned(),
            vec!["pkg/other.py".to_owned()],
        );
        g.observe(&loads);
        let select = |changes: &[(&str, ChangeKind)]| {
            selection_of(&g, &changed(changes), Baseline::LastGreen).tests
        };
        assert_eq!(
            select(&[("pkg/money.py", ChangeKind::Modified)]),
            ["tests/test_money.py", "tests/test_cart.py"]
        );
        assert_eq!(
            select(&[("pkg/other.py", ChangeKind::Modified)]),
            ["tests/test_other.py", "tests/test_plugins.py"]
        );
        assert_eq!(
            select(&[
                ("pkg/new.py", ChangeKind::Added),
                ("pkg/money.py", ChangeKind::Modified)
            ])
            .last()
            .map(String::as_str),
            Some("tests/test_plugins.py")
        );
    }

    #[test]
    fn what_the_graph_cannot_follow_selects_everything_with_the_reason() {
        let ws = workspace();
        let g = Graph::build(ws.path()).unwrap();
        for (path, kind, why) in [
            ("data/prices.json", ChangeKind::Modified, "not source"),
            ("tests/conftest.py", ChangeKind::Modified, "configuration"),
            ("rs/build.rs", ChangeKind::Modified, "configuration"),
            ("pkg/gone.py", ChangeKind::Deleted, "deleted"),
            (
                "pkg/new.py",
                ChangeKind::Renamed {
                    from: "pkg/old.py".into(),
                },
                "renamed",
            ),
        ] {
            let sel = selection_of(&g, &changed(&[(path, kind)]), Baseline::LastGreen);
            let all = sel
                .all
                .unwrap_or_else(|| panic!("{path} selected {:?}", sel.tests));
            assert!(all.contains(why), "{path}: {all}");
            assert!(sel.tests.is_empty());
        }
        let nothing = Changes {
            baseline: pith_store::Baseline::None,
            files: Vec::new(),
        };
        let sel = selection_of(&g, &nothing, Baseline::LastGreen);
        assert!(sel.all.unwrap().contains("nothing to compare with"));
    }

    /// An adapter that selects by file when its name says so, like pytest does.
    struct Fake {
        name: &'static str,
        by_file: bool,
    }

    impl pith_runner::Adapter for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn claims(&self, _: &str) -> bool {
            true
        }
        fn run(
            &self,
            _: &pith_runner::Context<'_>,
            _: &[String],
        ) -> Result<pith_model::Run, pith_runner::RunnerError> {
            unreachable!("planning runs nothing")
        }
        fn ids_for_files(&self, _: Option<&str>, files: &[String]) -> Option<Vec<String>> {
            self.by_file.then(|| {
                files
                    .iter()
                    .filter(|f| f.ends_with(".py"))
                    .cloned()
                    .collect()
            })
        }
    }

    #[test]
    fn each_test_file_goes_to_its_project_and_a_runner_without_file_selection_runs_whole() {
        let project = |rel: Option<&str>, name, by_file| crate::detect::Found {
            dir: PathBuf::from("/ws").join(rel.unwrap_or("")),
            rel: rel.map(Into::into),
            adapter: Box::new(Fake { name, by_file }),
        };
        let found = [
            project(None, "pytest", true),
            project(Some("rs"), "cargo", false),
            project(Some("other"), "cargo", false),
        ];
        let tests: Vec<String> = ["tests/test_a.py", "rs/tests/api.rs", "tests/test_b.py"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            route_files(&tests, &found),
            [
                (
                    0,
                    vec!["tests/test_a.py".to_owned(), "tests/test_b.py".to_owned()]
                ),
                (1, Vec::new()),
            ]
        );
    }

    #[test]
    fn a_bazel_workspace_that_cannot_say_which_targets_runs_whole_for_any_language() {
        // Bazel builds tests of every language: a C++ test file it cannot map to a target
        // (no Bazel to ask, a BUILD file that does not load) runs the workspace, never
        // nothing.
        let root_project = |name| crate::detect::Found {
            dir: PathBuf::from("/ws"),
            rel: None,
            adapter: Box::new(Fake {
                name,
                by_file: false,
            }),
        };
        let tests = vec!["tests/calc_test.cc".to_owned()];
        assert_eq!(
            route_files(&tests, &[root_project("bazel")]),
            [(0, Vec::new())]
        );
        // A runner of one language still leaves what is not its own.
        assert!(route_files(&tests, &[root_project("cargo")]).is_empty());
    }
}
