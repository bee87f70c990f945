//! The package managers' own commands inside a script, read as each tool runs them (see
//! `pm` for their rules): `npm test`/`npm run X` with `--workspaces`, `-w`, `--if-present`;
//! `pnpm X`, `pnpm -r`, `pnpm --filter`; `yarn X`, `yarn workspaces run` (yarn 1), `yarn
//! workspaces foreach` (yarn 2+), `yarn workspace a X`; `bun run X`; `run-s`/`run-p`/
//! `npm-run-all`. What pith does not read among them runs as written.

use std::path::{Path, PathBuf};

use super::super::pm::{self, Manager, Package};
use super::super::shell;
use super::{lookup, ok_status, Builder, Call, Code, Each, Invoke, Status, Step};

impl Builder {
    /// `npm test`, `npm run X`, with workspaces and `--if-present`; `npm exec`.
    pub(super) fn npm(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, scope, depth, ..
        } = call;
        let env = call.env.clone();
        let mut o = Options::default();
        let mut positional: Vec<String> = Vec::new();
        let mut passed: Vec<String> = Vec::new();
        let mut i = 1;
        while let Some(a) = args.get(i) {
            i += 1;
            if a == "--" {
                passed.extend(args[i..].iter().cloned());
                break;
            }
            if !a.starts_with('-') || a == "-" {
                positional.push(a.clone());
                continue;
            }
            // npm takes a long option behind one dash too (`-workspaces`).
            let long;
            let a = if !a.starts_with("--") && a.len() > 3 {
                long = format!("-{a}");
                &long
            } else {
                a
            };
            let (flag, value) = match a.split_once('=') {
                Some((f, v)) => (f, Some(v.to_owned())),
                None => (a.as_str(), None),
            };
            let mut value_or_next = || {
                value.clone().or_else(|| {
                    i += 1;
                    args.get(i - 1).cloned()
                })
            };
            match flag {
                "--workspaces" | "--ws" | "-ws" => o.all = value.as_deref() != Some("false"),
                "--workspace" | "-w" => o.filters.extend(value_or_next()),
                "--include-workspace-root" | "-iwr" => o.include_root = true,
                "--if-present" => o.if_present = true,
                "--ignore-scripts" => o.ignore_scripts = true,
                "--prefix" | "-C" => o.dir = value_or_next().map(|d| scope.cwd.join(d)),
                "--loglevel" | "--userconfig" | "--cache" | "--registry" => {
                    let _ = value_or_next();
                }
                // A shell other than sh, node options for the scripts: not what pith reads.
                "--script-shell" | "--node-options" | "--shell" | "--call" | "-c" => {
                    return self.verbatim(&call)
                }
                // npm's other options are its configuration, not the script's.
                _ => {}
            }
        }
        let (name, rest) = match positional.first().map(String::as_str) {
            Some("test" | "t" | "tst") => {
                let mut rest = positional[1..].to_vec();
                rest.extend(passed);
                ("test".to_owned(), rest)
            }
            Some("run" | "run-script" | "rum" | "urn") => match positional.get(1) {
                Some(n) => {
                    let mut rest = positional[2..].to_vec();
                    rest.extend(passed);
                    (n.clone(), rest)
                }
                None => return self.verbatim(&call),
            },
            Some("exec" | "x") if o.filters.is_empty() && !o.all => {
                let mut cmd = positional[1..].to_vec();
                cmd.extend(passed);
                return self.dispatch(call.then(&cmd, env));
            }
            _ => return self.verbatim(&call),
        };
        let dir = o.dir.clone().unwrap_or_else(|| scope.cwd.clone());
        let Some(pkg) = Package::around(&dir) else {
            return self.verbatim(&call);
        };
        let invoke = Invoke {
            if_present: o.if_present,
            ignore_scripts: o.ignore_scripts,
            top: false,
        };
        if !o.all && o.filters.is_empty() {
            return self.script_with(&pkg, &name, &rest, invoke, env, depth);
        }
        let members = pm::members(&pkg, self.manager);
        self.members.extend(members.iter().map(|m| m.dir.clone()));
        let chosen: Vec<&Package> = members
            .iter()
            .filter(|m| o.all || o.filters.iter().any(|f| npm_filter(f, m, &pkg, &dir)))
            .collect();
        if chosen.is_empty() && !o.include_root {
            return Step::Status(Status {
                code: 1,
                tool: "npm".to_owned(),
                home: pkg.dir.clone(),
                message: "No workspaces found".to_owned(),
            });
        }
        let mut parts: Vec<Step> = Vec::new();
        if o.include_root {
            parts.push(self.script_with(&pkg, &name, &rest, invoke, env.clone(), depth));
        }
        for m in chosen {
            parts.push(self.script_with(m, &name, &rest, invoke, env.clone(), depth));
        }
        Step::Each(Each {
            parts,
            bail: false,
            code: Code::Last,
        })
    }

    /// `pnpm test`, `pnpm run X`, `pnpm X`, `pnpm -r test`, `pnpm --filter a test`,
    /// `pnpm exec`.
    pub(super) fn pnpm(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, scope, depth, ..
        } = call;
        let env = call.env.clone();
        let mut o = Options::default();
        let mut bail = true;
        let mut i = 1;
        let mut sub: Option<(usize, String)> = None;
        while let Some(a) = args.get(i) {
            i += 1;
            let (flag, value) = match a.split_once('=') {
                Some((f, v)) if a.starts_with('-') => (f, Some(v.to_owned())),
                _ => (a.as_str(), None),
            };
            match flag {
                "-r" | "--recursive" => o.all = true,
                "--filter" | "-F" => {
                    let v = value.or_else(|| {
                        i += 1;
                        args.get(i - 1).cloned()
                    });
                    o.filters.extend(v);
                }
                "--no-bail" => bail = false,
                "--bail" => bail = true,
                "--if-present" => o.if_present = true,
                "--include-workspace-root" => o.include_root = true,
                "-C" | "--dir" => {
                    let v = value.or_else(|| {
                        i += 1;
                        args.get(i - 1).cloned()
                    });
                    o.dir = v.map(|d| scope.cwd.join(d));
                }
                "--workspace-concurrency"
                | "--reporter"
                | "--resume-from"
                | "--changed-files-ignore-pattern"
                | "--test-pattern" => {
                    if flag == "--resume-from" {
                        return self.verbatim(&call);
                    }
                    if value.is_none() {
                        i += 1;
                    }
                }
                f if f.starts_with('-') => {}
                _ => {
                    sub = Some((i, a.clone()));
                    break;
                }
            }
        }
        let Some((after, sub)) = sub else {
            return self.verbatim(&call);
        };
        let dir = o.dir.clone().unwrap_or_else(|| scope.cwd.clone());
        let rest: Vec<String> = args[after..].to_vec();
        let (name, passed) = match sub.as_str() {
            "test" | "t" | "tst" => ("test".to_owned(), rest),
            "run" | "run-script" => match rest.iter().position(|a| !a.starts_with('-')) {
                Some(p) => {
                    for f in &rest[..p] {
                        if f == "--if-present" {
                            o.if_present = true;
                        }
                    }
                    let n = rest[p].clone();
                    if n.starts_with('/') {
                        // A regular expression over script names.
                        return self.verbatim(&call);
                    }
                    (n, rest[p + 1..].to_vec())
                }
                None => return self.verbatim(&call),
            },
            "exec" if !o.all && o.filters.is_empty() => {
                return self.dispatch(call.then(&args[after..], env))
            }
            s if PNPM_COMMANDS.contains(&s) => return self.verbatim(&call),
            s => {
                let pkg = Package::around(&dir);
                if !o.all
                    && o.filters.is_empty()
                    && pkg.as_ref().is_none_or(|p| p.script(s).is_none())
                {
                    // Not a script: pnpm runs it as a command.
                    return self.dispatch(call.then(&args[after - 1..], env));
                }
                (s.to_owned(), rest)
            }
        };
        let passed: Vec<String> = match passed.split_first() {
            Some((dd, tail)) if dd == "--" => tail.to_vec(),
            _ => passed,
        };
        let Some(pkg) = Package::around(&dir) else {
            return self.verbatim(&call);
        };
        let invoke = Invoke {
            if_present: o.if_present,
            ..Invoke::default()
        };
        if !o.all && o.filters.is_empty() {
            return self.script_with(&pkg, &name, &passed, invoke, env, depth);
        }
        // The workspace root: the package declaring the workspace, up from here.
        let root = dir
            .ancestors()
            .find(|d| d.join("pnpm-workspace.yaml").is_file())
            .and_then(Package::read)
            .unwrap_or(pkg);
        let members = pm::members(&root, self.manager);
        self.members.extend(members.iter().map(|m| m.dir.clone()));
        let mut pool: Vec<&Package> = Vec::new();
        if o.include_root || !o.filters.is_empty() {
            pool.push(&root);
        }
        pool.extend(members.iter());
        let mut chosen: Vec<&Package> = Vec::new();
        for p in pool {
            let keep = if o.filters.is_empty() {
                true
            } else {
                match pnpm_filter(&o.filters, p, &root) {
                    Some(k) => k,
                    None => return self.verbatim(&call),
                }
            };
            if keep && !(o.all && o.filters.is_empty() && p.dir == root.dir && !o.include_root) {
                chosen.push(p);
            }
        }
        let with_script: Vec<&Package> = chosen
            .into_iter()
            .filter(|p| p.script(&name).is_some())
            .collect();
        if with_script.is_empty() {
            if o.if_present {
                return ok_status(&root.dir);
            }
            return Step::Status(Status {
                code: 1,
                tool: "pnpm".to_owned(),
                home: root.dir.clone(),
                message: format!("None of the selected packages has a \"{name}\" script"),
            });
        }
        let invoke = Invoke {
            if_present: true,
            ..invoke
        };
        let parts = with_script
            .into_iter()
            .map(|p| self.script_with(p, &name, &passed, invoke, env.clone(), depth))
            .collect();
        Step::Each(Each {
            parts,
            bail,
            code: if bail { Code::First } else { Code::One },
        })
    }

    /// `yarn test`, `yarn X`, `yarn run X`, `yarn workspaces run X` (yarn 1), `yarn
    /// workspaces foreach ... run X` (yarn 2+), `yarn workspace a X`, `yarn exec`.
    pub(super) fn yarn(&mut self, call: Call<'_>) -> Step {
        let Call {
            args,
            text,
            scope,
            depth,
            ..
        } = call;
        let env = call.env.clone();
        let mut i = 1;
        let mut dir = scope.cwd.clone();
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "--silent" | "-s" | "--verbose" | "--offline" | "--frozen-lockfile" => i += 1,
                "--cwd" => {
                    if let Some(d) = args.get(i + 1) {
                        dir = scope.cwd.join(d);
                    }
                    i += 2;
                }
                a if a.starts_with("--cwd=") => {
                    dir = scope.cwd.join(&a[6..]);
                    i += 1;
                }
                a if a.starts_with('-') => return self.verbatim(&call),
                _ => break,
            }
        }
        let Some(sub) = args.get(i) else {
            return self.verbatim(&call);
        };
        let Some(pkg) = Package::around(&dir) else {
            return self.verbatim(&call);
        };
        let rest = &args[i + 1..];
        match sub.as_str() {
            "workspaces" => self.yarn_workspaces(call, i + 1, &pkg),
            "workspace" => {
                let Some((name, cmd)) = rest.split_first() else {
                    return self.verbatim(&call);
                };
                let root = workspace_root(&pkg.dir, self.manager).unwrap_or_else(|| pkg.clone());
                let members = pm::members(&root, self.manager);
                let Some(m) = members.iter().find(|m| &m.name() == name) else {
                    return self.verbatim(&call);
                };
                self.members.push(m.dir.clone());
                let m = m.clone();
                let mut inner = vec!["yarn".to_owned()];
                inner.extend(cmd.iter().cloned());
                let mut s = scope.clone();
                s.cwd = m.dir.clone();
                self.yarn(Call {
                    args: &inner,
                    env,
                    text,
                    scope: &s,
                    depth,
                })
            }
            "run" => match rest.split_first() {
                Some((name, passed)) if pkg.script(name).is_some() => {
                    self.script_with(&pkg, name, passed, Invoke::default(), env, depth)
                }
                // `yarn run <bin>`.
                Some(_) => self.dispatch(call.then(rest, env)),
                None => self.verbatim(&call),
            },
            "exec" => self.dispatch(call.then(rest, env)),
            s if pkg.script(s).is_some() => {
                self.script_with(&pkg, s, rest, Invoke::default(), env, depth)
            }
            s if YARN_COMMANDS.contains(&s) => self.verbatim(&call),
            // `yarn jest`: a package's binary.
            _ => self.dispatch(call.then(&args[i..], env)),
        }
    }

    /// `yarn workspaces ...`, its words after `workspaces` from `at`, run from `pkg`.
    fn yarn_workspaces(&mut self, call: Call<'_>, at: usize, pkg: &Package) -> Step {
        let Call {
            args, scope, depth, ..
        } = call;
        let env = call.env.clone();
        let rest = &args[at..];
        let root = workspace_root(&pkg.dir, self.manager).unwrap_or_else(|| pkg.clone());
        let members = pm::members(&root, self.manager);
        match rest.first().map(String::as_str) {
            // yarn 1: every package in order, each must have the script, the first failure
            // stops the rest.
            Some("run") if self.manager != Manager::YarnBerry => {
                let Some((name, passed)) = rest[1..].split_first() else {
                    return self.verbatim(&call);
                };
                self.members.extend(members.iter().map(|m| m.dir.clone()));
                let parts = members
                    .iter()
                    .map(|m| {
                        self.script_with(m, name, passed, Invoke::default(), env.clone(), depth)
                    })
                    .collect();
                Step::Each(Each {
                    parts,
                    bail: true,
                    code: Code::One,
                })
            }
            // yarn 2+: the selected packages that have the script, all of them, 1 if any
            // failed.
            Some("foreach") => {
                let mut j = 1;
                let (mut all, mut worktree) = (false, false);
                let mut include: Vec<String> = Vec::new();
                let mut exclude: Vec<String> = Vec::new();
                while let Some(a) = rest.get(j) {
                    match a.as_str() {
                        "-A" | "--all" => all = true,
                        "-W" | "--worktree" => worktree = true,
                        "-p" | "--parallel" | "-i" | "--interlaced" | "-v" | "--verbose" | "-t"
                        | "--topological" | "--topological-dev" | "--no-private" => {}
                        "-j" | "--jobs" => j += 1,
                        "--include" => {
                            include.extend(rest.get(j + 1).cloned());
                            j += 1;
                        }
                        "--exclude" => {
                            exclude.extend(rest.get(j + 1).cloned());
                            j += 1;
                        }
                        a if a.starts_with("--include=") => include.push(a[10..].to_owned()),
                        a if a.starts_with("--exclude=") => exclude.push(a[10..].to_owned()),
                        a if a.starts_with('-') => return self.verbatim(&call),
                        _ => break,
                    }
                    j += 1;
                }
                let (name, passed) = match rest.get(j..).unwrap_or(&[]) {
                    [run, name, passed @ ..] if run == "run" => (name.clone(), passed.to_vec()),
                    _ => return self.verbatim(&call),
                };
                let mut pool: Vec<&Package> = Vec::new();
                if all {
                    pool.push(&root);
                    pool.extend(members.iter());
                } else if worktree || !all {
                    // The current workspace and those below it.
                    pool.extend(
                        std::iter::once(&root)
                            .chain(members.iter())
                            .filter(|m| m.dir.starts_with(&pkg.dir)),
                    );
                }
                self.members.extend(members.iter().map(|m| m.dir.clone()));
                let rel = |p: &Package| {
                    p.dir
                        .strip_prefix(&root.dir)
                        .map(|r| r.to_string_lossy().into_owned())
                        .unwrap_or_default()
                };
                let hit = |pats: &[String], p: &Package| {
                    pats.iter()
                        .any(|g| shell::fnmatch(g, &p.name()) || pm::path_match(g, &rel(p)))
                };
                let chosen: Vec<&Package> = pool
                    .into_iter()
                    .filter(|p| p.script(&name).is_some())
                    // The package running foreach for this very script runs it no again.
                    .filter(|p| {
                        !(p.dir == scope.pkg.dir
                            && lookup(&scope.env, "npm_lifecycle_event").as_deref()
                                == Some(name.as_str()))
                    })
                    .filter(|p| include.is_empty() || hit(&include, p))
                    .filter(|p| !hit(&exclude, p))
                    .collect();
                let parts = chosen
                    .into_iter()
                    .map(|m| {
                        self.script_with(m, &name, &passed, Invoke::default(), env.clone(), depth)
                    })
                    .collect();
                Step::Each(Each {
                    parts,
                    bail: false,
                    code: Code::One,
                })
            }
            _ => self.verbatim(&call),
        }
    }

    /// `bun run X`, `bun X` for a script; `bun test` is bun's own runner, run as written.
    pub(super) fn bun(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, scope, depth, ..
        } = call;
        let env = call.env.clone();
        let Some(pkg) = Package::around(&scope.cwd) else {
            return self.verbatim(&call);
        };
        match args.get(1).map(String::as_str) {
            Some("run") => match args.get(2) {
                Some(n) if pkg.script(n).is_some() => {
                    self.script_with(&pkg, n, &args[3..], Invoke::default(), env, depth)
                }
                _ => self.verbatim(&call),
            },
            Some("x") => self.dispatch(call.then(&args[2..], env)),
            Some(n) if n != "test" && pkg.script(n).is_some() => {
                self.script_with(&pkg, n, &args[2..], Invoke::default(), env, depth)
            }
            _ => self.verbatim(&call),
        }
    }

    /// `run-s a b:*`, `run-p`, `npm-run-all`: each matching script by the package manager's
    /// rules, one after another; sequentially the first failure stops the rest (in parallel
    /// it aborts the others: nothing after it completes either), unless
    /// `--continue-on-error`.
    pub(super) fn run_all(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, scope, depth, ..
        } = call;
        let env = call.env.clone();
        let mut patterns: Vec<&str> = Vec::new();
        let mut bail = true;
        let mut i = 1;
        while let Some(a) = args.get(i) {
            i += 1;
            match a.as_str() {
                "-s" | "--sequential" | "--serial" | "-p" | "--parallel" | "-l"
                | "--print-label" | "-n" | "--print-name" | "--silent" | "--aggregate-output"
                | "-r" | "--race" => {}
                "-c" | "--continue-on-error" => bail = false,
                "--max-parallel" => i += 1,
                // Arguments for placeholders, another npm: not what pith reads.
                _ if a.starts_with('-') => return self.verbatim(&call),
                // A pattern with its own arguments (`"test -- --x"`).
                _ if a.contains(' ') => return self.verbatim(&call),
                _ => patterns.push(a),
            }
        }
        let Some(pkg) = Package::around(&scope.cwd) else {
            return self.verbatim(&call);
        };
        let mut names: Vec<String> = Vec::new();
        for p in patterns {
            let found = pm::matching_scripts(&pkg, p);
            if found.is_empty() {
                return Step::Status(Status {
                    code: 1,
                    tool: args[0]
                        .rsplit('/')
                        .next()
                        .unwrap_or("npm-run-all")
                        .to_owned(),
                    home: pkg.dir.clone(),
                    message: format!("Task not found: \"{p}\""),
                });
            }
            names.extend(found.into_iter().map(str::to_owned));
        }
        let parts = names
            .iter()
            .map(|n| self.script_with(&pkg, n, &[], Invoke::default(), env.clone(), depth))
            .collect();
        Step::Each(Each {
            parts,
            bail,
            code: Code::One,
        })
    }
}

