//! Which Surefire ran a Maven build, and whether pith reads it: 2.22.0 to 3.x.
//!
//! The version is the one Maven resolved, read from its own execution header
//! (`--- maven-surefire-plugin:2.22.2:test (default-test) @ app ---` from Maven 3.8,
//! `--- surefire:3.5.4:test (default-test) @ app ---` from 3.9 on), so a version pinned in a
//! parent, a property, a profile or Maven's default binding (2.12.4 up to Maven 3.8) is the
//! one judged. It is read after the build: every option pith gives Maven is a user property
//! (`-Dtest`, `-DtrimStackTrace`, ...), which no Maven and no Surefire rejects, so running
//! first never passes a flag the runner refuses.
//!
//! Why 2.22: it is the first Surefire with its own JUnit Platform provider (JUnit 5 tests run
//! at all; 2.21 and older find none and report `Tests run: 0` as a success) and with `-Dtest`
//! method filters on it; re-runs (`rerunFailingTestsCount`, `flakyFailure`) are 2.18+. Its
//! reports name a parametrized invocation `m{int}[1]` where 3.x writes `m(int)[1]` (see
//! `command`). A major past 3 may move what pith reads.

/// The oldest Surefire pith reads, as (major, minor).
const OLDEST: (u32, u32) = (2, 22);
/// The newest major pith reads.
const NEWEST_MAJOR: u32 = 3;

/// The range as the answer words it.
pub(super) const RANGE: &str = "2.22.0 to 3.x";

/// Every Surefire version Maven's log names in an execution header of the `test` goal, in
/// order, each once. `log` is Maven's stdout.
pub(super) fn versions(log: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in log.lines() {
        let l = crate::text::strip_ansi(line);
        let Some(rest) = l.trim_end().strip_prefix("[INFO] --- ") else {
            continue;
        };
        let Some(rest) = rest
            .strip_prefix("maven-surefire-plugin:")
            .or_else(|| rest.strip_prefix("surefire:"))
        else {
            continue;
        };
        let Some((version, goal)) = rest.split_once(':') else {
            continue;
        };
        if !goal.starts_with("test ") || version.is_empty() || version.contains(' ') {
            continue;
        }
        if !out.iter().any(|v| v == version) {
            out.push(version.to_owned());
        }
    }
    out
}

/// Whether pith reads `version` (`2.22.2`, `3.0.0-M5`, `3.6.1`). A version it cannot read
/// is taken for one it does: the reports decide.
fn supported(version: &str) -> bool {
    let mut parts = version.split(['.', '-']);
    let num = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    let (Some(major), minor) = (num(parts.next()), num(parts.next())) else {
        return true;
    };
    (major, minor.unwrap_or(0)) >= OLDEST && major <= NEWEST_MAJOR
}

/// The answer's hint when the build ran a Surefire outside the range: the version found, the
/// range, and what to pin. `None` when every Surefire it ran is one pith reads.
pub(super) fn outside(log: &str) -> Option<String> {
    let version = versions(log).into_iter().find(|v| !supported(v))?;
    Some(format!(
        "Maven ran maven-surefire-plugin {version}; pith supports Surefire {RANGE}: pin maven-surefire-plugin 2.22.2 or newer (3.x) in the pom's build plugins"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_from_maven_3_8_and_3_9_headers() {
        let log = "[INFO] --- maven-resources-plugin:3.3.1:testResources (default-testResources) @ core ---\n\
                   [INFO] --- maven-surefire-plugin:2.22.2:test (default-test) @ core ---\n\
                   [INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0\n\
                   [INFO] --- surefire:3.5.4:test (default-test) @ app ---\n\
                   [INFO] --- maven-surefire-plugin:2.22.2:test (default-test) @ web ---\n\
                   [INFO] --- surefire-report:3.5.4:report (default-cli) @ web ---\n\
                   --- maven-surefire-plugin:2.12.4:test (default-test) @ printed-by-a-test ---\n";
        assert_eq!(versions(log), ["2.22.2", "3.5.4"]);
        assert_eq!(outside(log), None);
    }

    #[test]
    fn outside_the_range_names_the_version_and_the_range() {
        for (version, ok) in [
            ("2.12.4", false),
            ("2.21.0", false),
            ("2.22.0", true),
            ("2.22.2", true),
            ("3.0.0-M5", true),
            ("3.6.1", true),
            ("4.0.0-beta-1", false),
            ("${surefire.version}", true),
        ] {
            assert_eq!(supported(version), ok, "{version}");
        }
        let log = "[INFO] --- maven-surefire-plugin:2.12.4:test (default-test) @ old ---\n";
        let hint = outside(log).unwrap();
        assert!(
            hint.starts_with(
                "Maven ran maven-surefire-plugin 2.12.4; pith supports Surefire 2.22.0 to 3.x"
            ),
            "{hint}"
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,300}") {
            let _ = outside(&s);
            let _ = supported(&s);
        }
    }
}
