//! Whether a directory is a Go module, and which modules nest inside it (their packages are
//! theirs, though their import paths may extend this module's).

use std::path::Path;

use crate::Adapter;

use super::{locate, Go};

/// The adapters this ecosystem contributes for the project in `dir`.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    let markers = pith_model::ecosystem::GO.root_markers;
    if markers.iter().any(|m| dir.join(m).is_file()) {
        vec![Box::new(Go::new(dir))]
    } else {
        Vec::new()
    }
}

/// Entries walked at most looking for modules nested in this one.
pub(super) const NESTED_SEARCH_LIMIT: usize = 100_000;

/// The module paths of the `go.mod` files below `dir` (not `dir`'s own), where go's `./...`
/// would stop: directories go ignores (`testdata`, `vendor`, names starting with `.` or `_`)
/// are not searched.
pub(super) fn nested_modules(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>, budget: &mut usize) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(['.', '_'])
                || ["testdata", "vendor", "node_modules"].contains(&name.as_ref())
                || !e.file_type().is_ok_and(|t| t.is_dir())
            {
                continue;
            }
            let sub = e.path();
            if sub.join("go.mod").is_file() {
                out.extend(locate::module_path(&sub));
            }
            walk(&sub, out, budget);
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out, &mut NESTED_SEARCH_LIMIT.clone());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Adapter;

    #[test]
    fn ids_of_a_nested_module_are_not_the_outer_modules() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("go.mod"), "module example.com/m\n").unwrap();
        std::fs::create_dir_all(d.path().join("inner")).unwrap();
        std::fs::write(
            d.path().join("inner/go.mod"),
            "module example.com/m/inner\n",
        )
        .unwrap();
        std::fs::create_dir_all(d.path().join("testdata/x")).unwrap();
        std::fs::write(
            d.path().join("testdata/x/go.mod"),
            "module example.com/m/td\n",
        )
        .unwrap();
        let outer = Go::new(d.path());
        let inner = Go::new(&d.path().join("inner"));
        assert!(outer.owns("example.com/m.TestA"));
        assert!(outer.owns("example.com/m/pkg.TestA"));
        assert!(outer.owns("example.com/m/td.TestA"));
        assert!(!outer.owns("example.com/m/inner.TestI"));
        assert!(!outer.claims("example.com/m/inner/sub.TestI"));
        assert!(inner.owns("example.com/m/inner/sub.TestI"));
    }

    #[test]
    fn detects_go_modules() {
        let d = tempfile::tempdir().unwrap();
        assert!(detect(d.path()).is_empty());
        std::fs::write(d.path().join("go.mod"), "module example.com/x\n").unwrap();
        let found = detect(d.path());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name(), "go");
        assert!(found[0].claims("example.com/x.TestA"));
    }
}