/// pnpm's own commands: never a script name after `pnpm`.
const PNPM_COMMANDS: &[&str] = &[
    "install",
    "i",
    "add",
    "remove",
    "rm",
    "update",
    "up",
    "link",
    "unlink",
    "import",
    "rebuild",
    "prune",
    "fetch",
    "audit",
    "list",
    "ls",
    "outdated",
    "why",
    "publish",
    "pack",
    "store",
    "root",
    "bin",
    "dlx",
    "create",
    "env",
    "setup",
    "server",
    "patch",
    "patch-commit",
    "deploy",
    "licenses",
    "config",
    "init",
    "doctor",
    "start",
];

/// yarn's own commands.
const YARN_COMMANDS: &[&str] = &[
    "install",
    "add",
    "remove",
    "upgrade",
    "up",
    "why",
    "info",
    "config",
    "cache",
    "global",
    "link",
    "unlink",
    "pack",
    "publish",
    "version",
    "init",
    "dlx",
    "node",
    "set",
    "plugin",
    "constraints",
    "npm",
    "patch",
    "rebuild",
    "dedupe",
    "explain",
    "bin",
    "licenses",
    "outdated",
    "audit",
    "check",
    "import",
    "list",
    "login",
    "logout",
    "owner",
    "policies",
    "tag",
    "team",
    "upgrade-interactive",
    "generate-lock-entry",
    "autoclean",
];

