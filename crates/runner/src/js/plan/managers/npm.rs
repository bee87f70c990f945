//! npm's own commands inside a script: `npm test`, `npm run X` with `--workspaces`, `-w` and
//! `--if-present`, and `npm exec`, read as npm runs them.

use std::path::Path;

use crate::js::pm::{self, Package};

use super::super::{Builder, Call, Code, Each, Invoke, Status, Step};
use super::Options;

impl Builder {
    /// `npm test`, `npm run X`, with workspaces and `--if-present`; `npm exec`.
    pub(crate) fn npm(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, scope, depth, ..
        } = call;
        let env = call.env.clone();
        let Some((o, positional, passed)) = npm_line(args, &scope.cwd) else {
            return self.verbatim(&call);
        };
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
}

/// npm's words after `npm`, read as npm reads them: its options, its positional words and the
/// words after `--`. `None` for options that change how scripts run in ways pith does not
/// read (another shell, node options for the scripts).
fn npm_line(args: &[String], cwd: &Path) -> Option<(Options, Vec<String>, Vec<String>)> {
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
            "--prefix" | "-C" => o.dir = value_or_next().map(|d| cwd.join(d)),
            "--loglevel" | "--userconfig" | "--cache" | "--registry" => {
                let _ = value_or_next();
            }
            // A shell other than sh, node options for the scripts: not what pith reads.
            "--script-shell" | "--node-options" | "--shell" | "--call" | "-c" => return None,
            // npm's other options are its configuration, not the script's.
            _ => {}
        }
    }
    Some((o, positional, passed))
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
