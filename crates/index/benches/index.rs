//! Benchmark of the code index on a large real source tree (not a timed test): cold index
//! throughput in lines per second, and warm `usages`/`symbol` latency side by side with
//! `rg -w NAME` for the same names, with the bytes each hands an agent. Prints a markdown table.
//!
//! `cargo bench -p pith-index`. The corpus is the Rust crates in the cargo registry plus the
//! Python standard library, hard-linked (or copied) into one temporary directory so both tools
//! see the same single tree (the index itself is kept in pith's state directory for it, removed
//! at the end).
//! `PITH_BENCH_ROOTS` (colon-separated directories) replaces the default corpus;
//! `PITH_BENCH_NAMES` (comma-separated) the names queried.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pith_index::Index;

const RUNS: usize = 5;

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is ignored.
    let roots = corpus_roots();
    if roots.is_empty() {
        eprintln!("no corpus found: set PITH_BENCH_ROOTS");
        return;
    }
    let names: Vec<String> = std::env::var("PITH_BENCH_NAMES")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(|v| v.split(',').map(|s| s.trim().to_owned()).collect())
        .unwrap_or_else(|| {
            ["new", "from_str", "deserialize_any", "getaddrinfo"]
                .map(String::from)
                .to_vec()
        });

    let tmp = tempfile::Builder::new()
        .prefix("pith-bench-")
        .tempdir()
        .expect("temp dir");
    let corpus = tmp.path().join("corpus");
    for root in &roots {
        let name = root
            .file_name()
            .map_or("root".into(), |n| n.to_string_lossy().into_owned());
        link_tree(root, &corpus.join(name));
    }
    eprintln!(
        "corpus: {}",
        roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(" + ")
    );

    // Cold: no index yet, every file parsed.
    let start = Instant::now();
    let cold = Index::open(&corpus).expect("index");
    let cold_time = start.elapsed();
    let stats = cold.stats().clone();
    drop(cold);
    let index_file = pith_index::index_file(&corpus).expect("a state directory");
    let index_bytes = std::fs::metadata(&index_file).map_or(0, |m| m.len());

    let rg = rg_version();
    let mut rows = Vec::new();
    for name in &names {
        let (pith_usages, usages_bytes, count) = median(|| {
            let t = Instant::now();
            let index = Index::open(&corpus).expect("index");
            let files = index.usages(name);
            let shaped: Vec<pith_wire::UsesInFile> =
                files.iter().map(pith_wire::UsesInFile::from).collect();
            let answer = pith_wire::usages_answer(name, &shaped);
            let line = pith_wire::to_json(&answer);
            (t.elapsed(), line.len(), answer.count())
        });
        let (pith_symbol, symbol_bytes, defs) = median(|| {
            let t = Instant::now();
            let index = Index::open(&corpus).expect("index");
            let defs = index.definitions(name, None);
            let shaped: Vec<pith_wire::SymbolDef> =
                defs.iter().map(pith_wire::SymbolDef::from).collect();
            let line = pith_wire::to_json(&pith_wire::symbol_answer(name, &shaped));
            (t.elapsed(), line.len(), defs.len())
        });
        let rg_result = rg.as_ref().map(|_| {
            median(|| {
                let t = Instant::now();
                let out = Command::new("rg")
                    .args(["-w", "--no-heading", "--line-number", name])
                    .arg(&corpus)
                    .output()
                    .expect("run rg");
                let lines = out.stdout.iter().filter(|b| **b == b'\n').count();
                (t.elapsed(), out.stdout.len(), lines)
            })
        });
        rows.push((
            name.clone(),
            pith_usages,
            usages_bytes,
            count,
            pith_symbol,
            symbol_bytes,
            defs,
            rg_result,
        ));
    }

    println!();
    println!(
        "Corpus: {} source files indexed ({} skipped: binary or over {} MiB), {} lines; index {:.1} MiB. Machine: {} cores.",
        stats.files - stats.skipped,
        stats.skipped,
        pith_index::MAX_FILE_BYTES >> 20,
        stats.parsed_lines,
        index_bytes as f64 / (1 << 20) as f64,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    println!();
    println!("| cold index | files | lines | time | lines/s |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| `Index::open`, no index yet | {} | {} | {:.1} s | {:.0} |",
        stats.files - stats.skipped,
        stats.parsed_lines,
        cold_time.as_secs_f64(),
        stats.parsed_lines as f64 / cold_time.as_secs_f64()
    );
    println!();
    println!(
        "| name | `pith usages` (warm) | answer | uses | `pith symbol` (warm) | answer | defs | {} | output | lines |",
        rg.as_deref().map_or("`rg -w` (not installed)".to_owned(), |v| format!("`rg -w` ({v})"))
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, tu, bu, count, ts, bs, defs, rg) in rows {
        let (rt, rb, rl) = match rg {
            Some((t, b, l)) => (ms(t), format!("{b} B"), l.to_string()),
            None => ("—".into(), "—".into(), "—".into()),
        };
        println!(
            "| `{name}` | {} | {bu} B | {count} | {} | {bs} B | {defs} | {rt} | {rb} | {rl} |",
            ms(tu),
            ms(ts)
        );
    }
    println!();
    println!("Warm times are the median of {RUNS} runs and include opening the index and checking every file's size and mtime (the incremental update that finds nothing to do).");
    if let Some(state) = index_file.parent() {
        let _ = std::fs::remove_dir_all(state);
    }
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

/// Runs `f` [`RUNS`] times; the run with the median time.
fn median<A, B>(mut f: impl FnMut() -> (Duration, A, B)) -> (Duration, A, B) {
    let mut runs: Vec<(Duration, A, B)> = (0..RUNS).map(|_| f()).collect();
    runs.sort_by_key(|r| r.0);
    runs.swap_remove(RUNS / 2)
}

fn corpus_roots() -> Vec<PathBuf> {
    if let Ok(v) = std::env::var("PITH_BENCH_ROOTS") {
        return v
            .split(':')
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_dir())
            .collect();
    }
    let mut roots = Vec::new();
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    if let Some(src) = cargo_home.map(|c| c.join("registry/src")) {
        if let Ok(entries) = std::fs::read_dir(&src) {
            roots.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    let stdlib = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| PathBuf::from(s.trim()))
        .filter(|p| p.is_dir());
    roots.extend(stdlib);
    roots
}

/// Mirrors a tree with hard links (copies across filesystems); symlinks are left out.
fn link_tree(src: &Path, dst: &Path) {
    let Ok(entries) = std::fs::read_dir(src) else {
        return;
    };
    let _ = std::fs::create_dir_all(dst);
    for e in entries.flatten() {
        let Ok(t) = e.file_type() else { continue };
        let to = dst.join(e.file_name());
        if t.is_dir() {
            link_tree(&e.path(), &to);
        } else if t.is_file() && std::fs::hard_link(e.path(), &to).is_err() {
            let _ = std::fs::copy(e.path(), &to);
        }
    }
}

fn rg_version() -> Option<String> {
    let out = Command::new("rg").arg("--version").output().ok()?;
    let v = String::from_utf8(out.stdout).ok()?;
    Some(v.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
}
