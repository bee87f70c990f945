//! The workspace's static import graph: which file depends on which, read from the sources'
//! import statements, so a change can be traced to the tests that load it (test impact, blast
//! radius, static reach). The core is language-agnostic: each resolver is one row of
//! [`RESOLVERS`] (the languages whose files it places, as the model's language table tells
//! them, and the function that finds its files' imports); the core walks the workspace, runs
//! the resolvers, interns paths to ids and answers transitive queries by a breadth-first
//! search over forward and reverse adjacency.
//!
//! The graph errs towards more edges: an import it cannot place is either outside the
//! workspace (no edge) or recorded as dynamic ([`Graph::is_dynamic`]), never guessed away.

mod cpp;
mod csharp;
mod go;
mod java;
mod javascript;
mod lex;
mod listing;
mod persist;
mod python;
mod rust;
mod rust_manifest;
mod rust_paths;

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;
use std::sync::Mutex;

use pith_model::lang::{self, Descriptor};

use crate::walk::{self, is_test_path, MAX_FILE_BYTES};
use crate::IndexError;

/// A language's resolver: given the workspace root, every walked file (sorted) and a reader
/// of workspace files, the edges `(from, to)` ("from depends on to") and the files holding
/// imports it could not place statically.
type EdgesFn = fn(&Path, &[String], &dyn Fn(&str) -> Option<String>) -> Found;

/// What a resolver found: edges `(from, to)`, and the files with imports it cannot place.
type Found = (Vec<(String, String)>, Vec<String>);

/// A test rule by content: whether a source file's text holds tests.
type HoldsTests = fn(&str) -> bool;

struct Resolver {
    /// The languages (of the model's table) whose files this resolver places.
    languages: &'static [&'static Descriptor],
    edges: EdgesFn,
}

impl Resolver {
    /// Whether `path` is a file of one of this resolver's languages.
    fn places(&self, path: &str) -> bool {
        lang::of_path(path).is_some_and(|l| self.languages.iter().any(|r| r.id == l.id))
    }
}

/// One row per resolver (a language, or languages importing each other's files: JavaScript
/// and TypeScript, C and C++), each in its own file under `graph/`.
const RESOLVERS: &[Resolver] = &[
    Resolver {
        languages: &[&lang::PYTHON],
        edges: python::edges,
    },
    Resolver {
        languages: &[&lang::JAVASCRIPT, &lang::TYPESCRIPT],
        edges: javascript::edges,
    },
    Resolver {
        languages: &[&lang::GO],
        edges: go::edges,
    },
    Resolver {
        languages: &[&lang::RUST],
        edges: rust::edges,
    },
    Resolver {
        languages: &[&lang::JAVA],
        edges: java::edges,
    },
    Resolver {
        languages: &[&lang::CSHARP],
        edges: csharp::edges,
    },
    Resolver {
        languages: &[&lang::C, &lang::CPP],
        edges: cpp::edges,
    },
];

/// Test rules by content, for languages whose tests live inside source files that no naming
/// convention marks: applied to the files of that extension the graph places.
const CONTENT_TEST_RULES: &[(&str, HoldsTests)] = &[("rs", holds_rust_tests)];

/// Bytes looked at for a NUL to call a file binary (as the index does).
const BINARY_PROBE: usize = 8192;

/// The import graph of a workspace, as of when it was built.
#[derive(Debug, Default)]
pub struct Graph {
    /// Every walked file, sorted; a file's id is its position.
    paths: Vec<String>,
    /// By id: whether a resolver read the file (a source file of a language the graph reads).
    placed: Vec<bool>,
    /// By id: whether the file is test code.
    test: Vec<bool>,
    /// By id: whether the file has imports the graph could not resolve statically.
    dynamic: Vec<bool>,
    /// By id: whether a run saw what this test file loads by computed names (edges added by
    /// [`Graph::observe`]); empty until then.
    observed: Vec<bool>,
    /// Compressed adjacency: the imports of file `i` are `fwd[fwd_at[i]..fwd_at[i + 1]]`,
    /// sorted by id (so by path), with their paths in `fwd_names` at the same positions.
    fwd_at: Vec<u32>,
    fwd: Vec<u32>,
    fwd_names: Vec<String>,
    /// The same for the files that import file `i`.
    rev_at: Vec<u32>,
    rev: Vec<u32>,
}

