//! Plain `cargo test --message-format json`: cargo's JSON messages and its `Running` /
//! `Doc-tests` lines, then each test binary's libtest output, read as one stream in the order
//! it was written (stderr on stdout's pipe) and line by line, never kept whole. cargo
//! announces each binary before it starts it, so what follows is that binary's until the next
//! announcement ([`libtest::Stream`]), however its tests' children and direct writes mix their
//! own runner-like lines into it (see `libtest`'s module doc). One test binary is one process,
//! so a crash or a hang takes its unreported tests with it; those are named by asking the
//! binary itself (`--list --format terse`).
//!
//! A `harness = false` binary prints no libtest block (or one of its own making, first thing):
//! such a binary counts as one test named by its binary id (`pkg::NAME`), failed when cargo
//! says it exited non-zero, with its own output as the message and tail. Any binary that
//! exited non-zero without a failing test to show for it is a failure of its own: cargo's exit
//! is evidence.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::{Exit, ExitMeaning, Failure, Run, Status};

use super::command::TestId;
use super::libtest::{self, Announced, Failed, Known, Outcome, Segment};
use super::{diag, TargetKind};
use crate::process::{Captured, End};
use crate::{text, verdict, Context, RunnerError};

/// How long listing a test binary's tests may take after a crash or the deadline.
const LIST_TIMEOUT: Duration = Duration::from_secs(10);

/// cargo's exit codes: 0 when every test binary passed, 101 for a failed test binary or build
/// (cargo's error code), 1 for a command line clap rejected.
pub(super) fn exit_of(code: i32) -> Exit {
    let meaning = match code {
        0 => ExitMeaning::Passed,
        101 => ExitMeaning::Failed,
        1 => ExitMeaning::UsageError,
        _ => ExitMeaning::Other,
    };
    Exit::new(code, meaning)
}

/// What one `cargo test` runs.
#[derive(Clone, Copy)]
enum Scope<'a> {
    /// What `cargo test` runs in the project's directory.
    Workspace,
    /// Every doctest of those packages.
    Doc,
    /// Tests of one binary (or the whole binary, for an id naming only it).
    Group(&'a [TestId]),
}

pub(super) fn run(
    ctx: &Context<'_>,
    cargo: &Path,
    selection: Option<&[TestId]>,
) -> Result<(Run, Vec<diag::Artifact>), RunnerError> {
    let mut run = Run::new("cargo");
    run.lacks = Some("isolation".to_owned());
    let Some(ids) = selection else {
        let (part, artifacts) = invoke(ctx, cargo, Scope::Workspace)?;
        run.absorb(part);
        return Ok((run, artifacts));
    };
    // One cargo invocation per binary.
    type Target = (String, Vec<String>);
    let mut groups: Vec<(Target, Vec<TestId>)> = Vec::new();
    for id in ids {
        let target = id.target();
        match groups.iter_mut().find(|(t, _)| *t == target) {
            Some((_, g)) => g.push(id.clone()),
            None => groups.push((target, vec![id.clone()])),
        }
    }
    let mut artifacts = Vec::new();
    let mut unrun: Vec<String> = Vec::new();
    for (_, group) in &groups {
        if Instant::now() >= ctx.deadline || run.status == Some(Status::TimedOut) {
            // Never started: said, not dropped.
            unrun.extend(group.iter().map(|id| id.full.clone()));
            continue;
        }
        let (part, arts) = invoke(ctx, cargo, Scope::Group(group))?;
        super::absorb_keeping_tails(&mut run, part);
        artifacts.extend(arts);
    }
    if !unrun.is_empty() {
        run.status = Some(
            run.status
                .map_or(Status::TimedOut, |s| s.max(Status::TimedOut)),
        );
        run.running.extend(unrun);
    }
    Ok((run, artifacts))
}

