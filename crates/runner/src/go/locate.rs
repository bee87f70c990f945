//! Where a Go package's files are. `t.Errorf` lines name a file by its base name
//! (`calc_test.go:12`), so every location goes through the package's directory: from `go list`
//! in a run; for a saved report, from the workspace's go.mod, a `_/abs/dir` local import path,
//! or else a search of the workspace for the one file of that name under the import path's
//! trailing directories.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Directories never searched for a report's files.
const SKIPPED_DIRS: &[&str] = &["vendor", "node_modules", "testdata", "target"];
/// Entries visited at most when searching: a huge tree is not worth the wait.
const SEARCH_LIMIT: usize = 200_000;

pub struct Dirs {
    root: PathBuf,
    /// Import path → absolute directory, as `go list` said.
    known: HashMap<String, PathBuf>,
    /// The module path and its directory.
    module: Option<(String, PathBuf)>,
    /// File name → workspace-relative directories holding one; built on first use.
    index: OnceLock<HashMap<String, Vec<String>>>,
}

/// The module path declared in `dir/go.mod`.
pub fn module_path(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("go.mod")).ok()?;
    text.lines().find_map(|l| {
        let l = l.split("//").next().unwrap_or("").trim();
        let rest = l.strip_prefix("module")?;
        if !rest.starts_with([' ', '\t', '"']) {
            return None;
        }
        let m = rest.trim().trim_matches('"').trim();
        (!m.is_empty()).then(|| m.to_owned())
    })
}

impl Dirs {
    /// From `go list -e -f '{{.ImportPath}}\t{{.Dir}}'` output run in the module at `dir`.
    pub fn listed(listing: &str, dir: &Path, root: &Path) -> Dirs {
        let known = listing
            .lines()
            .filter_map(|l| {
                let (pkg, d) = l.split_once('\t')?;
                let (pkg, d) = (pkg.trim(), d.trim());
                (!pkg.is_empty() && !d.is_empty()).then(|| (pkg.to_owned(), PathBuf::from(d)))
            })
            .collect();
        Dirs {
            root: root.to_path_buf(),
            known,
            module: module_path(dir).map(|m| (m, dir.to_path_buf())),
            index: OnceLock::new(),
        }
    }

    /// For a saved report read in the workspace at `root`.
    pub fn for_report(root: &Path) -> Dirs {
        Dirs {
            root: root.to_path_buf(),
            known: HashMap::new(),
            module: module_path(root).map(|m| (m, root.to_path_buf())),
            index: OnceLock::new(),
        }
    }

    /// Whether `go list` named `pkg`.
    pub fn knows(&self, pkg: &str) -> bool {
        self.known.contains_key(pkg)
    }

    pub fn module(&self) -> Option<&str> {
        self.module.as_ref().map(|(m, _)| m.as_str())
    }

    /// The package's directory, when it can be told without searching.
    pub fn dir(&self, pkg: &str) -> Option<PathBuf> {
        if let Some(d) = self.known.get(pkg) {
            return Some(d.clone());
        }
        if let Some(abs) = pkg.strip_prefix('_').filter(|p| p.starts_with('/')) {
            return Some(PathBuf::from(abs));
        }
        let (module, dir) = self.module.as_ref()?;
        if pkg == module {
            return Some(dir.clone());
        }
        let rest = pkg.strip_prefix(module.as_str())?.strip_prefix('/')?;
        Some(dir.join(rest))
    }

    /// The absolute path of a file go printed for a test of `pkg`: absolute already, a base
    /// name in the package's directory, a `-trimpath` import-path form, or else the one file of
    /// that name the workspace has where the import path says.
    pub fn file(&self, pkg: &str, file: &str) -> Option<PathBuf> {
        let p = Path::new(file);
        if p.is_absolute() {
            return Some(p.to_path_buf());
        }
        if let Some(t) = self.trimmed(file) {
            return Some(t);
        }
        if let Some(dir) = self.dir(pkg) {
            let full = dir.join(file);
            if full.is_file() {
                return Some(full);
            }
        }
        if file.contains('/') {
            return None;
        }
        self.search(pkg, file)
    }

