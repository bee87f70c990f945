//! The impact module's rooms, tried together: they share a workspace and a change set.

use std::collections::{BTreeMap, HashMap};

use pith_index::Graph;
use pith_model::impact::{Baseline, Traced};
use pith_model::Report;
use pith_store::{ChangeKind, Changes, FileChange, Hunk, Store};

use super::change::{code_only, graph_of, GRAPH_KEY};
use super::reach::{Judged, Score};
use super::selection::selection_of;
use super::suspects::{own_suspect, ranked, settle};
use super::trace::{retrace, traced_lines, TESTS_TRACED};
use pith_model::impact::Traceless;

/// A workspace of a Python package, its tests, a test with a dynamic import, data, and a
/// Rust crate beside it.
fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/money.py", "def cents(x):\n    return round(x * 100)\n"),
        ("pkg/cart.py", "from pkg.money import cents\n"),
        ("pkg/other.py", "X = 1\n"),
        ("tests/test_money.py", "from pkg.money import cents\n"),
        ("tests/test_cart.py", "from pkg import cart\n"),
        ("tests/test_other.py", "from pkg.other import X\n"),
        (
            "tests/test_plugins.py",
            "import importlib\nm = importlib.import_module(NAME)\n",
        ),
        ("tests/conftest.py", "\n"),
        ("data/prices.json", "{}\n"),
        (
            "rs/Cargo.toml",
            "[package]\nname = \"rs\"\nversion = \"0.1.0\"\n",
        ),
        (
            "rs/src/lib.rs",
            "pub fn f() {}\n#[cfg(test)]\nmod tests {}\n",
        ),
        ("rs/build.rs", "fn main() {}\n"),
    ];
    for (path, text) in files {
        let p = ws.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    ws
}

#[test]
fn the_tests_the_changes_broke_are_traced_before_those_that_never_passed() {
    let mut run = pith_model::Run::new("pytest");
    for i in 0..8 {
        run.failures.push(pith_model::Failure {
            test: format!("tests/test_x.py::test_{i}"),
            ..Default::default()
        });
    }
    let report = Report {
        runs: vec![run],
        ..Report::default()
    };
    let hunk = |line| (("pkg/money.py".to_owned(), line), Score::default());
    // Seven never passed under pith; the last one passed at generation 3.
    let judged: Vec<Judged> = (0..8)
        .map(|f| Judged {
            run: 0,
            failure: f,
            pass: (f == 7).then_some(3),
            scored: vec![hunk(1), hunk(9)],
        })
        .collect();
    let memo = HashMap::from([(
        Some(3),
        Some(changed(&[("pkg/money.py", ChangeKind::Modified)])),
    )]);
    let asked = std::cell::RefCell::new(Vec::new());
    let tracer = |_: usize, tests: &[String], _: &[String]| {
        asked.borrow_mut().extend(tests.iter().cloned());
        Err(Traceless::Empty)
    };
    assert_eq!(
        traced_lines(&report, &judged, &memo, crate::Trace::Auto, &tracer).err(),
        Some(Traceless::Empty)
    );
    let asked = asked.into_inner();
    assert_eq!(asked.len(), TESTS_TRACED);
    assert_eq!(asked[0], "tests/test_x.py::test_7");
}