/// Every doctest of the packages `cargo test` runs (`cargo test --doc`): what nextest never
/// runs.
pub(super) fn run_doc(ctx: &Context<'_>, cargo: &Path) -> Result<Run, RunnerError> {
    let (mut run, _) = invoke(ctx, cargo, Scope::Doc)?;
    // Only doctests ran this way; the answer's other tests kept their isolation.
    run.lacks = None;
    Ok(run)
}

/// One `cargo test`: its run and the artifacts cargo announced.
fn invoke(
    ctx: &Context<'_>,
    cargo: &Path,
    scope: Scope<'_>,
) -> Result<(Run, Vec<diag::Artifact>), RunnerError> {
    let mut cmd = super::command::command(cargo, ctx);
    cmd.arg("test").args(super::command::CARGO_CONFIG);
    // No `--workspace`: what `cargo test` runs from the project's directory is the contract
    // (a virtual manifest's `default-members`, else every member; a root package alone unless
    // `default-members` says more). A member the project keeps out of it is not run.
    let group = match scope {
        Scope::Workspace => None,
        Scope::Doc => {
            cmd.arg("--doc");
            None
        }
        Scope::Group(g) => {
            if let Some(first) = g.first() {
                let (pkg, target) = first.target();
                cmd.arg("-p").arg(pkg).args(target);
            }
            Some(g)
        }
    };
    // What pith adds: its reading (`--message-format json`, no colour) and `--no-fail-fast`,
    // which never turns a verdict — `cargo test` stops after the first test binary that fails,
    // red either way; pith runs the others too, so the answer shows every failure, not the
    // first binary's (the failing ids of `cargo test` by hand are a part of pith's).
    cmd.args([
        "--no-fail-fast",
        "--message-format",
        "json",
        "--color",
        "never",
    ]);
    // A whole binary runs as cargo runs it, without arguments (a harness-less binary would take
    // them for its own).
    if let Some(g) = group.filter(|g| !g.iter().any(TestId::is_whole)) {
        cmd.arg("--");
        // libtest's `--exact` never matches a doctest (observed with Rust 1.95): doctests are
        // filtered by substring, and results not asked for are dropped below.
        if !g.first().is_some_and(TestId::is_doc) {
            cmd.arg("--exact");
        }
        cmd.args(g.iter().map(|id| &id.test));
    }
    let mut msgs = diag::Messages::default();
    let mut stream = libtest::Stream::new();
    let customs: std::cell::OnceCell<HashSet<String>> = std::cell::OnceCell::new();
    let cap = match super::command::spawn_merged(cmd, ctx, cargo, &mut |line: &[u8]| {
        let line = String::from_utf8_lossy(line);
        // cargo's messages end with the build; a JSON line after it is a test's.
        if msgs.build_success.is_none() && msgs.line(&line) {
            return;
        }
        // What `cargo test` prints for a person; the messages' rendered text is in
        // `msgs.printed`.
        msgs.printed.line(&line);
        let arts = &msgs.artifacts;
        stream.line(&line, &|who| {
            let customs = customs.get_or_init(|| super::detect::harness_free(arts));
            known(ctx, arts, customs, who)
        });
    })? {
        Ok(c) => c,
        Err(()) => return Ok((super::command::cargo_missing("cargo"), Vec::new())),
    };
    let (segments, rest) = stream.finish();
    let mut run = judge(ctx, &cap, &msgs, segments, &rest, group);
    run.duration = cap.elapsed;
    run.printed = std::mem::take(&mut msgs.printed);
    run.printed.append(cap.printed());
    Ok((run, msgs.artifacts))
}

/// Whether cargo announced a binary it built for this run (a test's child cargo announces
/// its own), and whether that binary has libtest's harness.
fn known(
    ctx: &Context<'_>,
    artifacts: &[diag::Artifact],
    customs: &HashSet<String>,
    who: &Announced,
) -> Known {
    if artifacts.is_empty() {
        // No message told what was built (should not happen): every announcement counts.
        return Known::Libtest;
    }
    let bin = resolve(ctx, Some(who), artifacts);
    if bin.pkg_dir.is_none() {
        Known::Foreign
    } else if customs.contains(&bin.id) {
        Known::Custom
    } else {
        Known::Libtest
    }
}

