//! `cargo bench -p pith-store`: the whole-process cost of `pith status --since N` on a
//! generated workspace of 10,000 files (plus what a real one carries beside them: an ignored
//! `data/` of 2,000 files the generation covers, a `.venv` and ignored build output it does
//! not walk), unchanged and after one edit (and the full answer; interleaved, so all see the
//! same machine), as a table of medians: wall time, and the CPU time (user + system) the
//! process used, which other load on the machine disturbs less. Beside them, the same question
//! asked of a running `pith mcp` (`get_status`, round trip over stdio), whose file watcher
//! stands in for the scan.
//! Builds the release `pith` binary first (or uses `PITH_BIN`). With `PITH_BASELINE` naming
//! another `pith` binary (an earlier build), both are measured in the same run, interleaved,
//! each on its own copy of the workspace, and the table puts their medians side by side.
//! Target: 50 ms median wall time for the whole process. A benchmark, not a test: it reports,
//! it does not fail on a slow machine.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const FILES: usize = 10_000;
const DIRS: usize = 100;
const DATA_FILES: usize = 2_000;
/// Rounds of every case, unless `PITH_BENCH_RUNS` says otherwise.
const RUNS: usize = 31;

/// Wall time and CPU time of one process.
type Times = (Duration, Duration);

/// One binary under measurement, on its own workspace.
struct Subject {
    label: &'static str,
    pith: PathBuf,
    _dir: tempfile::TempDir,
    root: PathBuf,
    generation: u64,
    server: Option<Server>,
    first: Times,
    unchanged: Vec<Times>,
    edited: Vec<Times>,
    full: Vec<Times>,
    served_unchanged: Vec<Duration>,
    served_edited: Vec<Duration>,
}

