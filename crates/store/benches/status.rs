//! `cargo bench -p pith-store`: the whole-process cost of `pith status --since N` on a
//! generated workspace of 10,000 files, unchanged and after one edit (and the full answer;
//! interleaved, so all see the same machine), as a table of medians: wall time, and the CPU
//! time (user + system) the process used, which other load on the machine disturbs less.
//! Beside them, the same question asked of a running `pith mcp` (`get_status`, round trip
//! over stdio), whose file watcher stands in for the scan.
//! Builds the release `pith` binary first (or uses `PITH_BIN`). Target: 50 ms median wall
//! time for the whole process. A benchmark, not a test: it reports, it does not fail on a
//! slow machine.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const FILES: usize = 10_000;
const DIRS: usize = 100;
const RUNS: usize = 31;

/// Wall time and CPU time of one process.
type Times = (Duration, Duration);

fn main() {
    let pith = pith_binary();
    let dir = tempfile::Builder::new()
        .prefix("pith-bench-")
        .tempdir()
        .expect("temp dir");
    let root = dir.path().canonicalize().expect("canonical temp dir");
    let started = Instant::now();
    generate(&root);
    eprintln!(
        "generated {FILES} files in {DIRS} directories in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // The first status scans and hashes everything (the database is created).
    let (first, mut generation) = status(&pith, &root, None);
    // Warm up the page cache and the database.
    for _ in 0..3 {
        status(&pith, &root, Some(generation));
    }

    let mut server = Server::start(&pith, &root);
    // The server's first question scans (its watcher reports everything as changed).
    server.status(generation);

    let mut unchanged = Vec::new();
    let mut edited = Vec::new();
    let mut full = Vec::new();
    let mut served_unchanged = Vec::new();
    let mut served_edited = Vec::new();
    for i in 0..RUNS {
        let (t, g) = status(&pith, &root, Some(generation));
        assert_eq!(g, generation, "nothing changed");
        unchanged.push(t);
        let (t, g) = server.status(generation);
        assert_eq!(g, generation, "nothing changed (server)");
        served_unchanged.push(t);

        edit(&root, i, "cli");
        let (t, g) = status(&pith, &root, Some(generation));
        assert_eq!(g, generation + 1, "one edit, one generation");
        generation = g;
        edited.push(t);

        edit(&root, i, "server");
        let (t, g) = server.status(generation);
        assert_eq!(g, generation + 1, "one edit, one generation (server)");
        generation = g;
        served_edited.push(t);

        full.push(status(&pith, &root, None).0);
    }

    println!();
    println!(
        "pith status, {FILES} files, whole process, {RUNS} runs each (target: median wall <= 50 ms)"
    );
    println!("load average at the end: {}", load_average());
    println!();
    println!(
        "(MCP rows: one request's round trip to a running `pith mcp`; no CPU column: the \
         server's threads also wake for the other rows' file events, between requests)"
    );
    println!();
    println!("| case                         | wall median | wall min | CPU median |");
    println!("|------------------------------|-------------|----------|------------|");
    row("--since N, unchanged", &mut unchanged);
    row("--since N, one file edited", &mut edited);
    row("full answer, unchanged", &mut full);
    row_wall("MCP get_status, unchanged", &mut served_unchanged);
    row_wall("MCP get_status, one edit", &mut served_edited);
    println!(
        "| first scan (new database)    | {:>11} |          | {:>10} |",
        ms(first.0),
        ms(first.1)
    );
}

fn row(name: &str, times: &mut [Times]) {
    let mid = times.len() / 2;
    times.sort_by_key(|t| t.0);
    let (wall_median, wall_min) = (times[mid].0, times[0].0);
    times.sort_by_key(|t| t.1);
    println!(
        "| {name:<28} | {:>11} | {:>8} | {:>10} |",
        ms(wall_median),
        ms(wall_min),
        ms(times[mid].1)
    );
}

/// A row of wall times only.
fn row_wall(name: &str, times: &mut [Duration]) {
    times.sort();
    println!(
        "| {name:<28} | {:>11} | {:>8} | {:>10} |",
        ms(times[times.len() / 2]),
        ms(times[0]),
        "-"
    );
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
/// `.gitignore`, and ignored build output that must not be looked at.
fn generate(root: &Path) {
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"bench\"\n").unwrap();
    std::fs::write(root.join(".gitignore"), "/build/\n*.log\n").unwrap();
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
