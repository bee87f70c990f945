//! What the runners' exits and own words mean: each runner's documented exit codes as an
//! [`ExitMeaning`], and the lines of their output that explain a failed run no test explains
//! (a coverage threshold not met), which become the answer's `reason` and `tail`.

use pith_model::ExitMeaning;

use super::Runner;

/// jest: 0 all passed; 1 tests failed, no test found ("No tests found, exiting with code 1"),
/// a coverage threshold or a configuration error (or `--testFailureExitCode` for failures).
/// vitest: 0 passed; 1 failed, no test files ("No test files found, exiting with code 1"),
/// errors. node: 0 passed (also with no tests); 1 failed; 9 an invalid option. mocha: 0 passed;
/// else its count of failures, or 1 when it found no test file (`Error: No test files found`)
/// or could not start its run.
pub(crate) fn exit_meaning(
    runner: Runner,
    code: i32,
    output: &str,
    failure_code: Option<i32>,
) -> ExitMeaning {
    if code == 0 {
        return match failure_code {
            Some(0) => ExitMeaning::Other,
            _ => ExitMeaning::Passed,
        };
    }
    let no_tests = [
        "No tests found, exiting with code",
        "No test files found, exiting with code",
    ]
    .iter()
    .any(|w| output.contains(w));
    match (runner, code) {
        (Runner::Jest | Runner::Vitest, 1) if no_tests => ExitMeaning::NoTests,
        (Runner::Mocha, 1) if output.contains("No test files found") => ExitMeaning::NoTests,
        // mocha exits with its count of failures (tests and hooks), at most 255, and 1 when
        // the run stopped before it began (a file that did not load).
        (Runner::Mocha, c) if c > 0 => ExitMeaning::Failed,
        (Runner::Jest, c) if failure_code == Some(c) => ExitMeaning::Failed,
        (Runner::Jest | Runner::Vitest | Runner::Node, 1) => ExitMeaning::Failed,
        (Runner::Node, 9) => ExitMeaning::UsageError,
        _ => ExitMeaning::Other,
    }
}

/// Lines in which the runner says a coverage threshold was not met: jest's `Jest: Coverage for
/// statements (50%) does not meet "global" threshold (90%)` (and its older `coverage threshold
/// for ... not met`), vitest's `ERROR: Coverage for lines (40%) does not meet global threshold
/// (90%)`, node's `Error: 50.00% line coverage does not meet threshold of 90%.`.
pub(crate) fn threshold_lines(output: &str) -> Vec<String> {
    let clean = crate::text::strip_ansi(output);
    let mut out: Vec<String> = Vec::new();
    for l in clean.lines().map(str::trim) {
        let lower = l.to_ascii_lowercase();
        let hit = lower.contains("coverage")
            && lower.contains("threshold")
            && (lower.contains("does not meet") || lower.contains("not met"));
        if hit && !out.iter().any(|o| o == l) {
            out.push(l.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_mean_what_each_runner_documents() {
        use ExitMeaning::*;
        assert_eq!(exit_meaning(Runner::Jest, 0, "", None), Passed);
        assert_eq!(exit_meaning(Runner::Jest, 1, "", None), Failed);
        assert_eq!(
            exit_meaning(Runner::Jest, 1, "No tests found, exiting with code 1", None),
            NoTests
        );
        assert_eq!(exit_meaning(Runner::Jest, 3, "", Some(3)), Failed);
        assert_eq!(exit_meaning(Runner::Jest, 0, "", Some(0)), Other);
        assert_eq!(exit_meaning(Runner::Jest, 7, "", None), Other);
        assert_eq!(
            exit_meaning(
                Runner::Vitest,
                1,
                "No test files found, exiting with code 1",
                None
            ),
            NoTests
        );
        assert_eq!(exit_meaning(Runner::Vitest, 1, "", None), Failed);
        assert_eq!(exit_meaning(Runner::Node, 1, "", None), Failed);
        assert_eq!(exit_meaning(Runner::Node, 9, "", None), UsageError);
        assert_eq!(exit_meaning(Runner::Mocha, 3, "", None), Failed);
        assert_eq!(exit_meaning(Runner::Mocha, 255, "", None), Failed);
        assert_eq!(
            exit_meaning(
                Runner::Mocha,
                1,
                "Error: No test files found: \"test\"",
                None
            ),
            NoTests
        );
        assert_eq!(exit_meaning(Runner::Node, 13, "", None), Other);
    }

    #[test]
    fn threshold_lines_of_each_runner() {
        let out = "All files | 50 |\nJest: Coverage for statements (50%) does not meet \"global\" threshold (90%)\nTest Suites: 1 passed\n\u{1b}[31mERROR: Coverage for lines (40%) does not meet global threshold (90%)\u{1b}[39m\n# Error: 50.00% line coverage does not meet threshold of 90%.\nJest: \"global\" coverage threshold for lines (90%) not met: 50%\n";
        assert_eq!(
            threshold_lines(out),
            [
                "Jest: Coverage for statements (50%) does not meet \"global\" threshold (90%)",
                "ERROR: Coverage for lines (40%) does not meet global threshold (90%)",
                "# Error: 50.00% line coverage does not meet threshold of 90%.",
                "Jest: \"global\" coverage threshold for lines (90%) not met: 50%",
            ]
        );
        assert!(threshold_lines("coverage is fine\n").is_empty());
    }
}
