//! `cargo xtask memory`: pith's own peak memory while a runner floods it with output, 100 MB
//! of it or an endless stream cut by `--timeout`, and whether the timeout still fires on time.
//! Each scenario is a small project written into a temp directory (nothing large is committed);
//! pith's peak RSS is its `VmHWM` (its own high-water mark, not its children's), sampled every
//! 10 ms until it exits.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// pith's peak RSS must stay under this whatever the runner prints.
const RSS_TARGET_MB: f64 = 100.0;

struct Scenario {
    name: &'static str,
    /// Files of the project: (relative path, content).
    files: Vec<(&'static str, String)>,
    /// Extra `pith test` arguments.
    args: &'static [&'static str],
    /// The runner pith needs on PATH.
    needs: &'static str,
}

const HUNDRED_MB: usize = 100 * 1024 * 1024;

fn scenarios() -> Vec<Scenario> {
    // Lines of 1 KiB: a flood of ordinary log lines.
    let py_flood = |passes: bool| {
        format!(
            "import sys\n\ndef test_flood():\n    line = 'x' * 1023 + '\\n'\n    for _ in range({n}):\n        sys.stdout.write(line)\n    assert {passes}\n",
            n = HUNDRED_MB / 1024,
            passes = if passes { "True" } else { "False" },
        )
    };
    let go_mod = "module flood\n\ngo 1.21\n".to_owned();
    vec![
        Scenario {
            name: "pytest -s, 100 MB, fails",
            files: vec![
                ("pytest.ini", "[pytest]\naddopts = -s\n".to_owned()),
                ("test_flood.py", py_flood(false)),
            ],
            args: &[],
            needs: "python3",
        },
        Scenario {
            name: "pytest -s, endless, --timeout 5",
            files: vec![
                ("pytest.ini", "[pytest]\naddopts = -s\n".to_owned()),
                (
                    "test_flood.py",
                    "import sys\n\ndef test_endless():\n    line = 'x' * 1023 + '\\n'\n    while True:\n        sys.stdout.write(line)\n".to_owned(),
                ),
            ],
            args: &["--timeout", "5"],
            needs: "python3",
        },
        Scenario {
            name: "go test -json, 100 MB, fails",
            files: vec![
                ("go.mod", go_mod.clone()),
                (
                    "flood_test.go",
                    format!(
                        "package flood\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"testing\"\n)\n\nfunc TestFlood(t *testing.T) {{\n\tline := strings.Repeat(\"x\", 1023)\n\tfor i := 0; i < {n}; i++ {{\n\t\tfmt.Println(line)\n\t}}\n\tt.Fatal(\"boom\")\n}}\n",
                        n = HUNDRED_MB / 1024
                    ),
                ),
            ],
            args: &[],
            needs: "go",
        },
        Scenario {
            name: "go test -json, endless, --timeout 5",
            files: vec![
                ("go.mod", go_mod),
                (
                    "flood_test.go",
                    "package flood\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"testing\"\n)\n\nfunc TestEndless(t *testing.T) {\n\tline := strings.Repeat(\"x\", 1023)\n\tfor {\n\t\tfmt.Println(line)\n\t}\n}\n".to_owned(),
                ),
            ],
            args: &["--timeout", "5"],
            needs: "go",
        },
        Scenario {
            name: "cargo test, 100 MB, fails",
            files: vec![
                (
                    "Cargo.toml",
                    "[package]\nname = \"flood\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n".to_owned(),
                ),
                (
                    "src/lib.rs",
                    format!(
                        "#[test]\nfn flood() {{\n    let line = \"x\".repeat(1023);\n    for _ in 0..{n} {{\n        println!(\"{{line}}\");\n    }}\n    panic!(\"boom\");\n}}\n",
                        n = HUNDRED_MB / 1024
                    ),
                ),
            ],
            args: &["--runner", "cargo"],
            needs: "cargo",
        },
    ]
}

struct Measured {
    peak_mb: f64,
    wall: Duration,
    status: String,
}

pub fn run(pith: &Path) -> Result<()> {
    let tmp = tempfile::Builder::new().prefix("pith-memory-").tempdir()?;
    let cache = tmp.path().join("xdg-cache");
    println!("| scenario | pith peak RSS | wall | status |");
    println!("|---|--:|--:|---|");
    let mut worst: f64 = 0.0;
    for (i, s) in scenarios().into_iter().enumerate() {
        if !on_path(s.needs) {
            println!("| {} | — | — | {} not installed |", s.name, s.needs);
            continue;
        }
        let dir = tmp.path().join(format!("s{i}"));
        for (rel, text) in &s.files {
            let p = dir.join(rel);
            fs::create_dir_all(p.parent().unwrap_or(&dir))?;
            fs::write(&p, text)?;
        }
        // A first run builds what needs building (cargo, go); the measured one follows.
        let target = tmp.path().join("cargo-target");
        if s.needs != "python3" {
            let _ = measure(pith, &dir, &["--timeout", "600"], &cache, &target);
        }
        let m = measure(pith, &dir, s.args, &cache, &target)?;
        worst = worst.max(m.peak_mb);
        println!(
            "| {} | {:.1} MB | {:.1} s | {} |",
            s.name,
            m.peak_mb,
            m.wall.as_secs_f64(),
            m.status
        );
    }
    eprintln!(
        "memory: worst peak {worst:.1} MB (target < {RSS_TARGET_MB} MB){}",
        if worst < RSS_TARGET_MB { "" } else { ": OVER" }
    );
    Ok(())
}

fn measure(
    pith: &Path,
    dir: &Path,
    args: &[&str],
    cache: &Path,
    target: &Path,
) -> Result<Measured> {
    let start = Instant::now();
    let mut child = Command::new(pith)
        .arg("test")
        .arg("--root")
        .arg(dir)
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .env("CARGO_TARGET_DIR", target)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting pith")?;
    let status_file = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut peak_kb: u64 = 0;
    let mut stdout = child.stdout.take().context("pith's stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    loop {
        if let Some(kb) = fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| vm_hwm_kb(&s))
        {
            peak_kb = peak_kb.max(kb);
        }
        if child.try_wait()?.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let wall = start.elapsed();
    let answer = reader.join().unwrap_or_default();
    let status = answer
        .split("\"status\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or("(no answer)")
        .to_owned();
    Ok(Measured {
        peak_mb: peak_kb as f64 / 1024.0,
        wall,
        status,
    })
}

/// `VmHWM:   12345 kB` from `/proc/PID/status`.
fn vm_hwm_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_high_water_mark() {
        let status = "Name:\tpith\nVmPeak:\t  200 kB\nVmHWM:\t   1234 kB\nVmRSS:\t  1000 kB\n";
        assert_eq!(vm_hwm_kb(status), Some(1234));
        assert_eq!(vm_hwm_kb("Name: x\n"), None);
    }
}
