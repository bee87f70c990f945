//! Python's faulthandler dumps (a segfault, or pith's SIGTERM at the deadline): which line each
//! thread was on. They come innermost first and are mostly pytest's own frames; pith keeps the
//! project's frames so the line that hung or crashed survives the tail's bounds.

use pith_model::Frame;

use crate::paths::PathMap;

/// One thread's stack in a dump, innermost first as Python prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    /// The thread that crashed or received the signal.
    pub current: bool,
    /// (path, line) per frame.
    pub frames: Vec<(String, u32)>,
}

/// A dump's thread header: `Some(true)` for the current thread.
fn header(line: &str) -> Option<bool> {
    let t = line.trim();
    if !t.ends_with("(most recent call first):") {
        return None;
    }
    if t.starts_with("Current thread ") || t.starts_with("Stack ") {
        Some(true)
    } else if t.starts_with("Thread ") {
        Some(false)
    } else {
        None
    }
}

/// `  File "/a/b.py", line 12 in func` → (`/a/b.py`, 12).
fn file_line(line: &str) -> Option<(&str, u32)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (path, rest) = rest.split_once("\", line ")?;
    let digits: &str = rest
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .filter(|d| !d.is_empty())?;
    Some((path, digits.parse().ok()?))
}

/// The workspace-relative form of a path a dump printed; `<frozen runpy>` and other
/// pseudo-files are nobody's.
fn relative(paths: &PathMap, path: &str) -> Option<String> {
    if path.starts_with('/') {
        paths.relativize(path, None)
    } else {
        None
    }
}

/// A frame at `path:line`; only absolute paths can be the project's.
pub fn frame_at(paths: &PathMap, path: &str, line: u32) -> Frame {
    if path.starts_with('/') {
        paths.frame(path, line, None)
    } else {
        Frame {
            file: path.to_owned(),
            line,
            code: None,
            project: false,
        }
    }
}

/// Every thread stack in `text`.
pub fn stacks(text: &str) -> Vec<Stack> {
    let mut out: Vec<Stack> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if let Some(current) = header(line) {
            out.push(Stack {
                current,
                frames: Vec::new(),
            });
            open = true;
            continue;
        }
        match (open, file_line(line), out.last_mut()) {
            (true, Some((path, n)), Some(stack)) => stack.frames.push((path.to_owned(), n)),
            _ => open = false,
        }
    }
    out
}

/// The last `Fatal Python error: ...` line, the dump's own verdict. The dump is the last thing
/// a crashing process writes; lines like it before are what a test printed (with `-s`, or in
/// a failed test's captured output).
pub fn fatal_error(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .rfind(|l| l.starts_with("Fatal Python error:"))
}

/// The stack of the thread that ran the test in `test_file` (workspace-relative), outermost
/// first, starting at the outermost frame in that file; project frames get their source line.
/// The last such stack: a dump is the last thing a dying process writes, so one that reads
/// like it before is what a test printed.
pub fn frames_for(text: &str, test_file: &str, paths: &PathMap) -> Option<Vec<Frame>> {
    let all = stacks(text);
    let in_file = |s: &&Stack| {
        s.frames
            .iter()
            .any(|(p, _)| relative(paths, p).as_deref() == Some(test_file))
    };
    let stack = all
        .iter()
        .rev()
        .filter(|s| s.current)
        .find(in_file)
        .or_else(|| all.iter().rev().find(in_file))?;
    let outer_first: Vec<&(String, u32)> = stack.frames.iter().rev().collect();
    let start = outer_first
        .iter()
        .position(|(p, _)| relative(paths, p).as_deref() == Some(test_file))?;
    let mut frames: Vec<Frame> = outer_first[start..]
        .iter()
        .map(|(p, n)| frame_at(paths, p, *n))
        .collect();
    paths.fill_code(&mut frames);
    Some(frames)
}

