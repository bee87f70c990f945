//! The real `pith` binary on the Go fixture modules with the installed Go (these tests fail
//! without it, they never skip), beyond the shared scenarios of `scenarios.rs`: subtests,
//! packages, vet, panics, a package failing before its tests, saved streams read back.

use crate::common;

use common::{fixture, frames, pith};

fn run(name: &str, extra: &[&str]) -> common::Answer {
    let ws = fixture(&format!("go/{name}"));
    pith(ws.path(), extra)
}

/// Every failing test is shown, clustered or counted.
fn assert_accounted(a: &common::Answer) {
    assert_eq!(
        a.accounted(),
        a.json["failed"].as_u64().unwrap_or(0) + a.json["errors"].as_u64().unwrap_or(0),
        "{}",
        a.line
    );
}

#[test]
fn go_is_installed() {
    assert!(
        std::process::Command::new("go")
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "go is not installed: https://go.dev/dl/"
    );
}

#[test]
fn subtests_keep_their_full_names_and_rerun_by_id() {
    let ws = fixture("go/subtests");
    let a = pith(ws.path(), &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let ids: Vec<&str> = a
        .failures()
        .iter()
        .map(|f| f["test"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "example.com/subtests.TestTitle/two_words",
            "example.com/subtests.TestWords",
            "example.com/subtests.TestWords/split/double_space",
        ]
    );
    assert_accounted(&a);
    insta::assert_snapshot!(a.stable());

    // Every id from the answer, re-run: exactly those tests (and the subtests of the parent
    // among them), each once.
    let again = pith(ws.path(), &ids);
    assert_eq!(again.json["failed"], 3, "{}", again.line);
    assert_eq!(again.json["passed"], 1, "{}", again.line);
    let one = pith(ws.path(), &[ids[0]]);
    assert_eq!(one.json["failed"], 1, "{}", one.line);
    assert!(one.json.get("passed").is_none(), "{}", one.line);

    let missing = pith(
        ws.path(),
        &[
            "example.com/subtests.TestTitle/no_such_case",
            "example.com/subtests.TestTitle/empty",
        ],
    );
    assert_eq!(
        (missing.status(), missing.code),
        ("TestsNotFound", 1),
        "{}",
        missing.line
    );
    assert_eq!(
        missing.json["notFound"][0],
        "example.com/subtests.TestTitle/no_such_case"
    );
    assert_eq!(missing.json["passed"], 1, "{}", missing.line);
}

#[test]
fn paths_map_through_package_directories() {
    let a = run("multi", &[]);
    assert_eq!(a.status(), "TestsFailed", "{}", a.line);
    let melon = a
        .failures()
        .iter()
        .find(|f| f["test"] == "example.com/shop/cart.TestMelon")
        .expect(&a.line);
    let at: Vec<&str> = frames(melon)
        .iter()
        .map(|f| f.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        at,
        [
            "internal/money/money.go:11",
            "price/price.go:9",
            "cart/cart.go:10",
            "cart/cart_test.go:12",
        ]
    );
    let pear = a
        .failures()
        .iter()
        .find(|f| f["test"] == "example.com/shop/price.TestPear")
        .expect(&a.line);
    assert!(
        frames(pear)[0].starts_with("price/price_test.go:13 "),
        "{}",
        a.line
    );
    insta::assert_snapshot!(a.stable());
}

#[test]
fn vet_findings_are_build_failed() {
    let vet = run("vet", &[]);
    assert_eq!((vet.status(), vet.code), ("BuildFailed", 1), "{}", vet.line);
    assert_eq!(vet.json["buildErrors"][0]["code"], "vet", "{}", vet.line);
    assert_eq!(
        vet.json["buildErrors"][0]["at"], "greet_test.go:9",
        "{}",
        vet.line
    );
}

#[test]
fn a_panic_is_a_failure_of_its_test() {
    let a = run("panic", &[]);
    assert_eq!((a.status(), a.code), ("TestsFailed", 1), "{}", a.line);
    let f = &a.failures()[0];
    assert_eq!(f["test"], "example.com/panic.TestPopEmpty");
    assert_eq!(frames(f)[0], "queue.go:13 v := q.items[0]");
    assert_accounted(&a);
}

#[test]
fn a_package_failing_before_its_tests_is_a_collection_error() {
    let a = run("badinit", &[]);
    assert_eq!((a.status(), a.code), ("CollectionFailed", 1), "{}", a.line);
    assert_eq!(a.json["errors"], 2, "{}", a.line);
    let init = &a.failures()[0];
    assert_eq!(init["test"], "example.com/badinit/initpanic");
    assert_eq!(init["phase"], "collect");
    assert_eq!(frames(init)[0], "initpanic/init_test.go:10 m[\"x\"] = 1");
    // Its records say all go's output said (each panic, each `FAIL` line): no tail.
    assert!(a.json.get("tail").is_none(), "{}", a.line);
    insta::assert_snapshot!(a.stable());
}

#[test]
fn saved_stream_is_read_without_running_anything() {
    let file = common::repo_root().join("tests/fixtures/reports/go/saved-stream.json");
    let (line, json) = common::report_answer(&file);
    assert_eq!(json["status"], "TestsFailed", "{line}");
    assert_eq!(
        (json["passed"].as_u64(), json["failed"].as_u64()),
        (Some(6), Some(4)),
        "{line}"
    );
    assert!(
        !line.contains("/home/"),
        "another machine's paths leak: {line}"
    );
}

/// The same over the external corpus's stream, where it is.
#[test]
fn saved_stream_of_the_corpus_is_read_without_running_anything() {
    let Some(dir) = common::samples::dir() else {
        return;
    };
    let (line, json) = common::report_answer(&dir.join("go/go-test.json"));
    assert_eq!(json["status"], "TestsFailed", "{line}");
    assert_eq!(
        (json["passed"].as_u64(), json["failed"].as_u64()),
        (Some(5), Some(5)),
        "{line}"
    );
    assert!(
        !line.contains("/home/"),
        "another machine's paths leak: {line}"
    );
}

/// A go older than 1.21 first on PATH is never run: `RunnerMissing`, exit 2, naming the version
/// found and the range, read from its GOROOT's `VERSION` file without starting it (the fake go
/// logs every start) — whether PATH holds the GOROOT's `bin/` or a link to its `go`, as
/// Debian's `/usr/bin/go`. A go with no `VERSION` file (a build from source, a version
/// manager's shim) is asked `go version`, and nothing else.
#[test]
fn a_go_older_than_1_21_is_named_and_not_run() {
    use std::os::unix::fs::PermissionsExt;
    let ws = fixture("go/green");
    let place = tempfile::tempdir().unwrap();
    let log = place.path().join("started");
    // A GOROOT as go recognises one (`bin/go`, `pkg/tool/`), its `VERSION` as go 1.20 wrote it.
    let goroot = |name: &str, version: Option<&str>| {
        let root = place.path().join(name);
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::create_dir_all(root.join("pkg/tool/linux_amd64")).unwrap();
        if let Some(v) = version {
            std::fs::write(root.join("VERSION"), v).unwrap();
        }
        let go = root.join("bin/go");
        std::fs::write(
            &go,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\n[ \"$1\" = version ] && echo 'go version go1.20.14 linux/amd64' && exit 0\necho 'fake go' >&2\nexit 1\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&go, std::fs::Permissions::from_mode(0o755)).unwrap();
        root.join("bin")
    };
    let path = |first: &std::path::Path| {
        let rest = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![first.to_path_buf()];
        dirs.extend(std::env::split_paths(&rest));
        std::env::join_paths(dirs).unwrap().into_string().unwrap()
    };
    let refused = |bin: &std::path::Path, started: &str| {
        let _ = std::fs::remove_file(&log);
        let a = common::pith_with(ws.path(), &[], &[("PATH", &path(bin))], &["GOTOOLCHAIN"]);
        assert_eq!((a.status(), a.code), ("RunnerMissing", 2), "{}", a.line);
        assert_eq!(a.json["runner"], "go", "{}", a.line);
        let hint = a.json["hint"].as_str().unwrap_or_default();
        let said = "go1.20.14 is installed; pith supports Go 1.21 and newer";
        assert!(hint.contains(said), "{}", a.line);
        assert_eq!(
            std::fs::read_to_string(&log).unwrap_or_default(),
            started,
            "{}",
            a.line
        );
    };

    let go120 = goroot("go-1.20", Some("go1.20.14\ntime 2024-02-06T17:33:54Z\n"));
    refused(&go120, "");
    let usr_bin = place.path().join("usr-bin");
    std::fs::create_dir_all(&usr_bin).unwrap();
    std::os::unix::fs::symlink("../go-1.20/bin/go", usr_bin.join("go")).unwrap();
    refused(&usr_bin, "");
    let source = goroot("source", None);
    refused(&source, "version\n");
}