impl Subject {
    fn new(label: &'static str, pith: PathBuf) -> Subject {
        let dir = tempfile::Builder::new()
            .prefix("pith-bench-")
            .tempdir()
            .expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        let started = Instant::now();
        generate(&root);
        eprintln!(
            "{label}: generated {FILES} files in {DIRS} directories (+ {DATA_FILES} ignored data \
             files, a .venv, ignored build output) in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        // The first status scans and hashes everything (the database is created).
        let (first, generation) = status(&pith, &root, None);
        let mut subject = Subject {
            label,
            pith,
            _dir: dir,
            root,
            generation,
            server: None,
            first,
            unchanged: Vec::new(),
            edited: Vec::new(),
            full: Vec::new(),
            served_unchanged: Vec::new(),
            served_edited: Vec::new(),
        };
        // Warm up the page cache and the database.
        for _ in 0..3 {
            status(&subject.pith, &subject.root, Some(subject.generation));
        }
        let mut server = Server::start(&subject.pith, &subject.root);
        // The server's first question scans (its watcher reports everything as changed).
        server.status(subject.generation);
        subject.server = Some(server);
        subject
    }

    /// One round of every case.
    fn round(&mut self, i: usize) {
        let (pith, root) = (self.pith.clone(), self.root.clone());
        let server = self.server.as_mut().expect("server");
        let (t, g) = status(&pith, &root, Some(self.generation));
        assert_eq!(g, self.generation, "{}: nothing changed", self.label);
        self.unchanged.push(t);
        let (t, g) = server.status(self.generation);
        assert_eq!(
            g, self.generation,
            "{}: nothing changed (server)",
            self.label
        );
        self.served_unchanged.push(t);

        edit(&root, i, "cli");
        let (t, g) = status(&pith, &root, Some(self.generation));
        assert_eq!(
            g,
            self.generation + 1,
            "{}: one edit, one generation",
            self.label
        );
        self.generation = g;
        self.edited.push(t);

        edit(&root, i, "server");
        let (t, g) = server.status(self.generation);
        assert_eq!(
            g,
            self.generation + 1,
            "{}: one edit, one generation (server)",
            self.label
        );
        self.generation = g;
        self.served_edited.push(t);

        self.full.push(status(&pith, &root, None).0);
    }
}

fn main() {
    let pith = pith_binary();
    let mut subjects = Vec::new();
    if let Some(base) = std::env::var_os("PITH_BASELINE") {
        subjects.push(Subject::new("before", PathBuf::from(base)));
    }
    subjects.push(Subject::new("after", pith));
    for i in 0..runs() {
        for s in &mut subjects {
            s.round(i);
        }
    }

    println!();
    println!(
        "pith status, {FILES} files (+ {DATA_FILES} ignored data files, a .venv, ignored build \
         output), whole process, {} runs each (target: median wall <= 50 ms)",
        runs()
    );
    println!("load average at the end: {}", load_average());
    println!();
    println!(
        "(MCP rows: one request's round trip to a running `pith mcp`; no CPU column: the \
         server's threads also wake for the other rows' file events, between requests)"
    );
    println!();
    let labels: Vec<&str> = subjects.iter().map(|s| s.label).collect();
    let mut head = String::from("| case                         |");
    let mut rule = String::from("|------------------------------|");
    for l in &labels {
        let (median, min, cpu) = (
            format!("wall median ({l})"),
            format!("wall min ({l})"),
            format!("CPU median ({l})"),
        );
        head.push_str(&format!(" {median:>20} | {min:>17} | {cpu:>19} |"));
        rule.push_str("----------------------|-------------------|---------------------|");
    }
    println!("{head}");
    println!("{rule}");
    let pick = |f: fn(&mut Subject) -> &mut Vec<Times>, subjects: &mut Vec<Subject>| {
        subjects
            .iter_mut()
            .map(|s| summary(f(s)))
            .collect::<Vec<_>>()
    };
    row(
        "--since N, unchanged",
        &pick(|s| &mut s.unchanged, &mut subjects),
    );
    row(
        "--since N, one file edited",
        &pick(|s| &mut s.edited, &mut subjects),
    );
    row(
        "full answer, unchanged",
        &pick(|s| &mut s.full, &mut subjects),
    );
    let walls = |f: fn(&mut Subject) -> &mut Vec<Duration>, subjects: &mut Vec<Subject>| {
        subjects
            .iter_mut()
            .map(|s| summary_wall(f(s)))
            .collect::<Vec<_>>()
    };
    row(
        "MCP get_status, unchanged",
        &walls(|s| &mut s.served_unchanged, &mut subjects),
    );
    row(
        "MCP get_status, one edit",
        &walls(|s| &mut s.served_edited, &mut subjects),
    );
    let firsts: Vec<[String; 3]> = subjects
        .iter()
        .map(|s| [ms(s.first.0), String::new(), ms(s.first.1)])
        .collect();
    row("first scan (new database)", &firsts);
}

/// Wall median, wall min and CPU median, formatted.
fn summary(times: &mut [Times]) -> [String; 3] {
    let mid = times.len() / 2;
    times.sort_by_key(|t| t.0);
    let (wall_median, wall_min) = (times[mid].0, times[0].0);
    times.sort_by_key(|t| t.1);
    [ms(wall_median), ms(wall_min), ms(times[mid].1)]
}

/// Wall times only.
fn summary_wall(times: &mut [Duration]) -> [String; 3] {
    times.sort();
    [ms(times[times.len() / 2]), ms(times[0]), "-".to_owned()]
}

fn row(name: &str, cells: &[[String; 3]]) {
    let mut line = format!("| {name:<28} |");
    for [median, min, cpu] in cells {
        line.push_str(&format!(" {median:>20} | {min:>17} | {cpu:>19} |"));
    }
    println!("{line}");
}

fn runs() -> usize {
    std::env::var("PITH_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(RUNS)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// Appends a line to one of the files, as an agent's edit would.
fn edit(root: &Path, i: usize, who: &str) {
    let file = root.join(format!(
        "pkg_{:03}/module_{:03}.py",
        i % DIRS,
        i % (FILES / DIRS)
    ));
    let mut text = std::fs::read_to_string(&file).expect("read");
    text.push_str(&format!("# edit {i} by {who}\n"));
    std::fs::write(&file, text).expect("write");
}

/// A running `pith mcp`, asked over JSON-RPC on its stdin and stdout.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(pith: &Path, root: &Path) -> Server {
        let mut child = Command::new(pith)
            .args(["mcp", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start pith mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 0,
        };
        server.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#);
        server.line();
        server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to pith mcp");
        self.stdin.flush().expect("flush");
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read pith mcp");
        assert!(!line.is_empty(), "pith mcp closed its stdout");
        line
    }

    /// One `get_status` with `since`: the round trip, and the generation answered.
    fn status(&mut self, since: u64) -> (Duration, u64) {
        self.next_id += 1;
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"get_status","arguments":{{"since":{since}}}}}}}"#,
            self.next_id
        );
        let start = Instant::now();
        self.send(&request);
        let line = self.line();
        let took = start.elapsed();
        (took, generation_in(&line.replace("\\\"", "\"")))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User + system time of the children waited for so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// One `pith status` process: its wall and CPU times and the generation it answered.