/// Options of a package manager's run.
#[derive(Default)]
struct Options {
    all: bool,
    filters: Vec<String>,
    include_root: bool,
    if_present: bool,
    ignore_scripts: bool,
    dir: Option<PathBuf>,
}

/// npm's `--workspace` filter: a package's name, its directory, or a directory holding it.
fn npm_filter(f: &str, m: &Package, root: &Package, cwd: &Path) -> bool {
    if f == m.name() {
        return true;
    }
    let target = cwd.join(f);
    let target = target.canonicalize().unwrap_or(target);
    let dir = m.dir.canonicalize().unwrap_or_else(|_| m.dir.clone());
    if target == dir {
        return true;
    }
    let rel = dir
        .strip_prefix(root.dir.canonicalize().unwrap_or_else(|_| root.dir.clone()))
        .map(|r| r.to_string_lossy().into_owned())
        .unwrap_or_default();
    let f = f.trim_start_matches("./").trim_end_matches('/');
    pm::path_match(&format!("{f}/*"), &rel)
}

/// pnpm's `--filter` selectors: names (globs), `./dir` and `{dir}` paths, `!` exclusions.
/// `None` for selectors of dependencies or changes (`a...`, `...a`, `[origin/main]`), which
/// pith does not resolve.
fn pnpm_filter(filters: &[String], p: &Package, root: &Package) -> Option<bool> {
    let rel = p
        .dir
        .strip_prefix(&root.dir)
        .map(|r| r.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut any_positive = false;
    let mut hit = false;
    for f in filters {
        let (neg, sel) = match f.strip_prefix('!') {
            Some(s) => (true, s),
            None => (false, f.as_str()),
        };
        if sel.contains("...") || sel.contains('[') || sel.starts_with('^') {
            return None;
        }
        let m = if let Some(path) = sel
            .strip_prefix("./")
            .or_else(|| sel.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        {
            let path = path.trim_start_matches("./").trim_end_matches('/');
            path == rel
                || pm::path_match(path, &rel)
                || rel.starts_with(&format!("{path}/"))
                || (path == "." && rel.is_empty())
        } else if sel == "." {
            rel.is_empty()
        } else {
            shell::fnmatch(sel, &p.name())
        };
        if neg {
            if m {
                return Some(false);
            }
        } else {
            any_positive = true;
            hit |= m;
        }
    }
    Some(hit || !any_positive)
}

/// The workspace root of the package in `dir`: the nearest package up from it that declares
/// workspaces.
fn workspace_root(dir: &Path, manager: Manager) -> Option<Package> {
    dir.ancestors()
        .filter_map(Package::read)
        .find(|p| !p.workspace_patterns(manager).is_empty())
}
