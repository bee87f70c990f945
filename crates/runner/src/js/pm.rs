//! What pith reads of a JavaScript project's package manager: which one the project uses (its
//! `packageManager` field, else its lockfile), whether it runs a script's `pre` and `post`
//! scripts, each package's `package.json`, and the packages of a workspace in the order the
//! tool runs them.
//!
//! Each tool's rules, as each documents and does them:
//! - npm runs `preX`, `X`, `postX` (`npm test` too) unless `--ignore-scripts`; a workspace
//!   run goes through every package in the order its `workspaces` patterns list them (matches
//!   of one pattern sorted), and fails at the end with the last failure's code.
//! - pnpm runs `pre`/`post` scripts from pnpm 9 (`enable-pre-post-scripts`, default `true`
//!   since 9, `false` from 6 to 8; `.npmrc` or `pnpm-workspace.yaml` can set it); `pnpm -r`
//!   takes the packages of `pnpm-workspace.yaml` but the root, in dependency order, skips
//!   those without the script, and stops at the first failure unless `--no-bail`.
//! - yarn 1 runs `pre`/`post` scripts; `yarn workspaces run X` runs X in each package in
//!   order and stops at the first that fails (a package without X fails too).
//! - yarn 2+ (berry) runs no `pre`/`post` scripts; `yarn workspaces foreach` skips packages
//!   without the script and the package running it, runs all of them, and exits 1 if any
//!   failed.
//! - bun runs `pre`/`post` scripts as npm does.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A package manager, as far as running scripts goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Manager {
    Npm,
    /// With whether it runs `pre`/`post` scripts.
    Pnpm {
        pre_post: bool,
    },
    Yarn1,
    YarnBerry,
    Bun,
}

impl Manager {
    /// The command a developer types for it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Manager::Npm => "npm",
            Manager::Pnpm { .. } => "pnpm",
            Manager::Yarn1 | Manager::YarnBerry => "yarn",
            Manager::Bun => "bun",
        }
    }

    pub(crate) fn runs_pre_post(self) -> bool {
        match self {
            Manager::Npm | Manager::Yarn1 | Manager::Bun => true,
            Manager::Pnpm { pre_post } => pre_post,
            Manager::YarnBerry => false,
        }
    }

    /// The manager of the project in `dir`: the `packageManager` field of the nearest
    /// `package.json` that has one or sits beside a lockfile, else that lockfile, else npm.
    pub(crate) fn of(dir: &Path) -> Manager {
        for d in dir.ancestors() {
            let declared = read_json(&d.join("package.json"))
                .and_then(|v| v.get("packageManager")?.as_str().map(str::to_owned));
            if let Some(m) = declared.and_then(|s| Self::declared(&s, d)) {
                return m;
            }
            if d.join("pnpm-lock.yaml").is_file() || d.join("pnpm-workspace.yaml").is_file() {
                let major = std::fs::read_to_string(d.join("pnpm-lock.yaml"))
                    .ok()
                    .and_then(|t| pnpm_lock_major(&t));
                return Manager::Pnpm {
                    pre_post: pnpm_pre_post(d, major.unwrap_or(9)),
                };
            }
            if d.join("yarn.lock").is_file() {
                let berry = d.join(".yarnrc.yml").is_file()
                    || std::fs::read_to_string(d.join("yarn.lock"))
                        .is_ok_and(|t| t.contains("__metadata:"));
                return if berry {
                    Manager::YarnBerry
                } else {
                    Manager::Yarn1
                };
            }
            if d.join("bun.lockb").is_file() || d.join("bun.lock").is_file() {
                return Manager::Bun;
            }
            if d.join("package-lock.json").is_file() || d.join("npm-shrinkwrap.json").is_file() {
                return Manager::Npm;
            }
        }
        Manager::Npm
    }

    /// `packageManager: "pnpm@9.1.0+sha..."`.
    fn declared(field: &str, dir: &Path) -> Option<Manager> {
        let (name, version) = field.split_once('@')?;
        let major: u32 = version
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()?;
        Some(match name {
            "npm" => Manager::Npm,
            "pnpm" => Manager::Pnpm {
                pre_post: pnpm_pre_post(dir, major),
            },
            "yarn" if major <= 1 => Manager::Yarn1,
            "yarn" => Manager::YarnBerry,
            "bun" => Manager::Bun,
            _ => return None,
        })
    }
}

/// pnpm's major version from its lockfile's format (`lockfileVersion: '9.0'` is pnpm 9 and
/// 10; 6.x is pnpm 8; 5.x pnpm 7 and before).
fn pnpm_lock_major(text: &str) -> Option<u32> {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("lockfileVersion:"))?;
    let v = line.trim().trim_matches(|c| c == '\'' || c == '"');
    let lock: u32 = v.split('.').next()?.parse().ok()?;
    Some(match lock {
        9.. => 9,
        6 => 8,
        _ => 7,
    })
}

