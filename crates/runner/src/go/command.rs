//! How go is started: where the binary is, the environment it runs in (GOFLAGS without the
//! selection flags, GOTOOLCHAIN pinned), its `-timeout` from pith's deadline, and the selection:
//! requested ids resolved to packages and grouped into exact `-run` patterns.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use pith_model::Run;

use crate::RunnerError;

use super::judge::{Requested, Selection};
use super::{locate, output};

/// Where Go's installer puts it, for a caller whose PATH lacks it.
pub(super) const GO_INSTALL: &str = "/usr/local/go/bin/go";

/// Flags GOFLAGS may carry that change which tests run or how go reports them: pith selects
/// tests itself and reads go's JSON, so these are taken out of the GOFLAGS go sees. Every other
/// flag (`-tags`, `-mod`, `-race`, `-count=1`, `-short`...) stays: it is part of how the
/// project builds and tests, and the tests see GOFLAGS as the caller set it, less these.
pub(super) const SELECTION_FLAGS: &[&str] = &[
    "run", "skip", "list", "failfast", "fuzz", "bench", "json", "c", "o",
];

pub(super) fn find_go() -> Option<PathBuf> {
    crate::on_path("go").or_else(|| {
        let p = PathBuf::from(GO_INSTALL);
        crate::is_executable(&p).then_some(p)
    })
}

/// go in `dir`, in the caller's environment but for two things the tests could see:
/// - GOFLAGS loses the flags that would choose tests or reshape go's report behind pith's back
///   ([`SELECTION_FLAGS`]); the rest of it is the project's build, kept.
/// - GOTOOLCHAIN is `local` unless the caller chose a policy: with go's default (`auto`) a
///   go.mod asking for a newer Go makes go download a toolchain from the network mid-run; pith
///   answers about the Go that is installed, with a hint when it is too old.
pub(super) fn command(go: &Path, dir: &Path) -> Command {
    let mut cmd = crate::base_command(go, dir);
    if let Some(flags) = std::env::var_os("GOFLAGS") {
        let flags = flags.to_string_lossy();
        let kept = kept_goflags(&flags);
        if kept != flags.trim() {
            if kept.is_empty() {
                cmd.env_remove("GOFLAGS");
            } else {
                cmd.env("GOFLAGS", kept);
            }
        }
    }
    if std::env::var_os("GOTOOLCHAIN").is_none_or(|v| v.is_empty()) {
        cmd.env("GOTOOLCHAIN", "local");
    }
    cmd
}

