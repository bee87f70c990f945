//! Bazel's files as the judge reads them: a file's end, bounded (a test's log or report, a
//! failed action's stderr, wherever Bazel left it); a test log without the wrapper's lines;
//! and paths into the copies of the workspace Bazel makes (its execroot, runfiles trees, a
//! sandbox) cut back to workspace-relative. Every other part of the judge reads through here,
//! so what Bazel wrote is bounded and unrooted in one place.

use std::path::Path;

use super::super::bep::Stream;

/// A `test.xml` or `test.log` is read up to this many bytes (the end of a log is kept).
pub(super) const FILE_BYTES: u64 = 8 << 20;

/// The lines the test printed: its log without Bazel's header (`exec ${PAGER...`,
/// `Executing tests from //x:y`, the dashes) and timeout footer.
pub(super) fn log_body(log: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = log.lines().collect();
    if let Some(i) = lines
        .iter()
        .position(|l| l.starts_with("Executing tests from "))
    {
        let skip = if lines.get(i + 1).is_some_and(|l| l.starts_with("-----")) {
            i + 2
        } else {
            i + 1
        };
        lines.drain(..skip);
    }
    // Bazel's wrapper, not the test: its banners, and the shell's report of the test process
    // it ran dying (`[1]   Segmentation fault  ( "${TEST_PATH}" "$@" 2>&1 ) 0<&0`), printed
    // or not as the shell sees the death; the answer's message already names the signal.
    lines.retain(|l| {
        !(l.starts_with("-- Test timed out at ")
            || l.starts_with("exec ${PAGER")
            || l.contains(r#""${TEST_PATH}" "$@""#))
    });
    lines
}

/// The names the workspace goes by under Bazel's trees: the execution root's last segment
/// (the workspace's name), and the unnamed workspace's `__main__` / `_main`.
pub(super) fn workspace_names(stream: &Stream) -> Vec<String> {
    let mut names = vec!["__main__".to_owned(), "_main".to_owned()];
    if let Some(name) = stream
        .exec_root
        .as_deref()
        .and_then(|r| r.trim_end_matches('/').rsplit('/').next())
        .filter(|n| !n.is_empty())
    {
        names.insert(0, name.to_owned());
    }
    names
}

/// `text` with every path into a copy of the workspace Bazel made (`…/execroot/NAME/`,
/// `…/x.runfiles/NAME/`, a sandbox's execroot) cut back to workspace-relative.
pub(super) fn unroot(text: &str, names: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'outer: while !rest.is_empty() {
        // The earliest marker in what is left.
        let mut best: Option<(usize, usize)> = None;
        for name in names {
            for pat in [format!("/execroot/{name}/"), format!(".runfiles/{name}/")] {
                if let Some(i) = rest.find(&pat) {
                    if best.is_none_or(|(b, _)| i < b) {
                        best = Some((i, pat.len()));
                    }
                }
            }
        }
        let Some((at, len)) = best else {
            out.push_str(rest);
            break 'outer;
        };
        // The path token the marker is in starts after the last delimiter before it.
        let start = rest[..at]
            .rfind(|c: char| {
                c.is_whitespace() || matches!(c, '"' | '\'' | '(' | '=' | '[' | '<' | '>')
            })
            .map_or(0, |i| i + 1);
        if !rest[start..at].starts_with('/') {
            out.push_str(&rest[..at + len]);
            rest = &rest[at + len..];
            continue;
        }
        out.push_str(&rest[..start]);
        rest = &rest[at + len..];
        // Inside the execroot, the binaries' trees hold runfiles: cut through those too.
        if rest.starts_with("bazel-out/") {
            let token_end = rest
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ')' | ':'))
                .unwrap_or(rest.len());
            if let Some(name_at) = names.iter().find_map(|n| {
                let pat = format!(".runfiles/{n}/");
                rest[..token_end].find(&pat).map(|i| i + pat.len())
            }) {
                rest = &rest[name_at..];
            }
        }
    }
    out
}

/// A file's text, its last [`FILE_BYTES`] when longer; empty when unreadable.
pub(super) fn read_end(path: &Path) -> String {
    use std::io::{Read, Seek, SeekFrom};
    // A regular file only: a path in the stream could name a device or a pipe.
    if !path.is_file() {
        return String::new();
    }
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    if len > FILE_BYTES {
        let _ = f.seek(SeekFrom::Start(len - FILE_BYTES));
    }
    let mut buf = Vec::new();
    let _ = f.take(FILE_BYTES).read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["green".to_owned(), "__main__".to_owned()]
    }

    #[test]
    fn paths_into_bazels_copies_become_workspace_relative() {
        let t = r#"  File "/root/.cache/bazel/_bazel_root/ab/execroot/green/bazel-out/k8-fastbuild/bin/py/calc_test.runfiles/green/py/calc_test.py", line 5, in test_x"#;
        assert_eq!(
            unroot(t, &names()),
            r#"  File "py/calc_test.py", line 5, in test_x"#
        );
        let t = "/root/.cache/bazel/_bazel_root/ab/sandbox/processwrapper-sandbox/3/execroot/green/src/calc.cc:3:36: error: x";
        assert_eq!(unroot(t, &names()), "src/calc.cc:3:36: error: x");
        let t = "see /x/y.runfiles/green/scripts/check.sh: line 4: boom and /x/execroot/green/a.c";
        assert_eq!(
            unroot(t, &names()),
            "see scripts/check.sh: line 4: boom and a.c"
        );
        assert_eq!(
            unroot("no/execroot/green/here", &names()),
            "no/execroot/green/here"
        );
        assert_eq!(unroot("", &names()), "");
    }

    #[test]
    fn the_log_body_drops_bazels_header() {
        let log = "exec ${PAGER:-/usr/bin/less} \"$0\" || exit 1\nExecuting tests from //t:x\n-----\nhello\n-- Test timed out at 2026 --\n";
        assert_eq!(log_body(log), vec!["hello"]);
        assert_eq!(log_body("plain"), vec!["plain"]);
    }

    #[test]
    fn the_wrappers_report_of_a_dying_test_is_not_the_tests_output() {
        let log = "exec ${PAGER:-/usr/bin/less} \"$0\" || exit 1\nExecuting tests from //tests:crash_test\n-----\n[ RUN      ] Crash.Segfaults\n[1]   Segmentation fault      ( \"${TEST_PATH}\" \"$@\" 2>&1 ) 0<&0\n";
        assert_eq!(log_body(log), ["[ RUN      ] Crash.Segfaults"]);
    }
}
