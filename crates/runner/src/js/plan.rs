//! The declared command of a JavaScript project, read in full: what `npm test` (or the
//! project's package manager's `test`) runs, as a tree pith executes with sh's and the package
//! manager's rules. The project's own test command is the contract: pith runs every segment
//! and every package it runs, and adds observation to the runners it knows.
//!
//! - The `test` script is read as sh reads it (`shell`): `&&`, `||`, `;`, with sh's
//!   short-circuit and exit-status rules; `cd`, `export` and `VAR=value` prefixes change what
//!   the following commands see.
//! - `npm run X`, `npm test`, `pnpm X`, `pnpm run X`, `yarn X`, `yarn run X`, `bun run X`,
//!   `run-s`/`npm-run-all` are followed into X's script, with its `pre`/`post` scripts where the
//!   package manager runs them (`pm`), arguments after the name appended as npm appends them.
//! - Workspaces (`npm test --workspaces`, `-w a`, `pnpm -r`, `pnpm --filter`, `yarn workspaces
//!   run`, `yarn workspaces foreach`, `yarn workspace a`) run each package's own script, in
//!   the tool's order and with its bail or continue rule.
//! - Prefixes that only set the environment or find the program are read through:
//!   `cross-env`, `env`, `npx`, `pnpm exec`, `yarn exec`, `bunx`. Coverage and environment
//!   wrappers (`c8`, `nyc`, `dotenv --`) stay in front of the runner they wrap, so their own
//!   checks (`c8 --100`) and exit code stay the command's.
//! - A command that runs jest, vitest or `node --test` is [`Step::Observed`]: pith runs the
//!   runner with its observation added (see `command`). Every other command (`tsc`, `eslint`,
//!   `tsd`, a build step, a runner pith does not know, `turbo`, `lerna`) is
//!   [`Step::Verbatim`]: it runs as written, its argv when it is plain words, else `sh -c` its
//!   own text (see `shell`), and its failure is an answer.
//!
//! Every step runs in its package's directory with the environment the package manager gives
//! scripts: `PATH` with every `node_modules/.bin` from the package up, `npm_lifecycle_event`,
//! `npm_lifecycle_script`, `npm_package_json`, `npm_package_name`, `npm_package_version`,
//! `npm_package_config_*` (and `engines`, `bin`), `INIT_CWD`, `NODE`, `npm_node_execpath`,
//! and `npm_command` for npm. pith does not set npm's own configuration (`npm_config_*`) nor
//! `npm_execpath`: they describe an npm process that does not run.

use std::path::{Path, PathBuf};

use super::package::{self, Runner, Script};
use super::pm::{self, Manager, Package};
use super::shell::{self, Cmd, Op, Word};
use super::Js;

/// Steps of a script list, each with how it joins the one before.
pub(crate) type List = Vec<(Op, Step)>;

/// One step of the declared command.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// A runner pith observes.
    Observed(Box<Js>),
    /// A command run as written.
    Verbatim(Verbatim),
    /// A script followed into, or a script's own list: its status is its last command's.
    Group(List),
    /// Parts run one after another (workspace packages, npm-run-all's scripts).
    Each(Each),
    /// What a package manager or sh answers without running anything: `cd` (0), a missing
    /// script (1, with the tool's words).
    Status(Status),
}

/// A command pith runs as the script writes it.
#[derive(Debug, Clone)]
pub(crate) struct Verbatim {
    /// Where it runs.
    pub(crate) dir: PathBuf,
    /// The package whose script it is.
    pub(crate) home: PathBuf,
    pub(crate) env: Vec<(String, String)>,
    /// Its argv, the program resolved through the script's `PATH`; `None`: `sh -c` [`text`].
    pub(crate) argv: Option<Vec<String>>,
    pub(crate) text: String,
    /// What the answer calls it: its program's name (`tsc`, `eslint`).
    pub(crate) name: String,
    /// It is the TypeScript compiler (`tsc`, `vue-tsc`): its errors are build errors.
    pub(crate) tsc: bool,
}

/// Parts run in order.
#[derive(Debug, Clone)]
pub(crate) struct Each {
    pub(crate) parts: Vec<Step>,
    /// Stop at the first part that fails.
    pub(crate) bail: bool,
    /// The status when a part failed.
    pub(crate) code: Code,
}