/// Which binary a block came from.
struct Binary {
    id: String,
    pkg_dir: Option<PathBuf>,
    exe: Option<PathBuf>,
}

fn resolve(ctx: &Context<'_>, who: Option<&Announced>, artifacts: &[diag::Artifact]) -> Binary {
    match who {
        Some(Announced::Exe(path)) => {
            let name = Path::new(path).file_name();
            let art = artifacts.iter().find(|a| {
                a.executable.as_deref().and_then(Path::file_name) == name && name.is_some()
            });
            match art {
                Some(a) => Binary {
                    id: a.binary_id.clone(),
                    pkg_dir: Some(a.package_dir.clone()),
                    exe: a.executable.clone(),
                },
                None => {
                    // Unknown to the JSON stream (should not happen): the file stem, unhashed.
                    let stem = name
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let id = stem
                        .rsplit_once('-')
                        .map_or(stem.as_str(), |(s, _)| s)
                        .to_owned();
                    Binary {
                        id: if id.is_empty() { "?".into() } else { id },
                        pkg_dir: None,
                        // cargo shows it relative to where it ran.
                        exe: Some(ctx.dir.join(path)),
                    }
                }
            }
        }
        Some(Announced::Doc(krate)) => {
            let norm = |s: &str| s.replace('-', "_");
            let art = artifacts
                .iter()
                .find(|a| a.kind == TargetKind::Lib && norm(&a.target) == norm(krate));
            Binary {
                id: format!(
                    "{}::doc",
                    art.map_or(krate.as_str(), |a| a.package.as_str())
                ),
                pkg_dir: art.map(|a| a.package_dir.clone()),
                exe: None,
            }
        }
        None => Binary {
            id: "?".into(),
            pkg_dir: None,
            exe: None,
        },
    }
}

/// One `cargo test` as the judge reads it: the binaries cargo announced, in the order it ran
/// them, each with what it printed, and what was asked for.
struct Plain<'a> {
    ctx: &'a Context<'a>,
    group: Option<&'a [TestId]>,
    segments: Vec<Segment>,
    bins: Vec<Binary>,
    /// The requested test names, for asking a binary which of them it has.
    names: Option<Vec<String>>,
    /// pith stopped cargo (its deadline, a cancel).
    killed: bool,
}

/// What the binaries said so far.
struct Tally {
    run: Run,
    /// Binaries that never started (after a timeout) are not counted: unknown, not zero.
    selected: u32,
    reported: HashSet<String>,
    crashed: bool,
    signaled: bool,
    tails: Vec<String>,
}

fn judge(
    ctx: &Context<'_>,
    cap: &Captured,
    msgs: &diag::Messages,
    segments: Vec<Segment>,
    rest: &str,
    group: Option<&[TestId]>,
) -> Run {
    let mut run = Run::new("cargo");
    run.lacks = Some("isolation".to_owned());
    run.exit = cap.end.code().map(exit_of);
    let bins: Vec<Binary> = segments
        .iter()
        .map(|s| resolve(ctx, s.who.as_ref(), &msgs.artifacts))
        .collect();
    let mut plain = Plain {
        ctx,
        group,
        segments,
        bins,
        names: group.map(|g| g.iter().map(|id| id.test.clone()).collect()),
        killed: matches!(cap.end, End::TimedOut | End::Cancelled),
    };
    let mut t = Tally {
        run,
        selected: 0,
        reported: HashSet::new(),
        crashed: false,
        signaled: false,
        tails: Vec::new(),
    };
    for i in 0..plain.segments.len() {
        plain.binary(i, &mut t);
    }
    t.run.selected = Some(t.selected);
    plain.ending(cap, msgs, rest, t)
}

