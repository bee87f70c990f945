//! Which test targets run a file, asked of Bazel itself (`bazel query --output=xml
//! '//pkg:*'`), for `pith test --changed`: pith's import graph finds the test files a change
//! reaches, and only Bazel knows which targets build them — through globs, macros, list
//! comprehensions, filegroups. One query per package, never past it: a test file can only be
//! named by a target of its own package, and a package's targets load without building or
//! fetching anything their dependencies need (a universe-wide `rdeps` would load every
//! external repository).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::process::Command;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// The package holding `file` (workspace-relative, `/`-separated) and the file's label in it:
/// the nearest directory at or above the file with a `BUILD` or `BUILD.bazel` file, up to the
/// workspace root. `None` when no package holds it (Bazel cannot build it).
pub(super) fn label_of(workspace: &Path, file: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = file.split('/').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() || parts.iter().any(|p| *p == "." || *p == "..") {
        return None;
    }
    for depth in (0..parts.len()).rev() {
        let pkg = parts[..depth].join("/");
        let dir = workspace.join(&pkg);
        if ["BUILD.bazel", "BUILD"]
            .iter()
            .any(|b| dir.join(b).is_file())
        {
            let name = parts[depth..].join("/");
            return Some((pkg.clone(), format!("//{pkg}:{name}")));
        }
    }
    None
}

/// `bazel query` for every target of package `pkg` with its direct inputs, as XML on stdout.
/// `None` for a package name the query language could not take as one quoted word.
pub(super) fn command(bazel: &Path, dir: &Path, pkg: &str) -> Option<Command> {
    if pkg.contains(['"', '\'', '\n']) {
        return None;
    }
    let mut cmd = crate::base_command(bazel, dir);
    cmd.arg("query")
        .args([
            "--output=xml",
            "--color=no",
            "--curses=no",
            "--noshow_progress",
        ])
        .arg(format!("\"//{pkg}:*\""));
    Some(cmd)
}

/// A package's targets as the query reported them: each rule's class and direct inputs, each
/// generated file's rule.
#[derive(Debug, Default)]
pub(super) struct Package {
    rules: Vec<Rule>,
    /// A generated file's label → the rule generating it.
    generated: HashMap<String, String>,
}

#[derive(Debug, Default)]
struct Rule {
    name: String,
    class: String,
    inputs: Vec<String>,
}

impl Package {
    /// The test targets of this package that `label` (a file of it) reaches through the
    /// package's own rules: a test naming it, a test depending on a library or filegroup
    /// that names it, a test built from what a rule generates from it. Sorted.
    pub(super) fn tests_reaching(&self, label: &str) -> Vec<String> {
        // label → rules taking it as a direct input.
        let mut users: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in self.rules.iter().enumerate() {
            for input in &r.inputs {
                users.entry(input.as_str()).or_default().push(i);
            }
        }
        let mut outputs: HashMap<&str, Vec<&str>> = HashMap::new();
        for (file, rule) in &self.generated {
            outputs
                .entry(rule.as_str())
                .or_default()
                .push(file.as_str());
        }
        let mut seen: HashSet<&str> = HashSet::from([label]);
        let mut queue: VecDeque<&str> = VecDeque::from([label]);
        let mut tests: Vec<String> = Vec::new();
        while let Some(l) = queue.pop_front() {
            for &i in users.get(l).into_iter().flatten() {
                let r = &self.rules[i];
                if !seen.insert(r.name.as_str()) {
                    continue;
                }
                // Bazel requires every test rule's class to end in `_test`; `test_suite`
                // only groups tests, which are reached on their own.
                if r.class.ends_with("_test") {
                    tests.push(r.name.clone());
                }
                queue.push_back(r.name.as_str());
                for &out in outputs.get(r.name.as_str()).into_iter().flatten() {
                    if seen.insert(out) {
                        queue.push_back(out);
                    }
                }
            }
        }
        tests.sort();
        tests
    }
}

