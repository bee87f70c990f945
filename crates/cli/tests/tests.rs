//! pith's command-line tests, one binary (ripgrep's `tests/tests.rs` shape): each module is
//! one area, driving the real `pith` binary against real runners. One binary links once where
//! one per file linked 31 times; `scripts/quick.sh` picks areas by module name.

mod common;

mod bazel_cli;
mod contract;
mod cpp_cli;
mod detail_cli;
mod gain_cli;
mod go_cli;
mod impact_cli;
mod impact_recall;
mod index_cli;
mod js_cli;
mod jvm_cli;
mod mcp_cli;
mod mcp_hosts;
mod mixed_cli;
mod mocha_cli;
mod python_cli;
mod rust_cli;
mod scenarios;
mod state_cli;
mod trace_switch;
mod tree_clean;
mod unittest_cli;
mod verdicts;

/// Every test file here is a module of this binary: with `autotests = false`, a file left out
/// of the list above would never build or run. The same for a folder module's files
/// (`verdicts/`), each listed in its `mod.rs`.
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let listed = include_str!("tests.rs");
    let mut missing = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let folder = e.path().join("mod.rs");
        if folder.is_file() {
            let mods = std::fs::read_to_string(&folder).unwrap();
            for f in std::fs::read_dir(e.path()).unwrap().flatten() {
                let file = f.file_name().to_string_lossy().into_owned();
                let Some(m) = file.strip_suffix(".rs") else {
                    continue;
                };
                let declared = ["\nmod ", "\npub mod ", "\npub(crate) mod "]
                    .iter()
                    .any(|d| mods.contains(&format!("{d}{m};\n")));
                if m != "mod" && !declared {
                    missing.push(format!("{name}/{file}"));
                }
            }
        }
        let m = match name.strip_suffix(".rs") {
            Some(m) => m,
            None if folder.is_file() => &name,
            None => continue,
        };
        if m != "tests" && !listed.contains(&format!("\nmod {m};\n")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "not in tests/tests.rs or its folder's mod.rs: {missing:?}"
    );
}
