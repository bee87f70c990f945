//! How go is started: where the binary is, the environment it runs in (the caller's GOFLAGS less
//! the flags that would stop go from running tests pith can read, the workspace a module
//! belongs to), its `-timeout` (the project's, within pith's deadline), and the selection:
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

/// Flags GOFLAGS may carry that replace the test run with something else pith cannot read:
/// a listing (`-list`), a build without a run (`-c`, `-o`), a fuzzing session (`-fuzz`, which
/// go refuses over several packages anyway), or a second `-json`. Taken out of the GOFLAGS go
/// sees. Every other flag stays, the tests see it too: it is how the project builds and tests
/// (`-tags`, `-mod`, `-race`, `-short`), and what the caller chose to run and how (`-run`,
/// `-skip`, `-count`, `-cpu`, `-failfast`, `-timeout`, `-bench`): a repeated test fails if
/// any of its runs failed (`events`), and a selection pith makes by id is passed on the
/// command line, which outranks GOFLAGS.
pub(super) const REPLACING_FLAGS: &[&str] = &["list", "fuzz", "json", "c", "o"];

/// go test's own `-timeout` when nothing sets one.
pub(super) const GO_DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

pub(super) fn find_go() -> Option<PathBuf> {
    crate::on_path("go").or_else(|| {
        let p = PathBuf::from(GO_INSTALL);
        crate::is_executable(&p).then_some(p)
    })
}

/// go in `dir`, in the caller's environment but for what pith must change to read the run:
/// - GOFLAGS loses the flags that would replace the run ([`REPLACING_FLAGS`]); the rest of it
///   is the project's build and the caller's choices, kept.
/// - A module that a `go.work` above it leaves out runs on its own (`GOWORK=off`), as a
///   developer runs it there: inside the workspace go refuses `./...` in it ("directory
///   prefix . does not contain modules listed in go.work"). A module the `go.work` lists runs
///   inside the workspace, its `use` and `replace` applied. A caller's own `GOWORK` stands.
///
/// GOTOOLCHAIN is the caller's (or go's configuration): a `toolchain` line in go.mod is the
/// project's runner version, and go switches to it as it would by hand; where it cannot, its
/// words become a hint ([`toolchain_hint`]).
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
    if std::env::var_os("GOWORK").is_none_or(|v| v.is_empty()) && left_out_of_workspace(dir) {
        cmd.env("GOWORK", "off");
    }
    cmd
}

/// GOFLAGS (space-separated `-flag=value` entries) without the [`REPLACING_FLAGS`].
pub(super) fn kept_goflags(flags: &str) -> String {
    flags
        .split_whitespace()
        .filter(|f| !REPLACING_FLAGS.contains(&flag_name(f).0))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the caller's GOFLAGS choose which tests run (`-run`, `-skip`).
pub(super) fn callers_selection() -> bool {
    let goflags = std::env::var("GOFLAGS").unwrap_or_default();
    goflags
        .split_whitespace()
        .any(|f| matches!(flag_name(f).0, "run" | "skip"))
}

/// A GOFLAGS entry's name (without dashes and go test's `test.` prefix) and value.
fn flag_name(entry: &str) -> (&str, &str) {
    let name = entry.trim_start_matches('-');
    let (name, value) = name.split_once('=').unwrap_or((name, ""));
    (name.strip_prefix("test.").unwrap_or(name), value)
}

/// The `-timeout` go test runs with: the project's (the caller's GOFLAGS, else go's default of
/// ten minutes), within what is left of pith's deadline ([`go_timeout`]). A test that takes
/// longer than the project allows fails by hand, so it fails here; `-timeout=0` (no limit)
/// leaves pith's.
pub(super) fn test_timeout(remaining: Duration) -> Duration {
    let goflags = std::env::var("GOFLAGS").unwrap_or_default();
    let own = project_timeout(&goflags);
    let pith = go_timeout(remaining);
    match own {
        Some(t) if t.is_zero() => pith,
        Some(t) => t.min(pith),
        None => GO_DEFAULT_TIMEOUT.min(pith),
    }
}

/// The last `-timeout` in GOFLAGS (go applies them in order), when it parses.
fn project_timeout(goflags: &str) -> Option<Duration> {
    goflags
        .split_whitespace()
        .map(flag_name)
        .rfind(|(n, _)| *n == "timeout")
        .and_then(|(_, v)| parse_duration(v))
}

/// A Go duration: `90s`, `10m`, `1h30m`, `1.5h`, `500ms`, `0`.
pub(super) fn parse_duration(s: &str) -> Option<Duration> {
    if s == "0" {
        return Some(Duration::ZERO);
    }
    let mut rest = s;
    let mut total = 0f64;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let n: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total += n * scale;
    }
    Duration::try_from_secs_f64(total).ok()
}

/// Whether go runs the module in `dir` inside a workspace: the caller's `GOWORK` names one, or
/// the nearest `go.work` above it uses the module.
pub(super) fn in_workspace(dir: &Path) -> bool {
    match std::env::var_os("GOWORK").filter(|v| !v.is_empty()) {
        Some(v) => v != "off",
        None => governing_work(dir).is_some() && !left_out_of_workspace(dir),
    }
}

/// The `go.work` go finds for `dir`: the nearest one in it or above it.
fn governing_work(dir: &Path) -> Option<std::path::PathBuf> {
    dir.ancestors()
        .map(|d| d.join("go.work"))
        .find(|w| w.is_file())
}

