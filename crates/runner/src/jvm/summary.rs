//! The build tool's own count of the tests it ran, from its console: Surefire's `Results:`
//! line per module (`Tests run: 7, Failures: 1, Errors: 2, Skipped: 0`, with `, Flakes: N`
//! when it re-ran some), Gradle's `3 tests completed, 1 failed, 1 skipped` (printed when a test
//! failed). The reports must agree with it: a module whose reports went elsewhere, a report
//! that was never written, a failure no report records, would otherwise leave a green answer
//! that counts fewer tests than ran.

use crate::text;

/// What the tool said it ran, summed over modules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Totals {
    pub run: u64,
    /// Failures and errors together (each tool files one cause under either).
    pub failed: u64,
    pub skipped: u64,
}

impl Totals {
    fn add(&mut self, t: Totals) {
        self.run = self.run.saturating_add(t.run);
        self.failed = self.failed.saturating_add(t.failed);
        self.skipped = self.skipped.saturating_add(t.skipped);
    }
}

/// Surefire's module totals (not its per-class lines, which carry `Time elapsed`), summed;
/// `None` when it printed none. `log` is Maven's stdout, where its own lines carry their level
/// (`[INFO]`) and what a test prints is forwarded bare (its stderr goes to Maven's stderr):
/// only levelled lines count, and of each plugin execution's lines the last, since Surefire
/// prints its `Results:` after every test of the module ran, whatever a test printed (a
/// child Maven build's summary, a copy of Maven's lines) before it.
pub(crate) fn surefire(log: &str) -> Option<Totals> {
    let mut total: Option<Totals> = None;
    let mut section: Option<Totals> = None;
    for line in log.lines() {
        let l = text::strip_ansi(line);
        let l = l.trim_end();
        if l.starts_with("[INFO] --- ") || l.starts_with("[INFO] Building ") {
            if let Some(t) = section.take() {
                total.get_or_insert_with(Totals::default).add(t);
            }
            continue;
        }
        let Some(l) = ["[INFO]", "[ERROR]", "[WARNING]", "[WARN]"]
            .iter()
            .find_map(|p| l.strip_prefix(p))
        else {
            continue;
        };
        let Some(rest) = l.trim().strip_prefix("Tests run: ") else {
            continue;
        };
        if rest.contains("Time elapsed") {
            continue;
        }
        let mut t = Totals::default();
        let mut ok = true;
        for (i, part) in rest.split(", ").enumerate() {
            let (key, value) = match i {
                0 => ("run", part),
                _ => match part.split_once(": ") {
                    Some(kv) => kv,
                    None => {
                        ok = false;
                        break;
                    }
                },
            };
            let Ok(n) = value.trim().parse::<u64>() else {
                ok = false;
                break;
            };
            match key {
                "run" => t.run = n,
                "Failures" | "Errors" => t.failed = t.failed.saturating_add(n),
                "Skipped" => t.skipped = n,
                "Flakes" => {}
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            section = Some(t);
        }
    }
    if let Some(t) = section {
        total.get_or_insert_with(Totals::default).add(t);
    }
    total
}

/// Gradle's `N tests completed, F failed[, S skipped]` lines, summed (one per `Test` task
/// that had a failure); `None` when it printed none. Gradle prints them from the first column;
/// what a test prints, when shown, it indents.
pub(crate) fn gradle(output: &str) -> Option<Totals> {
    let mut total: Option<Totals> = None;
    for line in output.lines() {
        let l = text::strip_ansi(line);
        if l.starts_with(char::is_whitespace) {
            continue;
        }
        let l = l.trim();
        let Some((n, rest)) = l
            .split_once(" tests completed, ")
            .or_else(|| l.split_once(" test completed, "))
        else {
            continue;
        };
        let Ok(run) = n.trim().parse::<u64>() else {
            continue;
        };
        let mut t = Totals {
            run,
            ..Totals::default()
        };
        for part in rest.split(", ") {
            let (v, what) = part.split_once(' ').unwrap_or((part, ""));
            let Ok(v) = v.parse::<u64>() else { continue };
            match what.trim() {
                "failed" => t.failed = v,
                "skipped" => t.skipped = v,
                _ => {}
            }
        }
        let sum = total.get_or_insert_with(Totals::default);
        sum.add(t);
    }
    total
}

/// Where `said` (the tool's totals) counts more tests or more failures than the reports
/// `seen` hold: one line.
pub(crate) fn disagreement(tool: &str, said: Totals, seen: Totals) -> Option<String> {
    if said.failed > seen.failed {
        return Some(format!(
            "{tool} counted {} failed tests, its reports record {}",
            said.failed, seen.failed
        ));
    }
    (said.run > seen.run).then(|| {
        format!(
            "{tool} ran {} tests, its reports record {}",
            said.run, seen.run
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surefire_module_totals_are_summed() {
        let out = "[INFO] Running demo.CalcTest\n[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1, Time elapsed: 0.974 s <<< FAILURE! -- in demo.CalcTest\n[INFO] Results:\n[ERROR] Tests run: 7, Failures: 1, Errors: 2, Skipped: 0\n[INFO] --- surefire:3.5.4:test (default-test) @ b ---\n\u{1b}[1;32m[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Flakes: 1\u{1b}[m\n[INFO] Tests run: x, Failures: 0\n";
        assert_eq!(
            surefire(out),
            Some(Totals {
                run: 9,
                failed: 3,
                skipped: 0
            })
        );
        assert_eq!(surefire("[INFO] BUILD SUCCESS\n"), None);
    }

    #[test]
    fn what_a_test_prints_is_not_surefires_count() {
        // Maven 3.9, Surefire 3.5: a test printed Maven-like lines (forwarded bare, and one
        // copy with a level of its own) before the module's own Results.
        let log = "[INFO] --- surefire:3.5.4:test (default-test) @ jforge ---\n[INFO] Running demo.ForgeTest\nTests run: 9, Failures: 2, Errors: 1, Skipped: 0\n[ERROR] Tests run: 9, Failures: 2, Errors: 1, Skipped: 0\n[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.169 s -- in demo.ForgeTest\n[INFO] \n[INFO] Results:\n[INFO] \n[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0\n[INFO] \n[INFO] --- jar:3.4.1:jar (default-jar) @ jforge ---\n[INFO] --- surefire:3.5.4:test (default-test) @ other ---\n[INFO] Results:\n[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1\n";
        assert_eq!(
            surefire(log),
            Some(Totals {
                run: 5,
                failed: 1,
                skipped: 1
            })
        );
        // Gradle indents a test's standard streams.
        let out = "demo.ForgeTest > printsForgedLines STANDARD_OUT\n    5 tests completed, 2 failed\n\nBUILD SUCCESSFUL in 4s\n";
        assert_eq!(gradle(out), None);
    }

    #[test]
    fn gradle_totals() {
        let out = "CalcTest > addsNegatives() FAILED\n\n3 tests completed, 1 failed, 1 skipped\n\n1 test completed, 1 failed\n";
        assert_eq!(
            gradle(out),
            Some(Totals {
                run: 4,
                failed: 2,
                skipped: 1
            })
        );
        assert_eq!(gradle("BUILD SUCCESSFUL in 2s\n"), None);
    }

    #[test]
    fn more_said_than_seen_is_doubted() {
        let t = |run, failed| Totals {
            run,
            failed,
            skipped: 0,
        };
        assert_eq!(
            disagreement("maven", t(5, 0), t(3, 0)).as_deref(),
            Some("maven ran 5 tests, its reports record 3")
        );
        assert_eq!(
            disagreement("maven", t(3, 1), t(3, 0)).as_deref(),
            Some("maven counted 1 failed tests, its reports record 0")
        );
        assert_eq!(disagreement("maven", t(3, 1), t(4, 2)), None);
    }

    proptest::proptest! {
        #[test]
        fn never_panic(s in "(?s).{0,300}") {
            let _ = surefire(&s);
            let _ = gradle(&s);
        }
    }
}