/// How a tool running several parts exits when some failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    /// The last failing part's status (npm's workspaces).
    Last,
    /// The first failing part's status (pnpm with bail).
    First,
    /// 1 (pnpm `--no-bail`, yarn, npm-run-all).
    One,
}

#[derive(Debug, Clone)]
pub(crate) struct Status {
    pub(crate) code: i32,
    /// Who says it (`npm`, `sh`).
    pub(crate) tool: String,
    pub(crate) home: PathBuf,
    pub(crate) message: String,
}

/// A project's declared command.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) list: List,
    /// What a developer types for it: `npm test`, `pnpm test`.
    pub(crate) command: String,
    /// Packages of a workspace whose run the command declares, run or deliberately left out:
    /// the command decides for them (the engine's covering rule).
    pub(crate) members: Vec<PathBuf>,
}

impl Plan {
    /// The observed runner segments, in the order they appear.
    pub(crate) fn observed(&self) -> Vec<&Js> {
        let mut out = Vec::new();
        collect(&self.list, &mut out);
        out
    }
}

fn collect<'a>(list: &'a List, out: &mut Vec<&'a Js>) {
    for (_, s) in list {
        collect_step(s, out);
    }
}

fn collect_step<'a>(s: &'a Step, out: &mut Vec<&'a Js>) {
    match s {
        Step::Observed(js) => out.push(js),
        Step::Group(l) => collect(l, out),
        Step::Each(e) => e.parts.iter().for_each(|p| collect_step(p, out)),
        Step::Verbatim(_) | Step::Status(_) => {}
    }
}

/// Script levels followed at most (a script that runs itself would never end).
const MAX_DEPTH: usize = 12;
/// Steps in a plan at most.
const MAX_STEPS: usize = 2_000;

/// The declared command of the package in `dir`: its `test` script as its package manager
/// runs it. Without one (or with npm's placeholder, `echo "Error: no test specified" && exit
/// 1`), the runner its dependencies name (vitest, then jest) alone: the project declares no
/// command, and that is how its tests are run by hand. `None`: not a JavaScript project pith
/// can run, a script that runs no runner pith knows among them (`mocha`, `turbo run test`:
/// pith does not stand another runner in for the declared one; a workspace's packages are
/// then found on their own).
pub(crate) fn read(dir: &Path) -> Option<Plan> {
    let pkg = Package::read(dir)?;
    let manager = Manager::of(dir);
    let mut b = Builder {
        manager,
        init: dir.to_path_buf(),
        caller: std::env::vars().collect(),
        steps: 0,
        observed: 0,
        members: Vec::new(),
    };
    let command = format!("{} test", manager.name());
    let declared = pkg
        .script("test")
        .filter(|t| !(t.contains("no test specified") && t.contains("exit 1")));
    if declared.is_some() {
        let invoke = Invoke {
            top: true,
            ..Invoke::default()
        };
        let step = b.script(&pkg, "test", &[], invoke, 0);
        if b.observed == 0 {
            return None;
        }
        return Some(Plan {
            list: vec![(Op::Then, step)],
            command,
            members: b.members,
        });
    }
    let runner = if pkg.has_dep("vitest") {
        Runner::Vitest
    } else if pkg.has_dep("jest") {
        Runner::Jest
    } else {
        return None;
    };
    Some(Plan {
        list: vec![(Op::Then, Step::Observed(Box::new(Js::new(runner, dir))))],
        command,
        members: Vec::new(),
    })
}

/// How a script is started.
#[derive(Debug, Clone, Copy, Default)]
struct Invoke {
    /// The project's own `test` (the `npm test` a developer types).
    top: bool,
    /// A missing script is no failure (`--if-present`, pnpm's and yarn's workspace runs).
    if_present: bool,
    /// `pre`/`post` scripts are not run (`--ignore-scripts`).
    ignore_scripts: bool,
}

/// What the commands of one script see.
#[derive(Debug, Clone)]
struct Scope {
    pkg: Package,
    cwd: PathBuf,
    /// The package manager's environment for the script, then the script's own `export`s.
    env: Vec<(String, String)>,
}

/// One command as pith reads it: its words (after expansion), what it adds to the
/// environment (`A=1 cmd`, `cross-env A=1 cmd`), its text in the script, what the script's
/// commands see, and how many scripts deep it is.
struct Call<'a> {
    args: &'a [String],
    env: Vec<(String, String)>,
    text: &'a str,
    scope: &'a Scope,
    depth: usize,
}

