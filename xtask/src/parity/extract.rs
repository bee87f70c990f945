//! What a raw run printed, read per runner: the counts each runner prints in its own summary,
//! and its failing tests named in pith's id shape. Deliberately small and independent of
//! pith's adapters (the harness drives the built binary and reaches no pith crate): each
//! reader knows one runner's human output, the lines a developer reads, nothing structured.

use std::collections::BTreeSet;
use std::path::Path;

/// What one raw run said, summed over every runner segment it printed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Observed {
    pub passed: Option<u64>,
    /// Failed tests, errors included (pytest's errors, Surefire's errors, node's cancelled).
    pub failed: Option<u64>,
    pub skipped: Option<u64>,
    /// Snapshots the runner wrote (jest, vitest).
    pub written: Option<u64>,
    /// The failing tests, in pith's id shape as far as the runner's lines name them.
    pub ids: BTreeSet<String>,
    /// The runner stopped at a first failure before running everything (cargo test's
    /// fail-fast between test binaries, Maven's reactor skipping the modules after a failed
    /// one): what it printed is a lower bound of what pith may rightly report.
    pub stopped_early: bool,
}

fn add(slot: &mut Option<u64>, n: u64) {
    *slot = Some(slot.unwrap_or(0) + n);
}

/// Reads `text` (stdout then stderr of every raw command) with each named runner's reader.
/// `cwd` is where the raw side ran: node prints absolute paths, made relative here.
pub fn observe(runners: &[String], text: &str, cwd: &Path) -> Observed {
    let text = strip_ansi(text);
    let mut o = Observed::default();
    for r in runners {
        match r.as_str() {
            "pytest" => pytest(&text, &mut o),
            "unittest" => unittest(&text, &mut o),
            "cargo" => cargo(&text, &mut o),
            "nextest" => nextest(&text, &mut o),
            "go" => go(&text, &mut o, &go_modules(cwd)),
            "jest" => jest(&text, &mut o),
            "vitest" => vitest(&text, &mut o),
            "node" => node(&text, cwd, &mut o),
            "mocha" => mocha(&text, &mut o),
            "maven" => maven(&text, &mut o),
            "gradle" => gradle(&text, &mut o),
            "ctest" => ctest(&text, &mut o),
            "bazel" => bazel(&text, &mut o),
            _ => {}
        }
    }
    o
}

/// Removes ANSI escape sequences (CSI and OSC): a runner that colours its output anyway
/// (Maven's banner, cargo under a forced colour) reads the same.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Adds a summary's counts: each `N word` pair whose word is in one of the three lists.
fn tally(o: &mut Observed, summary: &str, passed: &[&str], failed: &[&str], skipped: &[&str]) {
    let (mut p, mut f, mut s) = (0, 0, 0);
    for (n, w) in pairs(summary) {
        let w = w.as_str();
        if passed.contains(&w) {
            p += n;
        } else if failed.contains(&w) {
            f += n;
        } else if skipped.contains(&w) {
            s += n;
        }
    }
    add(&mut o.passed, p);
    add(&mut o.failed, f);
    add(&mut o.skipped, s);
}