impl Graph {
    /// The import graph of the workspace at `root` (same walk/filter as the index).
    pub fn build(root: &Path) -> Result<Graph, IndexError> {
        if !root.is_dir() {
            return Err(IndexError::NotADirectory(root.to_path_buf()));
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let files = walk::all_files(root, threads)?;
        Ok(Graph::from_files(root, files))
    }

    /// The graph of the given files (sorted, deduplicated): every resolver runs on its own
    /// thread, reading only files of `files`.
    fn from_files(root: &Path, files: Vec<String>) -> Graph {
        Graph::from_files_with(root, files, RESOLVERS)
    }

    /// [`Graph::from_files`] with a given table of resolvers.
    fn from_files_with(root: &Path, files: Vec<String>, resolvers: &[Resolver]) -> Graph {
        let n = files.len();
        // By id: 0 not read, 1 read, 2 read and a test by its content.
        let seen = Mutex::new(vec![0u8; n]);
        let results: Vec<Option<Found>> = std::thread::scope(|s| {
            let handles: Vec<_> = resolvers
                .iter()
                .map(|r| {
                    let (files, seen) = (&files, &seen);
                    s.spawn(move || {
                        let read = |rel: &str| read_known(root, files, seen, r, rel);
                        (r.edges)(root, files, &read)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().ok()).collect()
        });
        let mut seen = seen.into_inner().unwrap_or_else(|e| e.into_inner());
        // A resolver that failed (a bug) places none of its files, so that a change to one
        // selects every test instead of none.
        for (r, found) in resolvers.iter().zip(&results) {
            if found.is_none() {
                for (s, f) in seen.iter_mut().zip(&files) {
                    if r.places(f) {
                        *s = 0;
                    }
                }
            }
        }
        let mut g = Graph {
            placed: seen.iter().map(|s| *s != 0).collect(),
            test: files
                .iter()
                .zip(&seen)
                .map(|(f, s)| *s == 2 || (is_test_path(f) && !is_test_support(f)))
                .collect(),
            dynamic: vec![false; n],
            paths: files,
            ..Graph::default()
        };
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (found, dynamic) in results.into_iter().flatten() {
            for d in dynamic {
                if let Some(i) = g.id(&d) {
                    g.dynamic[i as usize] = true;
                }
            }
            edges.extend(found.iter().filter_map(|(a, b)| {
                let (a, b) = (g.id(a)?, g.id(b)?);
                (a != b).then_some((a, b))
            }));
        }
        edges.sort_unstable();
        edges.dedup();
        g.set_edges(edges);
        g
    }

    /// Sets the adjacency from sorted, deduplicated `(importer, imported)` pairs.
    fn set_edges(&mut self, edges: Vec<(u32, u32)>) {
        let n = self.paths.len();
        (self.fwd_at, self.fwd) = compress(n, edges.iter().copied());
        self.fwd_names = self
            .fwd
            .iter()
            .map(|&t| self.paths[t as usize].clone())
            .collect();
        let mut back: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (b, a)).collect();
        back.sort_unstable();
        (self.rev_at, self.rev) = compress(n, back.into_iter());
    }

    /// Adds what runs saw test files load by computed names (test file → module files,
    /// workspace-relative) as import edges, and marks those test files observed: what they
    /// load at run time is then known, not open (see [`Graph::dynamic_tests`]).
    pub fn observe(&mut self, loads: &std::collections::BTreeMap<String, Vec<String>>) {
        let n = self.paths.len();
        if self.observed.len() != n {
            self.observed = vec![false; n];
        }
        let mut extra: Vec<(u32, u32)> = Vec::new();
        for (test, modules) in loads {
            let Some(t) = self.id(test) else { continue };
            self.observed[t as usize] = true;
            extra.extend(
                modules
                    .iter()
                    .filter_map(|m| self.id(m))
                    .filter(|&m| m != t)
                    .map(|m| (t, m)),
            );
        }
        if extra.is_empty() {
            return;
        }
        let mut edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|i| {
                let span = self.fwd_at[i] as usize..self.fwd_at[i + 1] as usize;
                self.fwd[span].iter().map(move |&j| (i as u32, j))
            })
            .collect();
        edges.extend(extra);
        edges.sort_unstable();
        edges.dedup();
        self.set_edges(edges);
    }

    /// The test files that may run code the graph cannot see: those with imports by a
    /// computed name, and those that reach a file with one. `observed` too: by default a test
    /// file a run saw whole (its loads are edges now) is left out; a new file is one no
    /// observation can vouch for (a plugin directory that is listed), so an addition asks for
    /// them all.
    pub fn dynamic_tests(&self, observed: bool) -> Vec<String> {
        let mut out: BTreeSet<u32> = BTreeSet::new();
        for d in (0..self.paths.len()).filter(|&i| self.dynamic[i]) {
            let reached = self.reach_ids(d as u32, &self.rev_at, &self.rev);
            out.extend(reached.into_iter().filter(|&i| self.test[i as usize]));
        }
        out.into_iter()
            .filter(|&i| observed || !self.observed.get(i as usize).copied().unwrap_or(false))
            .map(|i| self.paths[i as usize].clone())
            .collect()
    }

    /// Every node reachable from `start` over `adj`, `start` included.
    fn reach_ids(&self, start: u32, at: &[u32], adj: &[u32]) -> Vec<u32> {
        let mut seen = vec![false; self.paths.len()];
        let mut stack = vec![start];
        seen[start as usize] = true;
        let mut out = Vec::new();
        while let Some(i) = stack.pop() {
            out.push(i);
            for &j in &adj[at[i as usize] as usize..at[i as usize + 1] as usize] {
                if !seen[j as usize] {
                    seen[j as usize] = true;
                    stack.push(j);
                }
            }
        }
        out
    }

    /// Files `file` imports directly, workspace-relative, sorted.
    pub fn imports(&self, file: &str) -> &[String] {
        match self.id(file) {
            Some(i) => {
                let i = i as usize;
                &self.fwd_names[self.fwd_at[i] as usize..self.fwd_at[i + 1] as usize]
            }
            None => &[],
        }
    }

    /// Every file that depends on `file` transitively, with its distance (1 = imports it
    /// directly), nearest first, then by path. `file` itself is not in the list.
    pub fn dependents(&self, file: &str) -> Vec<(String, u32)> {
        self.reach(file, &self.rev_at, &self.rev, |_| true, false)
    }

    /// Every file `file` depends on transitively, with distance, nearest first.
    pub fn dependencies(&self, file: &str) -> Vec<(String, u32)> {
        self.reach(file, &self.fwd_at, &self.fwd, |_| true, false)
    }

    /// The test files (`pith_model::ecosystem::is_test_path`, or the language's own rule, e.g.
    /// Rust source files holding `#[cfg(test)]` / `#[test]`) that depend on `file` or are
    /// `file`, with distance (0 for `file` itself), nearest first.
    pub fn tests_of(&self, file: &str) -> Vec<(String, u32)> {
        self.reach(file, &self.rev_at, &self.rev, |i| self.test[i], true)
    }

    /// Whether the graph can place `file`: a source file of a language it reads, present in
    /// the workspace when the graph was built and readable as text. A change to a file it
    /// cannot place (deleted, binary, another language) must select every test.
    pub fn places(&self, file: &str) -> bool {
        self.id(file).is_some_and(|i| self.placed[i as usize])
    }

    /// Whether `file` has imports the graph could not resolve statically (`importlib`,
    /// `__import__`, `require(variable)`, `import(variable)`): the known hole.
    pub fn is_dynamic(&self, file: &str) -> bool {
        self.id(file).is_some_and(|i| self.dynamic[i as usize])
    }

    /// How many files the graph places, and how many edges it holds.
    pub fn size(&self) -> (usize, usize) {
        (self.placed.iter().filter(|p| **p).count(), self.fwd.len())
    }

    fn id(&self, file: &str) -> Option<u32> {
        let file = file.strip_prefix("./").unwrap_or(file);
        let i = self.paths.binary_search_by(|p| p.as_str().cmp(file)).ok()?;
        u32::try_from(i).ok()
    }

    /// A breadth-first search from `file` over one direction's adjacency: the files reached
    /// that `keep` accepts, with their distance, nearest first then by path (ids are in path
    /// order); `file` itself at distance 0 only when `with_self`.
    fn reach(
        &self,
        file: &str,
        at: &[u32],
        adj: &[u32],
        keep: impl Fn(usize) -> bool,
        with_self: bool,
    ) -> Vec<(String, u32)> {
        let Some(start) = self.id(file) else {
            return Vec::new();
        };
        let mut dist = vec![u32::MAX; self.paths.len()];
        let mut queue = VecDeque::from([start]);
        dist[start as usize] = 0;
        let mut found: Vec<(u32, u32)> = Vec::new();
        while let Some(i) = queue.pop_front() {
            let d = dist[i as usize];
            if (i != start || with_self) && keep(i as usize) {
                found.push((d, i));
            }
            for &j in &adj[at[i as usize] as usize..at[i as usize + 1] as usize] {
                if dist[j as usize] == u32::MAX {
                    dist[j as usize] = d + 1;
                    queue.push_back(j);
                }
            }
        }
        found.sort_unstable();
        found
            .into_iter()
            .map(|(d, i)| (self.paths[i as usize].clone(), d))
            .collect()
    }
}

/// Sorted `(from, to)` pairs as offsets per node and the targets in order.
fn compress(n: usize, pairs: impl Iterator<Item = (u32, u32)>) -> (Vec<u32>, Vec<u32>) {
    let mut at = vec![0u32; n + 1];
    let mut to = Vec::new();
    for (a, b) in pairs {
        at[a as usize + 1] += 1;
        to.push(b);
    }
    for i in 0..n {
        at[i + 1] += at[i];
    }
    (at, to)
}

/// Reads a workspace file for a resolver: only files the walk found (so never outside the
/// workspace, in a dependency tree or through a link), as text, `None` when unreadable,
/// binary or larger than the index reads. A file of the resolver's own languages is marked
/// as placed, and tested by content where its language has a rule.
fn read_known(
    root: &Path,
    files: &[String],
    seen: &Mutex<Vec<u8>>,
    resolver: &Resolver,
    rel: &str,
) -> Option<String> {
    let id = files.binary_search_by(|p| p.as_str().cmp(rel)).ok()?;
    let path = root.join(rel);
    let size = std::fs::symlink_metadata(&path).ok()?.len();
    if size > MAX_FILE_BYTES {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    if bytes.len() as u64 > MAX_FILE_BYTES || bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
        return None;
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    let ext = extension(rel);
    if resolver.places(rel) {
        let rule = CONTENT_TEST_RULES.iter().find(|(e, _)| *e == ext);
        let mark = if rule.is_some_and(|(_, holds)| holds(&text)) {
            2
        } else {
            1
        };
        if let Some(s) = seen.lock().unwrap_or_else(|e| e.into_inner()).get_mut(id) {
            *s = mark;
        }
    }
    Some(text)
}

/// A path's extension, without the dot (`""` for none).
fn extension(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map_or("", |(_, e)| e)
}

/// Files under test directories that hold no tests of their own: pytest's `conftest.py`, a
/// package's `__init__.py`. They are still in the graph (tests depend on them).
fn is_test_support(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "conftest.py" | "__init__.py")
}

/// Whether a Rust source file holds tests (`#[test]`, `#[cfg(test)]`, `#[tokio::test]` …)
/// on a line of its own: the attribute at the start of a line, so prose and strings that
/// mention it do not count.
fn holds_rust_tests(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("#[cfg(test)]")
            || l.starts_with("#[test]")
            || (l.starts_with("#[") && l.contains("::test") && !l.starts_with("#[cfg"))
    })
}

