//! `pith test --trace <auto|always|never>` through the real `pith` binary and the real pytest:
//! `never` keeps a red run's suspects to the static reach even when the graph leaves a choice;
//! pytest traces its failing tests inside the red run itself, so `auto` and `always` both
//! answer with what they executed (a second start, where a runner cannot trace in its run,
//! is `auto`'s only when the graph leaves a choice: the engine's unit tests; the benchmark
//! compares `always` with `never`).

use crate::common;

use common::impact::{harmless_edit, inject, suspects, BUG_AT};
use common::{committed, fixture};

/// A fixture copy, committed and seen green by pith, with the bug injected.
fn red_workspace() -> common::Fixture {
    let ws = fixture("python/impact");
    committed(ws.path());
    assert_eq!(common::pith(ws.path(), &[]).status(), "TestsPassed");
    inject(ws.path());
    ws
}

#[test]
fn never_keeps_the_static_reach_where_auto_traces() {
    let ws = red_workspace();
    harmless_edit(ws.path());
    let never = common::pith(ws.path(), &["--trace", "never"]);
    assert_eq!(never.count("failed"), 2, "{}", never.line);
    assert_eq!(never.text("reach"), "static", "{}", never.line);
    assert_eq!(never.text("traceless"), "off", "{}", never.line);
    // Both changed lines stay in the running: the graph cannot tell them apart.
    assert_eq!(suspects(&never).len(), 2, "{}", never.line);
    let auto = common::pith(ws.path(), &[]);
    assert_eq!(auto.count("failed"), 2, "{}", auto.line);
    assert_eq!(auto.text("reach"), "traced", "{}", auto.line);
    assert!(auto.json.get("traceless").is_none(), "{}", auto.line);
    assert_eq!(suspects(&auto), [BUG_AT], "{}", auto.line);
    let explicit = common::pith(ws.path(), &["--trace", "auto"]);
    assert_eq!(explicit.text("reach"), "traced", "{}", explicit.line);
}

#[test]
fn always_traces_even_when_the_static_reach_names_one_line() {
    let ws = red_workspace();
    let never = common::pith(ws.path(), &["--trace", "never"]);
    assert_eq!(never.text("reach"), "static", "{}", never.line);
    assert_eq!(suspects(&never), [BUG_AT], "{}", never.line);
    let auto = common::pith(ws.path(), &[]);
    assert_eq!(auto.text("reach"), "traced", "{}", auto.line);
    let always = common::pith(ws.path(), &["--trace", "always"]);
    assert_eq!(always.count("failed"), 2, "{}", always.line);
    assert_eq!(always.text("reach"), "traced", "{}", always.line);
    assert_eq!(suspects(&always), [BUG_AT], "{}", always.line);
}

#[test]
fn an_unknown_trace_mode_is_a_usage_error() {
    let ws = fixture("python/impact");
    let out = common::bare()
        .args(["test", "--trace", "sometimes", "--root"])
        .arg(ws.path())
        .current_dir(ws.path())
        .output()
        .expect("run pith");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("always"), "{stderr}");
}
