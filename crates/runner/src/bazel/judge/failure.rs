//! One failure as the answer tells it, from what a test left behind: a framework's fault
//! (its message, type and stack), or the way a test's process ended (a timeout, a signal, the
//! log's last telling line), with the frames its text names inside the workspace. One place
//! for both, so a failure reads the same whether the target left a report or only a log.

use std::path::Path;

use pith_model::{Failure, Frame, Phase, Run, Status};

use super::super::command::package;
use super::files::log_body;
use crate::googletest::failure;
use crate::{junit, text, PathMap};

/// A JUnit failure (or any other framework's): its message's first line, the type, the
/// frames its stack trace names.
pub(super) fn generic_failure(
    id: String,
    paths: &PathMap,
    fault: &junit::Fault,
    text: &str,
) -> Failure {
    let message = fault
        .message
        .as_deref()
        .filter(|m| !m.trim().is_empty())
        .map_or_else(|| text::first_line(text), text::first_line);
    let frames = frames_in(paths, text, package(&id).unwrap_or(""));
    let mut f = Failure {
        test: id,
        message: paths.scrub(&message),
        kind: fault.type_name.clone().filter(|t| !t.is_empty()),
        frames,
        ..Failure::default()
    };
    paths.fill_code(&mut f.frames);
    crate::detail::fill(&mut f, paths, text);
    f
}

/// The target itself failed (a shell or Python test, or a process that failed outside any
/// case): one failure named by its label.
pub(super) fn target_failure(
    run: &mut Run,
    paths: &PathMap,
    label: &str,
    code: Option<i32>,
    status: &str,
    log: &str,
) {
    let f = ended_failure(paths, label.to_owned(), code, status, log);
    if f.kind.as_deref().is_some_and(|k| k.starts_with("SIG")) {
        run.status = Some(Status::Crashed);
    }
    run.failed += 1;
    run.failures.push(f);
}

/// How a test's process ended, from its status and its log: a timeout, a signal (an exit
/// code above 128), else the log's last telling line, with the frames the log names.
pub(super) fn ended_failure(
    paths: &PathMap,
    test: String,
    code: Option<i32>,
    status: &str,
    log: &str,
) -> Failure {
    let body = log_body(log);
    let (message, kind) = if status == "TIMEOUT" {
        (
            "timed out (Bazel's test timeout)".to_owned(),
            Some("timeout".to_owned()),
        )
    } else if let Some(sig) = code
        .filter(|c| *c > 128 && *c < 160)
        .map(|c| crate::process::signal_name(c - 128))
    {
        (format!("crashed with {sig}"), Some(sig))
    } else {
        let told = body
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| {
                !l.is_empty() && !l.starts_with("[==========]") && !l.starts_with("[----------]")
            })
            .map(|l| paths.scrub(l));
        (
            told.unwrap_or_else(|| match code {
                Some(c) => format!("exited with code {c}"),
                None => "failed".to_owned(),
            }),
            None,
        )
    };
    let whole = body.join("\n");
    let frames = frames_in(paths, &whole, package(&test).unwrap_or(""));
    let mut f = Failure {
        test,
        message,
        kind,
        frames,
        phase: Phase::Call,
        ..Failure::default()
    };
    paths.fill_code(&mut f.frames);
    crate::detail::fill(&mut f, paths, &whole);
    f
}

/// `File "x.py", line 5` (Python), `x.sh: line 5:` (bash) and `at p.C.m(C.java:12)` (JVM)
/// locations in a text, outermost first, only those of files in the workspace. A JVM frame
/// names only its file: it is looked for where the class's package puts it, in the target's
/// package `pkg` (Bazel's own layout: `java/com/x/C.java` in package `java/com/x`) or below
/// it in Maven's layout.
fn frames_in(paths: &PathMap, text: &str, pkg: &str) -> Vec<Frame> {
    let mut frames: Vec<Frame> = Vec::new();
    let mut jvm: Vec<Frame> = Vec::new();
    // A frame's file relative to the root, a JVM candidate's relative to Bazel's workspace.
    let exists = |rel: &str| paths.root().join(rel).is_file();
    let in_workspace = |rel: &str| paths.base().join(rel).is_file();
    for line in text.lines() {
        let t = line.trim();
        if let Some((call, inner)) = t
            .strip_prefix("at ")
            .and_then(|r| r.split_once('('))
            .map(|(call, r)| (call, r.trim_end_matches(')')))
        {
            let Some((file, n)) = failure::file_line(inner) else {
                continue;
            };
            // `calc.CalcTest.divides`: the class's package is all but the last two parts.
            let parts: Vec<&str> = call.split('.').collect();
            let dirs = parts[..parts.len().saturating_sub(2)].join("/");
            let in_class_dir = if dirs.is_empty() {
                file.clone()
            } else {
                format!("{dirs}/{file}")
            };
            let pkg_dir = if pkg.is_empty() {
                String::new()
            } else {
                format!("{pkg}/")
            };
            let found = [
                format!("{pkg_dir}{file}"),
                format!("{pkg_dir}{in_class_dir}"),
                format!("{pkg_dir}src/test/java/{in_class_dir}"),
                format!("{pkg_dir}src/main/java/{in_class_dir}"),
                in_class_dir.clone(),
            ]
            .into_iter()
            .find(|c| in_workspace(c));
            if let Some(rel) = found {
                jvm.push(paths.frame(&rel, n, None));
            }
            continue;
        }
        let found = if let Some(rest) = t.strip_prefix("File \"") {
            rest.split_once("\", line ").and_then(|(file, n)| {
                let n = n.split(|c: char| !c.is_ascii_digit()).next()?;
                Some((file.to_owned(), n.parse::<u32>().ok()?))
            })
        } else if let Some((file, rest)) = t.split_once(": line ") {
            let n = rest
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap_or("");
            n.parse::<u32>().ok().map(|n| (file.to_owned(), n))
        } else {
            None
        };
        if let Some((file, n)) = found {
            let frame = paths.frame(&file, n, None);
            if frame.project && Path::new(&frame.file).is_relative() && exists(&frame.file) {
                frames.push(frame);
            }
        }
    }
    // A JVM stack is innermost first.
    frames.extend(jvm.into_iter().rev());
    frames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_come_from_tracebacks_shells_and_stacks_inside_the_workspace() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join("py")).unwrap();
        std::fs::write(ws.path().join("py/t.py"), "a\nb\nc\n").unwrap();
        std::fs::write(ws.path().join("check.sh"), "x\ny\n").unwrap();
        let paths = PathMap::new(ws.path());
        let text = "Traceback:\n  File \"py/t.py\", line 3, in f\n  File \"/usr/lib/python3.11/x.py\", line 9\ncheck.sh: line 2: false\n  at p.T.m(Nowhere.java:4)";
        let f = frames_in(&paths, text, "");
        assert_eq!(
            f.iter()
                .map(|f| format!("{}:{}", f.file, f.line))
                .collect::<Vec<_>>(),
            vec!["py/t.py:3", "check.sh:2"]
        );
    }
}
