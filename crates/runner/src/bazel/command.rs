//! The `bazel test` command line and what test ids select. pith adds only what it reads
//! (`--build_event_json_file`, a file of its own in pith's cache directory) and what keeps the
//! console plain (`--color=no --curses=no`), plus `--keep_going`, so one target that fails to
//! build does not hide the others' results; everything else — remote executors, caches,
//! configs — is the workspace's `.bazelrc`, never overridden.
//!
//! None of these changes an outcome: `--keep_going` never turns a verdict (a target that fails
//! to build fails the run with it or without it, exit 1 either way; it only lets the other
//! targets' results be read), and none is a build option, so Bazel keeps the analysis cache of
//! the developer's own `bazel test`. pith sets nothing a test or Bazel's judgement of it
//! reads: no `--test_output`, `--flaky_test_attempts`, `--test_timeout`, `--runs_per_test`,
//! `--cache_test_results`, `--test_env`, no `--config`.
//!
//! Ids: `//pkg:target` is a test target; `//pkg:target#Case` a test case inside it, as its
//! `test.xml` names it (`Suite.Test` for GoogleTest, `pkg.Class#method` for JUnit). Cases
//! are selected with `--test_filter`, which Bazel hands to the test framework: targets
//! selected whole run in one invocation, targets narrowed to cases in another, whose filter
//! joins every requested case in the framework's syntax (`A.B:C.D` for GoogleTest, a regular
//! expression for JUnit). A target pattern (`//pkg/...`, `//pkg:all`) runs as Bazel runs it,
//! and selects the tests of the packages it names.

use std::path::Path;
use std::process::Command;

/// A test id's target and case.
pub(super) fn split_id(id: &str) -> Option<(&str, Option<&str>)> {
    let (target, case) = match id.split_once('#') {
        Some((t, c)) if !c.is_empty() => (t, Some(c)),
        Some(_) => return None,
        None => (id, None),
    };
    is_label(target).then_some((target, case))
}

/// `//pkg:name`, `//pkg` (its default target), `@repo//pkg:name`.
pub(super) fn is_label(s: &str) -> bool {
    let rest = match s.split_once("//") {
        Some((repo, rest)) if repo.is_empty() || repo.starts_with('@') => rest,
        _ => return false,
    };
    !s.contains(char::is_whitespace)
        && !rest.starts_with('/')
        && rest
            .split_once(':')
            .is_none_or(|(_, name)| !name.is_empty())
}

/// The package of a test id's label in this workspace: `java/calc` of `//java/calc:t#C#m`,
/// empty for the root package; `None` for another repository's label or what is no label.
pub(super) fn package(id: &str) -> Option<&str> {
    let (target, _) = split_id(id)?;
    let rest = target.strip_prefix("//")?;
    Some(rest.split_once(':').map_or(rest, |(p, _)| p))
}

/// Whether `id` is `target` itself or one of its cases (`target#...`).
pub(super) fn of_target(id: &str, target: &str) -> bool {
    id.strip_prefix(target)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('#'))
}

/// A target pattern as Bazel users type them in place of a label: `//pkg/...` and `//...`
/// (the package and every package below it: `true`), `//pkg:all`, `//pkg:*`,
/// `//pkg:all-targets` (the package's own targets: `false`), with the package they name.
pub(super) fn pattern(id: &str) -> Option<(&str, bool)> {
    if id.contains('#') {
        return None;
    }
    let rest = id.strip_prefix("//")?;
    let (pkg, name) = match rest.split_once(':') {
        Some((pkg, name)) if matches!(name, "all" | "*" | "all-targets") => (pkg, Some(name)),
        Some(_) => return None,
        None => (rest, None),
    };
    let tree = if pkg == "..." {
        Some("")
    } else {
        pkg.strip_suffix("/...")
    };
    match (tree, name) {
        (Some(p), _) => Some((p, true)),
        (None, Some(_)) => Some((pkg, false)),
        (None, None) => None,
    }
}

