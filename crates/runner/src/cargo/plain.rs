//! Plain `cargo test --message-format json`: cargo's JSON messages on stdout interleaved with
//! libtest's human output, and cargo's `Running`/`Doc-tests` lines on stderr naming each block's
//! binary in order. One test binary is one process, so a crash or a hang takes its unreported
//! tests with it; those are named by asking the binary itself (`--list --format terse`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pith_model::{Run, Status};

use super::libtest::{self, Announced, Outcome};
use super::{diag, TargetKind, TestId};
use crate::process::{self, Captured, End};
use crate::{Context, RunnerError};

/// How long listing a test binary's tests may take after a crash or the deadline.
const LIST_TIMEOUT: Duration = Duration::from_secs(10);

pub(super) fn run(
    ctx: &Context<'_>,
    cargo: &Path,
    selection: Option<&[TestId]>,
) -> Result<(Run, Vec<diag::Artifact>), RunnerError> {
    let mut run = Run::new("cargo");
    run.lacks = Some("isolation".to_owned());
    let Some(ids) = selection else {
        let (part, artifacts) = invoke(ctx, cargo, None)?;
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
    for (_, group) in groups {
        if Instant::now() >= ctx.deadline {
            break;
        }
        let (part, arts) = invoke(ctx, cargo, Some(&group))?;
        let stop = part.status == Some(Status::TimedOut);
        run.absorb(part);
        artifacts.extend(arts);
        if stop {
            break;
        }
    }
    Ok((run, artifacts))
}

/// One `cargo test`: its run and the artifacts cargo announced.
fn invoke(
    ctx: &Context<'_>,
    cargo: &Path,
    group: Option<&[TestId]>,
) -> Result<(Run, Vec<diag::Artifact>), RunnerError> {
    let mut cmd = super::command(cargo, ctx);
    cmd.arg("test");
    match group.and_then(|g| g.first()) {
        Some(first) => {
            let (pkg, target) = first.target();
            cmd.arg("-p").arg(pkg).args(target);
        }
        None => {
            cmd.arg("--workspace");
        }
    }
    cmd.args(["--no-fail-fast", "--message-format", "json"]);
    if let Some(g) = group {
        cmd.arg("--");
        // libtest's `--exact` never matches a doctest (observed with Rust 1.95): doctests are
        // filtered by substring, and results not asked for are dropped below.
        if !g.first().is_some_and(TestId::is_doc) {
            cmd.arg("--exact");
        }
        cmd.args(g.iter().map(|id| &id.test));
    }
    let cap = match super::spawn(cmd, ctx, cargo)? {
        Ok(c) => c,
        Err(()) => return Ok((super::cargo_missing("cargo"), Vec::new())),
    };
    let stdout = cap.stdout_str();
    let msgs = diag::parse(&stdout);
    let mut run = judge(ctx, &cap, &stdout, &msgs, group);
    run.duration = cap.elapsed;
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
                        exe: Some(ctx.root.join(path)),
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

fn judge(
    ctx: &Context<'_>,
    cap: &Captured,
    stdout: &str,
    msgs: &diag::Messages,
    group: Option<&[TestId]>,
) -> Run {
    let mut run = Run::new("cargo");
    run.lacks = Some("isolation".to_owned());
    let stderr = cap.stderr_str();
    let blocks = libtest::parse(stdout);
    let announced = libtest::announced(&stderr);
    let signaled = libtest::signaled(&stderr);
    let killed = matches!(cap.end, End::TimedOut | End::Cancelled);
    // Binaries that never started (after a timeout) are not counted: unknown, not zero.
    run.selected = Some(blocks.iter().map(|b| b.declared).sum());
    let names: Option<Vec<String>> = group.map(|g| g.iter().map(|id| id.test.clone()).collect());

    let mut reported: HashSet<String> = HashSet::new();
    let mut crashed = false;
    for (i, block) in blocks.iter().enumerate() {
        let bin = resolve(ctx, announced.get(i), &msgs.artifacts);
        for (name, outcome) in &block.results {
            let id = format!("{} {name}", bin.id);
            if group.is_some_and(|g| !g.iter().any(|r| r.full == id)) {
                continue;
            }
            reported.insert(id.clone());
            match outcome {
                Outcome::Passed => {
                    run.passed += 1;
                    run.outcomes.push(pith_model::TestOutcome::passed(id, None));
                }
                Outcome::Ignored => run.skipped += 1,
                Outcome::Failed => {
                    run.failed += 1;
                    let out = block.outputs.get(name).map_or("", String::as_str);
                    run.failures
                        .push(super::failure(ctx, id, out, bin.pkg_dir.as_deref(), None));
                }
            }
        }
        if block.finished {
            continue;
        }
        // The binary died (a signal, `process::exit`) or was killed at the deadline.
        let last = i + 1 == blocks.len();
        let died = bin.exe.as_ref().is_some_and(|exe| {
            signaled
                .iter()
                .any(|(e, _)| Path::new(e).file_name() == exe.file_name())
        });
        if killed && !last && !died {
            continue;
        }
        if !killed {
            crashed = true;
        }
        if let Some(exe) = &bin.exe {
            for name in list(ctx, exe, bin.pkg_dir.as_deref(), names.as_deref()) {
                if !block.reported(&name) {
                    run.running.push(format!("{} {name}", bin.id));
                }
            }
        }
    }

    run.build_errors = super::build_errors(ctx, &msgs.errors);
    let build_failed = !run.build_errors.is_empty() || msgs.build_success == Some(false);
    let failed_exit = !matches!(cap.end, End::Exited(0));
    if killed {
        run.status = Some(Status::TimedOut);
        run.tail = super::tail_of(ctx, &stderr);
    } else if build_failed {
        run.status = Some(Status::BuildFailed);
        if run.build_errors.is_empty() {
            run.tail = super::tail_of(ctx, &stderr);
        }
    } else if blocks.is_empty() && failed_exit {
        if group.is_some() && no_such_target(&stderr) {
            // `-p` or `--test` named something this workspace does not have.
        } else {
            // No compiler message, no test: a bad manifest, a missing dependency, a failing
            // build script. cargo's own words say which.
            run.status = Some(Status::BuildFailed);
            run.tail = super::tail_of(ctx, &stderr);
        }
    } else if crashed || !signaled.is_empty() || matches!(cap.end, End::Signaled(_)) {
        run.status = Some(Status::Crashed);
        run.tail = super::tail_of(ctx, &stderr);
    }
    if let Some(g) = group {
        if !killed && !build_failed && run.status != Some(Status::BuildFailed) {
            run.not_found = g
                .iter()
                .filter(|id| !reported.contains(&id.full) && !run.running.contains(&id.full))
                .map(|id| id.full.clone())
                .collect();
        }
    }
    run
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
    let mut cmd = crate::base_command(exe, pkg_dir.unwrap_or(ctx.root));
    cmd.args(["--list", "--format", "terse"]);
    if let Some(n) = names {
        cmd.arg("--exact").args(n);
    }
    match process::run(cmd, Instant::now() + LIST_TIMEOUT, None) {
        Ok(c) if c.success() => libtest::list(&c.stdout_str()),
        _ => Vec::new(),
    }
}
