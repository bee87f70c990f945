//! Talking to `pith mcp` the way clients do: raw JSON-RPC lines ([`Raw`]) and the official
//! Python SDK (`tests/mcp/client.py`, [`client`]), and reading back what they received.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::{bare, repo_root, Answer};

/// A `pith mcp` process spoken to in raw JSON-RPC, one line each way.
pub struct Raw {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub lines: mpsc::Receiver<String>,
    /// Everything the server wrote on stderr so far.
    pub stderr: Arc<Mutex<String>>,
}

impl Raw {
    pub fn start(cwd: &Path, args: &[&str]) -> Raw {
        let mut cmd = super::bare();
        cmd.arg("mcp").args(args).current_dir(cwd);
        Raw::spawn(cmd)
    }

    /// Starts `cmd` (a `pith mcp` command) in a process group of its own, its stdio piped.
    pub fn spawn(mut cmd: Command) -> Raw {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("start pith mcp");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let kept = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                kept.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Raw {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Starts a server and completes the 2025-11-25 handshake.
    pub fn handshake(cwd: &Path, args: &[&str]) -> Raw {
        let mut raw = Raw::start(cwd, args);
        raw.initialize();
        raw
    }

    /// Completes the 2025-11-25 handshake.
    pub fn initialize(&mut self) {
        self.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#);
        let init = self.next();
        assert!(
            init.contains(r#""serverInfo":{"name":"pith","version":""#),
            "{init}"
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes the server's stdin (the client goes) and waits up to `wait` for it to exit.
    pub fn close(&mut self, wait: Duration) -> Option<i32> {
        drop(self.stdin.take());
        let until = std::time::Instant::now() + wait;
        while std::time::Instant::now() < until {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("pith mcp did not exit within {wait:?} of its stdin closing");
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The next line on stdout; every one must be a JSON-RPC message.
    pub fn next(&self) -> String {
        self.next_within(Duration::from_secs(120))
    }

    /// [`Raw::next`], waiting at most `wait`.
    pub fn next_within(&self, wait: Duration) -> String {
        let line = self
            .lines
            .recv_timeout(wait)
            .unwrap_or_else(|e| panic!("no line from pith mcp ({e}); stderr: {}", self.stderr()));
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "not JSON-RPC: {line}");
        line
    }

    /// Sends a request and returns the raw response line.
    pub fn request(&mut self, id: u32, method: &str, params: Value) -> String {
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string());
        let line = self.next();
        assert!(
            line.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"#)),
            "{line}"
        );
        line
    }

    /// Nothing more on stdout within `wait`.
    pub fn silent(&self, wait: Duration) {
        if let Ok(line) = self.lines.recv_timeout(wait) {
            panic!("unexpected output: {line}");
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `result` member of a response line, exactly as sent.
pub fn raw_result(line: &str) -> &str {
    let start = line.find(r#""result":"#).expect("a result") + r#""result":"#.len();
    &line[start..line.len() - 1]
}

/// Runs the Python SDK client on a plan; one JSON value per printed line.
pub fn client(plan: Value) -> Vec<Value> {
    let script = repo_root().join("crates/cli/tests/mcp/client.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(plan.to_string())
        .env("XDG_CACHE_HOME", pith_testkit::harness_cache())
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "MCP client failed (is the `mcp` package installed? scripts/setup/python.sh)\n{stdout}\n{stderr}"
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

pub fn plan(root: &Path, mode: &str, steps: Value) -> Value {
    json!({
        "command": [env!("CARGO_BIN_EXE_pith"), "mcp", "--root", root],
        "cwd": std::env::temp_dir(),
        "mode": mode,
        "steps": steps,
    })
}

/// The one text block of a successful tool result.
pub fn answer_text(step: &Value) -> String {
    let r = &step["result"];
    assert!(r["isError"] != true, "tool error: {step}");
    assert!(r.get("structuredContent").is_none(), "{step}");
    let content = r["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "one block: {step}");
    assert_eq!(content[0]["type"], "text");
    content[0]["text"].as_str().unwrap().to_owned()
}

pub fn error_text(step: &Value) -> String {
    let r = &step["result"];
    assert_eq!(r["isError"], true, "{step}");
    let text = r["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(!text.contains('\n'), "one line: {text}");
    text
}

/// What `pith ARGS --root ROOT` prints on stdout, without the newline.
pub fn cli_line(root: &Path, args: &[&str]) -> String {
    let out = bare()
        .args(args)
        .arg("--root")
        .arg(root)
        .current_dir(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.ends_with('\n'), "{args:?}: {stdout:?}");
    stdout.trim_end_matches('\n').to_owned()
}

pub fn as_answer(line: String) -> Answer {
    let json = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    Answer {
        line,
        json,
        code: 0,
        stderr: String::new(),
    }
}

/// The answer text of a raw `tools/call` response line.
pub fn raw_answer(line: &str) -> Value {
    let v: Value = serde_json::from_str(line).unwrap();
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{line}"));
    serde_json::from_str(text).unwrap()
}