/// Whether the requested id or pattern `requested` selects the reported test id `id`.
pub(super) fn selects(requested: &str, id: &str) -> bool {
    if of_target(id, requested) {
        return true;
    }
    let (Some((pkg, tree)), Some(of)) = (pattern(requested), package(id)) else {
        return false;
    };
    of == pkg
        || (tree
            && (pkg.is_empty()
                || of
                    .strip_prefix(pkg)
                    .is_some_and(|below| below.starts_with('/'))))
}

/// One `bazel test` invocation: its targets and the filter it runs them with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Invocation {
    pub targets: Vec<String>,
    pub filter: Option<String>,
}

/// The invocations that run `ids` (every test when empty): whole targets in one, targets
/// narrowed to cases in one per filter syntax. Ids that are not labels are left out (the
/// caller reports them not found).
pub(super) fn plan(ids: &[String]) -> Vec<Invocation> {
    if ids.is_empty() {
        return vec![Invocation {
            targets: vec!["//...".to_owned()],
            filter: None,
        }];
    }
    let mut whole: Vec<String> = Vec::new();
    // (targets, cases) per syntax: GoogleTest's, then JUnit's.
    let mut gtest: (Vec<String>, Vec<String>) = Default::default();
    let mut junit: (Vec<String>, Vec<String>) = Default::default();
    for id in ids {
        let Some((target, case)) = split_id(id) else {
            continue;
        };
        match case {
            None => push_new(&mut whole, target),
            Some(case) => {
                let group = if case.contains('#') {
                    &mut junit
                } else {
                    &mut gtest
                };
                push_new(&mut group.0, target);
                push_new(&mut group.1, case);
            }
        }
    }
    let mut out = Vec::new();
    // A target asked for whole runs whole, whatever else is asked of it: by its label or
    // within a pattern.
    let narrowed = |(targets, cases): (Vec<String>, Vec<String>),
                    join: &dyn Fn(&[String]) -> String| {
        let targets: Vec<String> = targets
            .into_iter()
            .filter(|t| !whole.iter().any(|w| selects(w, t)))
            .collect();
        (!targets.is_empty()).then(|| Invocation {
            targets,
            filter: Some(join(&cases)),
        })
    };
    let g = narrowed(gtest, &|c| c.join(":"));
    let j = narrowed(junit, &|c| {
        c.iter()
            .map(|c| format!("^{}$", c.replace('.', "\\.").replace('$', "\\$")))
            .collect::<Vec<_>>()
            .join("|")
    });
    if !whole.is_empty() {
        out.push(Invocation {
            targets: whole,
            filter: None,
        });
    }
    out.extend(g);
    out.extend(j);
    out
}

fn push_new(v: &mut Vec<String>, s: &str) {
    if !v.iter().any(|x| x == s) {
        v.push(s.to_owned());
    }
}

/// `bazel test` for one invocation, its build events written to `bep`.
pub(super) fn command(bazel: &Path, dir: &Path, bep: &Path, inv: &Invocation) -> Command {
    let mut cmd = crate::base_command(bazel, dir);
    cmd.arg("test")
        .arg(format!("--build_event_json_file={}", bep.display()))
        .args(["--color=no", "--curses=no", "--keep_going"]);
    if let Some(f) = &inv.filter {
        cmd.arg(format!("--test_filter={f}"));
    }
    cmd.arg("--").args(&inv.targets);
    cmd
}