/// `N word` pairs of a summary (`3 passed, 1 failed`, `1 failed | 3 passed (4)`).
fn pairs(s: &str) -> Vec<(u64, String)> {
    let words: Vec<&str> = s
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '|' | ';' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .filter_map(|w| {
            let n = w[0].parse().ok()?;
            Some((n, w[1].trim_end_matches([',', '.', ':']).to_string()))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// pytest: `FAILED id - msg` and `ERROR id - msg` in the short summary; the closing line
// `=== 1 failed, 3 passed, 2 skipped in 0.12s ===` (or `-q`'s bare one).
fn pytest(text: &str, o: &mut Observed) {
    let mut summary = None;
    for line in text.lines() {
        for tag in ["FAILED ", "ERROR "] {
            if let Some(rest) = line.strip_prefix(tag) {
                let id = rest.split(" - ").next().unwrap_or(rest).trim();
                if !id.is_empty() && !id.contains(char::is_whitespace) {
                    o.ids.insert(id.to_string());
                }
            }
        }
        let bare = line.trim().trim_matches('=').trim();
        let closing = bare.contains(" in ")
            && bare.ends_with('s')
            && (bare.contains(" passed")
                || bare.contains(" failed")
                || bare.contains(" error")
                || bare.contains(" skipped")
                || bare.starts_with("no tests ran"));
        if closing {
            summary = Some(bare.to_string());
        }
    }
    if summary.is_none() && text.contains("test session starts") {
        // The interpreter died before pytest's summary: what it printed is partial.
        o.stopped_early = true;
    }
    if let Some(s) = summary {
        // pith has no expected-failure outcome: an xfail is a skip there.
        tally(
            o,
            &s,
            &["passed"],
            &["failed", "error", "errors"],
            &["skipped", "xfailed"],
        );
    }
}

// ---------------------------------------------------------------------------------------------
// unittest: `FAIL: test_x (pkg.mod.Class.test_x)` (Python 3.11+; `(pkg.mod.Class)` before),
// a subtest's parameters after it, `ERROR: setUpClass (pkg.mod.Class)` for a fixture,
// `unittest.loader._FailedTest.<module>` for a module that did not import; `Ran N tests`, then
// `OK (skipped=1)` or `FAILED (failures=1, errors=2, skipped=1, expected failures=1,
// unexpected successes=1)`. Passes are not printed: `Ran` counts failing tests and fixtures
// apart (a test with two failing subtests is one test run, two failures).
fn unittest(text: &str, o: &mut Observed) {
    let mut verdict = None;
    for line in text.lines() {
        for tag in ["FAIL: ", "ERROR: ", "UNEXPECTED SUCCESS: "] {
            if let Some(rest) = line.strip_prefix(tag) {
                if let Some(id) = unittest_id(rest) {
                    o.ids.insert(id);
                }
            }
        }
        let l = line.trim();
        if l == "OK" || l.starts_with("OK (") || l.starts_with("FAILED (") {
            verdict = Some(l.to_string());
        }
    }
    let Some(v) = verdict else {
        if text.contains("\nRan ") || text.starts_with("Ran ") {
            o.stopped_early = true;
        }
        return;
    };
    let counts = v.trim_start_matches("OK").trim_start_matches("FAILED");
    let (mut failed, mut skipped) = (0, 0);
    for part in counts.trim_matches([' ', '(', ')']).split(',') {
        let Some((word, n)) = part.trim().split_once('=') else {
            continue;
        };
        let Ok(n) = n.parse::<u64>() else { continue };
        match word {
            "failures" | "errors" | "unexpected successes" => failed += n,
            "skipped" | "expected failures" => skipped += n,
            _ => {}
        }
    }
    add(&mut o.failed, failed);
    add(&mut o.skipped, skipped);
}

/// `test_x (pkg.mod.Class.test_x) (i=2)` -> `pkg.mod.Class.test_x (i=2)`; before Python 3.11
/// the parentheses hold the class only: `test_x (pkg.mod.Class)`.
fn unittest_id(rest: &str) -> Option<String> {
    let (method, after) = rest.split_once(" (")?;
    let (inner, sub) = after.split_once(')')?;
    let sub = sub.trim();
    if let Some(module) = inner.strip_prefix("unittest.loader._FailedTest.") {
        return Some(module.to_string());
    }
    if matches!(
        method,
        "setUpClass" | "tearDownClass" | "setUpModule" | "tearDownModule"
    ) {
        return Some(inner.to_string());
    }
    let id = if inner.ends_with(&format!(".{method}")) {
        inner.to_string()
    } else {
        format!("{inner}.{method}")
    };
    Some(if sub.is_empty() {
        id
    } else {
        format!("{id} {sub}")
    })
}

// ---------------------------------------------------------------------------------------------
// cargo test: `Running … (target/debug/deps/NAME-HASH)` or `Doc-tests NAME` names the binary;
// `test PATH ... FAILED`; `test result: FAILED. 1 passed; 1 failed; 0 ignored; …`.
fn cargo(text: &str, o: &mut Observed) {
    let mut binary = String::new();
    // A test binary of its own main (`harness = false`) prints no `running N tests` and no
    // `test result:`: pith counts it as one test, passed when the next binary starts (cargo
    // went on) or the output ends, failed at cargo's `error: test failed`.
    let mut own_main = false;
    fn end_own_main(o: &mut Observed, own_main: &mut bool) {
        if std::mem::take(own_main) {
            add(&mut o.passed, 1);
        }
    }
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Running ") {
            end_own_main(o, &mut own_main);
            if let Some(open) = rest.rfind('(') {
                let path = rest[open + 1..].trim_end_matches(')');
                let file = path.rsplit('/').next().unwrap_or(path);
                binary = match file.rfind('-') {
                    Some(i) => file[..i].to_string(),
                    None => file.to_string(),
                };
                own_main = true;
            }
        } else if t.starts_with("Doc-tests ") {
            end_own_main(o, &mut own_main);
            // pith names a crate's doctests as one binary, `doc`.
            binary = "doc".to_string();
        } else if t.starts_with("running ") && (t.ends_with(" tests") || t.ends_with(" test")) {
            own_main = false;
        } else if let Some(rest) = t.strip_prefix("test result: ") {
            tally(o, rest, &["passed"], &["failed"], &["ignored"]);
        } else if let Some(rest) = t.strip_prefix("test ") {
            if let Some(name) = rest.strip_suffix(" ... FAILED") {
                o.ids.insert(cargo_id(&binary, name));
            }
        } else if t.starts_with("error: test failed, to rerun pass") {
            if std::mem::take(&mut own_main) {
                add(&mut o.failed, 1);
                o.ids.insert(binary.clone());
            }
            // Without --no-fail-fast cargo stops at the first failing test binary.
            o.stopped_early = true;
        }
    }
    end_own_main(o, &mut own_main);
}

// ---------------------------------------------------------------------------------------------
// cargo nextest run: `FAIL [ 0.003s] pkg::binary test::path` (a retried test's last attempt;
// `TRY n FAIL` lines are attempts, `FLAKY` passed); `Summary [ 0.010s] 4 tests run: 3 passed,
// 1 failed, 1 skipped`.
fn nextest(text: &str, o: &mut Observed) {
    let mut flaky = BTreeSet::new();
    for line in text.lines() {
        let mut t = line.trim();
        if t.starts_with("TRY ") {
            // `TRY 2 FAIL [..] id`: an attempt; failing unless a FLAKY line passes it.
            t = t.splitn(3, ' ').nth(2).unwrap_or("");
        }
        if let Some(rest) = t.strip_prefix("FLAKY ") {
            if let Some((_, id)) = rest.split_once("] ") {
                flaky.insert(nextest_id(id));
            }
        }
        for tag in ["FAIL [", "SIGSEGV [", "SIGABRT [", "TIMEOUT ["] {
            if let Some(rest) = t.strip_prefix(tag) {
                if let Some((_, id)) = rest.split_once("] ") {
                    o.ids.insert(nextest_id(id));
                }
            }
        }
        if let Some(rest) = t.strip_prefix("Summary [") {
            let rest = rest.split_once(']').map_or(rest, |(_, r)| r);
            tally(o, rest, &["passed"], &["failed", "timed"], &["skipped"]);
        }
    }
    o.ids.retain(|id| !flaky.contains(id));
}

/// A nextest status line's test, without the progress counter newer nextest puts before it
/// (`(1/3)`, `(───)` on a retry's attempt).
fn nextest_id(id: &str) -> String {
    let id = id.trim();
    match id.strip_prefix('(').and_then(|r| r.split_once(") ")) {
        Some((_, rest)) => rest.trim().to_string(),
        None => id.to_string(),
    }
}

/// A cargo test's id as the harness compares it: the test binary's crate name (dashes as
/// underscores), a space, the test's path.
pub fn cargo_id(binary: &str, name: &str) -> String {
    format!("{} {}", binary.replace('-', "_"), name.trim())
}

// ---------------------------------------------------------------------------------------------
// go test: `--- FAIL: Name (0.00s)` lines belong to the package whose `FAIL\tpkg` or `ok  \tpkg`
// line follows them; a failing package no test names (an init panic, TestMain) is its own id,
// one that did not build is a build error (no id).
fn go(text: &str, o: &mut Observed, modules: &[String]) {
    let mut pending: Vec<String> = Vec::new();
    // A line of a test's own output can look like a package's result line (a child running
    // `go test`): only the project's own modules' packages count.
    let ours = |pkg: &str| {
        modules.is_empty()
            || modules
                .iter()
                .any(|m| pkg == m || pkg.starts_with(&format!("{m}/")))
    };
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("--- FAIL: ") {
            let name = rest.split(" (").next().unwrap_or(rest).trim();
            pending.push(name.to_string());
        } else if let Some(rest) = line.strip_prefix("FAIL\t") {
            let pkg = rest.split(['\t', ' ']).next().unwrap_or(rest);
            let broken = rest.contains("[build failed]") || rest.contains("[setup failed]");
            if pending.is_empty() && !broken && ours(pkg) {
                o.ids.insert(pkg.to_string());
            }
            for name in pending.drain(..) {
                if ours(pkg) {
                    o.ids.insert(format!("{pkg}.{name}"));
                }
            }
        } else if let Some(rest) = line.strip_prefix("ok  \t") {
            let pkg = rest.split(['\t', ' ']).next().unwrap_or(rest);
            for name in pending.drain(..) {
                if ours(pkg) {
                    o.ids.insert(format!("{pkg}.{name}"));
                }
            }
        }
    }
}

