//! A failed Go test as the model wants it: its panic or fatal error with the goroutine's frames,
//! else its first log entry (testify's block read), an example's got/want, or its first line;
//! every location found through the package's directory, and a failure that names no place
//! given its test function's declaration.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pith_model::{Failure, Frame, Phase, Run};

use super::events::Stream;
use super::judge::Judge;
use super::lines::meaningful;
use super::output::{self, Crash, CrashKind, Goroutine, RawFrame};
use crate::text;

impl Judge<'_> {
    /// Failures that say nothing about where (`t.Fail()`, an example's output, a test that
    /// called `os.Exit`) get the test function's declaration as their frame.
    pub(super) fn declarations(&self, stream: &Stream, run: &mut Run) {
        let mut found: HashMap<String, HashMap<String, (String, u32)>> = HashMap::new();
        for f in &mut run.failures {
            if f.phase == Phase::Collect || f.frames.iter().any(|fr| fr.project) {
                continue;
            }
            let Some((pkg, name)) = stream.packages.iter().find_map(|p| {
                let rest = f
                    .test
                    .strip_prefix(&self.pkg_name(&p.name))?
                    .strip_prefix('.')?;
                Some((p.name.as_str(), rest))
            }) else {
                continue;
            };
            let top = name.split('/').next().unwrap_or(name);
            let decls = found.entry(pkg.to_owned()).or_insert_with(|| {
                self.dirs
                    .dir(pkg)
                    .map(|d| test_funcs(&d))
                    .unwrap_or_default()
            });
            if let Some((file, line)) = decls.get(top) {
                f.frames
                    .push(self.project_frame(self.paths.frame(file, *line, None)));
            }
        }
    }

    /// A failed test from what it printed: its panic, else its first log entry (testify's
    /// block read), else its first line of output.
    pub(super) fn failure(
        &self,
        pkg: &str,
        test: String,
        lines: &[&str],
        fallback: Option<Crash>,
    ) -> Failure {
        if let Some(c) = output::crash(lines) {
            let mut f = self.crash_failure(pkg, test, &c);
            crate::detail::fill(&mut f, self.paths, &crash_text(lines));
            return f;
        }
        if let Some(c) = fallback {
            return self.crash_failure(pkg, test, &c);
        }
        let entries = output::entries(lines);
        if let Some(e) = entries.first().cloned() {
            let mut message = text::first_line(&self.paths.scrub(&output::entry_message(&e)));
            if message.is_empty() {
                message = "failed".into();
            }
            let frames = match output::testify(&e) {
                Some(t) if !t.trace.is_empty() => t
                    .trace
                    .iter()
                    .rev()
                    .map(|(file, line)| self.locate(pkg, file, *line))
                    .collect(),
                _ => vec![self.locate(pkg, &e.file, e.line)],
            };
            let mut f = Failure {
                test,
                message,
                // Not a type, but what clusters failures: `t.Error`s at one line are one cause
                // whatever values their messages print.
                kind: Some("error".into()),
                frames,
                ..Failure::default()
            };
            crate::detail::fill(&mut f, self.paths, &entries_text(&entries));
            return f;
        }
        if let Some(m) = example_mismatch(lines) {
            let mut f = Failure {
                test,
                message: text::cut_chars(&self.paths.scrub(&m), text::MESSAGE_CHARS).into_owned(),
                kind: Some("output".into()),
                ..Failure::default()
            };
            crate::detail::fill(&mut f, self.paths, &m);
            return f;
        }
        let message = meaningful(lines)
            .map(|l| text::first_line(&self.paths.scrub(l)))
            .unwrap_or_else(|| "failed without a message".into());
        Failure {
            test,
            message,
            ..Failure::default()
        }
    }

    pub(super) fn crash_failure(&self, pkg: &str, test: String, c: &Crash) -> Failure {
        let g = match c.kind {
            CrashKind::Timeout => None,
            _ => c.goroutines.first(),
        };
        let frames = match (&c.kind, g.and_then(Goroutine::origin)) {
            (CrashKind::Panic, Some((origin, handlers))) => {
                // A re-panic is answered where the value was first panicked; the handler's
                // project frames (the test's `panic(ex)` line) stay, as outer frames.
                let mut out: Vec<Frame> = self
                    .convert(pkg, handlers.into_iter().rev())
                    .into_iter()
                    .filter(|f| f.project)
                    .collect();
                out.extend(self.convert(pkg, origin.iter().rev()));
                out
            }
            _ => g.map(|g| self.frames(pkg, g)).unwrap_or_default(),
        };
        Failure {
            test,
            message: text::first_line(&self.paths.scrub(&c.message)),
            kind: Some(c.kind_name()),
            frames,
            ..Failure::default()
        }
    }

    /// A goroutine's frames, outermost first.
    pub(super) fn frames(&self, pkg: &str, g: &Goroutine) -> Vec<Frame> {
        self.convert(pkg, g.frames.iter().rev())
    }

    /// Raw frames located through the package's directory, in the order given.
    fn convert<'a>(&self, pkg: &str, raw: impl Iterator<Item = &'a RawFrame>) -> Vec<Frame> {
        raw.map(|f| {
            if Path::new(&f.file).is_absolute() {
                self.project_frame(self.paths.frame(&f.file, f.line, None))
            } else {
                match self
                    .dirs
                    .file(pkg, &f.file)
                    .filter(|_| f.file.contains('/'))
                {
                    Some(abs) => {
                        self.project_frame(self.paths.frame(&abs.to_string_lossy(), f.line, None))
                    }
                    None => Frame {
                        file: f.file.clone(),
                        line: f.line,
                        code: None,
                        project: false,
                    },
                }
            }
        })
        .collect()
    }

    /// A log entry's location: through the package's directory, or as printed when it cannot
    /// be told (a report from elsewhere, a base name two directories share).
    fn locate(&self, pkg: &str, file: &str, line: u32) -> Frame {
        if let Some(abs) = self.dirs.file(pkg, file) {
            let abs = abs.to_string_lossy();
            if self.paths.relativize(&abs, None).is_some() {
                return self.project_frame(self.paths.frame(&abs, line, None));
            }
        }
        // Not found in the workspace (a report from another machine): the base name says more
        // than another root's absolute path.
        let shown = if looks_absolute(file) {
            base_name(file)
        } else {
            file
        };
        Frame::project(shown, line)
    }

    /// Vendored packages are not the project's, whatever `PathMap` says.
    fn project_frame(&self, mut f: Frame) -> Frame {
        if f.project && f.file.split('/').any(|c| c == "vendor") {
            f.project = false;
        }
        f
    }
}

