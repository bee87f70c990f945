//! Plain `cargo test --message-format json`: cargo's JSON messages on stdout interleaved with
//! libtest's human output, and cargo's `Running`/`Doc-tests` lines on stderr naming each
//! binary in the order it ran, with how it failed. stdout is read line by line, never kept
//! whole. One test binary is one process, so a crash or a hang takes its unreported tests with
//! it; those are named by asking the binary itself (`--list --format terse`).
//!
//! A `harness = false` binary prints no libtest block (or one of its own making), so blocks
//! are matched to the binaries cargo announced knowing which binaries may print none (see
//! [`align`]); such a binary counts as one test named by its binary id (`pkg::NAME`), failed
//! when cargo says it exited non-zero, with its own output as the message and tail. Any
//! binary that exited non-zero without a failing test to show for it is a failure of its own:
//! cargo's exit is evidence.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::{Exit, ExitMeaning, Failure, Run, Status};

use super::command::TestId;
use super::libtest::{self, Announced, Failed, Outcome, Ran};
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
    let mut parser = libtest::Parser::new();
    let cap = match super::command::spawn_lines(cmd, ctx, cargo, &mut |line: &[u8]| {
        let line = String::from_utf8_lossy(line);
        if !msgs.line(&line) {
            // libtest's own output, as `cargo test` prints it; cargo's messages are JSON,
            // their rendered text is in `msgs.printed`.
            msgs.printed.line(&line);
            parser.line(&line);
        }
    })? {
        Ok(c) => c,
        Err(()) => return Ok((super::command::cargo_missing("cargo"), Vec::new())),
    };
    let out = parser.finish();
    let customs = super::detect::harness_free(&msgs.artifacts);
    let mut run = judge(ctx, &cap, &msgs, &out, group, &customs);
    run.duration = cap.elapsed;
    run.printed = std::mem::take(&mut msgs.printed);
    run.printed.append(cap.printed());
    Ok((run, msgs.artifacts))
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

/// Which block each binary printed (`None`: none). cargo runs every test executable, then
/// every crate's doctests, and rustdoc always prints a block, so the last blocks are the
/// doctests'. Among executables, one printed no block only if it has no libtest harness or
/// died before its first line: when there are fewer blocks than executables, that many are
/// taken as blockless, `harness = false` ones first (those that failed as no libtest binary
/// does first), then others that failed, then the last ones.
fn align(ran: &[Ran], custom: &[bool], blocks: usize) -> Vec<Option<usize>> {
    let docs: Vec<usize> = (0..ran.len())
        .filter(|&i| matches!(ran[i].who, Announced::Doc(_)))
        .collect();
    let exes: Vec<usize> = (0..ran.len())
        .filter(|&i| matches!(ran[i].who, Announced::Exe(_)))
        .collect();
    let mut slot = vec![None; ran.len()];
    let doc_blocks = docs.len().min(blocks);
    let exe_blocks = blocks - doc_blocks;
    for (j, &i) in docs.iter().rev().take(doc_blocks).enumerate() {
        slot[i] = Some(blocks - 1 - j);
    }
    let missing = exes.len().saturating_sub(exe_blocks);
    let rank = |i: usize| -> u8 {
        let not_libtest = matches!(ran[i].failed, Some(Failed::Status(c)) if c != 101);
        match (custom[i], not_libtest, ran[i].failed.is_some()) {
            (true, true, _) => 0,
            (true, false, _) => 1,
            (false, true, _) => 2,
            (false, false, true) => 3,
            (false, false, false) => 4,
        }
    };
    // Within a rank the first ones, but among binaries that did not fail the last ones: a run
    // cut short never reached them.
    let mut order: Vec<(u8, isize, usize)> = exes
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let r = rank(i);
            (r, if r == 4 { -(k as isize) } else { k as isize }, i)
        })
        .collect();
    order.sort_unstable();
    let blockless: HashSet<usize> = order.iter().take(missing).map(|&(.., i)| i).collect();
    let mut next = 0;
    for &i in &exes {
        if blockless.contains(&i) || next >= exe_blocks {
            continue;
        }
        slot[i] = Some(next);
        next += 1;
    }
    slot
}

