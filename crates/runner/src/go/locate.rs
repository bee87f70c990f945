//! Where a Go package's files are, and which tests it declares. `t.Errorf` lines name a file by
//! its base name (`calc_test.go:12`), so every location goes through the package's directory:
//! from `go list` in a run; for a saved report, from the workspace's go.mod, a `_/abs/dir` local
//! import path, or else a search of the workspace for the one file of that name under the import
//! path's trailing directories. `go list` also names each package's module (a `go.work` may put
//! another module's packages in reach) and the test files the build compiles, whose `func
//! TestX` declarations say which tests a package has: a binary that reports fewer never ran
//! them all.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Directories never searched for a report's files.
const SKIPPED_DIRS: &[&str] = &["vendor", "node_modules", "testdata", "target"];
/// Entries visited at most when searching: a huge tree is not worth the wait.
const SEARCH_LIMIT: usize = 200_000;

/// The `go list` template pith reads: one package a line, tab-separated.
pub const LIST_FORMAT: &str = "{{.ImportPath}}\t{{.Dir}}\t{{with .Module}}{{.Path}}{{end}}\t{{join .TestGoFiles \",\"}}\t{{join .XTestGoFiles \",\"}}";

/// One package as `go list` (with [`LIST_FORMAT`]) describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub pkg: String,
    pub dir: PathBuf,
    /// The module it belongs to (`None` outside module mode).
    pub module: Option<String>,
    /// Its `_test.go` files the build compiles (build constraints applied), base names.
    pub test_files: Vec<String>,
}

impl Listed {
    /// One line of `go list -f LIST_FORMAT` output.
    pub fn parse(line: &str) -> Option<Listed> {
        let mut parts = line.trim_end_matches(['\r', '\n']).split('\t');
        let pkg = parts.next()?.trim();
        let dir = parts.next()?.trim();
        if pkg.is_empty() || dir.is_empty() {
            return None;
        }
        let module = parts
            .next()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned);
        let test_files = parts
            .flat_map(|p| p.split(','))
            .map(str::trim)
            .filter(|f| f.ends_with("_test.go") && !f.contains('/'))
            .map(str::to_owned)
            .collect();
        Some(Listed {
            pkg: pkg.to_owned(),
            dir: PathBuf::from(dir),
            module,
            test_files,
        })
    }
}

pub struct Dirs {
    root: PathBuf,
    /// Import path → absolute directory, as `go list` said.
    known: HashMap<String, PathBuf>,
    /// Import path → its compiled test files, as `go list` said.
    tests: HashMap<String, Vec<String>>,
    /// The module path and its directory.
    module: Option<(String, PathBuf)>,
    /// File name → workspace-relative directories holding one; built on first use.
    index: OnceLock<HashMap<String, Vec<String>>>,
}

/// Largest source file read (a test file for its declarations, a go.mod): past it, a file is
/// generated data, not something to read whole.
const SOURCE_BYTES: u64 = 8 << 20;

/// A source file's text, when it is a regular file of at most [`SOURCE_BYTES`].
pub fn read_source(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > SOURCE_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(SOURCE_BYTES).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The module path declared in `dir/go.mod`.
pub fn module_path(dir: &Path) -> Option<String> {
    let text = read_source(&dir.join("go.mod"))?;
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
    /// From `go list -e -f LIST_FORMAT` output run in the module at `dir`.
    #[cfg(test)]
    pub fn listed(listing: &str, dir: &Path, root: &Path) -> Dirs {
        Dirs::of(listing.lines().filter_map(Listed::parse), dir, root)
    }

    /// From the packages `go list` named, run in the module at `dir`.
    pub fn of(listed: impl IntoIterator<Item = Listed>, dir: &Path, root: &Path) -> Dirs {
        let mut known = HashMap::new();
        let mut tests = HashMap::new();
        for l in listed {
            tests.insert(l.pkg.clone(), l.test_files);
            known.insert(l.pkg, l.dir);
        }
        Dirs {
            root: root.to_path_buf(),
            known,
            tests,
            module: module_path(dir).map(|m| (m, dir.to_path_buf())),
            index: OnceLock::new(),
        }
    }

    /// For a saved report read in the workspace at `root`.
    pub fn for_report(root: &Path) -> Dirs {
        Dirs {
            root: root.to_path_buf(),
            known: HashMap::new(),
            tests: HashMap::new(),
            module: module_path(root).map(|m| (m, root.to_path_buf())),
            index: OnceLock::new(),
        }
    }

    /// The top-level tests `pkg` declares (`func TestX(`, `func FuzzX(`) in the test files the
    /// build compiles, as `go list` named them; `None` when `go list` did not describe it.
    /// Examples are left out: go runs only those with an output comment.
    pub fn declared(&self, pkg: &str) -> Option<Vec<String>> {
        let files = self.tests.get(pkg)?;
        let dir = self.known.get(pkg)?;
        let mut out: Vec<String> = Vec::new();
        for f in files {
            let Some(text) = read_source(&dir.join(f)) else {
                continue;
            };
            for name in text.lines().filter_map(declared_test) {
                if !out.iter().any(|o| o == name) {
                    out.push(name.to_owned());
                }
            }
        }
        Some(out)
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

/// The test a top-level declaration line declares: `func TestX(t *testing.T) {` → `TestX`.
/// `TestMain` runs the tests; it is not one.
fn declared_test(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("func ")?;
    let (name, _) = rest.split_once('(')?;
    let name = name.trim();
    (name != "TestMain" && !name.starts_with("Example") && super::output::is_test_func(name))
        .then_some(name)
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
    fn listed_lines_name_module_and_compiled_test_files() {
        let l =
            Listed::parse("example.com/m/a\t/ws/a\texample.com/m\ta_test.go,b_test.go\tx_test.go")
                .unwrap();
        assert_eq!(l.pkg, "example.com/m/a");
        assert_eq!(l.module.as_deref(), Some("example.com/m"));
        assert_eq!(l.test_files, ["a_test.go", "b_test.go", "x_test.go"]);
        let bare = Listed::parse("p\t/ws/p\t\t\t").unwrap();
        assert_eq!((bare.module, bare.test_files.len()), (None, 0));
        assert_eq!(Listed::parse("only-a-path"), None);
        assert_eq!(Listed::parse("\t/ws"), None);
    }

    #[test]
    fn declared_tests_are_read_from_the_compiled_test_files() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("a_test.go"),
            "package a\n\nfunc TestMain(m *testing.M) {}\nfunc TestA(t *testing.T) {}\nfunc Testlower(t *testing.T) {}\nfunc helper() {}\nfunc (s *S) TestMethod() {}\nfunc FuzzB(f *testing.F) {}\nfunc ExampleC() {}\n\tfunc TestIndented() {}\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("skipped_test.go"),
            "func TestNotCompiled(t *testing.T) {}\n",
        )
        .unwrap();
        let dirs = Dirs::listed(
            &format!("p\t{}\tm\ta_test.go\t\n", d.path().display()),
            d.path(),
            d.path(),
        );
        assert_eq!(dirs.declared("p").unwrap(), ["TestA", "FuzzB"]);
        assert_eq!(dirs.declared("q"), None);
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