/// The module paths of the go.mod files at `dir` and one level below (a go.work's modules).
fn go_modules(dir: &Path) -> Vec<String> {
    let mut files = vec![dir.join("go.mod")];
    if let Ok(entries) = std::fs::read_dir(dir) {
        files.extend(entries.flatten().map(|e| e.path().join("go.mod")));
    }
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .filter_map(|text| {
            text.lines().find_map(|l| {
                l.trim()
                    .strip_prefix("module ")
                    .map(|m| m.trim().to_string())
            })
        })
        .collect()
}

/// Go's failing ids as compared: the leaves only. `go test` prints a parent's FAIL above each
/// failing subtest; pith names the parent only when it failed on its own. A parent whose
/// subtest failed too is left out on both sides.
pub fn go_leaves(ids: &BTreeSet<String>) -> BTreeSet<String> {
    ids.iter()
        .filter(|id| {
            let prefix = format!("{id}/");
            !ids.iter().any(|other| other.starts_with(&prefix))
        })
        .cloned()
        .collect()
}

// ---------------------------------------------------------------------------------------------
// jest: `FAIL path` opens a file, `● describe › name` names a failing test in it (`● Test
// suite failed to run`: the file); `Tests: 1 failed, 1 skipped, 2 passed, 4 total`;
// `Snapshots: 1 written, …`.
fn jest(text: &str, o: &mut Observed) {
    let mut file = String::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("FAIL ") {
            if !rest.contains(" > ") {
                file = rest.split_whitespace().last().unwrap_or("").to_string();
            }
        } else if let Some(rest) = t.strip_prefix("PASS ") {
            if !rest.contains(" > ") {
                file = rest.split_whitespace().last().unwrap_or("").to_string();
            }
        } else if let Some(rest) = t.strip_prefix("● ") {
            if file.is_empty() || rest.starts_with("Console") {
                continue;
            }
            if rest == "Test suite failed to run" {
                // A file that did not load is in no `Tests:` total; pith counts it as an error,
                // which this side counts among the failed.
                if o.ids.insert(file.clone()) {
                    add(&mut o.failed, 1);
                }
            } else {
                let names: Vec<&str> = rest.split(" › ").map(str::trim).collect();
                o.ids.insert(format!("{file} > {}", names.join(" > ")));
            }
        } else if let Some(rest) = t.strip_prefix("Tests:") {
            tally(o, rest, &["passed"], &["failed"], &["skipped", "todo"]);
        } else if let Some(rest) = t.strip_prefix("Snapshots:") {
            snapshots_written(rest, o);
        }
    }
}

