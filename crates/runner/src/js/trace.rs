//! Tracing for node's test runner and mocha (which runs the code as written too, its parallel
//! workers inheriting `NODE_V8_COVERAGE`): which lines of the changed script files each failing test
//! executes. Each test (at most [`MAX_TESTS`]) runs again alone through the usual command with
//! `NODE_V8_COVERAGE=<scratch dir>`, where node and its test processes write V8's block
//! coverage as they exit; a changed file's ranges (byte offsets in UTF-16 units, nested ranges
//! overriding the ones around them) become the lines whose first token ran.
//!
//! Only code V8 ran as written can be mapped here: jest wraps and transforms every module
//! (babel-jest) and vitest runs what vite made of it, so their offsets are not the source's;
//! they are traced through their own coverage instead (`coverage`), which maps V8's ranges back
//! through each transform's source map. Under node, a file whose script length is not the
//! source's (a loader, a transpiler) makes the whole trace `None` rather than guessed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use pith_model::impact::{Lines, Traced};
use serde_json::Value;

use crate::process;
use crate::{Context, RunnerError};

use super::command::Selection;
use super::{is_test_id, Js, Runner};

/// Most tests re-run: each is a run of its own (under jest and vitest, each test file is).
pub(super) const MAX_TESTS: usize = 5;

/// Largest coverage file or source read; past it, tracing gives way to the static reach.
pub(super) const MAX_BYTES: u64 = 64 << 20;

/// A changed file as V8 names it, with what is needed to map offsets to lines.
pub(super) struct Script {
    /// The workspace-relative name the answer uses.
    pub(super) file: String,
    /// Its real absolute path: node reports real paths as `file://` URLs.
    pub(super) path: PathBuf,
    /// Its length in UTF-16 units: V8's offsets count those.
    pub(super) len: u64,
    /// (1-based line, UTF-16 offset of its first token) of each line that holds code.
    pub(super) lines: Vec<(u32, u64)>,
}

impl Script {
    /// `None` for a file that is not there, too big, or not text.
    pub(super) fn read(root: &Path, file: &str) -> Option<Script> {
        let path = std::fs::canonicalize(root.join(file)).ok()?;
        if std::fs::metadata(&path).ok()?.len() > MAX_BYTES {
            return None;
        }
        let text = String::from_utf8(std::fs::read(&path).ok()?).ok()?;
        let mut lines = Vec::new();
        let mut offset: u64 = 0;
        for (i, line) in text.split('\n').enumerate() {
            let lead = line.len() - line.trim_start().len();
            let code = line.trim();
            let comment = code.starts_with("//") || code.starts_with("/*") || code.starts_with('*');
            if !code.is_empty() && !comment {
                let at = offset + utf16_len(&line[..lead]);
                lines.push((u32::try_from(i + 1).ok()?, at));
            }
            offset += utf16_len(line) + 1;
        }
        Some(Script {
            file: file.to_owned(),
            path,
            len: utf16_len(&text),
            lines,
        })
    }
}

fn utf16_len(s: &str) -> u64 {
    s.chars().map(|c| c.len_utf16() as u64).sum()
}

impl Js {
    /// See [`crate::Adapter::trace`]: node's runner and mocha here, one run per test; jest and
    /// vitest through their coverage (`coverage`).
    pub(super) fn trace_tests(
        &self,
        ctx: &Context<'_>,
        tests: &[String],
        files: &[String],
    ) -> Result<Option<Traced>, RunnerError> {
        if !matches!(self.runner, Runner::Node | Runner::Mocha) {
            return self.trace_coverage(ctx, tests, files);
        }
        let Ok(program) = self.program(ctx.cache) else {
            return Ok(None);
        };
        let scripts: Vec<Script> = files
            .iter()
            .filter(|f| [".js", ".cjs", ".mjs"].iter().any(|e| f.ends_with(e)))
            .filter_map(|f| Script::read(ctx.root, f))
            .collect();
        if scripts.is_empty() {
            return Ok(None);
        }
        let mut traced = Traced::default();
        let ids = tests.iter().filter(|id| is_test_id(id)).take(MAX_TESTS);
        for (n, id) in ids.enumerate() {
            if Instant::now() >= ctx.deadline {
                break;
            }
            let (sel, _) = Selection::of(std::slice::from_ref(id), ctx.root);
            if sel.files.is_empty() {
                continue;
            }
            let run_files = self.files(ctx)?;
            let dir = ctx.scratch.join(format!("v8-coverage-{n}"));
            let _ = std::fs::remove_dir_all(&dir);
            let mut cmd = self.command(ctx, &program, &run_files, Some(&sel), None);
            cmd.env("NODE_V8_COVERAGE", &dir);
            // The verdict is not the answer's: only the coverage is read.
            if process::run(cmd, ctx.deadline, ctx.cancel).is_err() {
                continue;
            }
            match read_coverage(&dir, &scripts) {
                Coverage::Lines(lines) => {
                    traced.tests.insert(id.clone(), lines);
                }
                Coverage::Unread => {}
                Coverage::NotTheSource => return Ok(None),
            }
        }
        Ok((!traced.tests.is_empty()).then_some(traced))
    }
}

pub(super) enum Coverage {
    Lines(Lines),
    /// No coverage was written (node did not start, or died before it could).
    Unread,
    /// A changed file ran as other code than its source: its offsets cannot be mapped.
    NotTheSource,
}

