//! GoogleTest's console output, as any runner shows it (CTest's `-V`, a Bazel target's
//! `test.log`): which tests started and how each ended, by gtest's markers (`[ RUN      ]`,
//! `[       OK ]`, `[  FAILED  ]`, `[  SKIPPED ]`), and the failure texts between them.
//!
//! What a test prints is never gtest's: gtest runs one test at a time, so between a test's
//! `[ RUN ]` and its end a marker other than that end is the test's output ([`parse_gtest`]).

/// What the gtest console output of one process says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Console {
    /// Tests in the order they started, with how they ended (`None`: never ended).
    pub tests: Vec<(String, Option<ConsoleEnd>)>,
    /// Failure texts per test, in order, as gtest printed them (`file:line: Failure` ...).
    pub failures: Vec<(String, String)>,
    /// Failure texts printed outside any test (a suite's `SetUpTestSuite`, the environment).
    pub outside: Vec<String>,
    /// Suites whose set-up or tear-down failed (`[  FAILED  ] F: SetUpTestSuite or
    /// TearDownTestSuite`).
    pub failed_suites: Vec<String>,
    /// gtest's banner was seen: this is a gtest binary.
    pub gtest: bool,
    /// gtest's closing summary was seen (`[==========] 3 tests from 1 test suite ran.`): it
    /// ran to its end, where it writes its report.
    pub finished: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsoleEnd {
    Ok,
    Failed,
    Skipped,
}

/// `[ RUN      ] Sum.Bad`, `[  FAILED  ] Nums/P.Even/1, where GetParam() = 1 (0 ms)`.
fn marker(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix('[')?;
    let (tag, rest) = rest.split_once(']')?;
    Some((tag.trim(), rest.trim()))
}

/// The test id at the start of a marker's text: up to `,` (a parameter note) or ` (` (time).
fn marker_id(rest: &str) -> &str {
    let end = rest
        .find(", where ")
        .or_else(|| rest.find(" ("))
        .unwrap_or(rest.len());
    rest[..end].trim()
}

pub fn parse_gtest<'a>(lines: impl IntoIterator<Item = &'a str>) -> Console {
    let mut c = Console::default();
    let mut current: Option<String> = None;
    let mut block: Option<String> = None;
    let flush = |c: &mut Console, current: &Option<String>, block: &mut Option<String>| {
        if let Some(text) = block.take() {
            match current {
                Some(id) => c.failures.push((id.clone(), text)),
                None => c.outside.push(text),
            }
        }
    };
    for line in lines {
        if let Some((tag, rest)) = marker(line) {
            // gtest runs one test at a time and prints nothing of its own between a test's
            // `[ RUN ]` and its end: a marker there other than that test's end is the test's
            // own output (a child gtest binary's, a copy of gtest's lines).
            let foreign = current.as_deref().is_some_and(|open| {
                !matches!(tag, "OK" | "FAILED" | "SKIPPED") || marker_id(rest) != open
            });
            if foreign
                || !matches!(
                    tag,
                    "RUN" | "OK" | "FAILED" | "SKIPPED" | "==========" | "----------" | "PASSED"
                )
            {
                if let Some(b) = block.as_mut() {
                    b.push('\n');
                    b.push_str(line);
                }
                continue;
            }
            flush(&mut c, &current, &mut block);
            match tag {
                "==========" => {
                    c.gtest = true;
                    if rest.contains(" ran.") {
                        c.finished = true;
                    }
                }
                "RUN" => {
                    let id = marker_id(rest).to_owned();
                    c.tests.push((id.clone(), None));
                    current = Some(id);
                }
                "OK" | "FAILED" | "SKIPPED" => {
                    let id = marker_id(rest);
                    if let Some(suite) = rest.strip_suffix(": SetUpTestSuite or TearDownTestSuite")
                    {
                        if !c.failed_suites.iter().any(|s| s == suite) {
                            c.failed_suites.push(suite.to_owned());
                        }
                        continue;
                    }
                    let end = match tag {
                        "OK" => ConsoleEnd::Ok,
                        "FAILED" => ConsoleEnd::Failed,
                        _ => ConsoleEnd::Skipped,
                    };
                    // The summary repeats `[  FAILED  ] id` for every failed test: only a test
                    // still open is ended here.
                    if let Some(t) = c
                        .tests
                        .iter_mut()
                        .rev()
                        .find(|(t, e)| t == id && e.is_none())
                    {
                        t.1 = Some(end);
                    }
                    if current.as_deref() == Some(id) {
                        current = None;
                    }
                }
                _ => {}
            }
        } else if is_failure_head(line) {
            flush(&mut c, &current, &mut block);
            block = Some(line.to_owned());
        } else if let Some(b) = block.as_mut() {
            b.push('\n');
            b.push_str(line);
        }
    }
    flush(&mut c, &current, &mut block);
    c
}

