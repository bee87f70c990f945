//! `cargo xtask lookups`: what a symbol lookup costs in `pith mcp`, whose code index stays in
//! memory between calls and follows its file watcher, against `pith usages` (the CLI opens the
//! index from disk and checks every file's metadata), on a generated Python tree of `--files`
//! files (100,000 by default), `--per-dir` to a directory. Prints a markdown table of median
//! wall times: the CLI warm, the server's first lookup (opens the index), its warm lookups on
//! an unchanged tree (a name used in every file, whose answer counts 100,000 files, and a name
//! used in one), and a lookup right after an edit to one file. Exit 1 when a warm in-memory
//! lookup is not under 50 ms.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

/// The warm in-memory lookup's target.
const TARGET: Duration = Duration::from_millis(50);
const RUNS: usize = 7;
/// A name used in every file, and one used in a single file.
const NAME: &str = "shared_helper";
const RARE: &str = "f77777";

pub(crate) struct Options {
    pub files: usize,
    pub per_dir: usize,
    pub markdown_out: Option<PathBuf>,
}

pub(crate) fn run(opts: &Options) -> Result<()> {
    let pith = crate::bench::build_pith(&crate::bench::repo_root())?;
    let tmp = tempfile::Builder::new()
        .prefix("pith-lookups-")
        .tempdir()
        .context("temp dir")?;
    let root = tmp.path().canonicalize()?;
    eprintln!("lookups: writing {} files", opts.files);
    generate(&root, opts.files, opts.per_dir)?;

    // The CLI, its index built first (cold is the index bench's business).
    let cli = |args: &[&str]| -> Result<(Duration, String)> {
        let t = Instant::now();
        let out = Command::new(&pith)
            .args(args)
            .arg("--root")
            .arg(&root)
            .output()
            .context("running pith")?;
        let took = t.elapsed();
        if !out.status.success() {
            bail!("pith {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok((
            took,
            String::from_utf8_lossy(&out.stdout).trim_end().to_owned(),
        ))
    };
    eprintln!("lookups: building the index");
    cli(&["usages", NAME])?;
    let cli_warm = median((0..RUNS).map(|_| cli(&["usages", NAME]).map(|r| r.0)))?;
    let (_, expected) = cli(&["usages", NAME])?;

    let mut server = Server::start(&pith, &root)?;
    // The watcher watches every directory before the server's lookups can follow it.
    server.wait_watching(1 + opts.files.div_ceil(opts.per_dir))?;
    let (first, answer) = server.usages(NAME)?;
    if answer != expected {
        bail!("the server's answer differs from the CLI's:\n{answer}\n{expected}");
    }
    let mut warm = Vec::new();
    let mut rare = Vec::new();
    for _ in 0..RUNS {
        warm.push(server.usages(NAME)?.0);
        rare.push(server.usages(RARE)?.0);
    }
    let warm = median(warm.into_iter().map(Ok))?;
    let rare = median(rare.into_iter().map(Ok))?;
    let mut edited = Vec::new();
    for i in 0..RUNS {
        let file = root.join("d0/m1.py");
        std::fs::write(&file, format!("def g(x):\n    return x + {i}\n"))?;
        edited.push(server.usages(RARE)?.0);
    }
    let edited = median(edited.into_iter().map(Ok))?;

    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let table = format!(
        "| tree | `pith usages` (CLI, warm) | `find_usages` first call | warm, unchanged: a name in every file | warm, unchanged: a name in one file | after a one-file edit |\n\
         |---|---:|---:|---:|---:|---:|\n\
         | {} Python files | {} | {} | {} | {} | {} |\n",
        opts.files,
        ms(cli_warm),
        ms(first),
        ms(warm),
        ms(rare),
        ms(edited)
    );
    print!("{table}");
    if let Some(path) = &opts.markdown_out {
        std::fs::write(path, &table).with_context(|| format!("writing {}", path.display()))?;
    }
    if warm.max(rare) >= TARGET {
        bail!(
            "MISS: a warm find_usages took {} (target: under {})",
            ms(warm.max(rare)),
            ms(TARGET)
        );
    }
    Ok(())
}

/// `files` Python modules, `per_dir` to a directory, each defining a function of its own and
/// using one shared name.
fn generate(root: &Path, files: usize, per_dir: usize) -> Result<()> {
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"big\"\n")?;
    for i in 0..files {
        let dir = root.join(format!("d{}", i / per_dir));
        if i % per_dir == 0 {
            std::fs::create_dir_all(&dir)?;
        }
        let text = if i == 0 {
            format!("def {NAME}(x):\n    return x\n")
        } else {
            format!("from d0.m0 import {NAME}\n\n\ndef f{i}(x):\n    return {NAME}(x) + {i}\n")
        };
        std::fs::write(dir.join(format!("m{}.py", i % per_dir)), text)?;
    }
    // Old enough for the index to trust every file's time.
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for e in walk(root)? {
        if let Ok(f) = std::fs::File::options().write(true).open(&e) {
            let _ = f.set_modified(old);
        }
    }
    Ok(())
}

fn walk(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root)? {
        let dir = dir?.path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir)? {
                out.push(f?.path());
            }
        }
    }
    Ok(out)
}

fn median(times: impl Iterator<Item = Result<Duration>>) -> Result<Duration> {
    let mut v: Vec<Duration> = times.collect::<Result<_>>()?;
    v.sort_unstable();
    Ok(v[v.len() / 2])
}

/// `pith mcp` spoken to in raw JSON-RPC.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    id: u64,
}

impl Server {
    fn start(pith: &Path, root: &Path) -> Result<Server> {
        let mut child = Command::new(pith)
            .args(["mcp", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting pith mcp")?;
        let stdin = child.stdin.take().context("stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("stdout")?);
        let mut s = Server {
            child,
            stdin,
            stdout,
            id: 0,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "xtask", "version": "1"}}),
        )?;
        writeln!(
            s.stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )?;
        Ok(s)
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        self.id += 1;
        let line = json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params});
        writeln!(self.stdin, "{line}")?;
        self.stdin.flush()?;
        loop {
            let mut reply = String::new();
            if self.stdout.read_line(&mut reply)? == 0 {
                bail!("pith mcp closed its stdout");
            }
            let v: Value = serde_json::from_str(&reply)?;
            if v["id"] == self.id {
                return Ok(v);
            }
        }
    }

    /// One `find_usages` call: its wall time and its answer.
    fn usages(&mut self, name: &str) -> Result<(Duration, String)> {
        let t = Instant::now();
        let v = self.request(
            "tools/call",
            json!({"name": "find_usages", "arguments": {"name": name}}),
        )?;
        let took = t.elapsed();
        let text = v["result"]["content"][0]["text"]
            .as_str()
            .with_context(|| format!("no answer: {v}"))?;
        Ok((took, text.to_owned()))
    }

    /// Waits until the server's watcher holds `dirs` watches (Linux `/proc`).
    fn wait_watching(&self, dirs: usize) -> Result<()> {
        let until = Instant::now() + Duration::from_secs(300);
        let fdinfo = PathBuf::from(format!("/proc/{}/fdinfo", self.child.id()));
        loop {
            let held: usize = std::fs::read_dir(&fdinfo)?
                .flatten()
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .map(|s| s.lines().filter(|l| l.starts_with("inotify wd:")).count())
                .sum();
            if held >= dirs {
                return Ok(());
            }
            if Instant::now() > until {
                bail!("the server's watcher holds {held} of {dirs} watches after 300 s");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
