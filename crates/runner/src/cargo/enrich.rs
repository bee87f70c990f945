//! Backtraces for a few panics, after the run. The tests run with the caller's
//! `RUST_BACKTRACE`, usually unset: a panic then has one frame, its location (std symbolizes a
//! backtrace by parsing the test binary's debug info once per process, ~200 ms, and nextest
//! runs every test in its own process, so 50 failures would cost seconds). Here the failures
//! worth a backtrace (all panics when there are few, else one of each cause, the biggest
//! first) that have none yet run again straight from their test binaries (no cargo, no
//! nextest: one process per binary) with `RUST_BACKTRACE=1`, and a re-run that panics at the
//! same location lends its frames (callers included). A run the caller asked for backtraces
//! already has them: nothing runs again.
//!
//! Only frames change: counts, statuses, ids and messages stay phase 1's. Anything else on the
//! re-run (a pass, another failure, a crash, the deadline, no executable) leaves the failure
//! as it was; nothing here fails the run.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pith_model::cause::Cause;
use pith_model::{Failure, Frame, Run, Status};

use super::command::TestId;
use super::diag::Artifact;
use super::libtest::{self, Outcome};
use super::panic;
use crate::process::{self, End};
use crate::Context;

/// How many failures are re-run at most: the answer shows at most eight in full.
const MAX_RERUN: usize = 8;

/// What the re-runs may take beyond phase 1's own wall time (symbolizing a large binary):
/// a test that fails fast and then hangs must not hold the answer until the deadline.
const SLACK: Duration = Duration::from_secs(5);

/// A re-run test that panicked: where, located like phase 1's frames, and its frames.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Again {
    at: Frame,
    frames: Vec<Frame>,
}

/// Replaces the frames of `run`'s panics with backtrace frames where a re-run allows.
/// `artifacts` are the binaries cargo built for the run.
pub(super) fn frames(ctx: &Context<'_>, cargo: &Path, run: &mut Run, artifacts: &[Artifact]) {
    if run.status == Some(Status::TimedOut) || cancelled(ctx.cancel) {
        return;
    }
    let mut sources = Sources::default();
    let failures: Vec<Failure> = run
        .failures
        .iter()
        .map(|f| match panics_in_own_body(ctx, &mut sources, f) {
            // A backtrace would add nothing: where it broke is the test's own line.
            true => Failure {
                kind: None,
                ..f.clone()
            },
            false => f.clone(),
        })
        .collect();
    let picked = select(&failures);
    if picked.is_empty() {
        return;
    }
    let deadline = ctx.deadline.min(Instant::now() + run.duration + SLACK);
    if Instant::now() >= deadline {
        return;
    }
    // One re-run per test binary, with the names of its picked tests.
    let mut jobs: Vec<(&Artifact, Vec<String>)> = Vec::new();
    for i in picked {
        let Some(id) = TestId::parse(&run.failures[i].test) else {
            continue;
        };
        let Some(art) = artifacts
            .iter()
            .find(|a| a.test && a.executable.is_some() && a.binary_id == id.binary)
        else {
            continue;
        };
        match jobs.iter_mut().find(|(a, _)| a.binary_id == art.binary_id) {
            Some((_, names)) => names.push(id.test),
            None => jobs.push((art, vec![id.test])),
        }
    }
    let outputs: Vec<Option<Vec<libtest::Block>>> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|(art, names)| s.spawn(move || rerun(cargo, art, names, deadline, ctx.cancel)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });
    let mut again: HashMap<String, Again> = HashMap::new();
    for ((art, names), blocks) in jobs.iter().zip(outputs) {
        if let Some(blocks) = blocks {
            again.extend(read(ctx, art, names, blocks));
        }
    }
    merge(&mut run.failures, &again);
}

fn cancelled(cancel: Option<&AtomicBool>) -> bool {
    cancel.is_some_and(|c| c.load(Ordering::Relaxed)) || process::was_interrupted()
}

