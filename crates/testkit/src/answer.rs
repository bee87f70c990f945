//! The answer of the real `pith` binary as a test reads it: the line exactly as printed, its
//! parsed form and the exit code, and the rules every answer obeys checked on the way in.

use std::path::Path;

/// One `pith` answer.
pub struct Answer {
    /// The answer line exactly as printed, without the trailing newline.
    pub line: String,
    pub json: serde_json::Value,
    pub code: i32,
    pub stderr: String,
}

impl Answer {
    pub fn status(&self) -> &str {
        self.json["status"].as_str().unwrap_or("")
    }

    pub fn bytes(&self) -> usize {
        self.line.len()
    }

    pub fn failures(&self) -> &[serde_json::Value] {
        self.json["failures"].as_array().map_or(&[], Vec::as_slice)
    }

    /// A count of the answer; absent means zero.
    pub fn count(&self, key: &str) -> u64 {
        self.json[key].as_u64().unwrap_or(0)
    }

    /// The verdict and the counts a raw run is compared with: status, passed, failed (absent
    /// counts are zero).
    pub fn tally(&self) -> (&str, u64, u64) {
        (self.status(), self.count("passed"), self.count("failed"))
    }

    /// A text of the answer; absent means empty.
    pub fn text(&self, key: &str) -> &str {
        self.json[key].as_str().unwrap_or("")
    }

    /// The failure shown for `test`; there must be one.
    pub fn failure(&self, test: &str) -> &serde_json::Value {
        self.failures()
            .iter()
            .find(|f| f["test"] == test)
            .unwrap_or_else(|| panic!("no failure {test}: {}", self.line))
    }

    /// The ids of the failures shown, in the answer's order.
    pub fn failure_ids(&self) -> Vec<&str> {
        self.failures()
            .iter()
            .filter_map(|f| f["test"].as_str())
            .collect()
    }

    /// The workspace generation the answer carries; there must be one.
    pub fn generation(&self) -> u64 {
        self.json["generation"]
            .as_u64()
            .unwrap_or_else(|| panic!("no generation: {}", self.line))
    }

