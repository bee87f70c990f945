//! One command of a script: its assignments and sh's pattern expansion, `cd` and `export`
//! kept for the commands after it, then what its first word runs. Prefixes that only set the
//! environment or find the program (`cross-env`, `env`, `npx`) are read through; the package
//! managers' commands, wrappers, runners pith knows and everything else each go to their own.

use std::path::PathBuf;

use super::super::package;
use super::super::shell::{self, Cmd, Word};
use super::{ok_status, Builder, Call, Scope, Status, Step};

impl Builder {
    /// One command of a script.
    pub(super) fn command(&mut self, cmd: &Cmd, scope: &mut Scope, depth: usize) -> Step {
        if cmd.shell {
            return self.verbatim_sh(&cmd.text, scope, &[]);
        }
        let mut assigns: Vec<(String, String)> = Vec::new();
        let mut words: &[Word] = &cmd.words;
        while let Some((w, rest)) = words.split_first().filter(|(w, _)| w.assign) {
            if let Some((k, v)) = w.text.split_once('=') {
                assigns.push((k.to_owned(), v.to_owned()));
            }
            words = rest;
        }
        // sh expands patterns before the program sees them.
        let mut args: Vec<String> = Vec::new();
        for w in words {
            match w
                .pattern
                .as_deref()
                .and_then(|p| shell::expand(p, &scope.cwd))
            {
                Some(found) => args.extend(found),
                None => args.push(w.text.clone()),
            }
        }
        match args.first().map(String::as_str) {
            Some("cd") => return self.cd(&args, scope),
            Some("export") => {
                for a in &args[1..] {
                    if let Some((k, v)) = a.split_once('=').filter(|(k, _)| shell::is_name(k)) {
                        scope.env.push((k.to_owned(), v.to_owned()));
                    }
                }
                return ok_status(&scope.cwd);
            }
            _ => {}
        }
        self.dispatch(Call {
            args: &args,
            env: assigns,
            text: &cmd.text,
            scope,
            depth,
        })
    }

    fn cd(&mut self, args: &[String], scope: &mut Scope) -> Step {
        let target = match args.get(1).map(String::as_str) {
            None => self.caller.get("HOME").map(PathBuf::from),
            Some("-") => None,
            Some(d) => Some(scope.cwd.join(d)),
        };
        match target.filter(|t| t.is_dir()) {
            Some(t) => {
                scope.cwd = t.canonicalize().unwrap_or(t);
                ok_status(&scope.pkg.dir)
            }
            None => Step::Status(Status {
                code: 2,
                tool: "sh".to_owned(),
                home: scope.pkg.dir.clone(),
                message: format!("cd: can't cd to {}", args.get(1).map_or("", String::as_str)),
            }),
        }
    }

    /// What a command's words run.
    /// What a command's words run.
    pub(super) fn dispatch(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, text, scope, ..
        } = call;
        let mut env = call.env.clone();
        let Some(prog) = args.first() else {
            return ok_status(&scope.cwd);
        };
        let base = prog.rsplit('/').next().unwrap_or(prog);
        match base {
            "cross-env" => {
                let at = cross_env(args, &mut env);
                self.dispatch(call.then(&args[at..], env))
            }
            "env" => match env_prefix(args, &mut env) {
                Some(at) => self.dispatch(call.then(&args[at..], env)),
                None => self.verbatim(&call),
            },
            "npx" | "bunx" | "pnpx" => match npx_prefix(args) {
                Some(at) => self.dispatch(call.then(&args[at..], env)),
                None => self.verbatim(&call),
            },
            "npm" => self.npm(call),
            "pnpm" => self.pnpm(call),
            "yarn" => self.yarn(call),
            "bun" => self.bun(call),
            "run-s" | "run-p" | "npm-run-all" => self.run_all(call),
            "c8" | "nyc" | "dotenv" => self.wrapper(call),
            _ => match package::runner_command(args) {
                Some((runner, script)) => self.observed(runner, script, args, env, text, scope),
                None => self.verbatim(&call),
            },
        }
    }
}

/// `cross-env A=1 B=2 [--] <command>`: where the command starts, the assignments added to
/// `env`.
fn cross_env(args: &[String], env: &mut Vec<(String, String)>) -> usize {
    let mut i = 1;
    while let Some((k, v)) = args
        .get(i)
        .and_then(|a| a.split_once('='))
        .filter(|(k, _)| shell::is_name(k))
    {
        env.push((k.to_owned(), v.to_owned()));
        i += 1;
    }
    if args.get(i).is_some_and(|a| a == "--") {
        i += 1;
    }
    i
}

/// `env [--] A=1 <command>`: where the command starts, the assignments added to `env`; `None`
/// when `env` does more than add (`env -i`, `env -u X`).
fn env_prefix(args: &[String], env: &mut Vec<(String, String)>) -> Option<usize> {
    let mut i = 1;
    loop {
        match args.get(i).map(String::as_str) {
            Some(a) if a.starts_with('-') && a != "--" => {
                // `env -i`, `env -u X`: not only additions.
                return None;
            }
            Some("--") => i += 1,
            Some(a) => match a.split_once('=').filter(|(k, _)| shell::is_name(k)) {
                Some((k, v)) => {
                    env.push((k.to_owned(), v.to_owned()));
                    i += 1;
                }
                None => break,
            },
            None => break,
        }
    }
    Some(i)
}

/// `npx [flags] [--] <command>` (`bunx`, `pnpx`): where the command starts; `None` when the
/// flags ask for more than finding the program.
fn npx_prefix(args: &[String]) -> Option<usize> {
    let mut i = 1;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "--yes" | "-y" | "--no" | "--no-install" | "--quiet" | "-q" | "--silent"
            | "--ignore-existing" | "--prefer-offline" | "--offline" => i += 1,
            "--" => {
                i += 1;
                break;
            }
            // `-p pkg`, `-c 'cmd'`: another package or a shell string.
            _ if a.starts_with('-') => {
                return None;
            }
            _ => break,
        }
    }
    Some(i)
}
