//! Entry points of the parser fuzz targets (`fuzz/`, cargo-fuzz) and of their replay test. They
//! live in the library because most parsers are crate-private; each takes arbitrary bytes, reads
//! them the way pith reads that runner's output (lossy UTF-8 where the parser takes text) under
//! a fixed workspace root that does not exist, and drives the result through what the adapter
//! asks of it next. A parser must never panic, hang or allocate without bound on any input:
//! the fuzzer checks that, and the test below replays the seeds and every minimized crash
//! (`fuzz/regressions/`) on stable, so a fixed crash stays fixed under `cargo test`.
//!
//! Not an API: hidden from the docs, stable for nobody but `fuzz/`.
#![doc(hidden)]

use std::borrow::Cow;
use std::path::Path;

use pith_model::Run;

use crate::{bazel, cargo, dotnet, go, gtest, js, junit, pytest, report, PathMap};

/// The workspace root every entry point pretends to run in. It does not exist, so a path a
/// parser looks up (a frame's source line, a go.mod) never reads a real file.
pub const ROOT: &str = "/pith-fuzz/workspace";

/// One entry point: arbitrary bytes in, nothing out but a panic, a hang or an allocation.
pub type Entry = fn(&[u8]);

/// The fuzz targets by name, as `fuzz/fuzz_targets/*.rs` and `fuzz/seeds/*` name them.
pub const TARGETS: &[(&str, Entry)] = &[
    ("junit_xml", junit_xml),
    ("trx", trx),
    ("go_json", go_json),
    ("jest_json", jest_json),
    ("vitest_json", vitest_json),
    ("node_events", node_events),
    ("libtest_text", libtest_text),
    ("pytest_records", pytest_records),
    ("unittest_records", unittest_records),
    ("mocha_output", mocha_output),
    ("gtest_json", gtest_json),
    ("report_sniff", report_sniff),
    ("bazel_bep", bazel_bep),
];

/// A fresh map per input: its source cache must not grow across a fuzzing session.
fn paths() -> PathMap {
    PathMap::new(Path::new(ROOT))
}

fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// What the engine asks of every run an adapter returns.
fn judged(run: &Run) {
    let _ = run.status();
    let _ = run.doubt();
}

/// JUnit XML as Surefire, Gradle and nextest write it: the shared reader, then the run
/// `--report` builds from it.
pub fn junit_xml(data: &[u8]) {
    let text = text(data);
    if let Ok(report) = junit::read(&text) {
        let _ = report.cases().filter(|c| c.flaky()).count();
    }
    if let Ok(run) = crate::jvm::parse_report(&text, &paths()) {
        judged(&run);
    }
}

/// A TRX document, and the blame collector's Sequence XML and hang logs read beside it.
pub fn trx(data: &[u8]) {
    let text = text(data);
    if let Some(doc) = dotnet::trx::parse(&text) {
        let _ = doc.results.len() + doc.definitions.len();
    }
    if let Ok(run) = dotnet::parse_trx(&text, &paths()) {
        judged(&run);
    }
    if let Ok(entries) = dotnet::blame::parse_sequence(&text) {
        for e in dotnet::blame::unfinished(&entries) {
            let _ = dotnet::blame::sequence_id(e);
        }
    }
    let _ = dotnet::blame::mtp_hang_log(&text);
    let _ = dotnet::blame::mtp_console_list(&text);
}

/// `go test -json`'s event stream: the per-package state, then the judged run.
pub fn go_json(data: &[u8]) {
    let text = text(data);
    let stream = go::events::Stream::parse(&text);
    for p in &stream.packages {
        let _ = p.build_failed();
        for t in &p.tests {
            let _ = t.output.all();
        }
    }
    if let Ok(run) = go::parse_json(&text, &paths()) {
        judged(&run);
    }
}

fn js_json(data: &[u8], flavour: js::report::Flavour) {
    let text = text(data);
    let _ = js::report::sniff(&text);
    let _ = js::report::parse_json(&text, flavour);
    let parsed = match flavour {
        js::report::Flavour::Jest => js::parse_jest(&text, &paths()),
        js::report::Flavour::Vitest => js::parse_vitest(&text, &paths()),
    };
    if let Ok(run) = parsed {
        judged(&run);
    }
    // pith's own reporter streams the same results as JSON lines.
    let events = js::events::parse(&text, flavour);
    for (file, _) in events.running() {
        let _ = events.unfinished(&file);
    }
}

/// jest's `--json` report (and a results processor's raw results), and the event stream of
/// pith's jest reporter.
pub fn jest_json(data: &[u8]) {
    js_json(data, js::report::Flavour::Jest);
}

/// vitest's JSON report and the event stream of pith's vitest reporter.
pub fn vitest_json(data: &[u8]) {
    js_json(data, js::report::Flavour::Vitest);
}

/// The JSON lines pith's reporter for node's test runner writes.
pub fn node_events(data: &[u8]) {
    let text = text(data);
    let events = js::node::parse(&text);
    for (file, _) in events.running() {
        let _ = events.stderr_of(&file);
    }
    let _ = js::node::load_error(&text);
}