#[test]
fn the_trace_switch_forbids_or_forces_the_re_run() {
    let mut run = pith_model::Run::new("pytest");
    run.failures.push(pith_model::Failure {
        test: "tests/test_x.py::test_a".into(),
        ..Default::default()
    });
    let report = Report {
        runs: vec![run],
        ..Report::default()
    };
    let memo = HashMap::from([(
        Some(3),
        Some(changed(&[("pkg/money.py", ChangeKind::Modified)])),
    )]);
    let judged = |hunks: &[u32]| -> Vec<Judged> {
        vec![Judged {
            run: 0,
            failure: 0,
            pass: Some(3),
            scored: hunks
                .iter()
                .map(|l| (("pkg/money.py".to_owned(), *l), Score::default()))
                .collect(),
        }]
    };
    let calls = |hunks: &[u32], mode| {
        let n = std::cell::Cell::new(0);
        let tracer = |_: usize, _: &[String], _: &[String]| {
            n.set(n.get() + 1);
            Err(Traceless::Unsupported)
        };
        let _ = traced_lines(&report, &judged(hunks), &memo, mode, &tracer);
        n.get()
    };
    // One hunk: the static reach names it, and only `always` re-runs.
    assert_eq!(calls(&[1], crate::Trace::Auto), 0);
    assert_eq!(calls(&[1], crate::Trace::Always), 1);
    // Two hunks leave a choice: `auto` re-runs, `never` does not.
    assert_eq!(calls(&[1, 9], crate::Trace::Auto), 1);
    assert_eq!(calls(&[1, 9], crate::Trace::Never), 0);
}

#[test]
fn an_untraced_failure_of_a_traced_run_names_only_a_line_a_frame_is_on() {
    let at = |l: u32, hit: bool, score: u32| (("m.py".to_owned(), l), Score { hit, score });
    let guessed = [at(3, false, 40), at(9, false, 20)];
    assert_eq!(own_suspect(&guessed, true), Some((&"m.py".to_owned(), &3)));
    assert_eq!(own_suspect(&guessed, false), None);
    let framed = [at(3, false, 40), at(9, true, 90)];
    assert_eq!(own_suspect(&framed, false), Some((&"m.py".to_owned(), &9)));
}

/// What the run traced in itself is taken as it is: no second start for a test it covers,
/// one for a test whose changes reach past the files it traced; nothing under `never`.
#[test]
fn a_run_that_traced_itself_needs_no_second_start_for_what_it_covered() {
    let test = "tests/test_x.py::test_a";
    let mut run = pith_model::Run::new("pytest");
    run.failures.push(pith_model::Failure {
        test: test.into(),
        ..Default::default()
    });
    let mut own = Traced::default();
    own.files.insert("pkg/money.py".into());
    own.tests.insert(
        test.into(),
        [("pkg/money.py".to_owned(), [2].into())].into(),
    );
    run.traced = Some(own);
    let report = Report {
        runs: vec![run],
        ..Report::default()
    };
    let judged = vec![Judged {
        run: 0,
        failure: 0,
        pass: Some(3),
        scored: vec![
            (("pkg/money.py".to_owned(), 1), Score::default()),
            (("pkg/money.py".to_owned(), 9), Score::default()),
        ],
    }];
    let outcome = |files: &[(&str, ChangeKind)], mode| {
        let memo = HashMap::from([(Some(3), Some(changed(files)))]);
        let n = std::cell::Cell::new(0);
        let tracer = |_: usize, _: &[String], _: &[String]| {
            n.set(n.get() + 1);
            Err(Traceless::Unsupported)
        };
        let traced = traced_lines(&report, &judged, &memo, mode, &tracer);
        (n.get(), traced.is_ok_and(|t| t.tests.contains_key(test)))
    };
    let money = [("pkg/money.py", ChangeKind::Modified)];
    assert_eq!(outcome(&money, crate::Trace::Auto), (0, true));
    assert_eq!(outcome(&money, crate::Trace::Always), (0, true));
    assert_eq!(outcome(&money, crate::Trace::Never), (0, false));
    // Its last pass is older than what the run traced: the rest is traced again.
    let more = [
        ("pkg/money.py", ChangeKind::Modified),
        ("pkg/cart.py", ChangeKind::Modified),
    ];
    assert_eq!(outcome(&more, crate::Trace::Always), (1, true));
}