fn snapshots_written(rest: &str, o: &mut Observed) {
    let written: u64 = pairs(rest)
        .into_iter()
        .filter(|(_, w)| w == "written")
        .map(|(n, _)| n)
        .sum();
    add(&mut o.written, written);
}

// ---------------------------------------------------------------------------------------------
// vitest: ` FAIL  path > describe > name` (a file that failed to load: ` FAIL  path [ path ]`);
// `Tests  1 failed | 3 passed | 1 skipped (5)`; `Snapshots  1 written`.
fn vitest(text: &str, o: &mut Observed) {
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("FAIL ") {
            let mut rest = rest.trim();
            // A named project: `|unit| path > name`.
            if rest.starts_with('|') {
                if let Some(end) = rest[1..].find('|') {
                    rest = rest[end + 2..].trim();
                }
            }
            if let Some(open) = rest.find(" [ ") {
                // As jest's suite that failed to run: in no `Tests` total, one error.
                if o.ids.insert(rest[..open].trim().to_string()) {
                    add(&mut o.failed, 1);
                }
            } else if rest.contains(" > ") {
                o.ids.insert(rest.to_string());
            }
        } else if let Some(rest) = t.strip_prefix("Tests ") {
            tally(o, rest, &["passed"], &["failed"], &["skipped", "todo"]);
        } else if let Some(rest) = t.strip_prefix("Snapshots ") {
            snapshots_written(rest, o);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// mocha (the epilogue its `spec`, `dot` and `list` reporters share): `3 passing (12ms)`,
// `1 pending`, `2 failing`, then each failure numbered, its titles one per line below the
// number, the last ending in `:`. The file is not printed: the ids are the titles, which pith's
// end with. A hook's failure is titled `"before each" hook for "writes"` (or `hook: name for`):
// pith names the test it ran for.
fn mocha(text: &str, o: &mut Observed) {
    let lines: Vec<&str> = text.lines().collect();
    let mut listing = false;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        i += 1;
        let words: Vec<&str> = t.split_whitespace().collect();
        if let [n, word, ..] = words.as_slice() {
            if let Ok(n) = n.parse::<u64>() {
                match *word {
                    "passing" => add(&mut o.passed, n),
                    "pending" => add(&mut o.skipped, n),
                    "failing" => {
                        add(&mut o.failed, n);
                        listing = true;
                    }
                    _ => {}
                }
            }
        }
        let numbered = t
            .split_once(") ")
            .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let Some((_, first)) = numbered.filter(|_| listing) else {
            continue;
        };
        let mut titles = vec![first.to_string()];
        while !titles.last().is_some_and(|l| l.ends_with(':')) && i < lines.len() {
            titles.push(lines[i].trim().to_string());
            i += 1;
        }
        if let Some(last) = titles.last_mut() {
            last.pop();
            if let Some(test) = hook_test(last) {
                *last = test;
            }
        }
        o.ids.insert(titles.join(" > "));
    }
}

/// The test a hook's title names: `"before each" hook for "writes"` → `writes`.
fn hook_test(title: &str) -> Option<String> {
    if !title.starts_with("\"before ") && !title.starts_with("\"after ") {
        return None;
    }
    let (_, test) = title.split_once(" for \"")?;
    Some(test.strip_suffix('"')?.to_string())
}

// ---------------------------------------------------------------------------------------------
// node --test (TAP, its reporter when stdout is no terminal): `# Subtest: name` lines nest by
// four spaces; `not ok N - name` closes one, its YAML block giving `location:` (the file) and
// `failureType:` (`subtestsFailed`: a suite, not a test); `# pass N`, `# fail N`, ….
fn node(text: &str, cwd: &Path, o: &mut Observed) {
    let lines: Vec<&str> = text.lines().collect();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let cwd = format!("{}/", cwd.display());
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if let Some(name) = t.strip_prefix("# Subtest: ") {
            stack.retain(|(d, _)| *d < indent);
            stack.push((indent, name.to_string()));
        } else if let Some(rest) = t.strip_prefix("not ok ") {
            let name = rest
                .split_once(" - ")
                .map_or("", |(_, n)| n)
                .split(" # ")
                .next()
                .unwrap_or("")
                .to_string();
            let (mut location, mut suite) = (None, false);
            for y in lines[i + 1..].iter().take_while(|y| {
                let yi = y.len() - y.trim_start().len();
                yi > indent || y.trim().is_empty()
            }) {
                let y = y.trim();
                if let Some(l) = y.strip_prefix("location: ") {
                    location = Some(l.trim_matches('\'').to_string());
                }
                if y == "failureType: 'subtestsFailed'" || y == "type: 'suite'" {
                    suite = true;
                }
                if y == "..." {
                    break;
                }
            }
            stack.retain(|(d, _)| *d < indent);
            if suite {
                continue;
            }
            let rel = |p: &str| {
                let p = p.strip_prefix("file://").unwrap_or(p);
                p.strip_prefix(cwd.as_str()).unwrap_or(p).to_string()
            };
            if name.starts_with('/') || name.starts_with("file://") {
                // A file that failed as a whole (did not load, exited early).
                o.ids.insert(rel(&name));
                continue;
            }
            let file = location.as_deref().map(|l| {
                let l = rel(l);
                // path:line:col
                let mut parts = l.rsplitn(3, ':');
                let (_, _, path) = (parts.next(), parts.next(), parts.next());
                path.map_or(l.clone(), str::to_string)
            });
            let mut names: Vec<String> = stack.iter().map(|(_, n)| n.clone()).collect();
            names.push(name);
            let id = match file {
                Some(f) => format!("{f} > {}", names.join(" > ")),
                None => names.join(" > "),
            };
            o.ids.insert(id);
        } else if indent == 0 {
            let mut words = t.split_whitespace();
            if words.next() == Some("#") {
                if let (Some(w), Some(n)) = (words.next(), words.next()) {
                    if let Ok(n) = n.parse::<u64>() {
                        match w {
                            "pass" => add(&mut o.passed, n),
                            "fail" | "cancelled" => add(&mut o.failed, n),
                            "skipped" | "todo" => add(&mut o.skipped, n),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Maven Surefire: the `Results:` section's `Failures:` and `Errors:` lists (`Class.method:line
// message`, simple class names; `Flakes:` are not failures), and each module's totals line
// `Tests run: N, Failures: F, Errors: E, Skipped: S` (per-class lines carry `Time elapsed`).
// A reactor that skipped modules after a failed one stopped early.
fn maven(text: &str, o: &mut Observed) {
    let mut listing = false;
    for line in text.lines() {
        let (level, content) = match line.split_once("] ") {
            Some((l, c)) if l.starts_with('[') => (&l[1..], c),
            _ => continue,
        };
        let trimmed = content.trim();
        match trimmed {
            "Failures:" | "Errors:" => {
                listing = true;
                continue;
            }
            "Flakes:" => {
                listing = false;
                continue;
            }
            _ => {}
        }
        if let Some(rest) = trimmed.strip_prefix("Tests run: ") {
            listing = false;
            if trimmed.contains("Time elapsed") || trimmed.contains(" in ") {
                continue;
            }
            let (mut run, mut f, mut s) = (0, 0, 0);
            for part in format!("Tests run: {rest}").split(',') {
                let (k, v) = match part.split_once(':') {
                    Some((k, v)) => (k.trim(), v.trim().parse::<u64>().unwrap_or(0)),
                    None => continue,
                };
                match k {
                    "Tests run" => run += v,
                    "Failures" | "Errors" => f += v,
                    "Skipped" => s += v,
                    _ => {}
                }
            }
            add(&mut o.passed, run.saturating_sub(f + s));
            add(&mut o.failed, f);
            add(&mut o.skipped, s);
            continue;
        }
        if level == "INFO" {
            if trimmed.ends_with("SKIPPED") && trimmed.contains(" ....") {
                o.stopped_early = true;
            }
            listing = false;
            continue;
        }
        if listing && level == "ERROR" && !trimmed.is_empty() && !trimmed.starts_with("Run ") {
            let token = trimmed
                .split(|c: char| c == ':' || c.is_whitespace())
                .next()
                .unwrap_or("");
            // An inherited test is listed as `Class>DeclaringClass.method`: the test is
            // the running class's.
            let id = match (token.split_once('>'), token.rfind('.')) {
                (Some((class, declared)), _) => match declared.rfind('.') {
                    Some(i) => format!("{class}#{}", &declared[i + 1..]),
                    None => token.to_string(),
                },
                (None, Some(i)) => format!("{}#{}", &token[..i], &token[i + 1..]),
                (None, None) => token.to_string(),
            };
            if !id.is_empty() {
                o.ids.insert(id);
            }
        }
    }
}

/// A JVM id as compared: parameters dropped (`area(int)[1]` → `area`: Surefire's lists name
/// the method alone).
pub fn jvm_id(id: &str) -> String {
    let id = id.split('(').next().unwrap_or(id);
    id.split('[').next().unwrap_or(id).to_string()
}

// ---------------------------------------------------------------------------------------------
// Gradle: `pkg.Class > method FAILED`; `3 tests completed, 1 failed, 1 skipped` (printed only
// when some failed).
fn gradle(text: &str, o: &mut Observed) {
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_suffix(" FAILED") {
            if let Some((class, method)) = rest.split_once(" > ") {
                o.ids.insert(format!("{}#{}", class.trim(), method.trim()));
            }
        } else if t.contains(" tests completed") || t.contains(" test completed") {
            let (mut done, mut f, mut s) = (0, 0, 0);
            for (n, w) in pairs(t) {
                match w.as_str() {
                    "tests" | "test" => done += n,
                    "failed" => f += n,
                    "skipped" => s += n,
                    _ => {}
                }
            }
            add(&mut o.passed, done.saturating_sub(f + s));
            add(&mut o.failed, f);
            add(&mut o.skipped, s);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// CTest: `The following tests FAILED:` then `  1 - Name (Failed)` lines; `67% tests passed, 1
// tests failed out of 3`.
fn ctest(text: &str, o: &mut Observed) {
    let mut listing = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("The following tests FAILED") {
            listing = true;
            continue;
        }
        if listing {
            match t.split_once(" - ") {
                Some((n, rest)) if n.trim().parse::<u64>().is_ok() => {
                    let name = rest.rsplit_once(" (").map_or(rest, |(n, _)| n).trim();
                    o.ids.insert(name.to_string());
                    continue;
                }
                _ => listing = false,
            }
        }
        if t.contains("% tests passed") {
            let p = pairs(t);
            let failed = p.iter().find(|(_, w)| w == "tests").map(|(n, _)| *n);
            let total = t
                .rsplit("out of ")
                .next()
                .and_then(|n| n.trim().parse::<u64>().ok());
            if let (Some(f), Some(total)) = (failed, total) {
                add(&mut o.passed, total.saturating_sub(f));
                add(&mut o.failed, f);
            }
        }
    }
}

/// A value-parameterized GoogleTest id without its instance: `Pcts/Table.Percent/5` →
/// `Pcts/Table.Percent/*`. CMake's `gtest_discover_tests` names an instance by its value (its
/// default, `NO_PRETTY_VALUES` off), GoogleTest and pith by its index, which `GTEST_FILTER`
/// re-runs: the same test in two namings, whose instances the counts still compare.
pub fn gtest_param_id(id: &str) -> String {
    match id.split_once('/') {
        Some((_, rest)) if rest.contains('.') && rest.contains('/') => {
            let base = &id[..id.len() - rest.len() + rest.find('/').unwrap_or(rest.len())];
            format!("{base}/*")
        }
        _ => id.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Bazel: `//pkg:target   FAILED in 0.3s` (or TIMEOUT, NO STATUS, INCOMPLETE): targets, not
// cases; its counts are targets too, so none are read.
fn bazel(text: &str, o: &mut Observed) {
    for line in text.lines() {
        let t = line.trim();
        if !t.starts_with("//") {
            continue;
        }
        let mut words = t.split_whitespace();
        let target = words.next().unwrap_or("");
        if let Some(word) = words.next() {
            if matches!(word, "FAILED" | "TIMEOUT" | "NO" | "INCOMPLETE") {
                o.ids.insert(target.to_string());
            }
        }
    }
}

/// A Bazel id as compared: the target (pith names `//pkg:target#Case`).
pub fn bazel_id(id: &str) -> String {
    id.split('#').next().unwrap_or(id).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(o: &Observed) -> Vec<&str> {
        o.ids.iter().map(String::as_str).collect()
    }

    fn run(runner: &str, text: &str) -> Observed {
        observe(&[runner.to_string()], text, Path::new("/tmp/p"))
    }

    #[test]
    fn unittest_verdict_and_failing_names() {
        let o = run(
            "unittest",
            "ERROR: setUpClass (tests.t.Broken)\nFAIL: test_each (tests.t.S.test_each) (i=2)\nERROR: test_old (tests.t.Old)\nERROR: tests.t2 (unittest.loader._FailedTest.tests.t2)\n----\nRan 6 tests in 0.001s\n\nFAILED (failures=2, errors=2, skipped=1, expected failures=1, unexpected successes=1)\n",
        );
        assert_eq!(
            ids(&o),
            [
                "tests.t.Broken",
                "tests.t.Old.test_old",
                "tests.t.S.test_each (i=2)",
                "tests.t2"
            ]
        );
        assert_eq!((o.passed, o.failed, o.skipped), (None, Some(5), Some(2)));
        let ok = run("unittest", "Ran 3 tests in 0.001s\n\nOK (skipped=1)\n");
        assert_eq!((ok.failed, ok.skipped), (Some(0), Some(1)));
    }

    #[test]
    fn pytest_summary_and_short_summary() {
        let o = run(
            "pytest",
            "tests/test_a.py .F.s\n=== short test summary info ===\nFAILED tests/test_a.py::test_b[x - y] - AssertionError: no\nERROR tests/test_c.py - ImportError\n\x1b[31m==== 1 failed, 2 passed, 1 skipped, 1 error in 0.12s ====\x1b[0m\n",
        );
        assert_eq!(ids(&o), ["tests/test_a.py::test_b[x", "tests/test_c.py"]);
        assert_eq!((o.passed, o.failed, o.skipped), (Some(2), Some(2), Some(1)));
        let q = run("pytest", "3 passed, 1 rerun in 0.50s\n");
        assert_eq!((q.passed, q.failed), (Some(3), Some(0)));
    }

    #[test]
    fn cargo_binaries_results_and_fail_fast() {
        let text =
            "     Running unittests src/lib.rs (target/debug/deps/my_lib-27b4390c1dca5100)\n\
running 2 tests\ntest tests::good ... ok\ntest tests::bad ... FAILED\n\
test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.08s\n\
error: test failed, to rerun pass `-p my-lib --lib`\n";
        let o = run("cargo", text);
        assert_eq!(ids(&o), ["my_lib tests::bad"]);
        assert_eq!((o.passed, o.failed, o.skipped), (Some(1), Some(1), Some(1)));
        assert!(o.stopped_early);
        assert_eq!(cargo_id("my-lib", "tests::bad"), "my_lib tests::bad");
    }

    #[test]
    fn a_binary_of_its_own_main_is_one_test() {
        let lib = "     Running unittests src/lib.rs (target/debug/deps/words-27b4390c1dca5100)\n\
running 1 test\ntest tests::counts ... ok\n\
test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let golden = "     Running tests/golden.rs (target/debug/deps/golden-0a1b2c3d4e5f6071)\n";
        let passed = run("cargo", &format!("{lib}{golden}golden: 3 files match\n   Doc-tests words\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"));
        assert_eq!((passed.passed, passed.failed), (Some(2), Some(0)));
        let failed = run("cargo", &format!("{lib}{golden}golden: 1 file differs\nerror: test failed, to rerun pass `--test golden`\n"));
        assert_eq!((failed.passed, failed.failed), (Some(1), Some(1)));
        assert_eq!(ids(&failed), ["golden"]);
    }

    #[test]
    fn nextest_final_attempts_and_summary() {
        let text = "        PASS [   0.004s] money tests::parses\n   TRY 1 FAIL [   0.003s] money::service reaches\n  FLAKY 2/3 [   0.003s] money::service reaches\n        FAIL [   0.004s] money tests::split\n     Summary [   0.020s] 3 tests run: 2 passed (1 flaky), 1 failed, 1 skipped\n";
        let o = run("nextest", text);
        assert_eq!(ids(&o), ["money tests::split"]);
        let counted = run("nextest", "   TRY 1 FAIL [   0.003s] (───) money::service reaches\n  FLAKY 2/3 [   0.003s] (1/2) money::service reaches\n        FAIL [   0.004s] (2/2) money tests::split\n");
        assert_eq!(ids(&counted), ["money tests::split"]);
        assert_eq!((o.passed, o.failed, o.skipped), (Some(2), Some(1), Some(1)));
    }

    #[test]
    fn go_fail_lines_belong_to_the_package_after_them() {
        let text = "--- FAIL: TestTitle (0.00s)\n    --- FAIL: TestTitle/two_words (0.00s)\n        words_test.go:15: no\nFAIL\nFAIL\texample.com/sub\t0.003s\nok  \texample.com/other\t0.1s\npanic: init\nFAIL\texample.com/initpanic\t0.01s\nFAIL\texample.com/broken [build failed]\n";
        let o = run("go", text);
        assert_eq!(
            ids(&o),
            [
                "example.com/initpanic",
                "example.com/sub.TestTitle",
                "example.com/sub.TestTitle/two_words"
            ]
        );
        assert_eq!(
            go_leaves(&o.ids).into_iter().collect::<Vec<_>>(),
            [
                "example.com/initpanic",
                "example.com/sub.TestTitle/two_words"
            ]
        );
        let mut mine = Observed::default();
        go(text, &mut mine, &["example.com/sub".to_string()]);
        assert_eq!(
            ids(&mine),
            [
                "example.com/sub.TestTitle",
                "example.com/sub.TestTitle/two_words"
            ]
        );
    }

    #[test]
    fn gtest_instances_compare_without_their_value_or_index() {
        assert_eq!(
            gtest_param_id("Pcts/Table.Percent/5"),
            "Pcts/Table.Percent/*"
        );
        assert_eq!(
            gtest_param_id("Pcts/Table.Percent/0"),
            "Pcts/Table.Percent/*"
        );
        assert_eq!(gtest_param_id("Calc.Adds"), "Calc.Adds");
        assert_eq!(gtest_param_id("Typed/0.Adds"), "Typed/0.Adds");
    }

    #[test]
    fn jest_files_bullets_and_totals() {
        let text = "FAIL tests/prices.test.js\n  price\n    ✕ dollars (2 ms)\n\n  ● price › dollars\n\n    TypeError\n\nFAIL tests/broken.test.js\n  ● Test suite failed to run\n\nTest Suites: 2 failed, 2 total\nTests:       1 failed, 1 skipped, 2 passed, 4 total\nSnapshots:   1 written, 1 passed, 2 total\n";
        let o = run("jest", text);
        assert_eq!(
            ids(&o),
            [
                "tests/broken.test.js",
                "tests/prices.test.js > price > dollars"
            ]
        );
        assert_eq!(
            (o.passed, o.failed, o.skipped, o.written),
            (Some(2), Some(2), Some(1), Some(1))
        );
    }

    #[test]
    fn vitest_fail_lines_and_totals() {
        let text = " FAIL  tests/prices.test.js > price > dollars\n FAIL  |unit| tests/b.test.ts > b\n FAIL  tests/broken.test.js [ tests/broken.test.js ]\n Test Files  2 failed (2)\n      Tests  2 failed | 3 passed | 1 skipped (6)\n  Snapshots  2 written\n";
        let o = run("vitest", text);
        assert_eq!(
            ids(&o),
            [
                "tests/b.test.ts > b",
                "tests/broken.test.js",
                "tests/prices.test.js > price > dollars"
            ]
        );
        assert_eq!(
            (o.passed, o.failed, o.skipped, o.written),
            (Some(3), Some(3), Some(1), Some(2))
        );
    }

    #[test]
    fn mocha_epilogue_counts_and_titles() {
        let text = "  math\n    ✔ adds\n    1) breaks\n\n  2 passing (204ms)\n  1 pending\n  3 failing\n\n  1) math\n       breaks:\n\n      AssertionError [ERR_ASSERTION]: no\n      at Context.<anonymous> (test/a.spec.js:4:31)\n\n  2) db\n       inner\n         \"before each\" hook for \"writes\":\n     Error: no connection\n\n  3) zero:\n     Error: x\n";
        let o = run("mocha", text);
        assert_eq!(ids(&o), ["db > inner > writes", "math > breaks", "zero"]);
        assert_eq!((o.passed, o.failed, o.skipped), (Some(2), Some(3), Some(1)));
    }

    #[test]
    fn node_tap_nesting_locations_and_suites() {
        let text = "TAP version 13\n# Subtest: price\n    # Subtest: dollars\n    not ok 2 - dollars\n      ---\n      location: '/tmp/p/tests/prices.test.js:9:3'\n      failureType: 'testCodeFailure'\n      ...\n    1..1\nnot ok 1 - price\n  ---\n  type: 'suite'\n  location: '/tmp/p/tests/prices.test.js:5:1'\n  failureType: 'subtestsFailed'\n  ...\n# Subtest: /tmp/p/tests/broken.test.js\nnot ok 2 - /tmp/p/tests/broken.test.js\n  ---\n  location: '/tmp/p/tests/broken.test.js:1:1'\n  ...\n# tests 4\n# pass 2\n# fail 2\n# cancelled 0\n# skipped 1\n# todo 0\n";
        let o = run("node", text);
        assert_eq!(
            ids(&o),
            [
                "tests/broken.test.js",
                "tests/prices.test.js > price > dollars"
            ]
        );
        assert_eq!((o.passed, o.failed, o.skipped), (Some(2), Some(2), Some(1)));
    }

    #[test]
    fn maven_results_lists_totals_and_flakes() {
        let text = "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1, Time elapsed: 0.051 s <<< FAILURE! -- in demo.CalcTest\n\
[INFO] Results:\n[ERROR] Failures: \n[ERROR]   CalcTest.addsNegatives:16->checkSum:25 expected: <-4> but was: <-5>\n\
[ERROR]   CalcSubTest>CalcBase.inherited:7 no\n[ERROR] Errors: \n[ERROR]   CalcTest.boom:20 » IllegalState boom\n[WARNING] Flakes: \n[WARNING] CalcTest.flaky\n[WARNING]   Run 1: CalcTest.flaky:9 no\n\
[ERROR] Tests run: 5, Failures: 1, Errors: 1, Skipped: 1, Flakes: 1\n[INFO] app ................................................ SKIPPED\n";
        let o = run("maven", text);
        assert_eq!(
            ids(&o),
            [
                "CalcSubTest#inherited",
                "CalcTest#addsNegatives",
                "CalcTest#boom"
            ]
        );
        assert_eq!((o.passed, o.failed, o.skipped), (Some(2), Some(2), Some(1)));
        assert!(o.stopped_early);
        assert_eq!(
            jvm_id("demo.ShapesTest#area(int)[1]"),
            "demo.ShapesTest#area"
        );
    }

    #[test]
    fn gradle_ctest_and_bazel_lines() {
        let g = run(
            "gradle",
            "demo.CalcTest > adds FAILED\n    org.junit.ComparisonFailure\n3 tests completed, 1 failed, 1 skipped\n",
        );
        assert_eq!(ids(&g), ["demo.CalcTest#adds"]);
        assert_eq!((g.passed, g.failed, g.skipped), (Some(1), Some(1), Some(1)));
        let c = run("ctest", "67% tests passed, 1 tests failed out of 3\n\nThe following tests FAILED:\n\t  2 - Calc.OffByOne (Failed)\nErrors while running CTest\n");
        assert_eq!(ids(&c), ["Calc.OffByOne"]);
        assert_eq!((c.passed, c.failed), (Some(2), Some(1)));
        let b = run("bazel", "//tests:calc_test                FAILED in 0.3s\n//tests:ok_test   PASSED in 0.1s\n//t:slow  TIMEOUT in 60.0s\n");
        assert_eq!(ids(&b), ["//t:slow", "//tests:calc_test"]);
        assert_eq!(
            bazel_id("//tests:calc_test#Calc.OffByOne"),
            "//tests:calc_test"
        );
    }

    #[test]
    fn readers_never_panic_on_fragments() {
        let junk = "FAIL \n● \nnot ok \n# Subtest: \n--- FAIL: \nFAIL\t\n[ERROR] \n[ERROR] Failures:\n[ERROR] \u{1b}[\ntest result: \nTests: x\n 1 - \n//\n";
        for r in super::super::corpus::RUNNERS {
            let _ = run(r, junk);
        }
    }
}
