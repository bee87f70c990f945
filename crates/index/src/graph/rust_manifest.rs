//! Rust packages from their `Cargo.toml`: each package's directory, crate name, lib, build
//! script, the targets its manifest names and the dependencies it lists, and its crate roots.
//! Read line by line, not as TOML: the graph needs few keys, and a manifest it cannot read
//! costs only edges.

use std::collections::{BTreeMap, HashSet};

use super::lex;

/// A package of the workspace, from its `Cargo.toml`.
#[derive(Debug, Default)]
pub(super) struct Package {
    /// The manifest's directory (`""` at the top).
    pub(super) dir: String,
    /// The crate name, `-` written `_`.
    pub(super) name: String,
    pub(super) lib: Option<String>,
    pub(super) build: Option<String>,
    /// Target paths the manifest names (`[[bin]] path = ..`, `[[test]]`, ...).
    targets: Vec<String>,
    /// Every dependency name and `package = ..` rename, `-` written `_`.
    pub(super) deps: Vec<String>,
}

impl Package {
    /// The crate roots: lib first, then every other target, as far as they exist.
    pub(super) fn roots(
        &self,
        rs: &HashSet<&str>,
        by_dir: &BTreeMap<&str, Vec<&str>>,
    ) -> Vec<String> {
        let at = |rel: &str| lex::join(&self.dir, rel).unwrap_or_default();
        let mut out: Vec<String> = self.lib.iter().cloned().collect();
        let mut wanted = vec![at("src/main.rs")];
        wanted.extend(self.build.iter().cloned());
        wanted.extend(self.targets.iter().cloned());
        for sub in ["src/bin", "tests", "benches", "examples"] {
            let d = at(sub);
            wanted.extend(
                by_dir
                    .get(d.as_str())
                    .into_iter()
                    .flatten()
                    .map(|f| (*f).to_owned()),
            );
            // `tests/it/main.rs`: a target with its own module directory.
            let prefix = format!("{d}/");
            for (dir, _) in by_dir.range(prefix.as_str()..) {
                if !dir.starts_with(&prefix) {
                    break;
                }
                if !dir[prefix.len()..].contains('/') {
                    wanted.push(format!("{dir}/main.rs"));
                }
            }
        }
        for w in wanted {
            if rs.contains(w.as_str()) && !out.contains(&w) {
                out.push(w);
            }
        }
        out
    }
}

/// Every package whose `Cargo.toml` sits in a directory holding, or above, a `.rs` file.
pub(super) fn find_packages(
    by_dir: &BTreeMap<&str, Vec<&str>>,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<Package> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for dir in by_dir.keys() {
        let mut d = (*dir).to_owned();
        while seen.insert(d.clone()) {
            let manifest = lex::join(&d, "Cargo.toml").unwrap_or_default();
            if let Some(p) = read(&manifest).and_then(|t| parse_manifest(&t, &d)) {
                out.push(p);
            }
            if d.is_empty() {
                break;
            }
            d = lex::dir_of(&d).to_owned();
        }
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

/// The parts of a `Cargo.toml` the graph needs, read line by line: a manifest without
/// `[package]` (a virtual workspace) gives none.
fn parse_manifest(text: &str, dir: &str) -> Option<Package> {
    let mut p = Package {
        dir: dir.to_owned(),
        ..Package::default()
    };
    let mut section = String::new();
    let mut is_package = false;
    let mut lib_path = None;
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with('[') {
            section = line
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_owned();
            is_package |= section == "package";
            if let Some(name) = dep_table_name(&section) {
                p.deps.push(crate_name(name));
            }
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches('"');
        let string = first_string(value);
        match section.as_str() {
            "package" if key == "name" => p.name = crate_name(string.unwrap_or_default()),
            "package" if key == "build" => {
                p.build = string.and_then(|s| lex::join(dir, s));
            }
            "lib" if key == "path" => lib_path = string.and_then(|s| lex::join(dir, s)),
            "bin" | "test" | "bench" | "example" if key == "path" => {
                p.targets.extend(string.and_then(|s| lex::join(dir, s)));
            }
            s if is_dep_table(s) => {
                let name = key
                    .split('.')
                    .next()
                    .unwrap_or(key)
                    .trim()
                    .trim_matches('"');
                p.deps.push(crate_name(name));
                if let Some(i) = value.find("package") {
                    p.deps.extend(first_string(&value[i..]).map(crate_name));
                }
            }
            s if dep_table_name(s).is_some() && key == "package" => {
                p.deps.extend(string.map(crate_name));
            }
            _ => {}
        }
    }
    if !is_package {
        return None;
    }
    p.lib = Some(lib_path.unwrap_or_else(|| lex::join(dir, "src/lib.rs").unwrap_or_default()));
    p.build = p
        .build
        .or_else(|| lex::join(dir, "build.rs"))
        .filter(|b| !b.is_empty());
    Some(p)
}

/// Whether a section lists dependencies (`dependencies`, `dev-dependencies`,
/// `target.'cfg(unix)'.build-dependencies`), not the workspace's shared table.
fn is_dep_table(section: &str) -> bool {
    !section.starts_with("workspace")
        && ["dependencies", "dev-dependencies", "build-dependencies"]
            .iter()
            .any(|t| section == *t || section.ends_with(&format!(".{t}")))
}

/// `dependencies.foo` → `foo`.
fn dep_table_name(section: &str) -> Option<&str> {
    if section.starts_with("workspace") {
        return None;
    }
    ["dependencies.", "dev-dependencies.", "build-dependencies."]
        .iter()
        .find_map(|t| section.find(t).map(|i| &section[i + t.len()..]))
        .map(|n| n.trim_matches('"'))
}

fn first_string(value: &str) -> Option<&str> {
    let start = value.find('"')? + 1;
    let len = value[start..].find('"')?;
    Some(&value[start..start + len])
}

fn crate_name(name: &str) -> String {
    name.trim().replace('-', "_")
}