#[test]
fn the_graph_kept_for_a_generation_is_never_an_older_one() {
    let ws = workspace();
    let mut store = Store::open(ws.path()).unwrap();
    let first = store.scan().unwrap();
    let g = graph_of(&store, ws.path()).unwrap();
    assert_eq!(g.tests_of("pkg/other.py").len(), 1);
    assert!(store.cached_graph(GRAPH_KEY, first).unwrap().is_some());
    // A new test importing the module: a new generation, and the graph says so.
    std::fs::write(
        ws.path().join("tests/test_more.py"),
        "from pkg.other import X\n",
    )
    .unwrap();
    let second = store.scan().unwrap();
    assert!(second > first);
    let tests: Vec<String> = graph_of(&store, ws.path())
        .unwrap()
        .tests_of("pkg/other.py")
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    assert_eq!(tests, ["tests/test_more.py", "tests/test_other.py"]);
    // What was kept for this generation is what answers, until something changes.
    let none = Graph::build(&ws.path().join("data")).unwrap();
    store
        .cache_graph(GRAPH_KEY, second, &none.to_bytes())
        .unwrap();
    assert!(graph_of(&store, ws.path())
        .unwrap()
        .tests_of("pkg/other.py")
        .is_empty());
    // Damaged bytes are not a graph: it is built again.
    store.cache_graph(GRAPH_KEY, second, b"junk").unwrap();
    assert_eq!(
        graph_of(&store, ws.path())
            .unwrap()
            .tests_of("pkg/other.py")
            .len(),
        2
    );
}

fn changed(paths: &[(&str, ChangeKind)]) -> Changes {
    Changes {
        baseline: pith_store::Baseline::Run { generation: 1 },
        files: paths
            .iter()
            .map(|(p, k)| FileChange {
                path: (*p).into(),
                kind: k.clone(),
                hunks: vec![Hunk { start: 1, end: 1 }],
            })
            .collect(),
    }
}

#[test]
fn comment_and_blank_lines_are_no_suspects() {
    let ws = tempfile::tempdir().unwrap();
    let py = "import x\n\n# a note\n\n\ndef f():\n    # why\n    return 1\n";
    std::fs::write(ws.path().join("m.py"), py).unwrap();
    let c = "/**\n * doc\n */\nint f(int *p) {\n  *p = 1; // set\n  return 0;\n}\n";
    std::fs::write(ws.path().join("m.c"), c).unwrap();
    std::fs::write(ws.path().join("notes.txt"), "# not code\n").unwrap();
    let file = |path: &str, hunks: &[(u32, u32)]| FileChange {
        path: path.into(),
        kind: ChangeKind::Modified,
        hunks: hunks
            .iter()
            .map(|&(start, end)| Hunk { start, end })
            .collect(),
    };
    let changes = Changes {
        baseline: pith_store::Baseline::Run { generation: 1 },
        files: vec![
            file("m.py", &[(2, 2), (2, 4), (3, 3), (3, 7), (9, 9)]),
            file("m.c", &[(1, 3), (2, 5)]),
            file("notes.txt", &[(1, 1)]),
        ],
    };
    let kept: Vec<(String, Vec<(u32, u32)>)> = code_only(ws.path(), changes)
        .files
        .into_iter()
        .map(|f| (f.path, f.hunks.iter().map(|h| (h.start, h.end)).collect()))
        .collect();
    assert_eq!(
        kept,
        [
            // One blank line (where a deleted line was): kept; blank and comment lines
            // otherwise: gone; a mixed hunk narrowed to its code; a line past the end (a
            // deletion's neighbour) kept.
            ("m.py".to_owned(), vec![(2, 2), (6, 6), (9, 9)]),
            // A dereference is code, a doc comment's lines are not.
            ("m.c".to_owned(), vec![(4, 5)]),
            ("notes.txt".to_owned(), vec![(1, 1)]),
        ]
    );
}

