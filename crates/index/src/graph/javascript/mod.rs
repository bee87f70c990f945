//! JavaScript and TypeScript imports as graph edges: `import … from`, `import '…'`,
//! `export … from`, `require('…')`, `import('…')` and the test runners' module mocks
//! (`jest.mock('…')`, `vi.mock('…')`), all with literal specifiers; `require(x)` and
//! `import(x)` with anything else mark the file dynamic. A small tokenizer (strings,
//! templates, comments, regular expressions) finds them, so text that reads like an import
//! inside a string or a comment is not one; it costs one pass over each file's bytes.
//!
//! A specifier is resolved as Node and TypeScript would within the workspace: relative paths
//! with the extension and `index` rules (a `.js` specifier may name a `.ts` file), then the
//! nearest `tsconfig.json`/`jsconfig.json`'s `paths` and `baseUrl`, then the workspace's own
//! packages (every `package.json` with a `name`, by its entry points). Any other bare
//! specifier is a dependency outside the workspace: no edge.
//!
//! Finding the specifiers is `scan`'s; this file resolves them.

mod scan;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use pith_model::lang::{self, Language};
use serde_json::Value;

use super::paths::{child, has, join, parent};
use scan::scan;

/// Extensions tried after a specifier, in Node's and TypeScript's order of preference: the
/// model's JavaScript and TypeScript extensions, listed apart for that order.
const EXTENSIONS: &[&str] = &[".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];

/// The TypeScript sources an emitted JavaScript name stands for (TypeScript's ESM rule).
const TS_FOR_JS: &[(&str, &[&str])] = &[
    (".js", &[".ts", ".tsx"]),
    (".jsx", &[".tsx"]),
    (".mjs", &[".mts"]),
    (".cjs", &[".cts"]),
];

/// Nested `extends` followed at most this deep (a loop ends there too).
const MAX_EXTENDS: usize = 4;

pub(super) fn edges(
    _root: &Path,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let ctx = Context::new(files, read);
    let mut edges = Vec::new();
    let mut dynamic = Vec::new();
    for file in files.iter().filter(|f| is_script(f)) {
        let Some(text) = read(file) else {
            continue;
        };
        let (specs, is_dynamic, paths) = scan(&text);
        if is_dynamic {
            dynamic.push(file.clone());
        }
        let mut to: Vec<String> = specs.iter().flat_map(|s| ctx.resolve(file, s)).collect();
        // A test that runs or reads a workspace file by its path
        // (`path.join(__dirname, '../lib/cli.js')`) depends on it as much as on an import.
        if pith_model::ecosystem::is_test_path(file) {
            to.extend(
                paths
                    .iter()
                    .filter_map(|p| join(parent(file), p))
                    .filter(|p| has(files, p)),
            );
        }
        to.sort_unstable();
        to.dedup();
        edges.extend(to.into_iter().map(|t| (file.clone(), t)));
    }
    (edges, dynamic)
}

fn is_script(path: &str) -> bool {
    lang::of_path(path).is_some_and(|l| matches!(l.id, Language::JavaScript | Language::TypeScript))
}

/// A workspace package: its directory and its `package.json`.
struct Package {
    dir: String,
    manifest: Value,
}

/// A `tsconfig.json`'s module resolution: `baseUrl` and `paths`, with `extends` applied;
/// directories workspace-relative.
#[derive(Default)]
struct TsConfig {
    base_url: Option<String>,
    /// Patterns, each with its targets, and the directory the targets are relative to.
    paths: Vec<(String, Vec<String>)>,
    paths_base: String,
}

struct Context<'a> {
    files: &'a [String],
    read: &'a dyn Fn(&str) -> Option<String>,
    packages: HashMap<String, Vec<Package>>,
    /// By directory: the tsconfig that applies there, once looked up.
    configs: RefCell<HashMap<String, Option<Rc<TsConfig>>>>,
}