    /// `example.com/m/pkg/file.go` (built with `-trimpath`) in the package's directory.
    fn trimmed(&self, file: &str) -> Option<PathBuf> {
        let (dir, name) = file.rsplit_once('/')?;
        let base = self.dir(dir).filter(|_| {
            self.known.contains_key(dir)
                || self
                    .module()
                    .is_some_and(|m| dir == m || dir.starts_with(&format!("{m}/")))
        })?;
        let full = base.join(name);
        full.is_file().then_some(full)
    }

    fn search(&self, pkg: &str, name: &str) -> Option<PathBuf> {
        let dirs = self.index().get(name)?;
        let wanted: Vec<&str> = pkg
            .trim_start_matches('_')
            .split('/')
            .filter(|c| !c.is_empty())
            .collect();
        let score = |rel: &str| {
            let have: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
            have.iter()
                .rev()
                .zip(wanted.iter().rev())
                .take_while(|(a, b)| a == b)
                .count()
        };
        let best = dirs.iter().map(|d| score(d)).max()?;
        let top: Vec<&String> = dirs.iter().filter(|d| score(d) == best).collect();
        match top.as_slice() {
            [one] if best > 0 || dirs.len() == 1 => Some(self.root.join(one).join(name)),
            _ => None,
        }
    }

    fn index(&self) -> &HashMap<String, Vec<String>> {
        self.index.get_or_init(|| {
            let mut index: HashMap<String, Vec<String>> = HashMap::new();
            let mut budget = SEARCH_LIMIT;
            walk(&self.root, "", &mut index, &mut budget);
            index
        })
    }
}

fn walk(dir: &Path, rel: &str, index: &mut HashMap<String, Vec<String>>, budget: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            if name.starts_with('.') || SKIPPED_DIRS.contains(&name.as_str()) {
                continue;
            }
            let sub = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            walk(&e.path(), &sub, index, budget);
        } else if ft.is_file() && name.ends_with(".go") {
            index.entry(name).or_default().push(rel.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(root: &Path, rel: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "package x\n").unwrap();
    }

    #[test]
    fn module_path_from_go_mod() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(module_path(d.path()), None);
        std::fs::write(
            d.path().join("go.mod"),
            "// comment\nmodule \"example.com/m\" // trailing\n\ngo 1.22\n",
        )
        .unwrap();
        assert_eq!(module_path(d.path()).as_deref(), Some("example.com/m"));
        std::fs::write(d.path().join("go.mod"), "modules x\n").unwrap();
        assert_eq!(module_path(d.path()), None);
    }

    #[test]
    fn listed_packages_and_module_prefixes() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("go.mod"), "module example.com/m\n").unwrap();
        touch(d.path(), "a/a_test.go");
        let dirs = Dirs::listed(
            &format!("example.com/m/a\t{}/a\n", d.path().display()),
            d.path(),
            d.path(),
        );
        assert!(dirs.knows("example.com/m/a"));
        assert_eq!(
            dirs.file("example.com/m/a", "a_test.go"),
            Some(d.path().join("a/a_test.go"))
        );
        assert_eq!(dirs.dir("example.com/m/b/c"), Some(d.path().join("b/c")));
        assert_eq!(dirs.dir("example.com/mx"), None);
        assert_eq!(
            dirs.file("other", "example.com/m/a/a_test.go"),
            Some(d.path().join("a/a_test.go"))
        );
        assert_eq!(dirs.file("x", "runtime/panic.go"), None);
    }

    #[test]
    fn reports_search_under_the_import_path_suffix() {
        let d = tempfile::tempdir().unwrap();
        touch(d.path(), "reports/go/calculator_test.go");
        touch(d.path(), "one/util_test.go");
        touch(d.path(), "two/util_test.go");
        touch(d.path(), "vendor/x/calculator_test.go");
        let dirs = Dirs::for_report(d.path());
        assert_eq!(
            dirs.file("_/home/other/reports/go", "calculator_test.go"),
            Some(d.path().join("reports/go/calculator_test.go"))
        );
        assert_eq!(
            dirs.file("github.com/x/y/two", "util_test.go"),
            Some(d.path().join("two/util_test.go"))
        );
        // Two candidates, neither under the import path: ambiguous.
        assert_eq!(dirs.file("github.com/x/y/three", "util_test.go"), None);
        assert_eq!(dirs.file("p", "missing_test.go"), None);
    }
}