/// Shared path helpers for the resolvers: workspace-relative, `/`-separated paths.
pub(super) mod paths {
    /// The directory of a workspace-relative path (`""` for the root).
    pub(crate) fn parent(path: &str) -> &str {
        super::lex::dir_of(path)
    }

    /// `dir` joined with a relative `rel` (`./`, `../` resolved); `None` when it leaves the
    /// workspace or is absolute.
    pub(crate) fn join(dir: &str, rel: &str) -> Option<String> {
        super::lex::join(dir, rel)
    }

    /// Whether a sorted list of paths holds `path`.
    pub(crate) fn has(files: &[String], path: &str) -> bool {
        files.binary_search_by(|p| p.as_str().cmp(path)).is_ok()
    }

    /// The ancestors of a path's directory, nearest first, ending with the root (`""`).
    pub(crate) fn ancestors(path: &str) -> impl Iterator<Item = &str> {
        let mut next = Some(parent(path));
        std::iter::from_fn(move || {
            let d = next?;
            next = (!d.is_empty()).then(|| parent(d));
            Some(d)
        })
    }

    /// `dir/name`, or `name` at the root.
    pub(crate) fn child(dir: &str, name: &str) -> String {
        if dir.is_empty() {
            name.to_owned()
        } else {
            format!("{dir}/{name}")
        }
    }
}

#[cfg(test)]
mod tests;