/// A command's arguments as text, for tests of what pith passes.
#[cfg(test)]
pub(super) fn args_of(cmd: &Command) -> Vec<String> {
    cmd.get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn labels_and_cases() {
        assert_eq!(split_id("//a:b"), Some(("//a:b", None)));
        assert_eq!(split_id("//a:b#S.T"), Some(("//a:b", Some("S.T"))));
        assert_eq!(
            split_id("//a:b#p.C#m"),
            Some(("//a:b", Some("p.C#m"))),
            "a JUnit case keeps its own #"
        );
        assert_eq!(split_id("@r//a:b"), Some(("@r//a:b", None)));
        for bad in [
            "a:b",
            "//a:b#",
            "//a:",
            "///a",
            "S.T",
            "tests/x.py::t",
            "// a:b",
        ] {
            assert_eq!(split_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn packages_and_targets_of_ids() {
        assert_eq!(package("//java/calc:t#p.C#m"), Some("java/calc"));
        assert_eq!(package("//:t"), Some(""));
        assert_eq!(package("//a/b"), Some("a/b"));
        assert_eq!(package("@r//a:b"), None);
        assert_eq!(package("S.T"), None);
        assert!(of_target("//a:t", "//a:t") && of_target("//a:t#S.T", "//a:t"));
        assert!(!of_target("//a:tt", "//a:t") && !of_target("//a:t", "//a:t#S.T"));
    }

    #[test]
    fn target_patterns_select_the_tests_of_their_packages() {
        assert_eq!(pattern("//tests/..."), Some(("tests", true)));
        assert_eq!(pattern("//..."), Some(("", true)));
        assert_eq!(pattern("//a/b:all"), Some(("a/b", false)));
        assert_eq!(pattern("//a:*"), Some(("a", false)));
        assert_eq!(pattern("//a/...:all"), Some(("a", true)));
        assert_eq!(pattern("//:all-targets"), Some(("", false)));
        for not in [
            "//a:t",
            "//a",
            "//a:t#S.T",
            "//a/...#x",
            "tests/...",
            "@r//a/...",
        ] {
            assert_eq!(pattern(not), None, "{not}");
        }
        assert!(selects("//tests/...", "//tests:calc_test#Calc.Adds"));
        assert!(selects("//tests/...", "//tests/unit:t"));
        assert!(!selects("//tests/...", "//tests2:t"));
        assert!(selects("//...", "//:cctest"));
        assert!(selects("//tests:all", "//tests:t#S.T"));
        assert!(!selects("//tests:all", "//tests/unit:t"));
        assert!(selects("//a:t", "//a:t#S.T") && !selects("//a:t", "//a:tt"));
    }

    #[test]
    fn whole_targets_together_cases_by_syntax() {
        let p = plan(&ids(&[
            "//a:t",
            "//b:t#Calc.Adds",
            "//b:t#Calc.Subs",
            "//c:t#x.CalcTest#adds",
            "//a:t#Ignored.Case",
            "nonsense",
        ]));
        assert_eq!(
            p,
            vec![
                Invocation {
                    targets: ids(&["//a:t"]),
                    filter: None
                },
                Invocation {
                    targets: ids(&["//b:t"]),
                    filter: Some("Calc.Adds:Calc.Subs:Ignored.Case".into())
                },
                Invocation {
                    targets: ids(&["//c:t"]),
                    filter: Some("^x\\.CalcTest#adds$".into())
                },
            ]
        );
        assert_eq!(plan(&[])[0].targets, ids(&["//..."]));
        // A pattern asked for runs its targets whole.
        assert_eq!(
            plan(&ids(&["//b/...", "//b:t#Calc.Adds", "//c:t#Calc.Adds"])),
            vec![
                Invocation {
                    targets: ids(&["//b/..."]),
                    filter: None
                },
                Invocation {
                    targets: ids(&["//c:t"]),
                    filter: Some("Calc.Adds".into())
                },
            ]
        );
        assert!(plan(&ids(&["nonsense"])).is_empty());
    }

    #[test]
    fn the_command_adds_only_what_pith_reads() {
        let inv = Invocation {
            targets: ids(&["//a:t"]),
            filter: Some("A.B".into()),
        };
        let cmd = command(
            Path::new("/usr/bin/bazel"),
            Path::new("/ws"),
            Path::new("/s/bep.json"),
            &inv,
        );
        assert_eq!(
            args_of(&cmd),
            ids(&[
                "test",
                "--build_event_json_file=/s/bep.json",
                "--color=no",
                "--curses=no",
                "--keep_going",
                "--test_filter=A.B",
                "--",
                "//a:t"
            ])
        );
    }
}