/// Whether pnpm runs `pre`/`post` scripts here: the project's setting (`.npmrc`'s
/// `enable-pre-post-scripts`, `pnpm-workspace.yaml`'s `enablePrePostScripts`), else the
/// default of its major version.
fn pnpm_pre_post(dir: &Path, major: u32) -> bool {
    for d in dir.ancestors() {
        if let Ok(t) = std::fs::read_to_string(d.join(".npmrc")) {
            if let Some(v) = setting(&t, "enable-pre-post-scripts", '=') {
                return v;
            }
        }
        if let Ok(t) = std::fs::read_to_string(d.join("pnpm-workspace.yaml")) {
            if let Some(v) = setting(&t, "enablePrePostScripts", ':') {
                return v;
            }
        }
    }
    major >= 9
}

fn setting(text: &str, key: &str, sep: char) -> Option<bool> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(sep)?;
        (k.trim() == key).then(|| v.trim().trim_matches(|c| c == '\'' || c == '"') == "true")
    })
}

fn read_json(path: &Path) -> Option<Value> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// A package: its directory and what its `package.json` says.
#[derive(Debug, Clone)]
pub(crate) struct Package {
    pub(crate) dir: PathBuf,
    pub(crate) json: Value,
}

impl Package {
    /// The package whose `package.json` is in `dir`.
    pub(crate) fn read(dir: &Path) -> Option<Package> {
        let json = read_json(&dir.join("package.json")).filter(Value::is_object)?;
        Some(Package {
            dir: dir.to_path_buf(),
            json,
        })
    }

    /// The package a command run in `cwd` belongs to: the nearest `package.json` up from it.
    pub(crate) fn around(cwd: &Path) -> Option<Package> {
        cwd.ancestors().find_map(Package::read)
    }

    pub(crate) fn script(&self, name: &str) -> Option<&str> {
        self.json.get("scripts")?.get(name)?.as_str()
    }

    pub(crate) fn scripts(&self) -> Vec<&str> {
        self.json
            .get("scripts")
            .and_then(Value::as_object)
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// Its name, else its directory's (npm's rule for a workspace without one).
    pub(crate) fn name(&self) -> String {
        match self.json.get("name").and_then(Value::as_str) {
            Some(n) => n.to_owned(),
            None => self
                .dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    pub(crate) fn has_dep(&self, dep: &str) -> bool {
        ["devDependencies", "dependencies"]
            .iter()
            .any(|k| self.json.get(k).and_then(|d| d.get(dep)).is_some())
    }

    /// The names of the packages it depends on (every kind).
    fn deps(&self) -> Vec<String> {
        [
            "dependencies",
            "devDependencies",
            "optionalDependencies",
            "peerDependencies",
        ]
        .iter()
        .filter_map(|k| self.json.get(k)?.as_object())
        .flat_map(|m| m.keys().cloned())
        .collect()
    }

    /// What npm puts in a script's environment from `package.json` (npm's RFC 183):
    /// `npm_package_name`, `_version`, and `config`, `engines` and `bin` flattened.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for key in ["name", "version", "config", "engines", "bin"] {
            if let Some(v) = self.json.get(key) {
                flatten(&format!("npm_package_{key}"), v, &mut out);
            }
        }
        out
    }

    /// The workspace patterns it declares (`workspaces`, or `workspaces.packages`), or for
    /// pnpm those of `pnpm-workspace.yaml` beside it.
    pub(crate) fn workspace_patterns(&self, manager: Manager) -> Vec<String> {
        if matches!(manager, Manager::Pnpm { .. }) {
            if let Ok(t) = std::fs::read_to_string(self.dir.join("pnpm-workspace.yaml")) {
                return pnpm_packages(&t);
            }
        }
        let ws = self.json.get("workspaces");
        let list = ws
            .and_then(|w| w.get("packages"))
            .or(ws)
            .and_then(Value::as_array);
        list.map(|l| {
            l.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
    }
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Null | Value::Bool(false) => out.push((prefix.to_owned(), String::new())),
        Value::Bool(true) => out.push((prefix.to_owned(), "true".to_owned())),
        Value::Number(n) => out.push((prefix.to_owned(), n.to_string())),
        Value::String(s) => out.push((prefix.to_owned(), s.clone())),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}_{i}"), x, out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                flatten(&format!("{prefix}_{k}"), x, out);
            }
        }
    }
}

/// The `packages:` list of a `pnpm-workspace.yaml`.
fn pnpm_packages(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim_end();
        if t.trim().is_empty() || t.trim_start().starts_with('#') {
            continue;
        }
        if !t.starts_with(' ') && !t.starts_with('-') {
            inside = t.trim() == "packages:";
            continue;
        }
        if inside {
            if let Some(item) = t.trim().strip_prefix('-') {
                let item = item.split(" #").next().unwrap_or(item).trim();
                let item = item.trim_matches(|c| c == '\'' || c == '"');
                if !item.is_empty() {
                    out.push(item.to_owned());
                }
            }
        }
    }
    out
}

