//! Bazel's build event protocol, as `--build_event_json_file` writes it (one JSON object a
//! line), read into what the judge weighs: per target whether it is a test, whether it built,
//! each test attempt (status, cache, where it ran, its `test.xml` and `test.log`) and the
//! summary; the actions that failed, with their stderr files; how the build finished; whether
//! the stream reached its last message. Lines that are not JSON, or events pith does not know,
//! are skipped: a stream cut short (a killed client) reads as far as it goes, and its missing
//! `lastMessage` is the judge's evidence.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use serde_json::Value;

use crate::text::percent_decode;

/// A BEP line longer than this is skipped unread (a huge `namedSetOfFiles`): nothing pith
/// needs is in one.
const LINE_BYTES: usize = 4 << 20;
/// Console text kept from `progress` events, from the end.
const CONSOLE_LINES: usize = 400;

#[derive(Debug, Default)]
pub(super) struct Stream {
    /// By label.
    pub targets: BTreeMap<String, Target>,
    pub failed_actions: Vec<FailedAction>,
    /// `buildFinished`: Bazel's exit code name (`TESTS_FAILED`) and number.
    pub finished: Option<(String, i32)>,
    /// The stream's `lastMessage` arrived: nothing was cut off.
    pub complete: bool,
    /// The console lines Bazel printed (`progress` events' stdout and stderr), the last
    /// [`CONSOLE_LINES`].
    pub console: Vec<String>,
    /// The execution root (`workspaceInfo.localExecRoot`).
    pub exec_root: Option<String>,
}

#[derive(Debug, Default)]
pub(super) struct Target {
    /// A test rule (its kind ends in `_test rule`, or Bazel gave it a test size).
    pub test: bool,
    /// `targetCompleted`: `Some(true)` built, `Some(false)` failed to build.
    pub built: Option<bool>,
    /// Why Bazel gave up on it before building (`aborted`: `SKIPPED`, `INCOMPLETE`, ...).
    pub aborted: Option<String>,
    pub attempts: Vec<Attempt>,
    /// `testSummary.overallStatus`, when Bazel summarized the target.
    pub summary: Option<String>,
    /// `testSummary.totalRunCount`: the attempts Bazel counted for it (runs × shards ×
    /// attempts).
    pub runs_counted: Option<u32>,
}

#[derive(Debug, Default, Clone)]
pub(super) struct Attempt {
    /// `PASSED`, `FAILED`, `TIMEOUT`, `FLAKY`, `INCOMPLETE`, `REMOTE_FAILURE`, `NO_STATUS`, ...
    pub status: String,
    pub run: u32,
    pub shard: u32,
    pub attempt: u32,
    /// The result came from a cache: the test did not run now.
    pub cached: bool,
    /// It ran on a remote executor.
    pub remote: bool,
    pub xml: Option<PathBuf>,
    pub log: Option<PathBuf>,
}

#[derive(Debug, Default, Clone)]
pub(super) struct FailedAction {
    pub stderr: Option<PathBuf>,
    pub stdout: Option<PathBuf>,
}