fn status(pith: &Path, root: &Path, since: Option<u64>) -> (Times, u64) {
    let mut cmd = Command::new(pith);
    cmd.args(["status", "--root"]).arg(root);
    if let Some(n) = since {
        cmd.args(["--since", &n.to_string()]);
    }
    let cpu = children_cpu();
    let start = Instant::now();
    let out = cmd.output().expect("run pith");
    let took = (start.elapsed(), children_cpu().saturating_sub(cpu));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (took, generation_in(&String::from_utf8_lossy(&out.stdout)))
}

/// The generation an answer states.
fn generation_in(line: &str) -> u64 {
    line.split("\"generation\":")
        .nth(1)
        .and_then(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or_else(|| panic!("no generation in {line}"))
}

/// A Python project: `pkg_NNN/module_NNN.py` files of a few hundred bytes to a few KiB, a
/// `.gitignore`, ignored build output and a `.venv` that must not be walked, and an ignored
/// `data/` of small JSON files that the tests could read (walked since the generation covers
/// ignored inputs).
fn generate(root: &Path) {
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"bench\"\n").unwrap();
    std::fs::write(root.join(".gitignore"), "/build/\n*.log\n/data/\n/.venv/\n").unwrap();
    for d in 0..20 {
        let dir = root.join(format!("data/set_{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..DATA_FILES / 20 {
            std::fs::write(
                dir.join(format!("case_{f:03}.json")),
                format!("{{\"set\": {d}, \"case\": {f}, \"expected\": {}}}\n", d * f),
            )
            .unwrap();
        }
    }
    let venv = root.join(".venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    let _ = std::os::unix::fs::symlink("/usr/bin/python3", venv.join("bin/python"));
    let site = venv.join("lib/python3.12/site-packages");
    for p in 0..40 {
        let pkg = site.join(format!("package_{p:02}"));
        std::fs::create_dir_all(&pkg).unwrap();
        for m in 0..25 {
            std::fs::write(pkg.join(format!("m{m}.py")), "x = 1\n").unwrap();
        }
    }
    let per_dir = FILES / DIRS;
    for d in 0..DIRS {
        let dir = root.join(format!("pkg_{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..per_dir {
            let lines = 10 + (d * 7 + f * 13) % 90;
            let mut text = String::new();
            for l in 0..lines {
                text.push_str(&format!(
                    "def function_{l}(value, factor={f}):\n    return value * factor + {d}\n"
                ));
            }
            std::fs::write(dir.join(format!("module_{f:03}.py")), text).unwrap();
        }
    }
    let build = root.join("build");
    std::fs::create_dir_all(&build).unwrap();
    for i in 0..500 {
        std::fs::write(build.join(format!("out_{i}.o")), "ignored").unwrap();
    }
}

/// `PITH_BIN`, else the release binary, built now.
fn pith_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("PITH_BIN") {
        return PathBuf::from(bin);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = Command::new(cargo)
        .args(["build", "--release", "-q", "-p", "pith", "--bin", "pith"])
        .current_dir(&workspace)
        .status()
        .expect("run cargo build");
    assert!(status.success(), "building the release pith failed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let bin = target.join("release/pith");
    assert!(bin.is_file(), "no {}", bin.display());
    bin
}