/// GOFLAGS (space-separated `-flag=value` entries) without the [`SELECTION_FLAGS`], and
/// without what runs a test more than once (`-count` other than 1, `-cpu` with several
/// values): each run reports under the one name, and the last would hide a failing one.
pub(super) fn kept_goflags(flags: &str) -> String {
    flags
        .split_whitespace()
        .filter(|f| {
            let name = f.trim_start_matches('-');
            let (name, value) = name.split_once('=').unwrap_or((name, ""));
            let name = name.strip_prefix("test.").unwrap_or(name);
            let repeats =
                (name == "count" && value != "1") || (name == "cpu" && value.contains(','));
            !(SELECTION_FLAGS.contains(&name) || repeats)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn missing(hint: String) -> Run {
    crate::verdict::runner_missing("go", hint)
}

pub(super) fn spawn_error(go: &Path, source: std::io::Error) -> RunnerError {
    RunnerError::Spawn {
        program: go.display().to_string(),
        source,
    }
}

/// `go: go.mod requires go >= 1.99 (running go 1.26.8; GOTOOLCHAIN=local)`: the installed Go
/// is too old for the module, and pith does not let go download another.
pub(super) fn toolchain_hint(stderr: &str) -> Option<String> {
    let line = stderr
        .lines()
        .find(|l| l.contains("requires go >= ") && l.contains("GOTOOLCHAIN=local"))?;
    let want = line
        .split("requires go >= ")
        .nth(1)?
        .split([' ', ')'])
        .next()?;
    let running = line
        .split("(running go ")
        .nth(1)
        .and_then(|r| r.split([';', ')']).next())
        .unwrap_or("?");
    Some(format!(
        "go.mod requires go >= {want} (installed: {running}): install Go {want} or newer: https://go.dev/dl/"
    ))
}

/// go's own `-timeout` for the time left: less a margin (a fifth, 2 to 30 s) for go to link
/// the test binary, then print what was running and exit before pith's deadline; rounded down
/// to two significant digits so that the value, part of go's test-cache key, is the same from
/// one run to the next.
pub fn go_timeout(remaining: Duration) -> Duration {
    let margin = (remaining / 5).clamp(Duration::from_secs(2), Duration::from_secs(30));
    let secs = remaining.saturating_sub(margin).as_secs();
    let mut step = 1;
    while secs / step >= 100 {
        step *= 10;
    }
    Duration::from_secs((secs / step * step).max(1))
}

/// Every way to read `id` as `<package>.<TestName>[/sub...]`, leftmost package first.
pub(super) fn splits(id: &str) -> impl Iterator<Item = (&str, &str)> {
    id.match_indices('.').filter_map(move |(i, _)| {
        let (pkg, name) = (&id[..i], &id[i + 1..]);
        let top = name.split('/').next()?;
        (is_import_path(pkg) && output::is_test_func(top)).then_some((pkg, name))
    })
}

/// A plausible Go import path: no blanks, no `::`, not a file path.
pub(super) fn is_import_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.ends_with('/')
        && !p.contains("::")
        && !p.contains("//")
        && p.chars()
            .all(|c| c.is_alphanumeric() || "-._~/+!".contains(c))
}

/// A requested id as a package `go list` knows and a test name (or the package alone). An id
/// that starts with `-` is never one: it would reach go as an option.
pub(super) fn resolve(id: &str, dirs: &locate::Dirs) -> Option<Requested> {
    if id.starts_with('-') {
        return None;
    }
    if dirs.knows(id) {
        return Some(Requested {
            id: id.to_owned(),
            pkg: id.to_owned(),
            name: None,
        });
    }
    splits(id)
        .find(|(pkg, _)| dirs.knows(pkg))
        .map(|(pkg, name)| Requested {
            id: id.to_owned(),
            pkg: pkg.to_owned(),
            name: Some(name.to_owned()),
        })
}

/// The `go test` invocations that run `reqs`: a `-run` pattern (none: whole packages), the
/// packages it applies to, and the requests it answers.
pub(super) fn plan(reqs: &[Requested]) -> Vec<(Option<String>, Vec<String>, Selection)> {
    // (package, pattern) pairs first: one pattern per subtest depth within a package.
    let mut pairs: Vec<(String, Option<String>, Vec<Requested>)> = Vec::new();
    let mut pkgs: Vec<&str> = Vec::new();
    for r in reqs {
        if !pkgs.contains(&r.pkg.as_str()) {
            pkgs.push(&r.pkg);
        }
    }
    for pkg in pkgs {
        let mine: Vec<&Requested> = reqs.iter().filter(|r| r.pkg == pkg).collect();
        if mine.iter().any(|r| r.name.is_none()) {
            pairs.push((pkg.to_owned(), None, mine.into_iter().cloned().collect()));
            continue;
        }
        // A test asked for with one of its parents runs with the parent; it stays in the
        // parent's selection so that its absence is still noticed.
        let name = |r: &Requested| r.name.clone().unwrap_or_default();
        let under = |r: &Requested, o: &Requested| {
            name(r)
                .strip_prefix(name(o).as_str())
                .is_some_and(|s| s.starts_with('/'))
        };
        let roots: Vec<&Requested> = mine
            .iter()
            .filter(|r| !mine.iter().any(|o| under(r, o)))
            .copied()
            .collect();
        // One pattern per parent: `^TestA$/^(x|y)$` selects exactly those subtests, where one
        // per depth (`^(TestA|TestB)$/^(x|y)$`) would also run TestA/y and TestB/x.
        let parent = |r: &Requested| {
            let n = name(r);
            n.rsplit_once('/')
                .map(|(p, _)| p.to_owned())
                .unwrap_or_default()
        };
        let mut parents: Vec<String> = Vec::new();
        for r in &roots {
            let p = parent(r);
            if !parents.contains(&p) {
                parents.push(p);
            }
        }
        for p in parents {
            let group: Vec<&Requested> = roots.iter().filter(|r| parent(r) == p).copied().collect();
            let names: Vec<String> = group.iter().map(|r| name(r)).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut sel: Vec<Requested> = group.iter().map(|r| (*r).clone()).collect();
            sel.extend(
                mine.iter()
                    .filter(|r| group.iter().any(|g| under(r, g)))
                    .map(|r| (*r).clone()),
            );
            pairs.push((pkg.to_owned(), Some(run_pattern(&names)), sel));
        }
    }
    let mut out: Vec<(Option<String>, Vec<String>, Selection)> = Vec::new();
    for (pkg, pattern, group) in pairs {
        match out.iter_mut().find(|(p, _, _)| *p == pattern) {
            Some((_, pkgs, sel)) => {
                pkgs.push(pkg);
                sel.ids.extend(group);
            }
            None => out.push((pattern, vec![pkg], Selection { ids: group })),
        }
    }
    out
}

/// go's `-run` pattern for test names that share their parent: each level an anchored
/// alternation of the names at that level, regexp metacharacters escaped.
pub(super) fn run_pattern(names: &[&str]) -> String {
    let depth = names
        .iter()
        .map(|n| n.split('/').count())
        .max()
        .unwrap_or(0);
    let mut levels: Vec<String> = Vec::new();
    for i in 0..depth {
        let mut alts: Vec<String> = Vec::new();
        for n in names {
            if let Some(seg) = n.split('/').nth(i) {
                let q = quote_meta(seg);
                if !alts.contains(&q) {
                    alts.push(q);
                }
            }
        }
        levels.push(if alts.len() == 1 {
            format!("^{}$", alts[0])
        } else {
            format!("^({})$", alts.join("|"))
        });
    }
    levels.join("/")
}

/// Go's `regexp.QuoteMeta`.
pub(super) fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One line telling how to get Go.
pub(super) const GO_HINT: &str = "install Go: https://go.dev/dl/";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goflags_keep_the_build_and_lose_the_selection() {
        assert_eq!(
            kept_goflags("-tags=integration -run=TestA -count=1 -mod=vendor --failfast -test.skip=X -count=3 -race -cpu=1,4 -vet=off"),
            "-tags=integration -count=1 -mod=vendor -race -vet=off"
        );
        assert_eq!(kept_goflags("  "), "");
    }

    #[test]
    fn an_id_that_looks_like_an_option_is_never_resolved() {
        let dirs = locate::Dirs::listed(
            "-run\t/ws\n-x.TestA\t/ws\n",
            Path::new("/ws"),
            Path::new("/ws"),
        );
        assert!(resolve("-run", &dirs).is_none());
        assert!(resolve("-x.TestA", &dirs).is_none());
    }

    #[test]
    fn ids_split_at_the_test_function() {
        let s: Vec<(&str, &str)> = splits("gopkg.in/yaml.v3.TestDecode/a.TestB").collect();
        assert_eq!(s[0], ("gopkg.in/yaml.v3", "TestDecode/a.TestB"));
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(splits("a.b").count(), 0);
    }

    #[test]
    fn run_patterns_escape_and_anchor_each_level() {
        assert_eq!(run_pattern(&["TestA"]), "^TestA$");
        assert_eq!(run_pattern(&["TestA", "TestB"]), "^(TestA|TestB)$");
        assert_eq!(
            run_pattern(&["TestT/1_+_2_=_3", "TestT/a.(b)"]),
            "^TestT$/^(1_\\+_2_=_3|a\\.\\(b\\))$"
        );
        assert_eq!(
            run_pattern(&["TestT/already/title"]),
            "^TestT$/^already$/^title$"
        );
    }

    #[test]
    fn plans_group_by_package_and_depth() {
        let r = |id: &str, pkg: &str, name: Option<&str>| Requested {
            id: id.into(),
            pkg: pkg.into(),
            name: name.map(str::to_owned),
        };
        let reqs = [
            r("p.TestA", "p", Some("TestA")),
            r("q.TestA", "q", Some("TestA")),
            r("p.TestB/x", "p", Some("TestB/x")),
            r("w", "w", None),
            r("p.TestB/x/y", "p", Some("TestB/x/y")),
        ];
        let plan = plan(&reqs);
        assert_eq!(plan.len(), 3);
        assert_eq!(plan[0].0.as_deref(), Some("^TestA$"));
        assert_eq!(plan[0].1, ["p", "q"]);
        assert_eq!(plan[1].0.as_deref(), Some("^TestB$/^x$"));
        // Under a requested parent: no run of its own, but still answered for.
        assert_eq!(plan[1].2.ids.len(), 2);
        assert_eq!(plan[2].0, None);
        assert_eq!(plan[2].1, ["w"]);

        // Subtests of two parents: one exact pattern each, never a cross product.
        let reqs = [
            r("p.TestA/x", "p", Some("TestA/x")),
            r("p.TestB/y", "p", Some("TestB/y")),
            r("p.TestA/z", "p", Some("TestA/z")),
        ];
        let patterns: Vec<Option<String>> = super::plan(&reqs).into_iter().map(|p| p.0).collect();
        assert_eq!(
            patterns,
            [
                Some("^TestA$/^(x|z)$".to_owned()),
                Some("^TestB$/^y$".to_owned())
            ]
        );
    }

    #[test]
    fn go_timeout_leaves_a_margin_and_is_stable() {
        let s = |secs: f64| go_timeout(Duration::from_secs_f64(secs)).as_secs();
        assert_eq!(s(600.0), 570);
        assert_eq!(s(599.9), 560);
        assert_eq!(s(590.5), 560);
        assert_eq!(s(15.0), 12);
        assert_eq!(s(5.0), 3);
        assert_eq!(s(4.99), 2);
        assert_eq!(s(0.5), 1);
        assert_eq!(s(3600.0), 3500);
    }

    #[test]
    fn toolchain_too_old_is_a_hint() {
        let e = "go: go.mod requires go >= 1.99 (running go 1.26.8; GOTOOLCHAIN=local)\n";
        assert_eq!(
            toolchain_hint(e).unwrap(),
            "go.mod requires go >= 1.99 (installed: 1.26.8): install Go 1.99 or newer: https://go.dev/dl/"
        );
        assert_eq!(toolchain_hint("go: other\n"), None);
    }
}