/// The markers as the engine matched them before the language table held them: every
/// extension it named keeps its markers; the table's C++ adds the rarer C++ extensions.
#[test]
fn comment_markers_are_the_ones_matched_before() {
    use pith_model::lang::comment_markers;
    let hash: &[&str] = &["#"];
    let c: &[&str] = &["//", "/*", "* ", "*/"];
    for x in ["py", "pyi", "rb", "sh", "bash", "pl", "r", "R"] {
        assert_eq!(comment_markers(&format!("d/a.{x}")), Some(hash), "{x}");
    }
    let before = [
        "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "go", "rs", "java", "kt", "kts",
        "scala", "cs", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "swift", "dart",
    ];
    let widened = ["hxx", "c++", "h++", "ipp", "inl", "tcc"];
    for x in before.iter().chain(&widened) {
        assert_eq!(comment_markers(&format!("d/a.{x}")), Some(c), "{x}");
    }
    for p in ["notes.txt", "Makefile", "a.PY", "a.md", "a.json", "a.rs/b"] {
        assert_eq!(comment_markers(p), None, "{p}");
    }
}

/// A change of one hunk, `start..=end`, to `path`.
fn hunk(path: &str, start: u32, end: u32) -> FileChange {
    FileChange {
        path: path.into(),
        kind: ChangeKind::Modified,
        hunks: vec![Hunk { start, end }],
    }
}

/// The graph's word on a changed line, no frame on it.
fn statically(f: &str, l: u32) -> ((String, u32), Score) {
    (
        (f.to_owned(), l),
        Score {
            hit: false,
            score: 10,
        },
    )
}

/// A definition's own line runs when its module loads; a line go's coverage has no block for
/// is unread.
#[test]
fn a_definition_line_runs_on_import_and_a_line_go_cannot_see_is_unread() {
    let changes = Changes {
        baseline: pith_store::Baseline::Run { generation: 1 },
        files: vec![
            // A function nothing calls, added; a changed signature of one a test calls; a
            // decorated one nothing calls.
            hunk("new.py", 4, 6),
            hunk("new.py", 8, 8),
            hunk("new.py", 12, 12),
            // A Go `const` (no coverage block) and a statement go saw and nobody ran.
            hunk("w.go", 3, 3),
            hunk("w.go", 7, 7),
        ],
    };
    let scored = vec![
        statically("new.py", 4),
        statically("new.py", 8),
        statically("new.py", 12),
        statically("w.go", 3),
        statically("w.go", 7),
    ];
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.path().join("new.py"),
        "import functools\n\n\ndef unused(x):\n    return x * 2\n\n\ndef used(x, rate=16):\n    return x + rate\n\n\n@functools.cache\ndef cached():\n    return 1\n",
    )
    .unwrap();
    let mut lines = pith_model::impact::Lines::new();
    lines.insert("new.py".into(), [9].into());
    let mut trace = Traced::default();
    trace.files.extend(["new.py".to_owned(), "w.go".to_owned()]);
    // Its import ran every definition line.
    trace
        .imported
        .insert("new.py".into(), [1, 4, 8, 12, 13].into());
    trace.seen.insert("w.go".into(), [6, 7, 8].into());
    let mut kept: Vec<(String, u32)> = retrace(ws.path(), scored, &lines, &trace, Some(&changes))
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [("new.py".to_owned(), 8), ("w.go".to_owned(), 3)],
        "the called function's changed `def` line, and the `const` go could not see"
    );
}