/// `text` with each dump cut down to what locates the problem: the stacks that pass through
/// the project, each as its header, innermost frame and project frames. When no stack does,
/// the current threads' headers and innermost frames. The `Extension modules:` list goes too.
pub fn compact(text: &str, paths: &PathMap) -> String {
    let is_project =
        |path: &str| relative(paths, path).is_some_and(|rel| PathMap::is_project(&rel));
    let all = stacks(text);
    let touches: Vec<bool> = all
        .iter()
        .map(|s| s.frames.iter().any(|(p, _)| is_project(p)))
        .collect();
    let any_project = touches.contains(&true);
    let keep = |i: usize| {
        if any_project {
            touches.get(i).copied().unwrap_or(false)
        } else {
            all.get(i).is_some_and(|s| s.current)
        }
    };
    let mut out: Vec<&str> = Vec::new();
    // (stack index, first frame still to come?) while inside a dump's stack.
    let mut stack: Option<(usize, bool)> = None;
    let mut index = 0;
    for line in text.lines() {
        if header(line).is_some() {
            if keep(index) {
                out.push(line);
            }
            stack = Some((index, true));
            index += 1;
            continue;
        }
        if let (Some((i, first)), Some((path, _))) = (stack, file_line(line)) {
            if keep(i) && (first || is_project(path)) {
                out.push(line);
            }
            stack = Some((i, false));
            continue;
        }
        stack = None;
        if line.trim_start().starts_with("Extension modules:") {
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// Workspace-relative file of a node id (`tests/t.py::test_x` → `tests/t.py`).
pub fn node_file(id: &str) -> &str {
    id.split_once("::").map_or(id, |(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const DUMP: &str = r#"..
Fatal Python error: Segmentation fault

Thread 0x00007f0000000001 (most recent call first):
  File "/usr/lib/python3.11/site-packages/execnet/gateway_base.py", line 534 in read
  File "/usr/lib/python3.11/threading.py", line 975 in run

Current thread 0x00007f0000000002 (most recent call first):
  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at
  File "/ws/helpers.py", line 4 in crash
  File "/ws/tests/test_seg.py", line 9 in test_crash
  File "/usr/lib/python3.11/site-packages/_pytest/python.py", line 187 in pytest_pyfunc_call
  File "<frozen runpy>", line 198 in _run_module_as_main

Extension modules: _cffi_backend, yaml._yaml (total: 2)
"#;

    #[test]
    fn reads_stacks_innermost_first() {
        let s = stacks(DUMP);
        assert_eq!(s.len(), 2);
        assert!(!s[0].current);
        assert!(s[1].current);
        assert_eq!(s[1].frames.len(), 5);
        assert_eq!(s[1].frames[2], ("/ws/tests/test_seg.py".to_string(), 9));
        assert_eq!(s[1].frames[4], ("<frozen runpy>".to_string(), 198));
        assert_eq!(
            fatal_error(DUMP),
            Some("Fatal Python error: Segmentation fault")
        );
    }

    #[test]
    fn frames_of_the_test_outermost_first() {
        let paths = PathMap::new(Path::new("/ws"));
        let f = frames_for(DUMP, "tests/test_seg.py", &paths).unwrap();
        let locs: Vec<String> = f.iter().map(Frame::location).collect();
        assert_eq!(
            locs,
            [
                "tests/test_seg.py:9",
                "helpers.py:4",
                "python3.11/ctypes/__init__.py:519"
            ]
        );
        assert!(f[0].project && f[1].project && !f[2].project);
        assert_eq!(frames_for(DUMP, "tests/other.py", &paths), None);
    }

    #[test]
    fn a_dump_a_test_printed_before_the_crash_is_not_the_crashs() {
        let paths = PathMap::new(Path::new("/ws"));
        let text = "Fatal Python error: forged\nCurrent thread 0x1 (most recent call first):\n  File \"/ws/tests/t.py\", line 1 in test_x\nFatal Python error: Segmentation fault\n\nCurrent thread 0x7f (most recent call first):\n  File \"/usr/lib/python3.11/ctypes/__init__.py\", line 519 in string_at\n  File \"/ws/tests/t.py\", line 52 in test_x\n";
        assert_eq!(
            fatal_error(text),
            Some("Fatal Python error: Segmentation fault")
        );
        let f = frames_for(text, "tests/t.py", &paths).unwrap();
        assert_eq!((f[0].file.as_str(), f[0].line), ("tests/t.py", 52));
    }

    #[test]
    fn compact_keeps_what_locates() {
        let paths = PathMap::new(Path::new("/ws"));
        let c = compact(DUMP, &paths);
        let lines: Vec<&str> = c.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(
            lines.join("\n"),
            r#"..
Fatal Python error: Segmentation fault

Current thread 0x00007f0000000002 (most recent call first):
  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at
  File "/ws/helpers.py", line 4 in crash
  File "/ws/tests/test_seg.py", line 9 in test_crash
"#
            .replace("\n\n", "\n")
            .trim_end()
        );
    }

    #[test]
    fn compact_without_project_frames_keeps_current_threads() {
        let paths = PathMap::new(Path::new("/elsewhere"));
        let c = compact(DUMP, &paths);
        let lines: Vec<&str> = c.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(
            lines,
            [
                "..",
                "Fatal Python error: Segmentation fault",
                "Current thread 0x00007f0000000002 (most recent call first):",
                "  File \"/usr/lib/python3.11/ctypes/__init__.py\", line 519 in string_at",
            ]
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(s in r#"(?s)(Current thread 0x1 \(most recent call first\):\n|  File "/ws/[a-z]{0,3}.py", line [0-9]{0,12} in f\n|Fatal Python error: x\n|.{0,30}\n){0,12}"#) {
            let paths = PathMap::new(Path::new("/ws"));
            let _ = stacks(&s);
            let _ = compact(&s, &paths);
            let _ = frames_for(&s, "a.py", &paths);
            let _ = fatal_error(&s);
        }
    }

    #[test]
    fn odd_lines_do_not_panic() {
        for s in [
            "File \"",
            "  File \"x\", line ",
            "  File \"x\", line 99999999999 in f",
            "Current thread (most recent call first):\n  File \"a\", line 1",
            "",
        ] {
            let _ = stacks(s);
            let _ = compact(s, &PathMap::new(Path::new("/ws")));
        }
        assert_eq!(node_file("a/b.py::T::t[x::y]"), "a/b.py");
        assert_eq!(node_file("a/b.py"), "a/b.py");
    }
}