/// Source files read while deciding, each once.
#[derive(Default)]
struct Sources(HashMap<String, Option<Vec<String>>>);

/// Whether `f` panicked in the body of its own test function (the common `assert!` in a test),
/// judged from the source: the nearest `fn` above the panic line is the test's. Its backtrace
/// would show that same line and the harness, so it is not worth ~200 ms of symbolizing.
fn panics_in_own_body(ctx: &Context<'_>, sources: &mut Sources, f: &Failure) -> bool {
    let (Some((file, line)), Some(id)) = (location(f), TestId::parse(&f.test)) else {
        return false;
    };
    let name = id.test.rsplit("::").next().unwrap_or(&id.test);
    let lines = sources.0.entry(file.to_owned()).or_insert_with(|| {
        // A frame's file is relative to the workspace root, not to the Cargo project.
        let text = std::fs::read_to_string(ctx.root.join(file)).ok()?;
        Some(text.lines().map(str::to_owned).collect())
    });
    let Some(lines) = lines else { return false };
    let upto = (line as usize).min(lines.len());
    lines[..upto]
        .iter()
        .rev()
        .find_map(|l| fn_name(l))
        .is_some_and(|n| n == name)
}

/// The name a line declares with `fn NAME`, if it declares a function.
fn fn_name(line: &str) -> Option<&str> {
    let at = line.find("fn ")?;
    if at > 0 && !line[..at].ends_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let rest = line[at + 3..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0 && rest[end..].trim_start().starts_with(['(', '<'])).then(|| &rest[..end])
}

/// Where phase 1 saw a failure panic: without a backtrace its last (only) frame.
fn location(f: &Failure) -> Option<(&str, u32)> {
    f.frames.last().map(|fr| (fr.file.as_str(), fr.line))
}

/// The failures to re-run, by index: every panic (doctests aside) when there are at most
/// [`MAX_RERUN`]; else one of each cause (`Failure::cause`: kind, message template, place),
/// the biggest causes first, up to [`MAX_RERUN`]. A cause's member with the smallest test id
/// is the one re-run: the answer shows it for its cluster, and a panic inside the standard
/// library (no project frame without a backtrace) leaves the cluster no place otherwise.
fn select(failures: &[Failure]) -> Vec<usize> {
    let panics: Vec<usize> = failures
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            // More than its location: the run printed a backtrace (the caller's
            // `RUST_BACKTRACE`), its callers are there.
            f.kind.as_deref() == Some("panic")
                && f.frames.len() <= 1
                && TestId::parse(&f.test).is_some_and(|id| !id.is_doc() && !id.is_whole())
        })
        .map(|(i, _)| i)
        .collect();
    if panics.len() <= MAX_RERUN {
        return panics;
    }
    // (members, the member with the smallest id) of each cause, in order of first appearance.
    let mut causes: Vec<(Cause, usize, usize)> = Vec::new();
    for i in panics {
        let cause = failures[i].cause();
        match causes.iter_mut().find(|(c, _, _)| *c == cause) {
            Some((_, n, rep)) => {
                *n += 1;
                if failures[i].test < failures[*rep].test {
                    *rep = i;
                }
            }
            None => causes.push((cause, 1, i)),
        }
    }
    // Stable: causes of one size keep their order of appearance.
    causes.sort_by_key(|(_, n, _)| std::cmp::Reverse(*n));
    causes
        .into_iter()
        .take(MAX_RERUN)
        .map(|(_, _, rep)| rep)
        .collect()
}

