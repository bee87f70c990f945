//! The Maven command: `mvn -B ... test`, as the project's own `mvn test` runs: its reactor, its
//! fail-fast (a module whose tests fail stops the build, and the modules after it do not run,
//! under pith as in the developer's shell), its retries (`rerunFailingTestsCount`) and its
//! `testFailureIgnore`. pith adds observation only, none of which changes an outcome: batch
//! mode and no colour (the console's looks), full stack traces in the reports (what the XML
//! says of a failure, not whether it fails), and pith's listener on the test classpath through
//! Surefire's `maven.test.additionalClasspath`. A selection adds `-Dtest` and, only then,
//! `failIfNoSpecifiedTests=false`: the modules holding none of the asked-for tests run none
//! instead of failing the build (the ids nothing matched become `not_found`). No `-fae` and no
//! `maven.test.failure.ignore` (both run what `mvn test` does not: the modules after a failing
//! one). Not `-q`: Surefire's `Results:` totals are logged at INFO, and they are evidence the
//! reports are checked against (a module whose reports went elsewhere would otherwise vanish
//! from a green answer).

use std::process::Command;

use super::{Invocation, TestId};

/// Variables of the caller's shell that would redirect Maven's own reporting behind pith's
/// back: `MAVEN_ARGS` (Maven 3.9+) is put before pith's arguments and can switch the reports
/// off (`-DdisableXmlReport`), move them (`-Dsurefire.reportsDirectory`) or quieten the totals
/// pith checks them against (`-q`). The test JVMs Surefire forks inherit Maven's environment,
/// so a test reading this variable would see it unset: it configures the Maven command line,
/// which is pith's to set, and no test has a reason to read it.
const SCRUBBED_ENV: &[&str] = &["MAVEN_ARGS"];

pub(super) fn command(inv: &Invocation<'_>) -> Command {
    let mut cmd = crate::base_command(inv.program, inv.dir);
    cmd.args(args(inv));
    for var in SCRUBBED_ENV {
        cmd.env_remove(var);
    }
    // The one variable pith adds: it names the file the listener writes its events to (the
    // test that was running when a JVM died or was killed). The test JVMs inherit it; nothing
    // but pith's listener reads it. Everything else is the caller's environment, unchanged.
    cmd.env(super::listener::EVENTS_ENV, inv.events);
    cmd
}

fn args(inv: &Invocation<'_>) -> Vec<String> {
    let mut a: Vec<String> = ["-B", "-Dstyle.color=never", "-DtrimStackTrace=false"]
        .map(String::from)
        .to_vec();
    if let Some(dir) = inv.listener {
        a.push(format!(
            "-Dmaven.test.additionalClasspath={}",
            dir.display()
        ));
    }
    if !inv.selection.is_empty() {
        a.push(format!("-Dtest={}", filter(inv.selection)));
        // Surefire 2.19+ reads the first, older ones the second.
        a.push("-Dsurefire.failIfNoSpecifiedTests=false".to_owned());
        a.push("-DfailIfNoSpecifiedTests=false".to_owned());
    }
    a.push("test".to_owned());
    a
}

/// Surefire's `-Dtest`: `Class#m1+m2,Other`. A parametrized invocation selects its method (the
/// answer keeps only the invocations asked for); a display name no method filter can express
/// selects its class.
pub(super) fn filter(ids: &[TestId]) -> String {
    let mut classes: Vec<(String, Option<Vec<String>>)> = Vec::new();
    for id in ids {
        let slot = match classes.iter().position(|(c, _)| *c == id.class) {
            Some(i) => i,
            None => {
                classes.push((id.class.clone(), Some(Vec::new())));
                classes.len() - 1
            }
        };
        match (id.method_base(), &mut classes[slot].1) {
            (Some(m), Some(methods)) => {
                if !methods.iter().any(|x| x == m) {
                    methods.push(m.to_owned());
                }
            }
            (_, methods) => *methods = None,
        }
    }
    classes
        .into_iter()
        .map(|(c, methods)| match methods {
            Some(m) if !m.is_empty() => format!("{c}#{}", m.join("+")),
            _ => c,
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn ids(v: &[&str]) -> Vec<TestId> {
        v.iter().map(|s| TestId::parse(s).unwrap()).collect()
    }

    #[test]
    fn filter_groups_methods_by_class() {
        assert_eq!(
            filter(&ids(&[
                "demo.A#adds",
                "demo.B#x(int)[2]",
                "demo.A#subs",
                "demo.B#x(int)[3]",
                "demo.A#adds"
            ])),
            "demo.A#adds+subs,demo.B#x"
        );
        assert_eq!(
            filter(&ids(&[
                "demo.A#adds",
                "src/test/java/demo/A.java",
                "demo.C#[1] x"
            ])),
            "demo.A,demo.C"
        );
    }

    #[test]
    fn argv_is_batch_and_injects_from_scratch() {
        let sel = ids(&["demo.A#adds"]);
        let inv = Invocation {
            program: Path::new("mvn"),
            dir: Path::new("/ws"),
            scratch: Path::new("/tmp/s"),
            listener: Some(Path::new("/cache/jvm/listener-1")),
            events: Path::new("/tmp/s/junit-events.txt"),
            selection: &sel,
        };
        let a = args(&inv);
        assert_eq!(a[0], "-B");
        assert!(a.contains(&"-Dmaven.test.additionalClasspath=/cache/jvm/listener-1".to_owned()));
        assert!(a.contains(&"-Dtest=demo.A#adds".to_owned()));
        assert!(a.contains(&"-Dsurefire.failIfNoSpecifiedTests=false".to_owned()));
        assert_eq!(a.last().map(String::as_str), Some("test"));
        // Nothing that runs what `mvn test` would not, or hides what it would fail on.
        for changes_the_outcome in ["-fae", "-Dmaven.test.failure.ignore=true"] {
            assert!(!a.iter().any(|x| x == changes_the_outcome), "{a:?}");
        }
        // Without a selection, nothing a selection needs.
        let whole = args(&Invocation {
            selection: &[],
            ..inv
        });
        assert!(
            !whole.iter().any(|x| x.contains("failIfNoSpecifiedTests")),
            "{whole:?}"
        );
        let cmd = command(&inv);
        let env: Vec<_> = cmd.get_envs().collect();
        assert!(env
            .iter()
            .any(|(k, v)| *k == "PITH_JUNIT_EVENTS"
                && v.is_some_and(|v| v == "/tmp/s/junit-events.txt")));
        assert!(env.iter().any(|(k, v)| *k == "MAVEN_ARGS" && v.is_none()));
    }
}