/// What tracing says of each changed hunk: executed, executed by the import before the
/// trace (for a test that reaches the file), not executed, or not traced at all.
#[test]
fn a_trace_keeps_executed_and_imported_hunks_and_the_graphs_word_where_it_did_not_look() {
    let changes = Changes {
        baseline: pith_store::Baseline::Run { generation: 1 },
        files: vec![
            hunk("ran.py", 5, 6),
            hunk("idle.py", 3, 3),
            hunk("consts.py", 2, 2),
            hunk("far.py", 2, 2),
            hunk("unseen.py", 9, 9),
            // A deleted line (the blank line after it) and a code line nobody ran.
            hunk("gone.py", 3, 3),
            hunk("gone.py", 6, 6),
        ],
    };
    // The graph: the test reaches every file but far.py.
    let scored = vec![
        statically("ran.py", 5),
        statically("idle.py", 3),
        statically("consts.py", 2),
        statically("unseen.py", 9),
        statically("gone.py", 3),
        statically("gone.py", 6),
    ];
    let mut lines = pith_model::impact::Lines::new();
    lines.insert("ran.py".into(), [6].into());
    let mut trace = Traced::default();
    for f in ["ran.py", "idle.py", "consts.py", "far.py", "gone.py"] {
        trace.files.insert(f.into());
    }
    trace.imported.insert("consts.py".into(), [1, 2].into());
    trace.imported.insert("far.py".into(), [2].into());
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.path().join("gone.py"),
        "def f(x):\n    y = x\n\n\ndef g():\n    pass\n",
    )
    .unwrap();
    let mut kept: Vec<(String, u32)> = retrace(ws.path(), scored, &lines, &trace, Some(&changes))
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            ("consts.py".to_owned(), 2),
            ("gone.py".to_owned(), 3),
            ("ran.py".to_owned(), 6),
            ("unseen.py".to_owned(), 9)
        ]
    );
}

#[test]
fn a_change_selects_the_tests_that_reach_it_and_those_with_dynamic_imports() {
    let ws = workspace();
    let g = Graph::build(ws.path()).unwrap();
    let sel = selection_of(
        &g,
        &changed(&[("pkg/money.py", ChangeKind::Modified)]),
        Baseline::LastGreen,
        None,
        None,
    );
    assert_eq!(sel.all, None);
    assert_eq!(sel.baseline, Some(Baseline::LastGreen));
    assert_eq!(
        sel.tests,
        [
            "tests/test_money.py",
            "tests/test_cart.py",
            "tests/test_plugins.py"
        ]
    );
    assert_eq!(sel.suite, 5, "four test modules and the Rust crate's tests");
}

/// Once a run saw what the dynamic test loads, it goes with those loads like any import;
/// a new file may be one it would load (a plugin directory it lists), so an addition still
/// selects it.
#[test]
fn a_dynamic_test_a_run_observed_is_selected_by_what_it_loads() {
    let ws = workspace();
    std::fs::write(ws.path().join("pkg/new.py"), "Y = 2\n").unwrap();
    let mut g = Graph::build(ws.path()).unwrap();
    let mut loads = BTreeMap::new();
    loads.insert(
        "tests/test_plugins.py".to_owned(),
        vec!["pkg/other.py".to_owned()],
    );
    g.observe(&loads);
    let select = |changes: &[(&str, ChangeKind)]| {
        selection_of(&g, &changed(changes), Baseline::LastGreen, None, None).tests
    };
    assert_eq!(
        select(&[("pkg/money.py", ChangeKind::Modified)]),
        ["tests/test_money.py", "tests/test_cart.py"]
    );
    assert_eq!(
        select(&[("pkg/other.py", ChangeKind::Modified)]),
        ["tests/test_other.py", "tests/test_plugins.py"]
    );
    assert_eq!(
        select(&[
            ("pkg/new.py", ChangeKind::Added),
            ("pkg/money.py", ChangeKind::Modified)
        ])
        .last()
        .map(String::as_str),
        Some("tests/test_plugins.py")
    );
}