impl<'a> Call<'a> {
    /// What is left to read after a prefix (`npx`, `cross-env A=1`): other words, with the
    /// environment so far.
    fn then(&self, args: &'a [String], env: Vec<(String, String)>) -> Call<'a> {
        Call {
            args,
            env,
            text: self.text,
            scope: self.scope,
            depth: self.depth,
        }
    }
}

struct Builder {
    manager: Manager,
    /// Where the developer types the command (`INIT_CWD`).
    init: PathBuf,
    caller: std::collections::HashMap<String, String>,
    steps: usize,
    observed: usize,
    members: Vec<PathBuf>,
}

impl Builder {
    /// `name` of `pkg` as its package manager runs it: `pre<name>`, `<name>`, `post<name>`
    /// where it runs those, each stopping the next when it fails; `args` appended to the
    /// main script as npm appends them.
    fn script(
        &mut self,
        pkg: &Package,
        name: &str,
        args: &[String],
        invoke: Invoke,
        depth: usize,
    ) -> Step {
        let Some(text) = pkg.script(name) else {
            if invoke.if_present {
                return ok_status(&pkg.dir);
            }
            return self.missing(pkg, name);
        };
        if depth > MAX_DEPTH {
            return self.verbatim_sh(text, &self.scope(pkg, name, text, invoke), &[]);
        }
        let mut text = text.to_owned();
        for a in args {
            text.push(' ');
            text.push_str(&shell::quote(a));
        }
        let mut list: List = Vec::new();
        let hooks = self.manager.runs_pre_post() && !invoke.ignore_scripts;
        let pre = format!("pre{name}");
        let post = format!("post{name}");
        if let Some(t) = pkg.script(&pre).filter(|_| hooks) {
            let scope = self.scope(pkg, &pre, t, invoke);
            list.push((Op::Then, Step::Group(self.list(t, scope, depth + 1))));
        }
        let scope = self.scope(pkg, name, &text, invoke);
        list.push((Op::And, Step::Group(self.list(&text, scope, depth + 1))));
        if let Some(t) = pkg.script(&post).filter(|_| hooks) {
            let scope = self.scope(pkg, &post, t, invoke);
            list.push((Op::And, Step::Group(self.list(t, scope, depth + 1))));
        }
        if let Some(first) = list.first_mut() {
            first.0 = Op::Then;
        }
        Step::Group(list)
    }

    /// What the package manager says of a script that is not there.
    fn missing(&self, pkg: &Package, name: &str) -> Step {
        let message = match self.manager {
            Manager::Npm | Manager::Bun => format!("Missing script: \"{name}\""),
            Manager::Pnpm { .. } => format!("ERR_PNPM_NO_SCRIPT Missing script: {name}"),
            Manager::Yarn1 | Manager::YarnBerry => format!("Command \"{name}\" not found."),
        };
        Step::Status(Status {
            code: 1,
            tool: self.manager.name().to_owned(),
            home: pkg.dir.clone(),
            message,
        })
    }

    /// The environment the package manager gives the script `event` of `pkg`.
    fn scope(&self, pkg: &Package, event: &str, text: &str, invoke: Invoke) -> Scope {
        let mut env: Vec<(String, String)> = vec![
            ("PATH".to_owned(), self.path_for(&pkg.dir)),
            (
                "npm_package_json".to_owned(),
                pkg.dir.join("package.json").to_string_lossy().into_owned(),
            ),
            ("npm_lifecycle_event".to_owned(), event.to_owned()),
            ("npm_lifecycle_script".to_owned(), text.to_owned()),
            (
                "INIT_CWD".to_owned(),
                self.init.to_string_lossy().into_owned(),
            ),
        ];
        if let Some(node) = crate::on_path("node") {
            let node = node.to_string_lossy().into_owned();
            env.push(("NODE".to_owned(), node.clone()));
            env.push(("npm_node_execpath".to_owned(), node));
        }
        if self.manager == Manager::Npm && invoke.top {
            env.push(("npm_command".to_owned(), "test".to_owned()));
        }
        env.extend(pkg.env());
        Scope {
            pkg: pkg.clone(),
            cwd: pkg.dir.clone(),
            env,
        }
    }