/// Reads a whole stream; never fails (what cannot be read is left out).
pub(super) fn read(input: impl Read) -> Stream {
    let mut stream = Stream::default();
    // One read for most streams: the default 8 KiB buffer took seven for a 54 KB one.
    let mut reader = BufReader::with_capacity(64 << 10, input);
    let mut line: Vec<u8> = Vec::new();
    loop {
        line.clear();
        match reader
            .by_ref()
            .take(LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.len() > LINE_BYTES && !line.ends_with(b"\n") {
            // Skip the rest of an overlong line.
            let mut rest = Vec::new();
            if reader.read_until(b'\n', &mut rest).is_err() {
                break;
            }
            continue;
        }
        if unread(&line) {
            // Its payload says nothing the judge weighs; only the stream's end may ride on it.
            let whole = line.trim_ascii_end().ends_with(b"}");
            if whole && line.windows(LAST_MESSAGE.len()).any(|w| w == LAST_MESSAGE) {
                stream.complete = true;
            }
            continue;
        }
        if let Ok(event) = serde_json::from_slice::<Value>(&line) {
            stream.event(&event);
        }
    }
    if stream.console.len() > CONSOLE_LINES {
        stream.console.drain(..stream.console.len() - CONSOLE_LINES);
    }
    stream
}

impl Stream {
    fn event(&mut self, e: &Value) {
        if e.get("lastMessage").and_then(Value::as_bool) == Some(true) {
            self.complete = true;
        }
        let Some(id) = e.get("id").and_then(Value::as_object) else {
            return;
        };
        let Some((kind, key)) = id.iter().next() else {
            return;
        };
        let label = || str_at(key, "label");
        if let Some(a) = e.get("aborted") {
            let reason = str_at(a, "reason").unwrap_or_default();
            if let Some(l) = label() {
                self.target(&l).aborted = Some(reason);
            }
            return;
        }
        match kind.as_str() {
            "progress" => {
                if let Some(p) = e.get("progress") {
                    for stream in ["stdout", "stderr"] {
                        if let Some(text) = p.get(stream).and_then(Value::as_str) {
                            self.console.extend(text.lines().map(str::to_owned));
                            if self.console.len() > 4 * CONSOLE_LINES {
                                self.console.drain(..self.console.len() - CONSOLE_LINES);
                            }
                        }
                    }
                }
            }
            "workspace" => {
                self.exec_root = e
                    .get("workspaceInfo")
                    .and_then(|w| str_at(w, "localExecRoot"));
            }
            "targetConfigured" => {
                if let (Some(l), Some(c)) = (label(), e.get("configured")) {
                    // `cc_test rule`, `sh_test rule`, ...
                    let kind = str_at(c, "targetKind").unwrap_or_default();
                    self.target(&l).test =
                        kind.ends_with("_test rule") || c.get("testSize").is_some();
                }
            }
            "targetCompleted" => {
                if let (Some(l), Some(c)) = (label(), e.get("completed")) {
                    let ok = c.get("success").and_then(Value::as_bool) == Some(true);
                    self.target(&l).built = Some(ok);
                }
            }
            "testResult" => {
                if let (Some(l), Some(r)) = (label(), e.get("testResult")) {
                    let attempt = attempt(key, r);
                    self.target(&l).attempts.push(attempt);
                }
            }
            "testSummary" => {
                if let (Some(l), Some(s)) = (label(), e.get("testSummary")) {
                    let t = self.target(&l);
                    t.summary = str_at(s, "overallStatus");
                    t.runs_counted = s
                        .get("totalRunCount")
                        .and_then(Value::as_u64)
                        .and_then(|n| u32::try_from(n).ok());
                }
            }
            "actionCompleted" => {
                if let Some(a) = e.get("action") {
                    if a.get("success").and_then(Value::as_bool) != Some(true) {
                        self.failed_actions.push(FailedAction {
                            stderr: a.get("stderr").and_then(file_uri),
                            stdout: a.get("stdout").and_then(file_uri),
                        });
                    }
                }
            }
            "buildFinished" => {
                if let Some(code) = e.get("finished").and_then(|f| f.get("exitCode")) {
                    let name = str_at(code, "name").unwrap_or_default();
                    let n = code.get("code").and_then(Value::as_i64).unwrap_or(0);
                    self.finished = Some((name, i32::try_from(n).unwrap_or(i32::MAX)));
                }
            }
            _ => {}
        }
    }

    fn target(&mut self, label: &str) -> &mut Target {
        self.targets.entry(label.to_owned()).or_default()
    }
}

fn attempt(key: &Value, r: &Value) -> Attempt {
    let number = |k: &str| {
        key.get(k)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1)
    };
    let info = r.get("executionInfo");
    let cached_remotely = info
        .and_then(|i| i.get("cachedRemotely"))
        .and_then(Value::as_bool)
        == Some(true);
    let strategy = info.and_then(|i| str_at(i, "strategy")).unwrap_or_default();
    let output = |name: &str| {
        r.get("testActionOutput")
            .and_then(Value::as_array)?
            .iter()
            .find(|o| o.get("name").and_then(Value::as_str) == Some(name))
            .and_then(file_uri)
    };
    Attempt {
        status: str_at(r, "status").unwrap_or_else(|| "NO_STATUS".to_owned()),
        run: number("run"),
        shard: number("shard"),
        attempt: number("attempt"),
        cached: r.get("cachedLocally").and_then(Value::as_bool) == Some(true) || cached_remotely,
        // A remote cache hit is a cache hit (a disk cache says the same in the stream); remote
        // is where the test ran.
        remote: strategy == "remote",
        xml: output("test.xml"),
        log: output("test.log"),
    }
}

