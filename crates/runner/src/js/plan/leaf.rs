//! Where a command is followed no further: a runner pith observes, run where and as the script
//! runs it, or a command run as written (its argv when its program is found as sh finds it,
//! else sh runs its text), each with the name the answer gives it.

use std::path::{Path, PathBuf};

use super::super::package::{Runner, Script};
use super::super::shell;
use super::super::Js;
use super::{lookup, Builder, Call, Scope, Step, Verbatim};

impl Builder {
    /// A runner pith observes, run where the script runs it with the script's environment.
    pub(super) fn observed(
        &mut self,
        runner: Runner,
        script: Script,
        args: &[String],
        mut env: Vec<(String, String)>,
        text: &str,
        scope: &Scope,
    ) -> Step {
        let mut all = scope.env.clone();
        all.append(&mut env);
        let path = lookup(&all, "PATH").or_else(|| self.caller.get("PATH").cloned());
        let program = match runner {
            Runner::Node => resolve("node", &scope.cwd, path.as_deref()),
            Runner::Jest | Runner::Vitest | Runner::Mocha => {
                let name = runner.name();
                let first = &args[0];
                if first.rsplit('/').next() == Some(name) {
                    resolve(first, &scope.cwd, path.as_deref())
                } else {
                    // `node [options] <the runner's script>`: its `.bin` program, as before.
                    resolve(name, &scope.cwd, path.as_deref())
                }
            }
        };
        self.observed += 1;
        Step::Observed(Box::new(Js {
            runner,
            dir: scope.cwd.clone(),
            script,
            env: all,
            program,
            wrappers: Vec::new(),
            home: scope.pkg.dir.clone(),
            text: text.to_owned(),
        }))
    }

    /// A command run as written: argv through the script's `PATH`, or `sh -c` for a shell
    /// builtin and a program `PATH` does not hold (sh then says it is not found).
    pub(super) fn verbatim(&mut self, call: &Call<'_>) -> Step {
        let Call {
            args, text, scope, ..
        } = *call;
        let env = call.env.clone();
        let mut all = scope.env.clone();
        all.extend(env);
        let name = program_name(args);
        let tsc = is_tsc(args);
        let path = lookup(&all, "PATH").or_else(|| self.caller.get("PATH").cloned());
        let resolved = args
            .first()
            .filter(|p| !BUILTINS.contains(&p.as_str()))
            .and_then(|p| resolve(p, &scope.cwd, path.as_deref()));
        let (argv, text) = match resolved {
            Some(p) => {
                let mut argv = vec![p.to_string_lossy().into_owned()];
                argv.extend(args[1..].iter().cloned());
                (Some(argv), text.to_owned())
            }
            None => (
                None,
                args.iter()
                    .map(|a| shell::quote(a))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        };
        Step::Verbatim(Verbatim {
            dir: scope.cwd.clone(),
            home: scope.pkg.dir.clone(),
            env: all,
            argv,
            text,
            name,
            tsc,
        })
    }

    /// Text sh runs itself.
    pub(super) fn verbatim_sh(&self, text: &str, scope: &Scope, env: &[(String, String)]) -> Step {
        let words: Vec<String> = shell::parse(text, &|_| None)
            .first()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .unwrap_or_default();
        let first: Vec<String> = words
            .iter()
            .skip_while(|w| w.contains('=') && shell::is_name(w.split('=').next().unwrap_or("")))
            .cloned()
            .collect();
        let mut all = scope.env.clone();
        all.extend(env.iter().cloned());
        Step::Verbatim(Verbatim {
            dir: scope.cwd.clone(),
            home: scope.pkg.dir.clone(),
            env: all,
            argv: None,
            text: text.to_owned(),
            name: if first.is_empty() {
                "sh".to_owned()
            } else {
                program_name(&first)
            },
            tsc: is_tsc(&first),
        })
    }
}

/// Shell builtins: sh runs them, not an executable.
const BUILTINS: &[&str] = &[
    "exit", ":", ".", "source", "eval", "exec", "set", "unset", "shift", "trap", "return",
    "readonly", "umask", "ulimit", "type", "command", "alias", "unalias", "hash", "times", "read",
    "wait", "break", "continue", "getopts", "local",
];

/// A program as sh finds it: a path with a `/` from `cwd`, else the first executable of that
/// name on `path`.
pub(super) fn resolve(program: &str, cwd: &Path, path: Option<&str>) -> Option<PathBuf> {
    if program.contains('/') {
        let p = cwd.join(program);
        return crate::is_executable(&p).then_some(p);
    }
    path?
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| cwd.join(d).join(program))
        .find(|p| crate::is_executable(p))
}

/// What the answer calls a command: its program's name, or the runner a `node` runs.
fn program_name(args: &[String]) -> String {
    let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_owned();
    match args.first() {
        Some(p) if base(p) == "node" => args[1..]
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(|a| {
                let b = base(a);
                b.strip_suffix(".js").map(str::to_owned).unwrap_or(b)
            })
            .unwrap_or_else(|| "node".to_owned()),
        Some(p) => base(p),
        None => "sh".to_owned(),
    }
}

fn is_tsc(args: &[String]) -> bool {
    matches!(program_name(args).as_str(), "tsc" | "vue-tsc" | "tsgo")
}