/// One `cargo test` as the judge reads it: the binaries cargo announced, in the order it ran
/// them, each with the libtest block it printed (if any), and what was asked for.
struct Plain<'a> {
    ctx: &'a Context<'a>,
    out: &'a libtest::Output,
    group: Option<&'a [TestId]>,
    ran: Vec<Ran>,
    bins: Vec<Binary>,
    /// The block each announced binary printed (see [`align`]).
    slots: Vec<Option<usize>>,
    /// The requested test names, for asking a dead binary which of them it has.
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
    out: &libtest::Output,
    group: Option<&[TestId]>,
    customs: &HashSet<String>,
) -> Run {
    let mut run = Run::new("cargo");
    run.lacks = Some("isolation".to_owned());
    run.exit = cap.end.code().map(exit_of);
    let stderr = cap.stderr_str();
    let ran = libtest::binaries(&stderr);
    let bins: Vec<Binary> = ran
        .iter()
        .map(|r| resolve(ctx, Some(&r.who), &msgs.artifacts))
        .collect();
    let custom: Vec<bool> = bins.iter().map(|b| customs.contains(&b.id)).collect();
    let slots = align(&ran, &custom, out.blocks.len());
    let plain = Plain {
        ctx,
        out,
        group,
        ran,
        bins,
        slots,
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
    let unknown = Binary {
        id: "?".into(),
        pkg_dir: None,
        exe: None,
    };
    for (i, slot) in plain.order() {
        let bin = i.map_or(&unknown, |i| &plain.bins[i]);
        plain.binary(i, slot, bin, &mut t);
    }
    t.run.selected = Some(t.selected);
    plain.ending(cap, msgs, &stderr, t)
}

impl Plain<'_> {
    /// Each binary in the order cargo ran it (with its block's index), then any block no
    /// announcement accounts for.
    fn order(&self) -> Vec<(Option<usize>, Option<usize>)> {
        let mut order: Vec<(Option<usize>, Option<usize>)> = (0..self.ran.len())
            .map(|i| (Some(i), self.slots[i]))
            .collect();
        for k in 0..self.out.blocks.len() {
            if !self.slots.contains(&Some(k)) {
                order.push((None, Some(k)));
            }
        }
        order
    }

    /// Asked for: the test, or its whole binary.
    fn wanted(&self, bin: &str, id: &str) -> bool {
        self.group.is_none_or(|g| {
            g.iter()
                .any(|r| r.full == id || (r.is_whole() && r.binary == bin))
        })
    }

    /// Whether `i` is the binary cargo announced last (the one running when pith stopped it).
    fn is_last(&self, i: Option<usize>) -> bool {
        i.is_some_and(|i| i + 1 == self.ran.len())
    }

    /// Binary `i` as cargo announced it (`None`: a block no announcement accounts for) with
    /// block `slot`.
    fn binary(&self, i: Option<usize>, slot: Option<usize>, bin: &Binary, t: &mut Tally) {
        let r = i.map(|i| &self.ran[i]);
        if let Some(sig) = r.and_then(|r| match &r.failed {
            Some(Failed::Signal(s)) => Some(s.clone()),
            _ => None,
        }) {
            t.signaled = true;
            t.tails.push(format!("{}: {sig}", bin.id));
        }
        match (slot, i.zip(r)) {
            (Some(k), _) => self.block(i, &self.out.blocks[k], bin, t),
            (None, Some((i, r))) => self.blockless(i, r, bin, t),
            (None, None) => {}
        }
    }

    /// A binary without a libtest block: one test, named by its binary id.
    fn blockless(&self, i: usize, r: &Ran, bin: &Binary, t: &mut Tally) {
        if matches!(r.who, Announced::Doc(_)) && r.failed.is_none() {
            return;
        }
        if !self.wanted(&bin.id, &bin.id) {
            return;
        }
        if self.killed && self.is_last(Some(i)) {
            t.run.running.push(bin.id.clone());
            return;
        }
        t.selected += 1;
        t.reported.insert(bin.id.clone());
        match &r.failed {
            None => {
                t.run.passed += 1;
                t.run
                    .outcomes
                    .push(pith_model::TestOutcome::passed(bin.id.clone(), None));
            }
            Some(how) => {
                t.run.failed += 1;
                let gap = self.stdout_of(i);
                let (f, tail) = binary_failure(
                    self.ctx,
                    &bin.id,
                    how,
                    &r.stderr,
                    gap,
                    bin.pkg_dir.as_deref(),
                );
                t.run.failures.push(f);
                t.tails.extend(tail);
            }
        }
    }

    /// What blockless binary `i` printed on stdout: it lies between two blocks, and is its
    /// own only when no other blockless binary ran in between.
    fn stdout_of(&self, i: usize) -> &str {
        let at = next_block(&self.slots, i);
        let alone = (0..self.ran.len())
            .filter(|&j| self.slots[j].is_none() && next_block(&self.slots, j) == at)
            .count()
            == 1;
        match self.out.gaps.get(at) {
            Some(g) if alone => g.as_str(),
            _ => "",
        }
    }

    /// A binary's libtest block: its tests' results, then how the binary ended.
    fn block(&self, i: Option<usize>, block: &libtest::Block, bin: &Binary, t: &mut Tally) {
        let r = i.map(|i| &self.ran[i]);
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
            self.unfinished(i, block, bin, t);
            return;
        }
        // Every test reported and none failed, yet the binary failed: its exit is a failure of
        // its own (a harness of its own exiting non-zero, a crash after the last test).
        let any_failed = block.results.iter().any(|(_, o)| *o == Outcome::Failed);
        if let (Some(r), false) = (r, any_failed) {
            if let Some(how) = &r.failed {
                if self.wanted(&bin.id, &bin.id) {
                    let (f, tail) = binary_failure(
                        self.ctx,
                        &bin.id,
                        how,
                        &r.stderr,
                        "",
                        bin.pkg_dir.as_deref(),
                    );
                    t.run.failed += 1;
                    t.selected += 1;
                    t.run.failures.push(f);
                    t.tails.extend(tail);
                }
            }
        }
    }

    /// A block that never finished: the binary died (a signal, `process::exit`) or was killed
    /// at the deadline. Its tests that did not report are asked of the binary and named as
    /// running.
    fn unfinished(&self, i: Option<usize>, block: &libtest::Block, bin: &Binary, t: &mut Tally) {
        let r = i.map(|i| &self.ran[i]);
        let died = r.is_some_and(|r| r.failed.is_some());
        if self.killed && !self.is_last(i) && !died {
            return;
        }
        if !self.killed {
            t.crashed = true;
            let ended = match r.and_then(|r| r.failed.as_ref()) {
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
        if let Some(exe) = &bin.exe {
            for name in list(self.ctx, exe, bin.pkg_dir.as_deref(), self.names.as_deref()) {
                if !block.reported(&name) {
                    t.run.running.push(format!("{} {name}", bin.id));
                }
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
        } else if self.out.blocks.is_empty() && self.ran.is_empty() && failed_exit {
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

/// The index of the first block printed after binary `i`: the gap before it holds what a
/// blockless binary `i` printed on stdout.
fn next_block(slots: &[Option<usize>], i: usize) -> usize {
    slots[..i]
        .iter()
        .flatten()
        .map(|k| k + 1)
        .max()
        .unwrap_or(0)
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
/// with its package directory as cwd, as cargo runs it.
fn list(
    ctx: &Context<'_>,
    exe: &Path,
    pkg_dir: Option<&Path>,
    names: Option<&[String]>,
) -> Vec<String> {
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
        Ok(c) if c.success() => found,
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(who: &str, failed: Option<Failed>) -> Ran {
        Ran {
            who: match who.strip_prefix("doc:") {
                Some(d) => Announced::Doc(d.into()),
                None => Announced::Exe(who.into()),
            },
            failed,
            stderr: String::new(),
        }
    }

    #[test]
    fn blocks_align_one_to_one_when_every_binary_printed_one() {
        let r = [ran("a", None), ran("b", None), ran("doc:a", None)];
        assert_eq!(align(&r, &[false; 3], 3), [Some(0), Some(1), Some(2)]);
    }

    #[test]
    fn a_harness_free_binary_printing_no_block_is_skipped() {
        // lib, custom (failed with exit 1), api, doctests: three blocks.
        let r = [
            ran("lib", None),
            ran("custom", Some(Failed::Status(1))),
            ran("api", Some(Failed::Reported)),
            ran("doc:x", None),
        ];
        let custom = [false, true, false, false];
        assert_eq!(align(&r, &custom, 3), [Some(0), None, Some(1), Some(2)]);
        // The same binary printing libtest-like output of its own keeps its block.
        assert_eq!(align(&r, &custom, 4), [Some(0), Some(1), Some(2), Some(3)]);
    }

    #[test]
    fn without_manifest_knowledge_the_binary_that_failed_unlike_libtest_is_blockless() {
        let r = [
            ran("lib", None),
            ran("odd", Some(Failed::Status(1))),
            ran("api", None),
        ];
        assert_eq!(align(&r, &[false; 3], 2), [Some(0), None, Some(1)]);
    }

    #[test]
    fn cut_short_runs_lose_their_last_binaries() {
        let r = [ran("a", None), ran("b", None), ran("c", None)];
        assert_eq!(align(&r, &[false; 3], 1), [Some(0), None, None]);
        assert_eq!(align(&r, &[false; 3], 0), [None, None, None]);
    }

    #[test]
    fn cargo_exit_codes() {
        assert_eq!(exit_of(0).meaning, ExitMeaning::Passed);
        assert_eq!(exit_of(101).meaning, ExitMeaning::Failed);
        assert_eq!(exit_of(1).meaning, ExitMeaning::UsageError);
        assert_eq!(exit_of(3).meaning, ExitMeaning::Other);
    }
}
