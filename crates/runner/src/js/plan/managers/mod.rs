//! The package managers' own commands inside a script, read as each tool runs them (see
//! `pm` for their rules): `npm test`/`npm run X` with `--workspaces`, `-w`, `--if-present`;
//! `pnpm X`, `pnpm -r`, `pnpm --filter`; `yarn X`, `yarn workspaces run` (yarn 1), `yarn
//! workspaces foreach` (yarn 2+), `yarn workspace a X`; `bun run X`; `run-s`/`run-p`/
//! `npm-run-all`. What pith does not read among them runs as written.
//!
//! npm, pnpm and yarn each have a room of their own; bun's script runs and npm-run-all's lists
//! are small enough to stay here, with the options the managers' workspace runs share.

use std::path::PathBuf;

use crate::js::pm::{self, Package};

use super::{Builder, Call, Code, Each, Invoke, Status, Step};

mod npm;
mod pnpm;
mod yarn;

impl Builder {
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