/// `path:12: Failure`, `unknown file: Failure` (not `path:12: Skipped`, which is no failure).
fn is_failure_head(line: &str) -> bool {
    line.strip_suffix(": Failure")
        .is_some_and(|head| head == "unknown file" || super::failure::file_line(head).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_a_running_test_prints_are_its_output() {
        // gtest 1.12: `Forge.Prints` printed gtest's lines (a child gtest binary's, say) on
        // stdout; `Forge.Crashes` printed a `[ RUN ]` of another test, then aborted.
        let out = "[==========] Running 3 tests from 1 test suite.
[ RUN      ] Forge.Prints
[ RUN      ] Ghost.Fails
ghost.cc:3: Failure
forged failure
[  FAILED  ] Ghost.Fails (0 ms)
[==========] 9 tests from 3 test suites ran. (1 ms total)
[  PASSED  ] 7 tests.
[ RUN      ] Ghost.Running
[       OK ] Forge.Prints (0 ms)
[ RUN      ] Forge.Adds
[       OK ] Forge.Adds (0 ms)
[ RUN      ] Forge.Crashes
[ RUN      ] Ghost.Crashes";
        let g = parse_gtest(out.lines());
        assert_eq!(
            g.tests,
            vec![
                ("Forge.Prints".to_owned(), Some(ConsoleEnd::Ok)),
                ("Forge.Adds".to_owned(), Some(ConsoleEnd::Ok)),
                ("Forge.Crashes".to_owned(), None),
            ]
        );
        assert!(g.gtest && !g.finished);
        assert!(g.failures.is_empty() || g.failures.iter().all(|(t, _)| t == "Forge.Prints"));
    }

    #[test]
    fn suite_setup_failures_and_parameter_notes() {
        let out: Vec<String> = "[==========] Running 2 tests from 1 test suite.
[----------] 2 tests from F
s.cc:2: Failure
Failed
db down
[ RUN      ] F.One
s.cc:3: Skipped

[  SKIPPED ] F.One (0 ms)
[ RUN      ] Nums/P.Even/1
[  FAILED  ] Nums/P.Even/1, where GetParam() = 1 (0 ms)
[  FAILED  ] F: SetUpTestSuite or TearDownTestSuite"
            .lines()
            .map(str::to_owned)
            .collect();
        let g = parse_gtest(out.iter().map(String::as_str));
        assert_eq!(g.outside, ["s.cc:2: Failure\nFailed\ndb down"]);
        assert_eq!(g.failed_suites, ["F"]);
        assert_eq!(
            g.tests,
            [
                ("F.One".to_owned(), Some(ConsoleEnd::Skipped)),
                ("Nums/P.Even/1".to_owned(), Some(ConsoleEnd::Failed)),
            ]
        );
        assert!(g.failures.is_empty());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,600}") {
            let lines: Vec<String> = s.lines().map(str::to_owned).collect();
            let _ = parse_gtest(lines.iter().map(String::as_str));
        }
    }
}