/// The lines of `scripts` the coverage files in `dir` say ran, over every process.
pub(super) fn read_coverage(dir: &Path, scripts: &[Script]) -> Coverage {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Coverage::Unread;
    };
    let mut lines = Lines::new();
    let mut any = false;
    for entry in entries.flatten() {
        let path = entry.path();
        let small = entry.metadata().is_ok_and(|m| m.len() <= MAX_BYTES);
        if !small || path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Ok(Value::Object(doc)) =
            serde_json::from_slice::<Value>(&std::fs::read(&path).unwrap_or_default())
        else {
            continue;
        };
        any = true;
        let results = doc.get("result").and_then(Value::as_array);
        for script in results.into_iter().flatten() {
            let url = script.get("url").and_then(Value::as_str).unwrap_or("");
            let Some(wanted) = file_path(url).and_then(|p| scripts.iter().find(|s| s.path == p))
            else {
                continue;
            };
            let ranges = ranges(script);
            if ranges.iter().map(|r| r.1).max() != Some(wanted.len) {
                return Coverage::NotTheSource;
            }
            let ran = executed(wanted, &ranges);
            if !ran.is_empty() {
                lines.entry(wanted.file.clone()).or_default().extend(ran);
            }
        }
    }
    if any {
        Coverage::Lines(lines)
    } else {
        Coverage::Unread
    }
}

/// Every (start, end, count) range of a script's functions.
fn ranges(script: &Value) -> Vec<(u64, u64, u64)> {
    let functions = script.get("functions").and_then(Value::as_array);
    functions
        .into_iter()
        .flatten()
        .filter_map(|f| f.get("ranges").and_then(Value::as_array))
        .flatten()
        .filter_map(|r| {
            let n = |k: &str| r.get(k).and_then(Value::as_u64);
            Some((n("startOffset")?, n("endOffset")?, n("count")?))
        })
        .filter(|(s, e, _)| s < e)
        .collect()
}

/// The lines whose first token lies in a range that ran, the innermost range deciding.
fn executed(script: &Script, ranges: &[(u64, u64, u64)]) -> BTreeSet<u32> {
    script
        .lines
        .iter()
        .filter(|(_, at)| {
            ranges
                .iter()
                .filter(|(s, e, _)| s <= at && at < e)
                .min_by_key(|(s, e, _)| e - s)
                .is_some_and(|(_, _, count)| *count > 0)
        })
        .map(|(line, _)| *line)
        .collect()
}

/// The path of a `file://` URL, percent-decoded; `None` for any other URL.
fn file_path(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("file://")?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRICE: &str = "// é comment\nfunction discount(a) {\n  if (a > 100) {\n    return a * 0.9;\n  }\n  return a - 1;\n}\n\nfunction unused() {\n  return 0;\n}\n\nmodule.exports = { discount, unused };\n";

    /// What node 20 wrote for `PRICE` after `discount(10)`.
    fn coverage(url: &str, len: u64) -> String {
        format!(
            r#"{{"result": [{{"scriptId": "7", "url": "{url}", "functions": [
            {{"functionName": "", "ranges": [{{"startOffset": 0, "endOffset": {len}, "count": 1}}], "isBlockCoverage": true}},
            {{"functionName": "discount", "ranges": [{{"startOffset": 13, "endOffset": 94, "count": 1}}, {{"startOffset": 51, "endOffset": 76, "count": 0}}], "isBlockCoverage": true}},
            {{"functionName": "unused", "ranges": [{{"startOffset": 96, "endOffset": 129, "count": 0}}], "isBlockCoverage": false}}]}}]}}"#
        )
    }

    fn setup(name: &str) -> (tempfile::TempDir, Script, PathBuf) {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join(name), PRICE).unwrap();
        let script = Script::read(ws.path(), name).unwrap();
        let cov = ws.path().join("cov");
        std::fs::create_dir(&cov).unwrap();
        (ws, script, cov)
    }

    #[test]
    fn innermost_ranges_decide_and_comments_are_no_lines() {
        let (_ws, script, cov) = setup("my price.js");
        assert_eq!(script.len, 170, "UTF-16 units, not bytes");
        let url = format!("file://{}", script.path.display()).replace(' ', "%20");
        std::fs::write(cov.join("coverage-1.json"), coverage(&url, 170)).unwrap();
        std::fs::write(cov.join("coverage-2.json"), "{not json").unwrap();
        let Coverage::Lines(lines) = read_coverage(&cov, std::slice::from_ref(&script)) else {
            panic!("read");
        };
        let got: Vec<u32> = lines["my price.js"].iter().copied().collect();
        assert_eq!(got, [2, 3, 6, 7, 13]);
    }

    #[test]
    fn code_that_is_not_the_source_is_not_mapped() {
        let (_ws, script, cov) = setup("price.js");
        let url = format!("file://{}", script.path.display());
        std::fs::write(cov.join("coverage-1.json"), coverage(&url, 230)).unwrap();
        assert!(matches!(
            read_coverage(&cov, std::slice::from_ref(&script)),
            Coverage::NotTheSource
        ));
        let other = coverage("file:///elsewhere/price.js", 230);
        std::fs::write(cov.join("coverage-1.json"), other).unwrap();
        let Coverage::Lines(lines) = read_coverage(&cov, &[script]) else {
            panic!("read");
        };
        assert!(lines.is_empty());
    }

    #[test]
    fn file_urls_decode_and_others_are_not_files() {
        assert_eq!(
            file_path("file:///a%20b/%C3%A9.js"),
            Some(PathBuf::from("/a b/é.js"))
        );
        assert_eq!(file_path("file:///a%2"), Some(PathBuf::from("/a%2")));
        assert_eq!(file_path("node:internal/x"), None);
        assert_eq!(file_path("https://x/y.js"), None);
    }
}