    /// The answer without its only run-to-run variable, the duration, for snapshots: left
    /// out whether there or not (a run under 0.05 s has none), so a snapshot does not move
    /// with the machine's speed.
    pub fn stable(&self) -> String {
        const KEY: &str = "\"durationS\":";
        let mut out = String::new();
        let mut rest = self.line.as_str();
        while let Some(i) = rest.find(KEY) {
            let (head, tail) = rest.split_at(i);
            let tail =
                tail[KEY.len()..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            match head.strip_suffix(',') {
                Some(head) => {
                    out.push_str(head);
                    rest = tail;
                }
                None => {
                    out.push_str(head);
                    rest = tail.strip_prefix(',').unwrap_or(tail);
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Failures shown in full (each standing for its cause's `affected`), plus those counted
    /// in clusters, plus those left out: every failure the run had is in exactly one of these.
    pub fn accounted(&self) -> u64 {
        let shown: u64 = self
            .failures()
            .iter()
            .map(|f| f["affected"].as_u64().unwrap_or(1))
            .sum();
        let clustered: u64 = self.json["clusters"].as_array().map_or(0, |c| {
            c.iter().map(|c| c["affected"].as_u64().unwrap()).sum()
        });
        shown + clustered + self.json["moreFailures"].as_u64().unwrap_or(0)
    }

    pub fn assert_budget(&self, budget: usize) {
        assert!(
            self.bytes() <= budget,
            "answer is {} bytes, budget {budget}: {}",
            self.bytes(),
            self.line
        );
    }
}

/// The frames of a failure, in order.
pub fn frames(failure: &serde_json::Value) -> Vec<&str> {
    strings(&failure["frames"])
}

/// The strings of a JSON list (none when it is absent), in order.
pub fn strings(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default()
}

/// A finished `pith` process's answer: exactly one line on stdout, clean (see
/// [`assert_clean`]) for the workspace at `root`.
pub fn answer_of(out: std::process::Output, root: &Path) -> Answer {
    let stdout = String::from_utf8(out.stdout).expect("utf-8 answer");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
        "not one line: {stdout:?}\n{stderr}"
    );
    let line = stdout.trim_end_matches('\n').to_owned();
    let json = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_clean(&line, root);
    Answer {
        line,
        json,
        code: out.status.code().unwrap_or(-1),
        stderr,
    }
}

/// Absolute path tokens in `s`: `/` after a space, a quote, a bracket or `=`/`:`/`,` (or at the
/// start) followed by at least two path segments (`/usr/lib`), `C:\`, or `file:///`.
pub fn absolute_paths(s: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let b = s.as_bytes();
    let seg = |c: u8| c.is_ascii_alphanumeric() || b"._-~@+".contains(&c) || c >= 0x80;
    for i in (0..b.len()).filter(|&i| s.is_char_boundary(i)) {
        let at_start = i == 0 || b" \t\n\"'`([{<=,:;|>".contains(&b[i - 1]);
        if b[i] == b'/' && at_start && b.get(i + 1).is_some_and(|&c| seg(c)) {
            let end = s[i..]
                .find(|c: char| c.is_whitespace() || "\"'`()<>[]{},;:|".contains(c))
                .map_or(s.len(), |n| i + n);
            let token = &s[i..end];
            let segments = token.split('/').filter(|x| !x.is_empty()).count();
            if segments >= 2 && !token.contains("//") {
                found.push(token);
            }
        }
        let drive = b[i].is_ascii_alphabetic()
            && b.get(i + 1) == Some(&b':')
            && b.get(i + 2) == Some(&b'\\')
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if drive || s[i..].starts_with("file:///") {
            let end = s[i..].find(char::is_whitespace).map_or(s.len(), |n| i + n);
            found.push(&s[i..end]);
        }
    }
    found
}

/// Every string of an answer, keys aside.
fn every_string<'a>(v: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    match v {
        serde_json::Value::String(s) => out.push(s),
        serde_json::Value::Array(a) => a.iter().for_each(|x| every_string(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| every_string(x, out)),
        _ => {}
    }
}

/// Rules every answer obeys: no colour codes, no absolute paths (the workspace's or any
/// other: an interpreter's, a module cache's, the home or temporary directory), no nulls, no
/// empty lists or objects.
pub fn assert_clean(line: &str, root: &Path) {
    assert!(!line.contains('\u{1b}'), "escape code in answer: {line}");
    let root = root.to_string_lossy();
    assert!(
        !line.contains(root.as_ref()),
        "absolute workspace path in answer: {line}"
    );
    if let Ok(canon) = Path::new(root.as_ref()).canonicalize() {
        assert!(
            !line.contains(canon.to_string_lossy().as_ref()),
            "absolute path in answer: {line}"
        );
    }
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    let mut strings = Vec::new();
    every_string(&value, &mut strings);
    for s in strings {
        let found = absolute_paths(s);
        assert!(
            found.is_empty(),
            "absolute path {found:?} in answer: {line}"
        );
    }
    assert_signal(&value, line);
}

/// No nulls, no empty strings, lists or objects, no zero counts: absent means "nothing".
fn assert_signal(v: &serde_json::Value, line: &str) {
    use serde_json::Value::*;
    match v {
        Null => panic!("null in answer: {line}"),
        String(s) => assert!(!s.is_empty(), "empty string in answer: {line}"),
        Array(a) => {
            assert!(!a.is_empty(), "empty list in answer: {line}");
            a.iter().for_each(|x| assert_signal(x, line));
        }
        Object(o) => {
            assert!(!o.is_empty(), "empty object in answer: {line}");
            for (k, x) in o {
                // Counts and durations alike: a 0 or a 0.0 is no signal.
                assert!(x.as_f64() != Some(0.0), "zero {k} in answer: {line}");
                assert_signal(x, line);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::absolute_paths;

    #[test]
    fn absolute_path_tokens_are_found() {
        for (text, found) in [
            (
                "File \"/usr/lib/python3.11/json/x.py\", line 3",
                vec!["/usr/lib/python3.11/json/x.py"],
            ),
            (
                "at (/root/go/pkg/mod/a@v1/b.go:3)",
                vec!["/root/go/pkg/mod/a@v1/b.go"],
            ),
            ("rootdir=/tmp/x", vec!["/tmp/x"]),
            ("see file:///a/b.js", vec!["file:///a/b.js"]),
            ("C:\\work\\x.cs(3)", vec!["C:\\work\\x.cs(3)"]),
            (
                "src/a.rs:3 1/2 http://x.com/a/b /api GET /^a$/ ~/x/y ●─",
                vec![],
            ),
        ] {
            assert_eq!(absolute_paths(text), found, "{text}");
        }
    }
}