/// An example's `got:` / `want:` blocks as one line: `got "a\nb", want "A\nb"`.
pub(super) fn example_mismatch(lines: &[&str]) -> Option<String> {
    let lines: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !output::is_framing(l))
        .collect();
    let got = lines.iter().position(|l| l.trim_end() == "got:")?;
    let want = got + lines[got..].iter().position(|l| l.trim_end() == "want:")?;
    let block = |ls: &[&str]| {
        ls.iter()
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n")
    };
    Some(format!(
        "got {:?}, want {:?}",
        block(&lines[got + 1..want]),
        block(&lines[want + 1..])
    ))
}

/// Where each test function of the package in `dir` is declared (`func TestX(`), read from
/// its `_test.go` files.
pub(super) fn test_funcs(dir: &Path) -> HashMap<String, (String, u32)> {
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with("_test.go"))
        .collect();
    files.sort();
    for file in files {
        let Some(text) = super::locate::read_source(&file) else {
            continue;
        };
        for (i, l) in text.lines().enumerate() {
            let Some(rest) = l.strip_prefix("func ") else {
                continue;
            };
            let name = rest.split('(').next().unwrap_or("").trim();
            if output::is_test_func(name) {
                out.entry(name.to_owned())
                    .or_insert_with(|| (file.to_string_lossy().into_owned(), i as u32 + 1));
            }
        }
    }
    out
}

/// `/x`, `\\x` or `C:\\x`: a path from some machine's root.
pub(super) fn looks_absolute(file: &str) -> bool {
    let b = file.as_bytes();
    file.starts_with(['/', '\\'])
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}

pub(super) fn base_name(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

/// Every log entry as the testing package printed it (`file.go:12: text`, continuation lines
/// indented): the whole of what `t.Errorf`/`t.Fatalf` said, expected/actual lines included. One
/// entry goes without its place, which the failure's frame already says.
fn entries_text(entries: &[output::Entry]) -> String {
    let mut out = String::new();
    for e in entries {
        if entries.len() == 1 {
            out.push_str(&format!("{}\n", e.text));
        } else {
            out.push_str(&format!("{}:{}: {}\n", e.file, e.line, e.text));
        }
        let indent = if entries.len() == 1 { "" } else { "    " };
        for l in &e.more {
            out.push_str(&format!("{indent}{l}\n"));
        }
    }
    out
}

/// A crash's own lines: from its first line (`panic: `, `fatal error: `) to the goroutine dump
/// (whose frames the failure carries), so a multi-line panic value is kept whole; go's
/// `[recovered]` notes are dropped and the re-panic's restatement of the same line with them.
fn crash_text(lines: &[&str]) -> String {
    let start = lines
        .iter()
        .position(|l| {
            let l = l.trim_start();
            l.starts_with("panic: ") || l.starts_with("fatal error: ")
        })
        .unwrap_or(0);
    let mut out: Vec<&str> = Vec::new();
    for l in lines[start..]
        .iter()
        .take_while(|l| !l.starts_with("goroutine "))
    {
        let l = l.trim();
        let l = ["[recovered]", "[recovered, repanicked]"]
            .iter()
            .find_map(|note| l.strip_suffix(note))
            .unwrap_or(l)
            .trim_end();
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out.join("\n")
}