/// Runs `names` of one test binary with backtraces, as cargo would run it: cwd the package
/// directory, cargo's runtime variables set. libtest's default capture prints each failed
/// test's output (panic and backtrace) in its `---- NAME stdout ----` section. Its blocks, read
/// line by line, when it ran to its end.
fn rerun(
    cargo: &Path,
    art: &Artifact,
    names: &[String],
    deadline: Instant,
    cancel: Option<&AtomicBool>,
) -> Option<Vec<libtest::Block>> {
    let exe = art.executable.as_deref()?;
    let mut cmd = crate::base_command(exe, &art.package_dir);
    super::command::set_env(&mut cmd);
    cmd.env("RUST_BACKTRACE", "1")
        .env("CARGO", cargo)
        .env("CARGO_MANIFEST_DIR", &art.package_dir)
        .env("CARGO_MANIFEST_PATH", art.package_dir.join("Cargo.toml"))
        .env("CARGO_PKG_NAME", &art.package)
        .env("CARGO_CRATE_NAME", art.target.replace('-', "_"));
    if let Some(v) = &art.version {
        cmd.env("CARGO_PKG_VERSION", v);
    }
    cmd.arg("--exact").args(names);
    // The binary alone: every line is its own or its tests' children's, and the failures
    // looked at are the binary's by its own list (`Block::settle`, asking nothing more).
    let mut reader = libtest::Reader::new(false);
    let cap = process::run_lines(cmd, deadline, cancel, &mut |l| {
        reader.line(&String::from_utf8_lossy(l));
    })
    .ok()?;
    let (block, _) = reader.finish();
    let block = block.map(|mut b| {
        b.settle(&mut || None);
        b
    });
    matches!(cap.end, End::Exited(_)).then(|| block.into_iter().collect())
}

/// The panics among `names` in one binary's re-run output, by test id.
fn read(
    ctx: &Context<'_>,
    art: &Artifact,
    names: &[String],
    blocks: Vec<libtest::Block>,
) -> Vec<(String, Again)> {
    let pkg_dir = Some(art.package_dir.as_path());
    let mut out = Vec::new();
    for block in blocks {
        for (name, outcome) in &block.results {
            if *outcome != Outcome::Failed || !names.contains(name) {
                continue;
            }
            let Some(output) = block.outputs.get(name) else {
                continue;
            };
            let Some(p) = panic::parse(output) else {
                continue;
            };
            let Some(at) = super::judge::panic_location(ctx, &p, pkg_dir) else {
                continue;
            };
            let id = format!("{} {name}", art.binary_id);
            let f = super::judge::failure(ctx, id.clone(), output, pkg_dir, None);
            out.push((
                id,
                Again {
                    at,
                    frames: f.frames,
                },
            ));
        }
    }
    out
}