#[test]
fn what_the_graph_cannot_follow_selects_everything_with_the_reason() {
    let ws = workspace();
    let g = Graph::build(ws.path()).unwrap();
    for (path, kind, why) in [
        ("data/prices.json", ChangeKind::Modified, "not source"),
        ("tests/conftest.py", ChangeKind::Modified, "configuration"),
        ("rs/build.rs", ChangeKind::Modified, "configuration"),
        ("pkg/gone.py", ChangeKind::Deleted, "deleted"),
        (
            "pkg/new.py",
            ChangeKind::Renamed {
                from: "pkg/old.py".into(),
            },
            "renamed",
        ),
    ] {
        let sel = selection_of(
            &g,
            &changed(&[(path, kind)]),
            Baseline::LastGreen,
            None,
            None,
        );
        let all = sel
            .all
            .unwrap_or_else(|| panic!("{path} selected {:?}", sel.tests));
        assert!(all.contains(why), "{path}: {all}");
        assert!(sel.tests.is_empty());
    }
    let nothing = Changes {
        baseline: pith_store::Baseline::None,
        files: Vec::new(),
    };
    let sel = selection_of(&g, &nothing, Baseline::LastGreen, None, None);
    assert!(sel.all.unwrap().contains("nothing to compare with"));
}

/// The issue's Rust crate: five failing tests all reach the bug, and its own best line for four
/// of them; the fifth has a frame on a harmless changed line of the same file. The run's first
/// suspect is the bug, as each of the four failures says (a frame on one failure's line
/// ranked first before, and the run's list contradicted its failures').
#[test]
fn the_line_most_failures_point_at_leads_and_ties_are_counted() {
    let mut run = pith_model::Run::new("cargo");
    for i in 0..5 {
        run.failures.push(pith_model::Failure {
            test: format!("shop::t{i}"),
            ..Default::default()
        });
    }
    let mut report = Report {
        runs: vec![run],
        ..Report::default()
    };
    let (bug, harmless) = (
        ("src/lib.rs".to_owned(), 164),
        ("src/lib.rs".to_owned(), 20),
    );
    let judged = |hit_on_harmless: &[usize]| -> Vec<Judged> {
        (0..5)
            .map(|f| Judged {
                run: 0,
                failure: f,
                pass: Some(1),
                scored: if hit_on_harmless.contains(&f) {
                    vec![
                        (
                            bug.clone(),
                            Score {
                                hit: false,
                                score: 64,
                            },
                        ),
                        (
                            harmless.clone(),
                            Score {
                                hit: true,
                                score: 128,
                            },
                        ),
                    ]
                } else {
                    vec![
                        (
                            bug.clone(),
                            Score {
                                hit: false,
                                score: 128,
                            },
                        ),
                        (
                            harmless.clone(),
                            Score {
                                hit: false,
                                score: 64,
                            },
                        ),
                    ]
                },
            })
            .collect()
    };
    let root = tempfile::tempdir().unwrap();
    let tally = settle(
        root.path(),
        &mut report,
        judged(&[4]),
        &HashMap::new(),
        None,
    );
    let (order, tied) = ranked(tally);
    assert_eq!(order, [bug.clone(), harmless.clone()]);
    assert_eq!(tied, 1);
    let own = |f: usize| report.runs[0].failures[f].suspect.as_ref().map(|s| s.line);
    assert_eq!((own(0), own(4)), (Some(164), Some(20)));

    // Every failure reaches both lines alike: neither is ranked over the other, and the answer
    // is told so.
    let even: Vec<Judged> = (0..5)
        .map(|f| Judged {
            run: 0,
            failure: f,
            pass: Some(1),
            scored: vec![
                (
                    bug.clone(),
                    Score {
                        hit: false,
                        score: 64,
                    },
                ),
                (
                    harmless.clone(),
                    Score {
                        hit: false,
                        score: 64,
                    },
                ),
            ],
        })
        .collect();
    let tally = settle(root.path(), &mut report, even, &HashMap::new(), None);
    assert_eq!(ranked(tally).1, 2);
}

