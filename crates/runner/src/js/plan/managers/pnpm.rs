//! pnpm's own commands inside a script: `pnpm test`, `pnpm run X`, `pnpm X`, with `-r`,
//! `--filter` and `--if-present`, and `pnpm exec`, read as pnpm runs them: a workspace run
//! takes the selected packages that have the script, each in turn.

use std::path::Path;

use crate::js::pm::{self, Package};
use crate::js::shell;

use super::super::{ok_status, Builder, Call, Code, Each, Invoke, Status, Step};
use super::Options;

impl Builder {
    /// `pnpm test`, `pnpm run X`, `pnpm X`, `pnpm -r test`, `pnpm --filter a test`,
    /// `pnpm exec`.
    pub(crate) fn pnpm(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, scope, depth, ..
        } = call;
        let env = call.env.clone();
        let Some(Line {
            mut o,
            bail,
            after,
            sub,
        }) = pnpm_line(args, &scope.cwd)
        else {
            return self.verbatim(&call);
        };
        let dir = o.dir.clone().unwrap_or_else(|| scope.cwd.clone());
        let (name, passed) = match pnpm_named(args, &mut o, after, &sub, &dir) {
            Named::Script(name, passed) => (name, passed),
            Named::Command(at) => return self.dispatch(call.then(&args[at..], env)),
            Named::Unread => return self.verbatim(&call),
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
        let Some(chosen) = pnpm_chosen(&o, &root, &members) else {
            return self.verbatim(&call);
        };
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
}

/// pnpm's words up to its command, read as pnpm reads them.
struct Line {
    o: Options,
    /// The first failing package stops the rest (pnpm's default; `--no-bail`).
    bail: bool,
    /// Where the words after the command start.
    after: usize,
    /// The command: `test`, `run`, `exec`, a script's name, pnpm's own.
    sub: String,
}

/// pnpm's options before its command; `None` without a command, or with an option pith does
/// not follow (`--resume-from`).
fn pnpm_line(args: &[String], cwd: &Path) -> Option<Line> {
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
                o.dir = v.map(|d| cwd.join(d));
            }
            "--workspace-concurrency"
            | "--reporter"
            | "--resume-from"
            | "--changed-files-ignore-pattern"
            | "--test-pattern" => {
                if flag == "--resume-from" {
                    return None;
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
    let (after, sub) = sub?;
    Some(Line {
        o,
        bail,
        after,
        sub,
    })
}

/// What pnpm's command runs.
enum Named {
    /// A script by name, with the words after it.
    Script(String, Vec<String>),
    /// A command, from this word on (`pnpm exec`; a program that is no script, which pnpm
    /// runs).
    Command(usize),
    /// What pith does not read: it runs as written.
    Unread,
}

/// What `sub`, pnpm's command, names, its words from `after`; `run`'s own `--if-present` is
/// taken into the options.
fn pnpm_named(args: &[String], o: &mut Options, after: usize, sub: &str, dir: &Path) -> Named {
    let rest: Vec<String> = args[after..].to_vec();
    match sub {
        "test" | "t" | "tst" => Named::Script("test".to_owned(), rest),
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
                    return Named::Unread;
                }
                Named::Script(n, rest[p + 1..].to_vec())
            }
            None => Named::Unread,
        },
        "exec" if !o.all && o.filters.is_empty() => Named::Command(after),
        s if PNPM_COMMANDS.contains(&s) => Named::Unread,
        s => {
            let pkg = Package::around(dir);
            if !o.all && o.filters.is_empty() && pkg.as_ref().is_none_or(|p| p.script(s).is_none())
            {
                // Not a script: pnpm runs it as a command.
                return Named::Command(after - 1);
            }
            Named::Script(s.to_owned(), rest)
        }
    }
}

/// The packages a workspace run selects, before the script decides: every member (and the root
/// with `--include-workspace-root`), or what the filters select, the root included; `None`
/// for a filter pith does not resolve.
fn pnpm_chosen<'a>(
    o: &Options,
    root: &'a Package,
    members: &'a [Package],
) -> Option<Vec<&'a Package>> {
    let mut pool: Vec<&Package> = Vec::new();
    if o.include_root || !o.filters.is_empty() {
        pool.push(root);
    }
    pool.extend(members.iter());
    let mut chosen: Vec<&Package> = Vec::new();
    for p in pool {
        let keep = if o.filters.is_empty() {
            true
        } else {
            pnpm_filter(&o.filters, p, root)?
        };
        if keep && !(o.all && o.filters.is_empty() && p.dir == root.dir && !o.include_root) {
            chosen.push(p);
        }
    }
    Some(chosen)
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