impl<'a> Context<'a> {
    fn new(files: &'a [String], read: &'a dyn Fn(&str) -> Option<String>) -> Context<'a> {
        let mut packages: HashMap<String, Vec<Package>> = HashMap::new();
        for manifest in files
            .iter()
            .filter(|f| *f == "package.json" || f.ends_with("/package.json"))
        {
            let Some(value) = read(manifest).and_then(|t| parse_jsonc(&t)) else {
                continue;
            };
            if let Some(name) = value.get("name").and_then(Value::as_str) {
                packages.entry(name.to_owned()).or_default().push(Package {
                    dir: parent(manifest).to_owned(),
                    manifest: value,
                });
            }
        }
        Context {
            files,
            read,
            packages,
            configs: RefCell::new(HashMap::new()),
        }
    }

    /// The workspace files `spec`, imported by `file`, stands for (none for a dependency
    /// outside the workspace).
    fn resolve(&self, file: &str, spec: &str) -> Vec<String> {
        let spec = spec.split(['?', '#']).next().unwrap_or(spec);
        if spec.is_empty() {
            return Vec::new();
        }
        if spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../") {
            return join(parent(file), spec)
                .map(|base| self.file_or_dir(&base))
                .unwrap_or_default();
        }
        if spec.starts_with('/') || spec.contains(':') {
            return Vec::new();
        }
        if let Some(config) = self.config_for(parent(file)) {
            for target in config_targets(&config, spec) {
                let found = self.file_or_dir(&target);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        self.package_import(spec)
    }

    /// A bare specifier naming a workspace package (`name`, `@scope/name`, `name/sub`).
    fn package_import(&self, spec: &str) -> Vec<String> {
        let cut = if spec.starts_with('@') { 2 } else { 1 };
        let mut parts = spec.splitn(cut + 1, '/');
        let name: Vec<&str> = parts.by_ref().take(cut).collect();
        let name = name.join("/");
        let sub = parts.next();
        let Some(packages) = self.packages.get(&name) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for pkg in packages {
            match sub {
                None => out.extend(self.entries(pkg)),
                Some(sub) => out.extend(self.subpath(pkg, sub)),
            }
        }
        out
    }

    /// A path, with the extension rules, or else a directory (its package entry, its index).
    fn file_or_dir(&self, base: &str) -> Vec<String> {
        if let Some(f) = self.file(base) {
            return vec![f];
        }
        if has(self.files, &child(base, "package.json")) {
            let manifest = (self.read)(&child(base, "package.json")).and_then(|t| parse_jsonc(&t));
            if let Some(manifest) = manifest {
                let pkg = Package {
                    dir: base.to_owned(),
                    manifest,
                };
                let found = self.entries(&pkg);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        self.index(base).into_iter().collect()
    }

    /// A file named by `base`: as written, a TypeScript source for an emitted name, or with
    /// one of the extensions.
    fn file(&self, base: &str) -> Option<String> {
        if has(self.files, base) {
            return Some(base.to_owned());
        }
        for (js, ts) in TS_FOR_JS {
            if let Some(stem) = base.strip_suffix(js) {
                if let Some(f) = ts
                    .iter()
                    .map(|e| format!("{stem}{e}"))
                    .find(|f| self.has(f))
                {
                    return Some(f);
                }
            }
        }
        EXTENSIONS
            .iter()
            .map(|e| format!("{base}{e}"))
            .find(|f| self.has(f))
    }

    fn index(&self, dir: &str) -> Option<String> {
        self.file(&child(dir, "index"))
    }

    fn has(&self, path: &str) -> bool {
        has(self.files, path)
    }

    /// A package's entry points in the workspace: every one of `source`, `module`, `main` and
    /// `exports["."]` that names a workspace file (a build output may shadow the source, so
    /// all count), with `src/index.*`; `index.*` when there is none.
    fn entries(&self, pkg: &Package) -> Vec<String> {
        let m = &pkg.manifest;
        let mut named: Vec<&str> = ["source", "module", "main", "browser"]
            .iter()
            .filter_map(|k| m.get(*k).and_then(Value::as_str))
            .collect();
        if let Some(exports) = m.get("exports") {
            let root = match exports {
                Value::Object(o) if o.keys().any(|k| k.starts_with('.')) => o.get("."),
                other => Some(other),
            };
            if let Some(root) = root {
                strings(root, &mut named);
            }
        }
        let mut out: Vec<String> = named
            .into_iter()
            .filter_map(|e| join(&pkg.dir, e))
            .filter_map(|p| self.file(&p).or_else(|| self.index(&p)))
            .collect();
        out.extend(self.index(&child(&pkg.dir, "src")));
        if out.is_empty() {
            out.extend(self.index(&pkg.dir));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// `pkg/sub`: by the package's `exports` map when it names the subpath, else the path
    /// under the package's directory or its `src/`.
    fn subpath(&self, pkg: &Package, sub: &str) -> Vec<String> {
        if let Some(Value::Object(map)) = pkg.manifest.get("exports") {
            let key = format!("./{sub}");
            let patterns: Vec<(String, Vec<String>)> = map
                .iter()
                .map(|(k, v)| {
                    let mut s = Vec::new();
                    strings(v, &mut s);
                    (k.clone(), s.into_iter().map(str::to_owned).collect())
                })
                .collect();
            if let Some(targets) = match_pattern(&patterns, &key) {
                let found: Vec<String> = targets
                    .iter()
                    .filter_map(|t| join(&pkg.dir, t))
                    .flat_map(|p| self.file_or_dir(&p))
                    .collect();
                if !found.is_empty() {
                    return found;
                }
            }
        }
        for base in [child(&pkg.dir, sub), child(&child(&pkg.dir, "src"), sub)] {
            let found = self.file_or_dir(&base);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// The tsconfig (or jsconfig) nearest above `dir`, read once per directory.
    fn config_for(&self, dir: &str) -> Option<Rc<TsConfig>> {
        if let Some(c) = self.configs.borrow().get(dir) {
            return c.clone();
        }
        let mut found = None;
        for name in ["tsconfig.json", "jsconfig.json"] {
            let path = child(dir, name);
            if self.has(&path) {
                found = Some(Rc::new(self.load_config(&path, 0).unwrap_or_default()));
                break;
            }
        }
        if found.is_none() && !dir.is_empty() {
            found = self.config_for(parent(dir));
        }
        self.configs
            .borrow_mut()
            .insert(dir.to_owned(), found.clone());
        found
    }

    /// A tsconfig's `baseUrl` and `paths`, its `extends` (a workspace file) applied first.
    fn load_config(&self, path: &str, depth: usize) -> Option<TsConfig> {
        let value = (self.read)(path).and_then(|t| parse_jsonc(&t))?;
        let dir = parent(path);
        let mut config = match value.get("extends").and_then(Value::as_str) {
            Some(base) if depth < MAX_EXTENDS && base.starts_with('.') => join(dir, base)
                .map(|p| {
                    if p.ends_with(".json") {
                        p
                    } else {
                        format!("{p}.json")
                    }
                })
                .and_then(|p| self.load_config(&p, depth + 1))
                .unwrap_or_default(),
            _ => TsConfig::default(),
        };
        let options = value.get("compilerOptions");
        if let Some(base) = options
            .and_then(|o| o.get("baseUrl"))
            .and_then(Value::as_str)
        {
            config.base_url = join(dir, base);
            config.paths_base = config.base_url.clone().unwrap_or_default();
        }
        if let Some(Value::Object(paths)) = options.and_then(|o| o.get("paths")) {
            config.paths = paths
                .iter()
                .map(|(k, v)| {
                    let mut s = Vec::new();
                    strings(v, &mut s);
                    (k.clone(), s.into_iter().map(str::to_owned).collect())
                })
                .collect();
            config.paths_base = config.base_url.clone().unwrap_or_else(|| dir.to_owned());
        }
        Some(config)
    }
}

/// Where a tsconfig maps a bare specifier, in order: its `paths` targets (the longest
/// matching pattern), then under `baseUrl`.
fn config_targets(config: &TsConfig, spec: &str) -> Vec<String> {
    let mut out: Vec<String> = match_pattern(&config.paths, spec)
        .unwrap_or_default()
        .iter()
        .filter_map(|t| join(&config.paths_base, t))
        .collect();
    if let Some(base) = &config.base_url {
        out.extend(join(base, spec));
    }
    out
}

/// The targets of the pattern (exact, or with one `*`) that matches `spec` with the longest
/// prefix, the `*` substituted.
fn match_pattern(patterns: &[(String, Vec<String>)], spec: &str) -> Option<Vec<String>> {
    let mut best: Option<(usize, Vec<String>)> = None;
    for (pattern, targets) in patterns {
        let (star, prefix_len) = match pattern.split_once('*') {
            None if pattern == spec => (None, usize::MAX),
            None => continue,
            Some((pre, post)) => {
                let fits = spec.len() >= pre.len() + post.len()
                    && spec.starts_with(pre)
                    && spec.ends_with(post);
                if !fits {
                    continue;
                }
                (spec.get(pre.len()..spec.len() - post.len()), pre.len())
            }
        };
        if best.as_ref().is_some_and(|(b, _)| *b >= prefix_len) {
            continue;
        }
        let subst = targets
            .iter()
            .map(|t| match star {
                Some(s) => t.replacen('*', s, 1),
                None => t.clone(),
            })
            .collect();
        best = Some((prefix_len, subst));
    }
    best.map(|(_, t)| t)
}

/// Every string in a JSON value (an `exports` condition tree, a `paths` target list).
fn strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Value::Object(o) => o.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// JSON with comments and trailing commas (tsconfig's dialect), parsed; `None` when it is
/// not JSON even so.
fn parse_jsonc(text: &str) -> Option<Value> {
    let plain = strip_jsonc(text.as_bytes(), true);
    serde_json::from_slice(&strip_jsonc(&plain, false)).ok()
}

/// One pass over JSON text outside its strings: drops comments (`comments`), or else commas
/// that only whitespace separates from a closing bracket.
fn strip_jsonc(b: &[u8], comments: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let s = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.extend_from_slice(&b[s..i]);
            }
            b'/' if comments && b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if comments && b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(b.len());
            }
            b',' if !comments => {
                let next = b[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                if !matches!(next, Some(b'}' | b']')) {
                    out.push(b',');
                }
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// For the core's robustness test: how many specifiers a source holds.
#[cfg(test)]
pub(super) fn tests_scan(src: &str) -> usize {
    scan(src).0.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extensions_tried_are_the_language_tables() {
        let mut tried: Vec<&str> = EXTENSIONS.iter().map(|e| &e[1..]).collect();
        let mut table: Vec<&str> = [&lang::JAVASCRIPT, &lang::TYPESCRIPT]
            .iter()
            .flat_map(|l| l.extensions.iter().copied())
            .collect();
        tried.sort_unstable();
        table.sort_unstable();
        assert_eq!(tried, table);
    }
}