impl Plain<'_> {
    /// Asked for: the test, or its whole binary.
    fn wanted(&self, bin: &str, id: &str) -> bool {
        self.group.is_none_or(|g| {
            g.iter()
                .any(|r| r.full == id || (r.is_whole() && r.binary == bin))
        })
    }

    /// Whether `i` is the binary cargo announced last (the one running when pith stopped it).
    fn is_last(&self, i: usize) -> bool {
        i + 1 == self.segments.len()
    }

    /// The tests binary `i` has (those asked for, with a selection), asked of the binary;
    /// `None` when it cannot be asked (a doctest) or did not answer.
    fn listed(&self, i: usize) -> Option<Vec<String>> {
        let bin = &self.bins[i];
        let exe = bin.exe.as_deref()?;
        list(self.ctx, exe, bin.pkg_dir.as_deref(), self.names.as_deref())
    }

    /// Binary `i`: its libtest block, else the binary as one test.
    fn binary(&mut self, i: usize, t: &mut Tally) {
        let id = self.bins[i].id.clone();
        if let Some(Failed::Signal(sig)) = &self.segments[i].failed {
            t.signaled = true;
            t.tails.push(format!("{id}: {sig}"));
        }
        match self.segments[i].block.take() {
            Some(block) => self.block(i, block, t),
            None if self.segments[i].who.is_some() => self.blockless(i, t),
            None => {}
        }
    }

    /// A binary without a libtest block: one test, named by its binary id.
    fn blockless(&self, i: usize, t: &mut Tally) {
        let (seg, bin) = (&self.segments[i], &self.bins[i]);
        if matches!(seg.who, Some(Announced::Doc(_))) && seg.failed.is_none() {
            return;
        }
        if !self.wanted(&bin.id, &bin.id) {
            return;
        }
        if self.killed && self.is_last(i) {
            t.run.running.push(bin.id.clone());
            return;
        }
        t.selected += 1;
        t.reported.insert(bin.id.clone());
        match &seg.failed {
            None => {
                t.run.passed += 1;
                t.run
                    .outcomes
                    .push(pith_model::TestOutcome::passed(bin.id.clone(), None));
            }
            Some(how) => {
                t.run.failed += 1;
                let (f, tail) =
                    binary_failure(self.ctx, &bin.id, how, &seg.own, "", bin.pkg_dir.as_deref());
                t.run.failures.push(f);
                t.tails.extend(tail);
            }
        }
    }

    /// A binary's libtest block, its own lines settled: its tests' results, then how the
    /// binary ended.
    fn block(&self, i: usize, mut block: libtest::Block, t: &mut Tally) {
        let (seg, bin) = (&self.segments[i], &self.bins[i]);
        let mut listed: Option<Option<Vec<String>>> = None;
        let disagrees = block.settle(&mut || listed.get_or_insert_with(|| self.listed(i)).clone());
        if let (Some(why), None) = (disagrees, &t.run.reason) {
            t.run.reason = Some(format!("{}: {why}", bin.id));
        }
        t.selected += block.declared;
        for (name, outcome) in &block.results {
            let id = format!("{} {name}", bin.id);
            if !self.wanted(&bin.id, &id) {
                // Filtered by substring (doctests) but not asked for: not selected either.
                t.selected = t.selected.saturating_sub(1);
                continue;
            }
            t.reported.insert(id.clone());
            match outcome {
                Outcome::Passed => {
                    t.run.passed += 1;
                    t.run
                        .outcomes
                        .push(pith_model::TestOutcome::passed(id, None));
                }
                Outcome::Ignored => t.run.skipped += 1,
                Outcome::Failed => {
                    t.run.failed += 1;
                    let out = block.outputs.get(name).map_or("", String::as_str);
                    // Its `---- NAME stdout ----` section: what the test printed and its panic.
                    t.run
                        .test_output
                        .extend(pith_model::output::TestOutput::of_lines(
                            id.clone(),
                            out.lines(),
                        ));
                    t.run.failures.push(super::judge::failure(
                        self.ctx,
                        id,
                        out,
                        bin.pkg_dir.as_deref(),
                        None,
                    ));
                }
            }
        }
        if !block.finished {
            let listed = listed.unwrap_or_else(|| self.listed(i));
            self.unfinished(i, &block, listed.unwrap_or_default(), t);
            return;
        }
        // Every test reported and none failed, yet the binary failed: its exit is a failure of
        // its own (a harness of its own exiting non-zero, a crash after the last test).
        let any_failed = block.results.iter().any(|(_, o)| *o == Outcome::Failed);
        if let (Some(how), false) = (&seg.failed, any_failed) {
            if self.wanted(&bin.id, &bin.id) {
                let (f, tail) =
                    binary_failure(self.ctx, &bin.id, how, &seg.own, "", bin.pkg_dir.as_deref());
                t.run.failed += 1;
                t.selected += 1;
                t.run.failures.push(f);
                t.tails.extend(tail);
            }
        }
    }

    /// A block that never finished: the binary died (a signal, `process::exit`) or was killed
    /// at the deadline. Its tests that did not report (of `listed`, what the binary has) are
    /// named as running.
    fn unfinished(&self, i: usize, block: &libtest::Block, listed: Vec<String>, t: &mut Tally) {
        let (seg, bin) = (&self.segments[i], &self.bins[i]);
        let died = seg.failed.is_some();
        if self.killed && !self.is_last(i) && !died {
            return;
        }
        if !self.killed {
            t.crashed = true;
            let ended = match &seg.failed {
                None => Some("exited 0".to_owned()),
                Some(Failed::Status(c)) => Some(format!("exited {c}")),
                Some(Failed::Reported) => Some("exited 101".to_owned()),
                // The signal is in the tail.
                Some(Failed::Signal(_)) => None,
            };
            if let (Some(ended), None) = (ended, &t.run.reason) {
                let left =
                    block.declared as usize - block.results.len().min(block.declared as usize);
                t.run.reason = Some(format!(
                    "{} {ended} with {left} of its {} tests unreported",
                    bin.id, block.declared
                ));
            }
        }
        for name in listed {
            if !block.reported(&name) {
                t.run.running.push(format!("{} {name}", bin.id));
            }
        }
    }

    /// The run's status and tail once every binary is tallied: the deadline, a build that
    /// failed, cargo failing before any test, a crash; then the requested ids nothing reported.
    fn ending(&self, cap: &Captured, msgs: &diag::Messages, stderr: &str, t: Tally) -> Run {
        let Tally {
            mut run,
            crashed,
            signaled,
            tails,
            reported,
            ..
        } = t;
        let ctx = self.ctx;
        run.build_errors = super::judge::build_errors(ctx, &msgs.errors);
        let build_failed = !run.build_errors.is_empty() || msgs.build_success == Some(false);
        let failed_exit = !matches!(cap.end, End::Exited(0));
        let stderr_tail = || super::judge::tail_of(ctx, stderr);
        if self.killed {
            verdict::stopped(&mut run, None, stderr_tail());
        } else if build_failed {
            run.status = Some(Status::BuildFailed);
            if run.build_errors.is_empty() {
                run.tail = stderr_tail();
            }
        } else if self.segments.is_empty() && failed_exit {
            if self.group.is_some() && no_such_target(stderr) {
                // `-p` or `--test` named something this workspace does not have.
            } else {
                // No compiler message, no test: a bad manifest, a missing dependency, a
                // failing build script. cargo's own words say which.
                run.status = Some(Status::BuildFailed);
                run.tail = stderr_tail();
            }
        } else if crashed || signaled || matches!(cap.end, End::Signaled(_)) {
            verdict::crashed(&mut run, None, stderr_tail());
        } else if !tails.is_empty() {
            run.tail = super::judge::tail_of(ctx, &tails.join("\n"));
        }
        if let Some(g) = self.group {
            if !self.killed && !build_failed && run.status != Some(Status::BuildFailed) {
                run.not_found = g
                    .iter()
                    .filter(|id| !reported.contains(&id.full) && !run.running.contains(&id.full))
                    .map(|id| id.full.clone())
                    .collect();
            }
        }
        let unexplained = run.failures.is_empty()
            && run.build_errors.is_empty()
            && run.running.is_empty()
            && run.not_found.is_empty();
        if run.tail.is_none() && failed_exit && unexplained {
            // A non-zero exit nothing above explains: cargo's own last words.
            run.tail = stderr_tail();
        }
        run
    }
}