/// What `cargo test` and nextest print: libtest's blocks on stdout (with cargo's JSON messages
/// mixed in) and each failed test's panic, cargo's and nextest's stderr, `--list` output.
pub fn libtest_text(data: &[u8]) {
    let text = text(data);
    let (segments, _) = cargo::libtest::parse_all(&text);
    for mut block in segments.into_iter().filter_map(|s| s.block) {
        for (name, captured) in &block.outputs {
            let _ = block.reported(name);
            let _ = cargo::panic::parse(captured);
        }
        let _ = block.settle(&mut || Some(vec!["a".to_owned()]));
    }
    for line in text.lines() {
        let _ = cargo::libtest::result_line(line);
        let _ = cargo::panic::parse_location(line);
    }
    let _ = cargo::panic::parse(&text);
    let _ = cargo::libtest::list(&text);
    let _ = cargo::diag::parse(&text);
    let _ = cargo::nextest::starting_count(&text);
    let _ = cargo::nextest::killed_in_stderr(&text);
}

/// The JSON lines pith's pytest plugin writes, and the fault-handler dumps read with them.
pub fn pytest_records(data: &[u8]) {
    let records = pytest::records::parse(data);
    let _ = records.running();
    let paths = paths();
    let texts = records
        .reports
        .iter()
        .filter_map(|r| r.text.as_deref().map(|t| (r.id.as_str(), t)))
        .chain(
            records
                .collect_errors
                .iter()
                .map(|c| (c.id.as_str(), c.text.as_str())),
        );
    for (id, text) in texts {
        let _ = pytest::faults::fatal_error(text);
        let _ = pytest::faults::frames_for(text, pytest::faults::node_file(id), &paths);
        let _ = pytest::faults::compact(text, &paths);
    }
    // A dump is also read from the raw file when the plugin's records end early.
    let text = text(data);
    let _ = pytest::faults::stacks(&text);
    let _ = pytest::faults::compact(&text, &paths);
}

/// The JSON lines pith's unittest result class writes.
pub fn unittest_records(data: &[u8]) {
    let _ = crate::unittest::records::parse(data);
}

/// What mocha prints when a file stops a serial run before any reporter exists (its records
/// are jest's shape, fed by `jest_json`).
pub fn mocha_output(data: &[u8]) {
    let _ = js::mocha::load_failure(&text(data));
}

/// GoogleTest's JSON report: the cases, then the run `--report` builds from them.
pub fn gtest_json(data: &[u8]) {
    let text = text(data);
    let _ = gtest::json::parse(&text);
    if let Ok(run) = gtest::parse_json(&text, &paths()) {
        judged(&run);
    }
}

/// Bazel's build event stream (`--build_event_json_file`), judged as if Bazel had exited
/// green and red: the files it names are read only when they are regular files.
pub fn bazel_bep(data: &[u8]) {
    for code in [0, 1, 3] {
        let end = crate::process::End::Exited(code);
        judged(&bazel::judged_stream(data, end, &paths(), &[]));
    }
}

/// `pith test --report`: the format told from the content, then parsed as that format.
pub fn report_sniff(data: &[u8]) {
    let text = text(data);
    if let Some(format) = report::sniff(&text) {
        if let Ok(run) = report::parse(format, &text, &paths()) {
            judged(&run);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn fuzz_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
    }

    fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                files_under(&p, out);
            } else if p.is_file() {
                out.push(p);
            }
        }
    }

    /// The fixture files `fuzz/fixture-seeds.txt` names, as `scripts/fuzz.sh` picks them.
    fn fixture_seeds(out: &mut Vec<PathBuf>) {
        let list = std::fs::read_to_string(fuzz_dir().join("fixture-seeds.txt")).unwrap();
        let repo = fuzz_dir().join("..");
        let mut found = Vec::new();
        for line in list.lines().map(str::trim) {
            if !line.is_empty() && !line.starts_with('#') {
                let path = repo.join(line);
                if path.is_file() {
                    found.push(path);
                } else {
                    files_under(&path, &mut found);
                }
            }
        }
        out.extend(
            found
                .into_iter()
                .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() < 64 * 1024)),
        );
    }

    /// Every committed seed, fixture seed and minimized crash, through every entry point (a
    /// seed of one format is hostile input to the others).
    #[test]
    fn seeds_and_regressions_replay_without_a_panic() {
        let mut files = Vec::new();
        files_under(&fuzz_dir().join("seeds"), &mut files);
        assert!(files.len() >= TARGETS.len(), "fuzz/seeds is missing seeds");
        files_under(&fuzz_dir().join("regressions"), &mut files);
        fixture_seeds(&mut files);
        files.sort();
        let mut panicked = Vec::new();
        for file in &files {
            let data = std::fs::read(file).unwrap();
            for (name, entry) in TARGETS {
                if std::panic::catch_unwind(|| entry(&data)).is_err() {
                    panicked.push(format!("{name} on {}", file.display()));
                }
            }
        }
        assert!(
            panicked.is_empty(),
            "parsers panicked:\n{}",
            panicked.join("\n")
        );
    }

    /// Each target has a seed directory and a fuzz target file of its name.
    #[test]
    fn every_target_is_wired() {
        for (name, _) in TARGETS {
            let seeds = fuzz_dir().join("seeds").join(name);
            assert!(
                std::fs::read_dir(&seeds).is_ok_and(|mut d| d.next().is_some()),
                "no seeds in {}",
                seeds.display()
            );
            let target = fuzz_dir().join("fuzz_targets").join(format!("{name}.rs"));
            let src = std::fs::read_to_string(&target).unwrap();
            assert!(
                src.contains(&format!("pith_runner::fuzzing::{name}(")),
                "{} does not call its entry point",
                target.display()
            );
        }
    }
}
