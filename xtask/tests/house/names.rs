//! Names: what pith knows of an ecosystem is data in one place, `pith_model::ecosystem` (the
//! descriptors and the runner names), and behaviour per runner is the runner crate's. So a
//! string literal in the production code of any other crate whose whole text is an ecosystem
//! or runner name (`"go"`, `"Cargo"`), or that starts with one and a space (`"cargo test"`,
//! `"go vet"`), is special-casing that belongs in a descriptor or an adapter. The names are
//! the registry's own: every runner of [`RUNNER_NAMES`], every ecosystem's `id`, and its
//! `name` when that is one plain word; compared without case. A literal that only happens to
//! spell one (a file extension, a program looked up on `PATH`, an identifier of a language the
//! index parses) is listed in [`ALLOWED`] with the reason.

use pith_model::ecosystem::{ECOSYSTEMS, RUNNER_NAMES};

use crate::source::{crates, krate, synthetic, File};

/// The crates whose business the names are, and why.
const OWNERS: &[(&str, &str)] = &[
    ("model", "the registry the names are read from"),
    (
        "runner",
        "the adapters: each runner's detection, command and parsing",
    ),
    (
        "testkit",
        "test support, a dev-dependency only (never in the binary): it installs and drives the \
         real runners the tests run, by name",
    ),
];

/// Literals outside [`OWNERS`] that spell a name but are no ecosystem special-casing: (file
/// from the workspace root, the literal, why). A row matches every occurrence of the literal
/// in its file; a row that matches nothing fails the test too.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "crates/index/src/graph/cpp.rs",
        "cpp",
        "a C++ source file's extension",
    ),
    (
        "crates/index/src/graph/go.rs",
        "cpp",
        "a C++ file's extension (cgo compiles the package's C and C++ sources with it)",
    ),
    (
        "crates/index/src/graph/javascript/scan.rs",
        "jest",
        "the `jest` object of JavaScript test code (`jest.mock(\"./m\")`), which the import \
         scanner reads as it reads `vi`",
    ),
    (
        "crates/store/src/environment.rs",
        "python",
        "a program found on PATH (the interpreter whose environment is fingerprinted) and a \
         virtualenv's `lib/pythonX.Y` directory",
    ),
    (
        "crates/store/src/environment.rs",
        "dotnet",
        "a program found on PATH (the .NET host, whose SDKs beside it are fingerprinted)",
    ),
];

/// The registry's names, lowercase: runners, ecosystem ids, and ecosystem names that are one
/// plain word (`Cargo`, `JavaScript`; not `.NET`).
fn registry_names() -> Vec<String> {
    let mut names: Vec<String> = RUNNER_NAMES.iter().map(|n| n.to_lowercase()).collect();
    for e in ECOSYSTEMS {
        names.push(e.id.to_lowercase());
        if e.name.chars().all(|c| c.is_ascii_alphabetic()) {
            names.push(e.name.to_lowercase());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The name `text` spells, if any: its whole text, or its start before a space.
fn spelled<'a>(names: &'a [String], text: &str) -> Option<&'a str> {
    let first = text.split(' ').next().unwrap_or_default();
    names
        .iter()
        .find(|n| {
            n.eq_ignore_ascii_case(text)
                || (first.len() < text.len() && n.eq_ignore_ascii_case(first))
        })
        .map(String::as_str)
}

/// Every literal of `files` that spells a name and no row of `allowed` lets through, and every
/// row that lets nothing through: one line each.
fn misspelled(files: &[&File], names: &[String], allowed: &[(&str, &str, &str)]) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut used = vec![false; allowed.len()];
    for f in files {
        let path = f.path.display().to_string();
        for l in &f.literals {
            let Some(name) = spelled(names, &l.text) else {
                continue;
            };
            if let Some(k) = allowed
                .iter()
                .position(|(p, lit, _)| *p == path && *lit == l.text)
            {
                used[k] = true;
                continue;
            }
            wrong.push(format!(
                "{path}:{}: \"{}\" spells the {name:?} of an ecosystem or runner: read it from \
                 `pith_model::ecosystem` (a descriptor's field, `RUNNER_NAMES`, `by_runner`) or \
                 move the case into the runner crate; if it is no ecosystem special-casing (a \
                 file extension, a program on PATH), add a row to ALLOWED in \
                 xtask/tests/house/names.rs with the reason",
                l.line, l.text
            ));
        }
    }
    for ((path, lit, _), used) in allowed.iter().zip(used) {
        if !used {
            wrong.push(format!(
                "ALLOWED lets \"{lit}\" in {path}, which no longer has it: delete the row"
            ));
        }
    }
    wrong
}

#[test]
fn no_ecosystem_name_is_spelled_outside_its_crates() {
    let names = registry_names();
    for n in [
        "cargo",
        "go",
        "jest",
        "python",
        "cpp",
        "javascript",
        "cmake",
    ] {
        assert!(names.iter().any(|m| m == n), "{n} not among {names:?}");
    }
    for (owner, _) in OWNERS {
        krate(owner);
    }
    let files: Vec<&File> = crates()
        .iter()
        .filter(|c| !OWNERS.iter().any(|(o, _)| *o == c.name))
        .flat_map(|c| &c.files)
        .collect();
    assert!(files.len() > 50, "read {} files", files.len());
    let wrong = misspelled(&files, &names, ALLOWED);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_spelled_name_is_named_and_a_stale_row_too() {
    let files = synthetic(&[(
        "lib.rs",
        "// \"go\" in a comment\n\
         const EXT: &str = \"go\";\n\
         const CMD: &str = \"cargo test\";\n\
         fn f() -> (&'static str, &'static str, &'static str) { (\"Cargo\", \"gopher\", \"go-\") }\n\
         const OK: &str = \"jest\";\n\
         #[cfg(test)]\n\
         mod tests { const T: &str = \"pytest\"; }\n",
    )]);
    let files: Vec<&File> = files.iter().collect();
    let names = registry_names();
    let wrong = misspelled(
        &files,
        &names,
        &[
            ("crates/x/src/lib.rs", "jest", "an identifier"),
            ("crates/x/src/lib.rs", "node", "gone"),
        ],
    );
    let how = "read it from `pith_model::ecosystem` (a descriptor's field, `RUNNER_NAMES`, \
               `by_runner`) or move the case into the runner crate; if it is no ecosystem \
               special-casing (a file extension, a program on PATH), add a row to ALLOWED in \
               xtask/tests/house/names.rs with the reason";
    assert_eq!(
        wrong,
        [
            format!("crates/x/src/lib.rs:2: \"go\" spells the \"go\" of an ecosystem or runner: {how}"),
            format!("crates/x/src/lib.rs:3: \"cargo test\" spells the \"cargo\" of an ecosystem or runner: {how}"),
            format!("crates/x/src/lib.rs:4: \"Cargo\" spells the \"cargo\" of an ecosystem or runner: {how}"),
            "ALLOWED lets \"node\" in crates/x/src/lib.rs, which no longer has it: delete the row"
                .to_string(),
        ]
    );
}
