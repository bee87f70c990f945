//! .NET stack traces (`   at Ns.Class.Method(Int32 i) in /src/Foo/Bar.cs:line 42`) and where
//! their files are in this workspace. Reports come from other machines: Windows paths
//! (`C:\agent\_work\1\s\src\Foo\Bar.cs`), deterministic-build paths (`/_/src/Foo/Bar.cs`), other
//! checkouts. A path is mapped back by its longest suffix naming a file that exists in the
//! workspace; a path with no such suffix is a library frame.

use std::collections::HashMap;

use pith_model::Frame;

use crate::PathMap;

/// One `at ...` line, as printed (innermost first in a trace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawFrame {
    pub method: String,
    pub file: Option<String>,
    pub line: u32,
}

/// The `at` lines of a stack trace, innermost first (as .NET prints them). Other lines
/// (`--- End of stack trace from previous location ---`, inner exception markers) are skipped.
pub fn parse(trace: &str) -> Vec<RawFrame> {
    trace
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("at ")?;
            Some(match located(rest) {
                Some((method, file, line)) => RawFrame {
                    method: method.to_owned(),
                    file: Some(file.to_owned()),
                    line,
                },
                None => RawFrame {
                    method: rest.to_owned(),
                    file: None,
                    line: 0,
                },
            })
        })
        .collect()
}

/// `Method(args) in PATH:line N` → (method, path, N).
fn located(rest: &str) -> Option<(&str, &str, u32)> {
    let at = rest.rfind(":line ")?;
    let digits = rest[at + ":line ".len()..].trim();
    let line: u32 = digits.parse().ok()?;
    let head = &rest[..at];
    let sep = head.rfind(" in ")?;
    let file = head[sep + " in ".len()..].trim();
    (!file.is_empty()).then_some((head[..sep].trim(), file, line))
}

/// Maps report paths into the workspace, remembering each answer (a trace repeats its files).
pub struct Locator<'a> {
    paths: &'a PathMap,
    known: HashMap<String, Option<String>>,
}

impl<'a> Locator<'a> {
    pub fn new(paths: &'a PathMap) -> Self {
        Locator {
            paths,
            known: HashMap::new(),
        }
    }

    /// The workspace-relative path of `raw`, if it names a file of this workspace.
    pub fn locate(&mut self, raw: &str) -> Option<String> {
        if let Some(hit) = self.known.get(raw) {
            return hit.clone();
        }
        let found = self.find(raw);
        self.known.insert(raw.to_owned(), found.clone());
        found
    }

    fn find(&self, raw: &str) -> Option<String> {
        let path = raw.replace('\\', "/");
        if path.starts_with('/') {
            // This machine's own checkout: inside the workspace whether or not the file is
            // still there.
            if let Some(rel) = self.paths.relativize(&path, None) {
                return Some(rel);
            }
        }
        let parts: Vec<&str> = path
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        if parts.contains(&"..") {
            return None;
        }
        // Longest suffix first: the most specific match wins.
        (0..parts.len())
            .map(|i| parts[i..].join("/"))
            .find(|suffix| self.paths.root().join(suffix).is_file())
    }

    /// A model frame: project-relative when the file is in the workspace, else as printed.
    pub fn frame(&mut self, raw: &RawFrame) -> Frame {
        match &raw.file {
            Some(file) => match self.locate(file) {
                Some(rel) => Frame {
                    project: PathMap::is_project(&rel) && raw.line > 0,
                    file: rel,
                    line: raw.line,
                    code: None,
                },
                None => Frame {
                    file: file.clone(),
                    line: raw.line,
                    code: None,
                    project: false,
                },
            },
            // No file: a library or runtime frame, named by its method.
            None => Frame {
                file: raw.method.clone(),
                line: 0,
                code: None,
                project: false,
            },
        }
    }

    /// Model frames of a trace, outermost first.
    pub fn frames(&mut self, trace: &str) -> Vec<Frame> {
        let mut frames: Vec<Frame> = parse(trace).iter().map(|f| self.frame(f)).collect();
        frames.reverse();
        frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn at_lines_with_and_without_locations() {
        let trace = "   at DotnetTests.Unit.Calculator.Div(Int32 a, Int32 b) in C:\\Users\\M\\src\\DotnetTests.Unit\\Calculator.cs:line 9\r\n   at System.RuntimeMethodHandle.InvokeMethod(Object target, Void** arguments)\n--- End of stack trace from previous location ---\n   at X.Y() in /_/src/a b/Y.cs:line 3";
        let frames = parse(trace);
        assert_eq!(
            frames,
            vec![
                RawFrame {
                    method: "DotnetTests.Unit.Calculator.Div(Int32 a, Int32 b)".into(),
                    file: Some("C:\\Users\\M\\src\\DotnetTests.Unit\\Calculator.cs".into()),
                    line: 9
                },
                RawFrame {
                    method:
                        "System.RuntimeMethodHandle.InvokeMethod(Object target, Void** arguments)"
                            .into(),
                    file: None,
                    line: 0
                },
                RawFrame {
                    method: "X.Y()".into(),
                    file: Some("/_/src/a b/Y.cs".into()),
                    line: 3
                },
            ]
        );
    }

    #[test]
    fn foreign_paths_map_by_their_longest_existing_suffix() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        std::fs::create_dir_all(root.join("src/App")).unwrap();
        std::fs::create_dir_all(root.join("tests/App")).unwrap();
        std::fs::write(root.join("src/App/Calc.cs"), "").unwrap();
        std::fs::write(root.join("tests/App/Calc.cs"), "").unwrap();
        std::fs::write(root.join("Calc.cs"), "").unwrap();
        let paths = PathMap::new(root);
        let mut loc = Locator::new(&paths);
        assert_eq!(
            loc.locate("C:\\agent\\_work\\1\\s\\src\\App\\Calc.cs")
                .as_deref(),
            Some("src/App/Calc.cs")
        );
        assert_eq!(
            loc.locate("/_/tests/App/Calc.cs").as_deref(),
            Some("tests/App/Calc.cs")
        );
        // Only the file name matches: the root's file.
        assert_eq!(
            loc.locate("/home/ci/other/Calc.cs").as_deref(),
            Some("Calc.cs")
        );
        assert_eq!(loc.locate("/_/lib/Missing.cs"), None);
        assert_eq!(loc.locate("../../etc/passwd"), None);
        let own = root.join("src/Gone.cs");
        assert_eq!(
            loc.locate(&own.to_string_lossy()).as_deref(),
            Some("src/Gone.cs")
        );
        let f = loc.frame(&RawFrame {
            method: "M()".into(),
            file: Some("/_/lib/Missing.cs".into()),
            line: 4,
        });
        assert!(!f.project);
        assert_eq!(f.file, "/_/lib/Missing.cs");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,300}") {
            let _ = parse(&s);
            let _ = parse(&format!("at {s} in {s}:line 1"));
            let paths = PathMap::new(Path::new("/nonexistent-ws"));
            let mut loc = Locator::new(&paths);
            let _ = loc.frames(&format!("   at A.B() in {s}:line 3\n{s}"));
        }
    }
}