/// A binary that failed as a whole: its own output says why (a panic in its `main`, its last
/// words on stderr), else how it ended. Also the tail that shows its output.
fn binary_failure(
    ctx: &Context<'_>,
    id: &str,
    how: &Failed,
    stderr: &str,
    stdout: &str,
    pkg_dir: Option<&Path>,
) -> (Failure, Option<String>) {
    let ended = match how {
        Failed::Reported => "exit status 101".to_owned(),
        Failed::Status(c) => format!("exit status {c}"),
        Failed::Signal(s) => s.clone(),
    };
    let all = format!("{stderr}\n{stdout}");
    let tail = super::judge::tail_of(ctx, &format!("{stdout}\n{stderr}\n{id}: {ended}"));
    if super::panic::parse(&all).is_some() {
        let mut f = super::judge::failure(ctx, id.to_owned(), &all, pkg_dir, None);
        if let Failed::Signal(s) = how {
            f.kind = Some(s.clone());
        }
        return (f, tail);
    }
    let last = |s: &str| {
        s.lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("[… "))
            .map(|l| text::cut_chars(&ctx.paths.scrub(l), text::MESSAGE_CHARS).into_owned())
    };
    let message = last(stderr)
        .or_else(|| last(stdout))
        .unwrap_or_else(|| ended.clone());
    let f = Failure {
        test: id.to_owned(),
        message,
        kind: Some(match how {
            Failed::Signal(s) => s.clone(),
            _ => ended,
        }),
        ..Failure::default()
    };
    (f, tail)
}