/// Directories below a workspace searched for packages at most this deep.
const MEMBER_DEPTH: usize = 6;

/// The workspace packages of the root `root` declares, in the order `manager` runs them: npm
/// and yarn in the order of the patterns (each pattern's matches sorted), pnpm in dependency
/// order (dependencies first). The root itself is not one of them.
pub(crate) fn members(root: &Package, manager: Manager) -> Vec<Package> {
    let patterns = root.workspace_patterns(manager);
    if patterns.is_empty() {
        return Vec::new();
    }
    let mut dirs: Vec<String> = Vec::new();
    package_dirs(&root.dir, "", 0, &mut dirs);
    dirs.sort_by(|a, b| {
        a.to_lowercase()
            .cmp(&b.to_lowercase())
            .then_with(|| a.cmp(b))
    });
    let (negated, positive): (Vec<&String>, Vec<&String>) =
        patterns.iter().partition(|p| p.starts_with('!'));
    // npm reads `\` as `/` (a pattern written on Windows).
    let clean = |p: &str| {
        p.replace('\\', "/")
            .trim_start_matches('!')
            .trim_start_matches("./")
            .trim_end_matches('/')
            .to_owned()
    };
    let negated: Vec<String> = negated.iter().map(|p| clean(p)).collect();
    let mut ordered: Vec<String> = Vec::new();
    for p in &positive {
        let p = clean(p);
        for d in &dirs {
            if path_match(&p, d)
                && !negated.iter().any(|n| path_match(n, d))
                && !ordered.contains(d)
            {
                ordered.push(d.clone());
            }
        }
    }
    let mut out: Vec<Package> = ordered
        .iter()
        .filter_map(|d| Package::read(&root.dir.join(d)))
        .collect();
    if matches!(manager, Manager::Pnpm { .. }) {
        out = topological(out);
    }
    out
}

/// Every directory below `dir` holding a `package.json`, relative to the workspace root, outside
/// `node_modules` and hidden directories.
fn package_dirs(dir: &Path, rel: &str, depth: usize, out: &mut Vec<String>) {
    if depth >= MEMBER_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "node_modules" || name.starts_with('.') {
            continue;
        }
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let r = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if e.path().join("package.json").is_file() {
            out.push(r.clone());
        }
        package_dirs(&e.path(), &r, depth + 1, out);
    }
}

/// Whether the relative directory `dir` matches the workspace glob `pattern` (`*` one level,
/// `**` any number of levels), component by component.
pub(crate) fn path_match(pattern: &str, dir: &str) -> bool {
    let p: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let d: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    components(&p, &d)
}

fn components(p: &[&str], d: &[&str]) -> bool {
    match p.split_first() {
        None => d.is_empty(),
        Some((&"**", rest)) => (0..=d.len()).any(|i| components(rest, &d[i..])),
        Some((first, rest)) => d
            .split_first()
            .is_some_and(|(x, drest)| super::shell::fnmatch(first, x) && components(rest, drest)),
    }
}

/// `packages` with each one's workspace dependencies before it; otherwise in the order given.
fn topological(packages: Vec<Package>) -> Vec<Package> {
    let names: Vec<String> = packages.iter().map(Package::name).collect();
    let deps: Vec<Vec<usize>> = packages
        .iter()
        .map(|p| {
            p.deps()
                .iter()
                .filter_map(|d| names.iter().position(|n| n == d))
                .collect()
        })
        .collect();
    let mut done = vec![false; packages.len()];
    let mut order: Vec<usize> = Vec::new();
    while order.len() < packages.len() {
        let ready =
            (0..packages.len()).find(|&i| !done[i] && deps[i].iter().all(|&j| done[j] || j == i));
        // A cycle: the first left, as pnpm runs one.
        let i = ready.unwrap_or_else(|| (0..packages.len()).find(|&i| !done[i]).unwrap_or(0));
        done[i] = true;
        order.push(i);
    }
    let mut slots: Vec<Option<Package>> = packages.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// Scripts matching an npm-run-all pattern (`test:*`: `*` stays within one `:`-separated
/// part, `**` spans them), in the order `package.json` lists them.
pub(crate) fn matching_scripts<'a>(pkg: &'a Package, pattern: &str) -> Vec<&'a str> {
    if !pattern.contains('*') {
        return pkg
            .scripts()
            .into_iter()
            .filter(|s| *s == pattern)
            .collect();
    }
    let p: Vec<&str> = pattern.split(':').collect();
    pkg.scripts()
        .into_iter()
        .filter(|s| {
            let d: Vec<&str> = s.split(':').collect();
            components(&p, &d)
        })
        .collect()
}

