//! Deferred guidance: what agents rarely need to know about pith's answers, kept out of the
//! tool declarations (which every step of an agent loop re-sends) and returned one topic at a
//! time by `get_guide`. The declarations carry only the topic names.

/// A topic's text (built once when it is assembled from the ecosystems' descriptors).
pub(crate) type Text = fn() -> &'static str;

/// Topic names and their text, sorted by name; `get_guide`'s schema enumerates these names.
pub(crate) const TOPICS: &[(&str, Text)] = &[
    ("clusters", || CLUSTERS),
    ("flaky", || FLAKY),
    ("ids", || IDS),
    ("impact", || IMPACT),
    ("runners", runners),
];

/// The text of `topic`, or `None` when there is no such topic.
pub(crate) fn topic(name: &str) -> Option<&'static str> {
    TOPICS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| text())
}

/// The topic names, comma-separated, for error messages.
pub(crate) fn names() -> String {
    TOPICS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

const CLUSTERS: &str = "\
# How failures are shown, clustered and counted
- A cause is the error type, the message with its values taken out (numbers, strings, ids, \
paths, list contents) and the deepest project frame outside the tests (else the test file): \
`got 1.4.2`, `got 0.7.0` from one helper are one cause, biggest first.
- Up to 8 causes, each has one failure in full in `failures` (its smallest test id), with \
`affected` (the cause's failures, itself included), `others` (the other ids, up to 8) and \
`othersAt` (where each broke, when not all at one line). \
Above 8, the 3 biggest do; the next, at most 5, are `clusters`: `error` (cut at 120 \
characters), `at` (file:line), `affected`, `tests` (ids, up to 8), `testsAt`.
- `moreFailures` counts the rest: the `affected` counts (1 when absent) plus `moreFailures` \
make `failed`.
- `new`/`failingFor` on the answer: every failure in full shares it.
- Frames: \"file:line code\", project files, deepest first.
- At most 800 bytes: outer frames' source lines go first, then outer frames, extra message \
lines, id lists, the smallest clusters, the deepest source line, failures in full (to \
`clusters` or `moreFailures`). A shown failure's id, message first line and deepest frame \
stay; `pith failures ID` has it whole.
- `buildErrors` (5, then `moreBuildErrors`) replace failures when the build failed; \
`running` names up to 3 tests a hang or crash cut short (`moreRunning`); a crash, timeout or \
collection error has a `tail` of raw output, its end kept.
";

const IMPACT: &str = "\
# Suspects, selection, blast radius
- `suspects` (red runs): up to 3 changed lines failing tests reach, \"file:line source\", \
best first (a line a frame is on, then a changed file frames pass through, then nearness). \
`reach`: `static` (the import graph) or `traced` (failing tests ran traced). `baseline`: \
`lastPass` (the files at the test's last pass, kept by pith) or `git` (against `HEAD`). A \
failure with another suspect names it (`suspect`). Comments, docstrings and layout are never \
suspects.
- `untested` (green runs): up to 3 lines changed since the last green run of everything that \
no test reaches (`moreUntested`, `reach: static`).
- `get_impact` / `pith select`: test files the changes since the last green run (or git \
`rev`) reach; `suite` counts the test files the runners run. A change to some functions of a module selects the \
tests that reach a file naming them; code run on import, every test reaching the file. `all` \
with the reason when the graph cannot follow (data, lockfile, build or test config, \
deletion, rename, no baseline). Tests with dynamic imports run on any change (pytest: on \
what they were seen to load). `run_tests` with `changed` runs that (`changes`); reaching no test, the last green stands \
(`unchanged`).
- `get_impact` with `file` / `pith tests-for`: test files depending on it; with `target` / \
`pith blast`: files, definitions and tests depending on a file or symbol.
- `get_status`'s `offTarget`: changed source files no test reaches.
";

const FLAKY: &str = "\
# Flaky, new, failing for, recovered, masked
- `flaky` (a list on the answer): tests the project's own retry policy re-ran after a failure \
and that then passed (Surefire's `rerunFailingTestsCount`, pytest-rerunfailures, jest's \
`retryTimes`, vitest's `retry`, nextest's `retries`, Bazel's `flaky_test_attempts`). The run \
is green when the rest is, as the project's own command says; each entry is the failed \
attempt (its first message line and frame), counted in `passed`, never in `failed`. \
`moreFlaky` counts those left out.
- `\"flaky\":true` on a failure: the test's outcome changed while the code did not. It \
failed and passed in runs of the same content (the same workspace `generation`). It still \
counts in `failed`: pith never reports a run greener than its evidence. Re-run it alone by \
passing its `test` id to `run_tests`.
- Otherwise `\"new\":true` marks its first failure (it passed, or did not exist, before) and \
`failingFor` counts the consecutive runs it has failed in, this one included.
- `recovered` counts tests that passed after failing in the run before.
- `masked`: the project's own command would exit 0 over these failures, and why \
(`maven.test.failure.ignore`, Gradle's `ignoreFailures`, a trailing `|| true`). The failures \
stand: the status is not green.
";