fn no_such_target(stderr: &str) -> bool {
    stderr.lines().any(|l| {
        l.contains("did not match any packages")
            || l.contains(" target named `")
            || l.contains("no library targets found")
    })
}

/// The tests a binary has (those in `names` only, when given), asked of the binary itself
/// with its package directory as cwd, as cargo runs it; `None` when it did not answer.
fn list(
    ctx: &Context<'_>,
    exe: &Path,
    pkg_dir: Option<&Path>,
    names: Option<&[String]>,
) -> Option<Vec<String>> {
    let mut cmd = crate::base_command(exe, pkg_dir.unwrap_or(ctx.dir));
    cmd.args(["--list", "--format", "terse"]);
    if let Some(n) = names {
        cmd.arg("--exact").args(n);
    }
    let mut found = Vec::new();
    let ended = crate::process::run_lines(cmd, Instant::now() + LIST_TIMEOUT, None, &mut |l| {
        found.extend(libtest::list(&String::from_utf8_lossy(l)));
    });
    match ended {
        Ok(c) if c.success() => Some(found),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_exit_codes() {
        assert_eq!(exit_of(0).meaning, ExitMeaning::Passed);
        assert_eq!(exit_of(101).meaning, ExitMeaning::Failed);
        assert_eq!(exit_of(1).meaning, ExitMeaning::UsageError);
        assert_eq!(exit_of(3).meaning, ExitMeaning::Other);
    }
}