/// A package's scripts keyed for look-up, for tests.
#[cfg(test)]
pub(crate) fn scripts_of(pkg: &Package) -> std::collections::BTreeMap<String, String> {
    pkg.scripts()
        .into_iter()
        .filter_map(|s| Some((s.to_owned(), pkg.script(s)?.to_owned())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use pith_testkit::write_file as write;

    #[test]
    fn the_manager_is_the_declared_one_else_the_lockfiles() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(root, "package.json", "{}");
        assert_eq!(Manager::of(root), Manager::Npm);
        write(root, "pnpm-lock.yaml", "lockfileVersion: '6.0'\n");
        assert_eq!(Manager::of(root), Manager::Pnpm { pre_post: false });
        write(root, ".npmrc", "enable-pre-post-scripts=true\n");
        assert_eq!(Manager::of(root), Manager::Pnpm { pre_post: true });
        write(root, "package.json", r#"{"packageManager":"yarn@4.1.0"}"#);
        assert_eq!(Manager::of(&root.join("packages/a")), Manager::YarnBerry);
        write(root, "package.json", r#"{"packageManager":"yarn@1.22.19"}"#);
        assert_eq!(Manager::of(root), Manager::Yarn1);
        write(
            root,
            "package.json",
            r#"{"packageManager":"pnpm@9.4.0+sha512.abc"}"#,
        );
        assert!(Manager::of(root).runs_pre_post());
        assert!(!Manager::YarnBerry.runs_pre_post());
        assert_eq!(pnpm_lock_major("lockfileVersion: '9.0'\n"), Some(9));
        assert_eq!(pnpm_lock_major("lockfileVersion: 5.4\n"), Some(7));
    }

    #[test]
    fn members_come_in_the_tools_order() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(
            root,
            "package.json",
            r#"{"workspaces":["tools/x","packages/*","!packages/skip"]}"#,
        );
        write(
            root,
            "packages/b/package.json",
            r#"{"name":"b","dependencies":{"a":"*"}}"#,
        );
        write(root, "packages/a/package.json", r#"{"name":"a"}"#);
        write(root, "packages/skip/package.json", r#"{"name":"skip"}"#);
        write(
            root,
            "packages/a/node_modules/z/package.json",
            r#"{"name":"z"}"#,
        );
        write(root, "tools/x/package.json", r#"{"name":"x"}"#);
        let names = |m: Manager| -> Vec<String> {
            let pkg = Package::read(root).unwrap();
            members(&pkg, m).iter().map(Package::name).collect()
        };
        assert_eq!(names(Manager::Npm), ["x", "a", "b"]);
        write(
            root,
            "pnpm-workspace.yaml",
            "packages:\n  - 'packages/*'\n  # no\n  - \"!packages/skip\"\nother: 1\n",
        );
        assert_eq!(names(Manager::Pnpm { pre_post: true }), ["a", "b"]);
        write(
            root,
            "package.json",
            r#"{"workspaces":{"packages":["packages/**"]}}"#,
        );
        assert_eq!(names(Manager::Npm), ["a", "b", "skip"]);
        // Written on Windows: npm reads `\` as `/`.
        write(
            root,
            "package.json",
            r#"{"workspaces":["packages\\b","tools\\x"]}"#,
        );
        assert_eq!(names(Manager::Npm), ["b", "x"]);
    }

    #[test]
    fn package_env_is_flattened_as_npm_flattens_it() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "package.json",
            r#"{"name":"p","version":"1.0.0","config":{"port":8080,"deep":{"x":true}},"bin":"cli.js"}"#,
        );
        let env = Package::read(d.path()).unwrap().env();
        for pair in [
            ("npm_package_name", "p"),
            ("npm_package_version", "1.0.0"),
            ("npm_package_config_port", "8080"),
            ("npm_package_config_deep_x", "true"),
            ("npm_package_bin", "cli.js"),
        ] {
            assert!(
                env.contains(&(pair.0.to_owned(), pair.1.to_owned())),
                "{pair:?} in {env:?}"
            );
        }
    }

    #[test]
    fn npm_run_all_patterns_stay_within_a_part() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "package.json",
            r#"{"scripts":{"test:a":"x","test:b:c":"y","lint":"z"}}"#,
        );
        let pkg = Package::read(d.path()).unwrap();
        assert_eq!(matching_scripts(&pkg, "test:*"), ["test:a"]);
        assert_eq!(matching_scripts(&pkg, "test:**"), ["test:a", "test:b:c"]);
        assert_eq!(matching_scripts(&pkg, "lint"), ["lint"]);
        assert!(matching_scripts(&pkg, "nope").is_empty());
        assert_eq!(scripts_of(&pkg).len(), 3);
    }
}