/// Gives each failure whose re-run panicked where it did the re-run's frames; the rest (and
/// everything but frames) stay as phase 1 left them.
fn merge(failures: &mut [Failure], again: &HashMap<String, Again>) {
    for f in failures {
        let Some(a) = again.get(&f.test) else {
            continue;
        };
        let same = location(f) == Some((a.at.file.as_str(), a.at.line));
        if same && f.kind.as_deref() == Some("panic") && !a.frames.is_empty() {
            f.frames = a.frames.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(file: &str, line: u32, project: bool) -> Frame {
        Frame {
            file: file.into(),
            line,
            code: None,
            project,
        }
    }

    fn panicked(test: &str, file: &str, line: u32) -> Failure {
        Failure {
            test: test.into(),
            message: "boom".into(),
            kind: Some("panic".into()),
            frames: vec![frame(file, line, true)],
            ..Failure::default()
        }
    }

    #[test]
    fn fn_names_are_read_from_declarations_only() {
        assert_eq!(fn_name("    fn off_by_one() {"), Some("off_by_one"));
        assert_eq!(fn_name("pub fn check<T>(x: T) {"), Some("check"));
        assert_eq!(fn_name("    async fn waits() {"), Some("waits"));
        assert_eq!(fn_name("    let f = defn (x);"), None);
        assert_eq!(fn_name("    // the fn above"), None);
    }

    #[test]
    fn few_panics_are_all_rerun() {
        let mut f: Vec<Failure> = (0..8)
            .map(|i| panicked(&format!("p tests::t{i}"), "src/lib.rs", 6))
            .collect();
        // Not panics, or doctests: never re-run.
        f.insert(
            2,
            Failure {
                test: "p tests::aborts".into(),
                kind: Some("SIGABRT".into()),
                ..Failure::default()
            },
        );
        f.push(panicked(
            "p::doc src/lib.rs - add (line 3)",
            "src/lib.rs",
            4,
        ));
        assert_eq!(select(&f), [0, 1, 3, 4, 5, 6, 7, 8]);
        assert!(select(&[]).is_empty());
        // A panic the run printed a backtrace for has its callers already.
        let mut traced = panicked("p tests::traced", "src/lib.rs", 6);
        traced
            .frames
            .insert(0, frame("library/core/src/panicking.rs", 80, false));
        assert!(select(&[traced]).is_empty());
    }

    #[test]
    fn many_panics_rerun_the_first_of_each_location() {
        // Nine failures, three locations: the first of each.
        let f: Vec<Failure> = (0..9)
            .map(|i| panicked(&format!("p tests::t{i}"), "src/lib.rs", 10 + i % 3))
            .collect();
        assert_eq!(select(&f), [0, 1, 2]);
        // Twenty distinct locations: the first eight.
        let f: Vec<Failure> = (0..20)
            .map(|i| panicked(&format!("p tests::t{i}"), "src/lib.rs", i))
            .collect();
        assert_eq!(select(&f), (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn many_panics_rerun_the_smallest_id_of_each_cause_biggest_first() {
        // Inside the standard library: no project frame, one cause whatever the indices.
        let std = |test: &str, n: usize| Failure {
            message: format!("range end index {n} out of range for slice of length 3"),
            frames: vec![frame(
                "/rustc/x/library/core/src/slice/index.rs",
                1031,
                false,
            )],
            ..panicked(test, "", 0)
        };
        let mut f: Vec<Failure> = vec![
            panicked("p tests::a1", "src/other.rs", 5),
            panicked("p tests::a0", "src/other.rs", 5),
        ];
        // Run order is not id order: the re-run one is the smallest id, `t00`.
        f.extend(
            (0..29)
                .rev()
                .map(|i| std(&format!("p tests::t{i:02}"), 4 + i)),
        );
        f.push(panicked("p tests::b", "src/third.rs", 9));
        let picked = select(&f);
        let ids: Vec<&str> = picked.iter().map(|&i| f[i].test.as_str()).collect();
        assert_eq!(ids, ["p tests::t00", "p tests::a0", "p tests::b"]);
        // Ten causes of one member after the big one: eight re-runs in all.
        f.extend((0..10).map(|i| panicked(&format!("p tests::u{i}"), "src/u.rs", i)));
        let picked = select(&f);
        assert_eq!(picked.len(), MAX_RERUN);
        assert_eq!(f[picked[0]].test, "p tests::t00");
    }

    #[test]
    fn rerun_panicking_at_the_same_place_lends_its_frames() {
        let mut f = vec![
            panicked("p tests::same", "src/lib.rs", 11),
            panicked("p tests::elsewhere", "src/lib.rs", 11),
            panicked("p tests::passed", "src/lib.rs", 11),
        ];
        let before = f.clone();
        let deep = vec![
            frame("/rustc/x/library/core/src/ops/function.rs", 250, false),
            frame("src/lib.rs", 34, true),
            frame("src/lib.rs", 11, true),
        ];
        let again: HashMap<String, Again> = [
            (
                "p tests::same".to_owned(),
                Again {
                    at: frame("src/lib.rs", 11, true),
                    frames: deep.clone(),
                },
            ),
            (
                "p tests::elsewhere".to_owned(),
                Again {
                    at: frame("src/lib.rs", 12, true),
                    frames: deep.clone(),
                },
            ),
        ]
        .into_iter()
        .collect();
        merge(&mut f, &again);
        assert_eq!(f[0].frames, deep);
        assert_eq!(
            Failure {
                frames: before[0].frames.clone(),
                ..f[0].clone()
            },
            before[0]
        );
        // Failed differently, or passed (not in `again`): phase 1's failure, untouched.
        assert_eq!(f[1..], before[1..]);
    }
}
