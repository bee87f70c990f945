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
- Up to 8 failures: every failure is in `failures`, in full.
- Above 8: `failures` holds the first failure of each of the first 3 causes. A cause is the \
error type (or, lacking one, the message) plus the deepest project frame. The rest are grouped \
in `clusters`, biggest first, at most 5: `error` (the first member's message, cut at 120 \
characters), `at` (that frame as file:line, when there is one) and `affected`, which counts \
every failure with that cause, the one shown in `failures` included.
- `moreFailures` counts failures neither in `failures` nor in a shown cluster, so every \
failure is accounted for.
- Frames are \"file:line code\", project files only, deepest first: open the first one.
- To fit the byte budget an answer drops, in order: source lines of outer frames, outer \
frames, the smallest clusters, then full failures beyond the first (they move into clusters \
or `moreFailures`). A shown failure's id, message and deepest frame are never cut.
- `buildErrors` (at most 5, then `moreBuildErrors`) replace failures when the code did not \
build; a crash, timeout or collection error carries a `tail` of raw output.
";

const FLAKY: &str = "\
# Flaky, new, failing for, recovered
- `\"flaky\":true`: the test's outcome changed while the code did not. It failed and passed \
in runs of the same content (the same workspace `generation`), or the runner retried it within \
the run and it passed (nextest retries, set by the project). The failure shown is a failed \
attempt.
- Otherwise `\"new\":true` marks its first failure (it passed, or did not exist, before) and \
`failingFor` counts the consecutive runs it has failed in, this one included.
- `recovered` counts tests that passed after failing in the run before.
- A flaky failure still counts in `failed` and the run is not green: pith never reports a \
run greener than its evidence. Re-run it alone by passing its `test` id to `run_tests`.
";

const IDS: &str = "\
# Test ids and re-runs
- Every `test` in an answer is the runner's own id: pytest node ids \
(`tests/test_x.py::TestC::test_m[1-2]`), nextest's `<binary-id> <test-name>` (plain \
`cargo test` uses the same form).
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
- The workspace is the nearest ancestor of the server's directory with a project marker \
(a Cargo member climbs to its workspace root). Every project found below it runs (sibling \
packages, several Go modules, a nested Cargo workspace), one after another into one answer; \
`runs` then has one entry per project, with its `dir`. Test fixtures, examples, `testdata`, \
dependencies and ignored directories are not searched.
";

const RUNNERS_TAIL: &str = "\
- pith never edits the project: its runner configuration comes from pith's cache and \
scratch directories. A run is killed, with its whole process group, after 600 s.
- `status` is one of TestsPassed, TestsFailed, RunnerFailed, BuildFailed, CollectionFailed, \
TimedOut, Crashed, NoTestsRan, TestsNotFound, RunnerMissing. RunnerFailed: the runner's own \
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
- The workspace is the nearest ancestor of the server's directory with a project marker \
(a Cargo member climbs to its workspace root). Every project found below it runs (sibling \
packages, several Go modules, a nested Cargo workspace), one after another into one answer; \
`runs` then has one entry per project, with its `dir`. Test fixtures, examples, `testdata`, \
dependencies and ignored directories are not searched.
- Rust: cargo-nextest when installed, else plain `cargo test`, answered with \
`\"lacks\":\"isolation\"`: a crash or hang takes its whole test binary down. nextest does not \
run doctests.
- Python: pytest with pith's own plugin, under the project's interpreter (an active \
virtualenv, else .venv/ or venv/, else python3; named in `interpreter`). Works with \
pytest-xdist.
- pith never edits the project: its runner configuration comes from pith's cache and \
scratch directories. A run is killed, with its whole process group, after 600 s.
- `status` is one of TestsPassed, TestsFailed, RunnerFailed, BuildFailed, CollectionFailed, \
TimedOut, Crashed, NoTestsRan, TestsNotFound, RunnerMissing. RunnerFailed: the runner's own \
exit code or totals say the run is not green though no test failed (a coverage threshold, a \
run that stopped early); `reason` says which, `tail` shows the runner's words. A `hint` says \
what to do when a runner is missing or misconfigured.
";
        assert_eq!(topic("runners"), Some(BEFORE));
    }
}