/// Reads `bazel query --output=xml`. Never panics; what is not that XML gives what it could
/// read, and a document cut off or malformed gives `None`: a partial package could miss the
/// test that runs a file.
pub(super) fn read(data: &[u8]) -> Option<Package> {
    let mut reader = Reader::from_reader(data);
    let mut buf = Vec::new();
    let mut pkg = Package::default();
    let mut current: Option<Rule> = None;
    let mut closed = false;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => open(&e, &mut pkg, &mut current, false),
            Ok(Event::Empty(e)) => open(&e, &mut pkg, &mut current, true),
            Ok(Event::End(e)) => match e.local_name().as_ref() {
                "rule" => pkg.rules.extend(current.take()),
                "query" => closed = true,
                _ => {}
            },
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(_) => return None,
        }
        buf.clear();
    }
    closed.then_some(pkg)
}

fn open(e: &BytesStart<'_>, pkg: &mut Package, current: &mut Option<Rule>, empty: bool) {
    match e.local_name().as_ref() {
        "rule" => {
            let rule = Rule {
                name: attr(e, "name").unwrap_or_default(),
                class: attr(e, "class").unwrap_or_default(),
                inputs: Vec::new(),
            };
            if empty {
                pkg.rules.push(rule);
            } else {
                *current = Some(rule);
            }
        }
        "rule-input" => {
            if let (Some(r), Some(name)) = (current.as_mut(), attr(e, "name")) {
                r.inputs.push(name);
            }
        }
        "generated-file" => {
            if let (Some(name), Some(rule)) = (attr(e, "name"), attr(e, "generating-rule")) {
                pkg.generated.insert(name, rule);
            }
        }
        _ => {}
    }
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    let a = e.try_get_attribute(key).ok()??;
    a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
        .ok()
        .map(|v| v.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Bazel 4.2.3 prints for `bazel query --output=xml '//tests:*'` on the green
    /// fixture, trimmed of the tool inputs, with a filegroup, a library, a genrule and a
    /// test_suite added.
    const XML: &str = r#"<?xml version="1.1" encoding="UTF-8" standalone="no"?>
<query version="2">
    <rule class="sh_test" location="/ws/tests/BUILD:11:8" name="//tests:check_test">
        <string name="name" value="check_test"/>
        <list name="srcs">
            <label value="//tests:check_test.sh"/>
        </list>
        <rule-input name="//tests:check_test.sh"/>
        <rule-input name="@bazel_tools//tools/test:runtime"/>
    </rule>
    <source-file location="/ws/tests/BUILD:11:8" name="//tests:check_test.sh">
        <visibility-label name="//visibility:private"/>
    </source-file>
    <generated-file generating-rule="//tests:calc_test" location="/ws/tests/BUILD:4:8" name="//tests:calc_test.dwp"/>
    <rule class="cc_test" location="/ws/tests/BUILD:4:8" name="//tests:calc_test">
        <rule-input name="//src:calc"/>
        <rule-input name="//tests:calc_test.cc"/>
        <rule-input name="@bazel_tools//tools/cpp:toolchain"/>
        <rule-output name="//tests:calc_test.dwp"/>
    </rule>
    <rule class="filegroup" location="/ws/tests/BUILD:20:10" name="//tests:py_srcs">
        <rule-input name="//tests:helpers.py"/>
    </rule>
    <rule class="py_library" location="/ws/tests/BUILD:24:11" name="//tests:helpers">
        <rule-input name="//tests:py_srcs"/>
    </rule>
    <rule class="py_test" location="/ws/tests/BUILD:16:8" name="//tests:calc_py_test">
        <rule-input name="//tests:calc_py_test.py"/>
        <rule-input name="//tests:helpers"/>
    </rule>
    <rule class="genrule" location="/ws/tests/BUILD:30:8" name="//tests:gen">
        <rule-input name="//tests:table.in"/>
    </rule>
    <generated-file generating-rule="//tests:gen" location="/ws/tests/BUILD:30:8" name="//tests:table.cc"/>
    <rule class="cc_test" location="/ws/tests/BUILD:34:8" name="//tests:table_test">
        <rule-input name="//tests:table.cc"/>
    </rule>
    <rule class="test_suite" location="/ws/tests/BUILD:40:11" name="//tests:all_tests">
        <rule-input name="//tests:calc_test"/>
        <rule-input name="//tests:table_test"/>
    </rule>
    <rule class="cc_test" location="/ws/tests/BUILD:44:8" name="//tests:loop_test">
        <rule-input name="//tests:loop_test"/>
    </rule>
</query>
"#;

    #[test]
    fn a_file_runs_the_tests_that_reach_it_inside_its_package() {
        let p = read(XML.as_bytes()).unwrap();
        assert_eq!(
            p.tests_reaching("//tests:calc_test.cc"),
            ["//tests:calc_test"]
        );
        assert_eq!(
            p.tests_reaching("//tests:check_test.sh"),
            ["//tests:check_test"]
        );
        // Through a filegroup and a library.
        assert_eq!(
            p.tests_reaching("//tests:helpers.py"),
            ["//tests:calc_py_test"]
        );
        // Through what a genrule makes of it; the test_suite is not a test of its own.
        assert_eq!(p.tests_reaching("//tests:table.in"), ["//tests:table_test"]);
        assert!(p.tests_reaching("//tests:README.md").is_empty());
        assert!(p.tests_reaching("//tests:loop_test").is_empty());
    }

    #[test]
    fn a_cut_or_broken_document_is_no_answer() {
        let cut = &XML[..XML.find("<rule class=\"py_test\"").unwrap()];
        assert!(read(cut.as_bytes()).is_none(), "cut before its end");
        assert!(read(b"ERROR: no such package").is_none());
        assert!(read(b"<query><rule name=\"a\" class=\"x_test\"></wrong></query>").is_none());
        let empty = read(b"<?xml version=\"1.1\"?>\n<query version=\"2\">\n</query>\n").unwrap();
        assert!(empty.tests_reaching("//a:b").is_empty());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300),
                        cut in 0..XML.len(), at in 0..XML.len()) {
            let _ = read(&bytes).map(|p| p.tests_reaching("//a:b"));
            // Bazel's own document cut anywhere, or with arbitrary bytes in it.
            let _ = read(&XML.as_bytes()[..cut]).map(|p| p.tests_reaching("//tests:calc_test.cc"));
            let mut spliced = XML.as_bytes()[..at].to_vec();
            spliced.extend_from_slice(&bytes);
            spliced.extend_from_slice(&XML.as_bytes()[at..]);
            let _ = read(&spliced).map(|p| p.tests_reaching("//tests:table.in"));
        }
    }

    #[test]
    fn the_package_of_a_file_is_the_nearest_build_file() {
        let ws = tempfile::tempdir().unwrap();
        let touch = |rel: &str| {
            let p = ws.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        };
        touch("tests/BUILD");
        touch("java/com/x/BUILD.bazel");
        assert_eq!(
            label_of(ws.path(), "tests/calc_test.cc"),
            Some(("tests".into(), "//tests:calc_test.cc".into()))
        );
        assert_eq!(
            label_of(ws.path(), "tests/data/sub/t.py"),
            Some(("tests".into(), "//tests:data/sub/t.py".into()))
        );
        assert_eq!(
            label_of(ws.path(), "java/com/x/y/T.java"),
            Some(("java/com/x".into(), "//java/com/x:y/T.java".into()))
        );
        assert_eq!(
            label_of(ws.path(), "other/t.py"),
            None,
            "no package holds it"
        );
        touch("BUILD");
        assert_eq!(
            label_of(ws.path(), "other/t.py"),
            Some((String::new(), "//:other/t.py".into()))
        );
        assert_eq!(label_of(ws.path(), "../t.py"), None);
    }

    #[test]
    fn the_query_reads_one_package_and_nothing_else() {
        let cmd = command(Path::new("/usr/bin/bazel"), Path::new("/ws"), "tests/unit").unwrap();
        assert_eq!(
            super::super::command::args_of(&cmd),
            [
                "query",
                "--output=xml",
                "--color=no",
                "--curses=no",
                "--noshow_progress",
                "\"//tests/unit:*\""
            ]
        );
        assert!(command(Path::new("bazel"), Path::new("/ws"), "a\"b").is_none());
    }
}
