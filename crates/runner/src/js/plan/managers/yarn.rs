//! yarn's own commands inside a script: `yarn test`, `yarn X`, `yarn run X`, `yarn exec`,
//! `yarn workspace a X`, and the workspace runs of each major: `yarn workspaces run X` (yarn
//! 1) and `yarn workspaces foreach ... run X` (yarn 2+), read as each runs them.

use std::path::{Path, PathBuf};

use crate::js::pm::{self, Manager, Package};
use crate::js::shell;

use super::super::{lookup, Builder, Call, Code, Each, Invoke, Step};

impl Builder {
    /// `yarn test`, `yarn X`, `yarn run X`, `yarn workspaces run X` (yarn 1), `yarn
    /// workspaces foreach ... run X` (yarn 2+), `yarn workspace a X`, `yarn exec`.
    pub(crate) fn yarn(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, scope, depth, ..
        } = call;
        let env = call.env.clone();
        let Some((i, dir)) = yarn_line(args, &scope.cwd) else {
            return self.verbatim(&call);
        };
        let Some(sub) = args.get(i) else {
            return self.verbatim(&call);
        };
        let Some(pkg) = Package::around(&dir) else {
            return self.verbatim(&call);
        };
        let rest = &args[i + 1..];
        match sub.as_str() {
            "workspaces" => self.yarn_workspaces(call, i + 1, &pkg),
            "workspace" => self.yarn_workspace(call, &pkg, rest),
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

    /// `yarn workspace a X`: `yarn X` run in the member `a`.
    fn yarn_workspace(&mut self, call: Call<'_>, pkg: &Package, rest: &[String]) -> Step {
        let Call {
            text, scope, depth, ..
        } = call;
        let env = call.env.clone();
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

    /// `yarn workspaces ...`, its words after `workspaces` from `at`, run from `pkg`.
    fn yarn_workspaces(&mut self, call: Call<'_>, at: usize, pkg: &Package) -> Step {
        let rest = &call.args[at..];
        let root = workspace_root(&pkg.dir, self.manager).unwrap_or_else(|| pkg.clone());
        let members = pm::members(&root, self.manager);
        match rest.first().map(String::as_str) {
            // yarn 1: every package in order, each must have the script, the first failure
            // stops the rest.
            Some("run") if self.manager != Manager::YarnBerry => {
                self.yarn1_run(call, &rest[1..], &members)
            }
            // yarn 2+: the selected packages that have the script, all of them, 1 if any
            // failed.
            Some("foreach") => self.yarn_foreach(call, rest, pkg, &root, &members),
            _ => self.verbatim(&call),
        }
    }

    /// `yarn workspaces run X` (yarn 1), `words` after `run`.
    fn yarn1_run(&mut self, call: Call<'_>, words: &[String], members: &[Package]) -> Step {
        let depth = call.depth;
        let env = call.env.clone();
        let Some((name, passed)) = words.split_first() else {
            return self.verbatim(&call);
        };
        self.members.extend(members.iter().map(|m| m.dir.clone()));
        let parts = members
            .iter()
            .map(|m| self.script_with(m, name, passed, Invoke::default(), env.clone(), depth))
            .collect();
        Step::Each(Each {
            parts,
            bail: true,
            code: Code::One,
        })
    }

    /// `yarn workspaces foreach ... run X` (yarn 2+), `rest` from `foreach`, run from `pkg` in
    /// the workspace of `root`.
    fn yarn_foreach(
        &mut self,
        call: Call<'_>,
        rest: &[String],
        pkg: &Package,
        root: &Package,
        members: &[Package],
    ) -> Step {
        let Call { scope, depth, .. } = call;
        let env = call.env.clone();
        let Some(Foreach {
            all,
            worktree,
            include,
            exclude,
            at: j,
        }) = foreach_line(rest)
        else {
            return self.verbatim(&call);
        };
        let (name, passed) = match rest.get(j..).unwrap_or(&[]) {
            [run, name, passed @ ..] if run == "run" => (name.clone(), passed.to_vec()),
            _ => return self.verbatim(&call),
        };
        let mut pool: Vec<&Package> = Vec::new();
        if all {
            pool.push(root);
            pool.extend(members.iter());
        } else if worktree || !all {
            // The current workspace and those below it.
            pool.extend(
                std::iter::once(root)
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
                    && lookup(&scope.env, "npm_lifecycle_event").as_deref() == Some(name.as_str()))
            })
            .filter(|p| include.is_empty() || hit(&include, p))
            .filter(|p| !hit(&exclude, p))
            .collect();
        let parts = chosen
            .into_iter()
            .map(|m| self.script_with(m, &name, &passed, Invoke::default(), env.clone(), depth))
            .collect();
        Step::Each(Each {
            parts,
            bail: false,
            code: Code::One,
        })
    }
}

/// yarn's options before its command: where the command is, and the directory yarn runs in
/// (`--cwd`); `None` for an option pith does not read.
fn yarn_line(args: &[String], cwd: &Path) -> Option<(usize, PathBuf)> {
    let mut i = 1;
    let mut dir = cwd.to_path_buf();
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "--silent" | "-s" | "--verbose" | "--offline" | "--frozen-lockfile" => i += 1,
            "--cwd" => {
                if let Some(d) = args.get(i + 1) {
                    dir = cwd.join(d);
                }
                i += 2;
            }
            a if a.starts_with("--cwd=") => {
                dir = cwd.join(&a[6..]);
                i += 1;
            }
            a if a.starts_with('-') => return None,
            _ => break,
        }
    }
    Some((i, dir))
}

/// `yarn workspaces foreach`'s options as pith reads them.
struct Foreach {
    all: bool,
    worktree: bool,
    include: Vec<String>,
    exclude: Vec<String>,
    /// Where the words after the options start (`run X ...`).
    at: usize,
}

/// `foreach`'s options, `rest[0]` being `foreach`; `None` for an option pith does not read.
fn foreach_line(rest: &[String]) -> Option<Foreach> {
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
            a if a.starts_with('-') => return None,
            _ => break,
        }
        j += 1;
    }
    Some(Foreach {
        all,
        worktree,
        include,
        exclude,
        at: j,
    })
}

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

/// The workspace root of the package in `dir`: the nearest package up from it that declares
/// workspaces.
fn workspace_root(dir: &Path, manager: Manager) -> Option<Package> {
    dir.ancestors()
        .filter_map(Package::read)
        .find(|p| !p.workspace_patterns(manager).is_empty())
}