    /// `PATH` as npm sets it for a script of the package in `dir`: `node_modules/.bin` of the
    /// package and of every directory above it, nearest first, then the caller's.
    fn path_for(&self, dir: &Path) -> String {
        let mut parts: Vec<String> = dir
            .ancestors()
            .map(|d| {
                d.join("node_modules")
                    .join(".bin")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        if let Some(p) = self.caller.get("PATH") {
            parts.push(p.clone());
        }
        parts.join(":")
    }

    /// A script's text as a list of steps, with `cd` and `export` carried to the commands
    /// after them.
    fn list(&mut self, text: &str, mut scope: Scope, depth: usize) -> List {
        let lookup = |env: &[(String, String)],
                      caller: &std::collections::HashMap<String, String>| {
            let env = env.to_vec();
            let caller = caller.clone();
            move |name: &str| -> Option<String> {
                env.iter()
                    .rev()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
                    .or_else(|| caller.get(name).cloned())
            }
        };
        let env_of = lookup(&scope.env, &self.caller);
        let cmds = shell::parse(text, &env_of);
        // An assignment without a command sets a shell variable the commands after it may
        // read: sh's own business, the whole script.
        if cmds
            .iter()
            .any(|c| !c.shell && c.words.iter().all(|w| w.assign))
        {
            return vec![(Op::Then, self.verbatim_sh(text, &scope, &[]))];
        }
        let mut out: List = Vec::new();
        for cmd in cmds {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return vec![(Op::Then, self.verbatim_sh(text, &scope, &[]))];
            }
            let step = self.command(&cmd, &mut scope, depth);
            out.push((cmd.op, step));
        }
        out
    }

    /// One command of a script.
    fn command(&mut self, cmd: &Cmd, scope: &mut Scope, depth: usize) -> Step {
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
    fn dispatch(&mut self, call: Call<'_>) -> Step {
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
                self.dispatch(call.then(&args[i..], env))
            }
            "env" => {
                let mut i = 1;
                loop {
                    match args.get(i).map(String::as_str) {
                        Some(a) if a.starts_with('-') && a != "--" => {
                            // `env -i`, `env -u X`: not only additions.
                            return self.verbatim(&call);
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
                self.dispatch(call.then(&args[i..], env))
            }
            "npx" | "bunx" | "pnpx" => {
                let mut i = 1;
                while let Some(a) = args.get(i) {
                    match a.as_str() {
                        "--yes" | "-y" | "--no" | "--no-install" | "--quiet" | "-q"
                        | "--silent" | "--ignore-existing" | "--prefer-offline" | "--offline" => {
                            i += 1
                        }
                        "--" => {
                            i += 1;
                            break;
                        }
                        // `-p pkg`, `-c 'cmd'`: another package or a shell string.
                        _ if a.starts_with('-') => {
                            return self.verbatim(&call);
                        }
                        _ => break,
                    }
                }
                self.dispatch(call.then(&args[i..], env))
            }
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

    /// A runner pith observes, run where the script runs it with the script's environment.
    fn observed(
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
            Runner::Jest | Runner::Vitest => {
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
    fn verbatim(&mut self, call: &Call<'_>) -> Step {
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
    fn verbatim_sh(&self, text: &str, scope: &Scope, env: &[(String, String)]) -> Step {
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

    /// `c8 [options] <command>`, `nyc [options] <command>`, `dotenv [options] -- <command>`:
    /// the wrapper stays in front of the runner it wraps; around anything else, the command
    /// runs as written.
    fn wrapper(&mut self, call: Call<'_>) -> Step {
        let Call {
            args, text, scope, ..
        } = call;
        let env = call.env.clone();
        let base = args[0].rsplit('/').next().unwrap_or(&args[0]).to_owned();
        let Some(at) = wrapped_at(&base, args) else {
            return self.verbatim(&call);
        };
        let mut all = scope.env.clone();
        all.extend(env.iter().cloned());
        let path = lookup(&all, "PATH").or_else(|| self.caller.get("PATH").cloned());
        let Some(program) = resolve(&args[0], &scope.cwd, path.as_deref()) else {
            return self.verbatim(&call);
        };
        let before = self.observed;
        match self.dispatch(call.then(&args[at..], env.clone())) {
            Step::Observed(mut js) => {
                let mut w = vec![program.to_string_lossy().into_owned()];
                w.extend(args[1..at].iter().cloned());
                js.wrappers.insert(0, w);
                js.text = text.to_owned();
                Step::Observed(js)
            }
            _ => {
                self.observed = before;
                self.verbatim(&call)
            }
        }
    }

    /// `npm test`, `npm run X`, with workspaces and `--if-present`; `npm exec`.
    fn npm(&mut self, call: Call<'_>) -> Step {
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

    /// [`Builder::script`] with the command's own environment additions (`A=1 npm test`).
    fn script_with(
        &mut self,
        pkg: &Package,
        name: &str,
        args: &[String],
        invoke: Invoke,
        env: Vec<(String, String)>,
        depth: usize,
    ) -> Step {
        let mut step = self.script(pkg, name, args, invoke, depth + 1);
        if !env.is_empty() {
            add_env(&mut step, &env);
        }
        step
    }

    /// `pnpm test`, `pnpm run X`, `pnpm X`, `pnpm -r test`, `pnpm --filter a test`,
    /// `pnpm exec`.
    fn pnpm(&mut self, call: Call<'_>) -> Step {
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
    fn yarn(&mut self, call: Call<'_>) -> Step {
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
    fn bun(&mut self, call: Call<'_>) -> Step {
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
    fn run_all(&mut self, call: Call<'_>) -> Step {
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

/// Shell builtins: sh runs them, not an executable.
const BUILTINS: &[&str] = &[
    "exit", ":", ".", "source", "eval", "exec", "set", "unset", "shift", "trap", "return",
    "readonly", "umask", "ulimit", "type", "command", "alias", "unalias", "hash", "times", "read",
    "wait", "break", "continue", "getopts", "local",
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

/// Where a wrapper's own options end and the command it runs begins; `None` when it runs no
/// command (`c8 report`, `nyc check-coverage`, `dotenv -p VAR`).
fn wrapped_at(base: &str, args: &[String]) -> Option<usize> {
    let (values, subcommands): (&[&str], &[&str]) = match base {
        "c8" => (
            &[
                "-r",
                "--reporter",
                "-o",
                "--reports-dir",
                "--report-dir",
                "--temp-directory",
                "--src",
                "-n",
                "--include",
                "-x",
                "--exclude",
                "-e",
                "--extension",
                "--lines",
                "--functions",
                "--branches",
                "--statements",
                "-c",
                "--config",
                "--exclude-after-remap",
                "--merge-async",
                "--allowExternal",
            ],
            &["report", "check-coverage"],
        ),
        "nyc" => (
            &[
                "-r",
                "--reporter",
                "--report-dir",
                "-t",
                "--temp-dir",
                "--temp-directory",
                "-n",
                "--include",
                "-x",
                "--exclude",
                "-e",
                "--extension",
                "-i",
                "--require",
                "--cwd",
                "--nycrc-path",
                "--lines",
                "--functions",
                "--branches",
                "--statements",
                "--instrumenter",
                "--source-map",
            ],
            &["report", "check-coverage", "instrument", "merge"],
        ),
        "dotenv" => (&["-e", "-v", "-c"], &[]),
        _ => return None,
    };
    let booleans_with_values = ["--exclude-after-remap", "--merge-async", "--allowExternal"];
    let mut i = 1;
    while let Some(a) = args.get(i) {
        if a == "--" {
            return (i + 1 < args.len()).then_some(i + 1);
        }
        if base == "dotenv" && a == "-p" {
            return None;
        }
        if !a.starts_with('-') {
            if i == 1 && subcommands.contains(&a.as_str()) {
                return None;
            }
            return Some(i);
        }
        let takes = !a.contains('=')
            && values.contains(&a.as_str())
            && !booleans_with_values.contains(&a.as_str());
        i += if takes { 2 } else { 1 };
    }
    None
}

/// The value of `name` in an environment list (the last assignment wins).
fn lookup(env: &[(String, String)], name: &str) -> Option<String> {
    env.iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// A program as sh finds it: a path with a `/` from `cwd`, else the first executable of that
/// name on `path`.
fn resolve(program: &str, cwd: &Path, path: Option<&str>) -> Option<PathBuf> {
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

fn ok_status(home: &Path) -> Step {
    Step::Status(Status {
        code: 0,
        tool: "sh".to_owned(),
        home: home.to_path_buf(),
        message: String::new(),
    })
}

/// The command's own additions (`A=1 npm run x`) reach every step of the script it runs.
fn add_env(step: &mut Step, env: &[(String, String)]) {
    match step {
        Step::Observed(js) => js.env.extend(env.iter().cloned()),
        Step::Verbatim(v) => v.env.extend(env.iter().cloned()),
        Step::Group(list) => list.iter_mut().for_each(|(_, s)| add_env(s, env)),
        Step::Each(e) => e.parts.iter_mut().for_each(|s| add_env(s, env)),
        Step::Status(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A plan as one line: `obs(...)` a runner pith observes, `cmd(...)` a command run as
    /// written, `said(...)` a tool's answer, `(...)` a group, `each[bail|all](a | b)`.
    fn show(plan: &Plan, root: &Path) -> String {
        let mut list = &plan.list;
        while let [(_, Step::Group(inner))] = list.as_slice() {
            list = inner;
        }
        show_list(list, root)
    }

    fn show_list(list: &List, root: &Path) -> String {
        let mut out = String::new();
        for (i, (op, step)) in list.iter().enumerate() {
            if i > 0 {
                out.push_str(match op {
                    Op::Then => " ; ",
                    Op::And => " && ",
                    Op::Or => " || ",
                });
            }
            out.push_str(&show_step(step, root));
        }
        out
    }

    fn show_step(step: &Step, root: &Path) -> String {
        let rel = |d: &Path| {
            let r = d
                .strip_prefix(root)
                .unwrap_or(d)
                .to_string_lossy()
                .into_owned();
            if r.is_empty() {
                String::new()
            } else {
                format!("@{r}")
            }
        };
        match step {
            Step::Observed(js) => {
                let mut words: Vec<String> = js
                    .wrappers
                    .iter()
                    .flat_map(|w| {
                        let mut w = w.clone();
                        w[0] = w[0].rsplit('/').next().unwrap_or("").to_owned();
                        w
                    })
                    .collect();
                words.push(js.runner.name().to_owned());
                words.extend(js.script.args(true));
                format!("obs({}){}", words.join(" "), rel(&js.dir))
            }
            Step::Verbatim(v) => {
                let text = match &v.argv {
                    Some(a) => {
                        let mut w = vec![v.name.clone()];
                        w.extend(a[1..].iter().cloned());
                        w.join(" ")
                    }
                    None => format!("sh: {}", v.text),
                };
                format!("cmd({text}){}", rel(&v.dir))
            }
            Step::Group(l) if l.len() == 1 => show_list(l, root),
            Step::Group(l) => format!("({})", show_list(l, root)),
            Step::Each(e) => format!(
                "each[{}]({})",
                if e.bail { "bail" } else { "all" },
                e.parts
                    .iter()
                    .map(|p| show_step(p, root))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
            Step::Status(s) if s.code == 0 => "ok".to_owned(),
            Step::Status(s) => format!("said({} {}: {})", s.code, s.tool, s.message),
        }
    }

    fn bin(root: &Path, name: &str) {
        let p = root.join("node_modules/.bin").join(name);
        write(root, &format!("node_modules/.bin/{name}"), "#!/bin/sh\n");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn project(scripts: &str) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        write(
            &root,
            "package.json",
            &format!(r#"{{"name":"p","scripts":{scripts}}}"#),
        );
        for b in ["jest", "vitest", "tsc", "c8", "tsd", "eslint"] {
            bin(&root, b);
        }
        (d, root)
    }

    #[test]
    fn every_segment_of_the_script_is_in_the_plan() {
        let (_d, root) = project(r#"{"test":"tsc --noEmit && vitest run"}"#);
        let plan = read(&root).unwrap();
        assert_eq!(show(&plan, &root), "cmd(tsc --noEmit) && obs(vitest)");
        assert_eq!(plan.command, "npm test");
        let (_d, root) = project(
            r#"{"test":"npm run test:unit && npm run test:typescript","test:unit":"c8 --100 node --test","test:typescript":"tsd","pretest":"eslint ."}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "cmd(eslint .) && (obs(c8 --100 node) && cmd(tsd))"
        );
        let (_d, root) = project(r#"{"test":"jest || true","posttest":"echo done"}"#);
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "(obs(jest) || cmd(true)) && cmd(echo done)"
        );
    }

    #[test]
    fn prefixes_are_read_through_and_the_environment_kept() {
        let (_d, root) = project(
            r#"{"test":"cross-env TZ=UTC NODE_OPTIONS=--no-warnings npx jest --ci","unit":"x"}"#,
        );
        let plan = read(&root).unwrap();
        assert_eq!(show(&plan, &root), "obs(jest --ci)");
        let js = plan.observed()[0];
        let get = |k: &str| lookup(&js.env, k);
        assert_eq!(get("TZ").as_deref(), Some("UTC"));
        assert_eq!(get("npm_lifecycle_event").as_deref(), Some("test"));
        assert_eq!(get("npm_package_name").as_deref(), Some("p"));
        assert_eq!(get("npm_command").as_deref(), Some("test"));
        assert!(get("PATH")
            .unwrap()
            .starts_with(&format!("{}/node_modules/.bin:", root.display())));
        assert!(js
            .program
            .as_ref()
            .unwrap()
            .ends_with("node_modules/.bin/jest"));
        // `cd` moves the commands after it; npm runs a script in its package's directory,
        // with the arguments after `--`, as an event of its own.
        let (_d, root) =
            project(r#"{"test":"cd sub && jest --ci && npm run unit -- --bail","unit":"jest"}"#);
        std::fs::create_dir_all(root.join("sub")).unwrap();
        let plan = read(&root).unwrap();
        assert_eq!(
            show(&plan, &root),
            "ok && obs(jest --ci)@sub && obs(jest --bail)"
        );
        assert_eq!(
            lookup(&plan.observed()[1].env, "npm_lifecycle_event").as_deref(),
            Some("unit")
        );
    }

    #[test]
    fn npm_workspaces_run_each_packages_own_script() {
        let (_d, root) = project(r#"{"test":"npm test --workspaces --if-present"}"#);
        write(
            &root,
            "package.json",
            r#"{"workspaces":["packages/*"],"scripts":{"test":"npm test --workspaces --if-present"}}"#,
        );
        write(
            &root,
            "packages/a/package.json",
            r#"{"name":"a","scripts":{"test":"jest"}}"#,
        );
        write(
            &root,
            "packages/b/package.json",
            r#"{"name":"b","scripts":{"test":"node --test"}}"#,
        );
        write(&root, "packages/c/package.json", r#"{"name":"c"}"#);
        let plan = read(&root).unwrap();
        assert_eq!(
            show(&plan, &root),
            "each[all](obs(jest)@packages/a | obs(node)@packages/b | ok)"
        );
        assert_eq!(plan.members.len(), 3);
        // A long option behind one dash is npm's too.
        write(
            &root,
            "package.json",
            r#"{"workspaces":["packages/*"],"scripts":{"test":"npm run test -workspaces --if-present"}}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "each[all](obs(jest)@packages/a | obs(node)@packages/b | ok)"
        );
        // One package by name: the others are left out, as npm leaves them.
        write(
            &root,
            "package.json",
            r#"{"workspaces":["packages/*"],"scripts":{"test":"npm test -w a"}}"#,
        );
        let plan = read(&root).unwrap();
        assert_eq!(show(&plan, &root), "each[all](obs(jest)@packages/a)");
        // A package without the script fails npm's run unless `--if-present`.
        write(
            &root,
            "package.json",
            r#"{"workspaces":["packages/*"],"scripts":{"test":"npm run test --workspaces"}}"#,
        );
        assert!(
            show(&read(&root).unwrap(), &root).ends_with("said(1 npm: Missing script: \"test\"))")
        );
    }

    #[test]
    fn pnpm_and_yarn_follow_their_own_rules() {
        let (_d, root) = project("{}");
        write(
            &root,
            "package.json",
            r#"{"scripts":{"test":"pnpm -r test"}}"#,
        );
        write(
            &root,
            "pnpm-workspace.yaml",
            "packages:\n  - 'packages/*'\n",
        );
        write(&root, "pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
        write(
            &root,
            "packages/b/package.json",
            r#"{"name":"b","scripts":{"test":"vitest"},"dependencies":{"a":"workspace:*"}}"#,
        );
        write(
            &root,
            "packages/a/package.json",
            r#"{"name":"a","scripts":{"pretest":"tsc","test":"jest"}}"#,
        );
        write(&root, "packages/c/package.json", r#"{"name":"c"}"#);
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "each[bail]((cmd(tsc)@packages/a && obs(jest)@packages/a) | obs(vitest)@packages/b)"
        );
        write(
            &root,
            "package.json",
            r#"{"scripts":{"test":"pnpm --filter b --no-bail test"}}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "each[all](obs(vitest)@packages/b)"
        );
        // yarn 1: every package must have the script; berry skips those without.
        std::fs::remove_file(root.join("pnpm-lock.yaml")).unwrap();
        std::fs::remove_file(root.join("pnpm-workspace.yaml")).unwrap();
        write(&root, "yarn.lock", "# yarn lockfile v1\n");
        write(
            &root,
            "package.json",
            r#"{"workspaces":["packages/*"],"scripts":{"test":"yarn workspaces run test"}}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "each[bail]((cmd(tsc)@packages/a && obs(jest)@packages/a) | obs(vitest)@packages/b | said(1 yarn: Command \"test\" not found.))"
        );
        write(&root, ".yarnrc.yml", "nodeLinker: node-modules\n");
        write(
            &root,
            "package.json",
            r#"{"workspaces":["packages/*"],"scripts":{"test":"yarn workspaces foreach -A run test"}}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "each[all](obs(jest)@packages/a | obs(vitest)@packages/b)"
        );
    }

    #[test]
    fn what_pith_does_not_read_runs_as_written() {
        let (_d, root) = project(r#"{"test":"turbo run test && jest 2>&1 | tee log.txt"}"#);
        write(
            &root,
            "package.json",
            r#"{"scripts":{"test":"lint; jest 2>&1 | tee log.txt"},"devDependencies":{"jest":"*"}}"#,
        );
        // No runner pith can observe: pith stands no other runner in for it.
        assert!(read(&root).is_none());
        write(
            &root,
            "package.json",
            r#"{"scripts":{"test":"eslint . && jest"}}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "cmd(eslint .) && obs(jest)"
        );
        write(&root, "package.json", r#"{"scripts":{"test":"mocha"}}"#);
        assert!(read(&root).is_none());
        write(
            &root,
            "package.json",
            r#"{"scripts":{"test":"npm run nope && jest"}}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "said(1 npm: Missing script: \"nope\") && obs(jest)"
        );
        // A script that runs itself ends.
        write(
            &root,
            "package.json",
            r#"{"scripts":{"test":"npm test && jest"}}"#,
        );
        assert!(read(&root).is_some());
    }

    #[test]
    fn shell_globs_reach_node_as_sh_expands_them() {
        let (_d, root) = project(r#"{"test":"node --test test/*.test.js 'q/*.js'"}"#);
        write(&root, "test/a.test.js", "");
        write(&root, "test/b.test.js", "");
        let plan = read(&root).unwrap();
        assert_eq!(
            plan.observed()[0].script.paths(),
            ["test/a.test.js", "test/b.test.js", "q/*.js"]
        );
    }

    #[test]
    fn the_dependencies_decide_without_a_test_script() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        assert!(read(root).is_none());
        write(
            root,
            "package.json",
            r#"{"devDependencies":{"jest":"^29"}}"#,
        );
        assert_eq!(read(root).unwrap().observed()[0].runner, Runner::Jest);
        write(
            root,
            "package.json",
            r#"{"devDependencies":{"jest":"^29","vitest":"^3"}}"#,
        );
        assert_eq!(read(root).unwrap().observed()[0].runner, Runner::Vitest);
        write(
            root,
            "package.json",
            r#"{"scripts":{"test":"npm run unit","unit":"node --test"},"devDependencies":{"vitest":"^3"}}"#,
        );
        assert_eq!(read(root).unwrap().observed()[0].runner, Runner::Node);
        write(
            root,
            "package.json",
            r#"{"scripts":{"test":"echo no tests"}}"#,
        );
        assert!(read(root).is_none());
        // npm's placeholder declares nothing: the dependency's runner is how tests run.
        write(
            root,
            "package.json",
            r#"{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"},"devDependencies":{"jest":"^29"}}"#,
        );
        assert_eq!(read(root).unwrap().observed()[0].runner, Runner::Jest);
        write(
            root,
            "package.json",
            r#"{"scripts":{"test":"mocha"},"devDependencies":{"jest":"^29"}}"#,
        );
        assert!(read(root).is_none());
        write(root, "package.json", "{not json");
        assert!(read(root).is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn never_panics_on_any_package_json(
            test in "(?s).{0,80}",
            other in "[a-z:* -]{0,30}",
            ws in proptest::collection::vec("[a-z*!./]{0,8}", 0..3),
        ) {
            let d = tempfile::tempdir().unwrap();
            let pkg = serde_json::json!({
                "name": "p",
                "workspaces": ws,
                "scripts": {"test": test, "x": other, "pretest": "npm run x"},
            });
            std::fs::write(d.path().join("package.json"), pkg.to_string()).unwrap();
            let _ = read(d.path());
            std::fs::write(d.path().join("package.json"), &test).unwrap();
            let _ = read(d.path());
        }
    }
}