/// Whether a `go.work` governs `dir` (the nearest one above it, as go finds it) and leaves
/// its module out of `use`.
pub(super) fn left_out_of_workspace(dir: &Path) -> bool {
    let Some(work) = governing_work(dir) else {
        return false;
    };
    let Ok(text) = std::fs::read_to_string(&work) else {
        return false;
    };
    let base = work.parent().unwrap_or(Path::new("/"));
    let here = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    !work_uses(&text).iter().any(|u| {
        let used = base.join(u);
        used.canonicalize().unwrap_or(used) == here
    })
}

/// The directories a `go.work` file's `use` directives name, in one line or a block.
pub(super) fn work_uses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if in_block {
            if line.starts_with(')') {
                in_block = false;
            } else if !line.is_empty() {
                out.push(unquote(line));
            }
            continue;
        }
        let Some(rest) = line.strip_prefix("use") else {
            continue;
        };
        let rest = rest.trim();
        if let Some(inner) = rest.strip_prefix('(') {
            match inner.split_once(')') {
                Some((one, _)) if !one.trim().is_empty() => out.push(unquote(one.trim())),
                Some(_) => {}
                None => in_block = true,
            }
        } else if !rest.is_empty() && line[3..].starts_with(char::is_whitespace) {
            out.push(unquote(rest));
        }
    }
    out
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '`').to_owned()
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

/// Where go cannot run the toolchain the module asks for: `go: go.mod requires go >= 1.99
/// (running go 1.26.8; GOTOOLCHAIN=local)` (the caller or go's configuration forbids a
/// switch), or `go: download go1.99.0 for linux/amd64: toolchain not available` (the switch
/// failed: no such release, no network, GOPROXY=off).
pub(super) fn toolchain_hint(stderr: &str) -> Option<String> {
    if let Some(line) = stderr
        .lines()
        .find(|l| l.contains("requires go >= ") && l.contains("GOTOOLCHAIN=local"))
    {
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
        return Some(format!(
            "go.mod requires go >= {want} (installed: {running}): install Go {want} or newer: https://go.dev/dl/"
        ));
    }
    let line = stderr
        .lines()
        .find(|l| l.starts_with("go: download go") && l.contains("toolchain not available"))?;
    let want = line.strip_prefix("go: download ")?.split(' ').next()?;
    Some(format!(
        "the module asks for toolchain {want}, which go could not get (toolchain not available): install it, or check GOTOOLCHAIN and GOPROXY"
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
    fn goflags_keep_the_build_and_the_callers_choices() {
        let all = "-tags=integration -run=TestA -count=1 -mod=vendor --failfast -test.skip=X -count=3 -race -cpu=1,4 -vet=off";
        assert_eq!(kept_goflags(all), all);
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
        let e = "go: downloading go1.99.0 (linux/amd64)\ngo: download go1.99.0 for linux/amd64: toolchain not available\n";
        assert!(toolchain_hint(e)
            .unwrap()
            .starts_with("the module asks for toolchain go1.99.0, which go could not get"));
        assert_eq!(toolchain_hint("go: other\n"), None);
    }

    #[test]
    fn goflags_keep_what_chooses_and_repeats_tests() {
        assert_eq!(
            kept_goflags("-tags=extra -run=TestX -count=3 -cpu=1,2 -failfast -list=. -test.c -json -o=x -fuzz=F -timeout=5m"),
            "-tags=extra -run=TestX -count=3 -cpu=1,2 -failfast -timeout=5m"
        );
    }

    #[test]
    fn the_projects_timeout_holds_within_pith_deadline() {
        let d = |s: &str| parse_duration(s).unwrap();
        assert_eq!(d("90s"), Duration::from_secs(90));
        assert_eq!(d("1h30m"), Duration::from_secs(5400));
        assert_eq!(d("1.5m"), Duration::from_secs(90));
        assert_eq!(d("500ms"), Duration::from_millis(500));
        assert_eq!(d("0"), Duration::ZERO);
        assert!(parse_duration("5x").is_none() && parse_duration("").is_none());
        assert_eq!(
            project_timeout("-count=1 -timeout=2m -timeout=30s"),
            Some(d("30s"))
        );
        assert_eq!(project_timeout("-test.timeout=45s"), Some(d("45s")));
        assert_eq!(project_timeout("-race"), None);
    }

    #[test]
    fn go_work_leaves_a_module_out_unless_it_uses_it() {
        assert_eq!(
            work_uses("go 1.22\n\nuse ./a\nuse (\n\t./b // the lib\n\t\"./c d\"\n)\nuse(./e)\ntoolchain go1.22.1\n"),
            ["./a", "./b", "./c d", "./e"]
        );
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        for m in ["a", "b", "left"] {
            std::fs::create_dir_all(root.join(m)).unwrap();
        }
        assert!(!left_out_of_workspace(&root.join("left")));
        std::fs::write(root.join("go.work"), "go 1.22\nuse (\n\t./a\n\tb\n)\n").unwrap();
        assert!(!left_out_of_workspace(&root.join("a")));
        assert!(!left_out_of_workspace(&root.join("b")));
        assert!(left_out_of_workspace(&root.join("left")));
        if std::env::var_os("GOWORK").is_none() {
            assert!(in_workspace(&root.join("a")));
            assert!(!in_workspace(&root.join("left")));
        }
    }
}