/// A change to one function selects the tests that reach a file naming it — wherever that
/// file is between the test and the module (a test reaching the module through the package's
/// `__init__` names it itself) — and no test that reaches the module for another function,
/// nor one that reaches it through a package that only passes the name on.
#[test]
fn a_changed_function_selects_the_tests_that_reach_a_file_naming_it() {
    use super::selection::Names;
    let ws = tempfile::tempdir().unwrap();
    let files = [
        (
            "pkg/__init__.py",
            "from . import money\nfrom .money import cents, fmt\n\n__all__ = [\"cents\", \"fmt\"]\n",
        ),
        (
            "tests/test_pkg.py",
            "import pkg\n\n\ndef test_fmt():\n    assert pkg.fmt(2) == \"2\"\n",
        ),
        (
            "pkg/money.py",
            "def cents(x):\n    return round(x * 100)\n\n\ndef fmt(c):\n    return str(c)\n",
        ),
        (
            "pkg/cart.py",
            "from pkg.money import cents\n\n\ndef total(p):\n    return sum(map(cents, p))\n",
        ),
        (
            "pkg/report.py",
            "from pkg import cart\n\n\ndef show(p):\n    return cart.total(p)\n",
        ),
        ("tests/test_cart.py", "from pkg.cart import total\n"),
        ("tests/test_report.py", "from pkg.report import show\n"),
        (
            "tests/test_attr.py",
            "import pkg\n\n\ndef test_fmt():\n    assert pkg.money.fmt(1) == \"1\"\n",
        ),
    ];
    for (path, text) in files {
        let p = ws.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let root = ws.path().canonicalize().unwrap();
    let mut store = Store::open(&root).unwrap();
    let first = store.scan().unwrap();
    store.remember().unwrap();
    let select = |store: &mut Store, text: &str| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(root.join("pkg/money.py"), text).unwrap();
        store.scan().unwrap();
        let since = pith_store::Since::Generation(first);
        let changes = store.changes(&since).unwrap();
        let g = graph_of(store, &root).unwrap();
        let names = Names::of(store, &root, &since, &g, &changes);
        let mut tests = selection_of(&g, &changes, Baseline::LastGreen, Some(&names), None).tests;
        tests.sort();
        tests
    };
    let base = "def cents(x):\n    return round(x * 100)\n\n\ndef fmt(c):\n    return str(c)\n";
    assert_eq!(
        select(&mut store, &base.replace("str(c)", "f\"{c}\"")),
        ["tests/test_attr.py", "tests/test_pkg.py"]
    );
    assert_eq!(
        select(&mut store, &base.replace("x * 100", "x * 100.0")),
        ["tests/test_cart.py", "tests/test_report.py"]
    );
    // A comment between the functions: nothing to run.
    assert!(select(
        &mut store,
        &base.replace("\n\n\ndef fmt", "\n\n\n# Text.\ndef fmt")
    )
    .is_empty());
}

#[test]
fn a_failure_the_trace_did_not_rerun_borrows_its_siblings_lines() {
    use super::suspects::lines_of;
    let mut trace = Traced::default();
    let ran = |l: u32| -> pith_model::impact::Lines { [("m.py".to_owned(), [l].into())].into() };
    trace
        .tests
        .insert("tests/test_a.py::test_x[1]".into(), ran(3));
    trace.tests.insert("tests/test_a.py::test_y".into(), ran(7));
    let got = |id: &str| lines_of(&trace, "pytest", id).map(|l| l.into_owned());
    assert_eq!(got("tests/test_a.py::test_x[1]"), Some(ran(3)), "its own");
    assert_eq!(
        got("tests/test_a.py::test_x[2]"),
        Some(ran(3)),
        "a parametrized sibling's"
    );
    let both: pith_model::impact::Lines = [("m.py".to_owned(), [3, 7].into())].into();
    assert_eq!(
        got("tests/test_a.py::test_z"),
        Some(both),
        "its test file's"
    );
    assert_eq!(
        got("tests/test_b.py::test_z"),
        None,
        "nothing traced in its file"
    );
}
