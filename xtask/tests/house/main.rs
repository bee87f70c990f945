//! The house checks, one test binary (`cargo test -p xtask --test house`): rules of the
//! workspace's shape that no compiler checks. The checks that read the crates' sources share
//! one reading of them ([`source`]: every `crates/*/src` production file, lexed once).
//!
//! - [`layering`]: which pith crate may depend on which (`cargo metadata`).
//! - [`circles`]: no import circle between the files of a crate; no adapter reaching into
//!   another.
//! - [`sizes`]: no production file over 700 lines, at most 3 production functions over 100.
//! - [`names`]: no ecosystem or runner name spelled as a string outside the runner and model
//!   crates.

mod circles;
mod layering;
mod names;
mod sizes;
mod source;

/// Every file of this folder is a module of the binary: one left out would never run.
#[test]
fn every_file_is_a_module() {
    let dir = source::root().join("xtask/tests/house");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        if stem != "main" {
            assert!(
                main.contains(&format!("\nmod {stem};")),
                "xtask/tests/house/{name} is not declared in main.rs: add `mod {stem};`"
            );
        }
    }
}