fn str_at(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Events whose payload the judge never reads and which name no target (so no `aborted` of
/// theirs is a target's): the command line three times over, options, metrics, file sets.
/// They are most of a stream's bytes (31 of 54 KB for a small workspace), so they are
/// recognised by their id and not parsed.
const UNREAD: &[&str] = &[
    "structuredCommandLine",
    "unstructuredCommandLine",
    "optionsParsed",
    "buildMetadata",
    "namedSet",
    "configuration",
    "buildMetrics",
    "buildToolLogs",
    "workspaceStatus",
    "started",
];

/// `"lastMessage":true` as JSON writes the field: inside a string its quotes would be
/// escaped, so these bytes appear only as the field itself.
const LAST_MESSAGE: &[u8] = br#""lastMessage":true"#;

/// Whether an event line is of a kind in [`UNREAD`], read from how Bazel writes every event:
/// its `id` first (`{"id":{"namedSet":...`). A line written otherwise is parsed.
fn unread(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(br#"{"id":{""#) else {
        return false;
    };
    let kind = rest.split(|&b| b == b'"').next().unwrap_or_default();
    UNREAD.iter().any(|k| k.as_bytes() == kind)
}

/// A `File` message's local path (`file:///...`); a remote one (`bytestream://`) has none.
fn file_uri(v: &Value) -> Option<PathBuf> {
    let uri = v.get("uri").and_then(Value::as_str)?;
    let path = uri.strip_prefix("file://")?;
    Some(PathBuf::from(percent_decode(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SINGLE: &str = r#"{"id":{"started":{}},"started":{"command":"test","workspaceDirectory":"/ws"}}
{"id":{"workspace":{}},"workspaceInfo":{"localExecRoot":"/cache/execroot/single"}}
{"id":{"progress":{}},"progress":{"stderr":"Loading: \nINFO: Found 1 target and 1 test target...\n"}}
{"id":{"targetConfigured":{"label":"//src:calc"}},"configured":{"targetKind":"cc_library rule"}}
{"id":{"targetConfigured":{"label":"//tests:calc_test"}},"configured":{"targetKind":"cc_test rule","testSize":"MEDIUM"}}
{"id":{"targetCompleted":{"label":"//tests:calc_test","configuration":{"id":"x"}}},"completed":{"success":true}}
{"id":{"testResult":{"label":"//tests:calc_test","run":1,"shard":1,"attempt":1,"configuration":{"id":"x"}}},"testResult":{"testActionOutput":[{"name":"test.log","uri":"file:///cache/testlogs/tests/calc_test/test.log"},{"name":"test.xml","uri":"file:///cache/testlogs/tests/calc%20x/test.xml"}],"status":"FAILED","cachedLocally":true,"executionInfo":{"strategy":"processwrapper-sandbox"}}}
{"id":{"testSummary":{"label":"//tests:calc_test","configuration":{"id":"x"}}},"testSummary":{"overallStatus":"FAILED"}}
{"id":{"buildFinished":{}},"finished":{"exitCode":{"name":"TESTS_FAILED","code":3}}}
{"id":{"progress":{"opaqueCount":5}},"progress":{},"lastMessage":true}
"#;

    #[test]
    fn reads_targets_attempts_summary_and_the_end() {
        let s = read(SINGLE.as_bytes());
        assert!(s.complete);
        assert_eq!(s.finished, Some(("TESTS_FAILED".to_owned(), 3)));
        assert_eq!(s.exec_root.as_deref(), Some("/cache/execroot/single"));
        let t = &s.targets["//tests:calc_test"];
        assert!(t.test);
        assert_eq!(t.built, Some(true));
        assert_eq!(t.summary.as_deref(), Some("FAILED"));
        assert_eq!(t.attempts.len(), 1);
        assert!(t.attempts[0].cached);
        assert!(!t.attempts[0].remote);
        assert_eq!(
            t.attempts[0].xml.as_deref(),
            Some(std::path::Path::new(
                "/cache/testlogs/tests/calc x/test.xml"
            ))
        );
        assert!(!s.targets["//src:calc"].test);
        assert!(s.console.iter().any(|l| l.contains("Found 1 target")));
    }

    #[test]
    fn a_stream_cut_short_is_incomplete_and_junk_is_skipped() {
        let cut: String = SINGLE.lines().take(6).collect::<Vec<_>>().join("\n");
        let s = read(format!("not json\n{cut}\n{{\"id\":").as_bytes());
        assert!(!s.complete);
        assert!(s.finished.is_none());
        assert_eq!(s.targets["//tests:calc_test"].built, Some(true));
        assert!(s.targets["//tests:calc_test"].attempts.is_empty());
    }

    #[test]
    fn failed_actions_and_aborted_targets_are_kept() {
        let bep = r#"{"id":{"actionCompleted":{"primaryOutput":"o","label":"//src:calc"}},"action":{"exitCode":1,"stderr":{"name":"stderr","uri":"file:///cache/actions/stderr-3"},"label":"//src:calc","type":"CppCompile"}}
{"id":{"targetCompleted":{"label":"//tests:t"}},"aborted":{"reason":"SKIPPED","description":"dependency failed"}}
{"id":{"testResult":{"label":"//r:t","run":1,"shard":2,"attempt":1}},"testResult":{"status":"PASSED","executionInfo":{"strategy":"remote","cachedRemotely":true}}}"#;
        let s = read(bep.as_bytes());
        assert_eq!(s.failed_actions.len(), 1);
        assert_eq!(
            s.failed_actions[0].stderr.as_deref(),
            Some(std::path::Path::new("/cache/actions/stderr-3"))
        );
        assert_eq!(s.targets["//tests:t"].aborted.as_deref(), Some("SKIPPED"));
        let a = &s.targets["//r:t"].attempts[0];
        assert!(a.cached && a.remote);
        assert_eq!(a.shard, 2);
    }

    #[test]
    fn events_that_name_no_target_are_skipped_unparsed_but_can_end_the_stream() {
        // A skipped kind's payload is not read (here it is not even JSON), and a `lastMessage`
        // on one still ends the stream; one inside a string is no field, and a line cut
        // after it is no whole event.
        let base = r#"{"id":{"structuredCommandLine":{"commandLineLabel":"canonical"}},"structuredCommandLine":{"sections":[ not json
{"id":{"namedSet":{"id":"0"}},"namedSetOfFiles":{"files":[{"name":"\"lastMessage\":true"}]}}
{"id":{"testResult":{"label":"//t:t","run":1,"shard":1,"attempt":1}},"testResult":{"status":"PASSED"}}"#;
        // Recognised by the id alone, never by what follows it.
        assert!(base.lines().take(2).all(|l| unread(l.as_bytes())));
        assert!(!unread(base.lines().nth(2).unwrap().as_bytes()));
        assert!(!unread(br#"{"id":{"namedSetX":{}}}"#));
        assert!(!unread(br#"{"children":[],"id":{"namedSet":{}}}"#));
        let s = read(base.as_bytes());
        assert!(!s.complete);
        assert_eq!(s.targets["//t:t"].attempts.len(), 1);
        let cut = format!(
            "{base}\n{}",
            r#"{"id":{"buildToolLogs":{}},"buildToolLogs":{},"lastMessage":true"#
        );
        assert!(!read(cut.as_bytes()).complete);
        let ended = format!("{cut}}}\n");
        assert!(read(ended.as_bytes()).complete);
        // A stream reads the same with such events between its others.
        let mut lines: Vec<&str> = SINGLE.lines().collect();
        let noise = [
            r#"{"id":{"optionsParsed":{}},"optionsParsed":{"cmdLine":["--keep_going"]}}"#,
            r#"{"id":{"namedSet":{"id":"1"}},"namedSetOfFiles":{"files":[{"name":"x","uri":"file:///x"}]}}"#,
        ];
        lines.insert(2, noise[0]);
        lines.insert(5, noise[1]);
        let plain = read(SINGLE.as_bytes());
        let with_noise = read(lines.join("\n").as_bytes());
        assert_eq!(format!("{with_noise:?}"), format!("{plain:?}"));
    }

    #[test]
    fn never_panics_on_odd_values() {
        for odd in [
            r#"{"id":{}}"#,
            r#"{"id":{"testResult":{}},"testResult":{"testActionOutput":"x"}}"#,
            r#"{"id":{"buildFinished":{}},"finished":{"exitCode":{"code":99999999999}}}"#,
            r#"{"id":{"targetConfigured":{"label":3}},"configured":{}}"#,
            r#"{"id":{"testResult":{"label":"//a:b"}},"testResult":{"testActionOutput":[{"name":"test.xml","uri":"file:///a%2"}]}}"#,
            "[1,2]",
        ] {
            let _ = read(odd.as_bytes());
        }
        assert_eq!(percent_decode("/a%2"), "/a%2");
        assert_eq!(percent_decode("/a%20b%zz"), "/a b%zz");
        assert_eq!(percent_decode("/a%é1"), "/a%é1");
    }
}