const IDS: &str = "\
# Test ids and re-runs
- Every `test` in an answer is the runner's own id: pytest node ids \
(`tests/test_x.py::TestC::test_m[1-2]`), nextest's `<binary-id> <test-name>` (plain \
`cargo test` uses the same form), unittest's dotted names (`pkg.mod.Class.test_m`; a \
subtest's `… (i=3)` re-runs its whole test).
- Pass ids back in `run_tests`' `tests` to re-run exactly those tests. In a workspace with \
several runners each id goes to the runner that claims it.
- Ids that match no test are listed in `notFound` and the status is `TestsNotFound`.
- `running` names tests that were still running when the run was killed (timeout or crash).
";

/// The `runners` topic: what holds for every runner, with each ecosystem's own lines (its
/// descriptor's `guide`) in between.
fn runners() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = String::from(RUNNERS_HEAD);
        for e in pith_engine::ecosystem::ECOSYSTEMS {
            text.push_str(e.guide);
        }
        text.push_str(RUNNERS_TAIL);
        text
    })
}

const RUNNERS_HEAD: &str = "\
# Runners
- The workspace is `--root`, else the client's first root, else the nearest ancestor of the \
server's directory with a project marker \
(a Cargo member climbs to its workspace root). Every project found below it runs, one after \
another into one answer; `runs` then has one entry per project, with its `dir`. Test fixtures, examples, `testdata`, \
dependencies and ignored directories are not searched.
";

const RUNNERS_TAIL: &str = "\
- pith never edits the project. A run is killed, with its whole process group, after 600 s.
- `status` is one of TestsPassed, TestsFailed, RunnerFailed, BuildFailed, CollectionFailed, \
TimedOut, Cancelled, Crashed, NoTestsRan, TestsNotFound, RunnerMissing. RunnerFailed: the runner's own \
exit code or totals say the run is not green though no test failed (a coverage threshold, a \
run that stopped early); `reason` says which, `tail` shows the runner's words. A `hint` says \
what to do when a runner is missing or misconfigured.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_sorted_and_short() {
        let names: Vec<_> = TOPICS.iter().map(|(n, _)| *n).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        for (name, text) in TOPICS {
            assert!(
                text().len() <= 1500,
                "topic {name} is {} bytes",
                text().len()
            );
        }
    }

    /// The topic as it read before the ecosystems' lines moved into their descriptors.
    #[test]
    fn the_runners_topic_is_assembled_unchanged() {
        const BEFORE: &str = "\
# Runners
- The workspace is `--root`, else the client's first root, else the nearest ancestor of the \
server's directory with a project marker \
(a Cargo member climbs to its workspace root). Every project found below it runs, one after \
another into one answer; `runs` then has one entry per project, with its `dir`. Test fixtures, examples, `testdata`, \
dependencies and ignored directories are not searched.
- Rust: `cargo test` as the workspace runs it, answered with \
`\"lacks\":\"isolation\"`: a crash or hang takes its whole test binary down; cargo-nextest \
where .config/nextest.toml declares it.
- Python: pytest with pith's own plugin, under the project's interpreter (an active \
virtualenv, else .venv/ or venv/, else python3; named in `interpreter`). Works with \
pytest-xdist.
- Bazel: `bazel test` as the workspace's .bazelrc says; ids `//pkg:t`, `//pkg:t#Suite.Test`; \
`cached`/`remote` count targets from a cache / a remote executor.
- pith never edits the project. A run is killed, with its whole process group, after 600 s.
- `status` is one of TestsPassed, TestsFailed, RunnerFailed, BuildFailed, CollectionFailed, \
TimedOut, Cancelled, Crashed, NoTestsRan, TestsNotFound, RunnerMissing. RunnerFailed: the runner's own \
exit code or totals say the run is not green though no test failed (a coverage threshold, a \
run that stopped early); `reason` says which, `tail` shows the runner's words. A `hint` says \
what to do when a runner is missing or misconfigured.
";
        assert_eq!(topic("runners"), Some(BEFORE));
    }
}
