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

mod managers;

use super::package::{self, Runner, Script};
use super::pm::{Manager, Package};
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
        running: Vec::new(),
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
    /// The scripts being read, each package's directory and script name: a script that
    /// reaches itself again would run forever.
    running: Vec<(PathBuf, String)>,
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
        let key = (pkg.dir.clone(), name.to_owned());
        if self.running.contains(&key) {
            // `"test": "npm test && jest"`: the package manager would start it again and
            // again; pith answers at once.
            return Step::Status(Status {
                code: 1,
                tool: self.manager.name().to_owned(),
                home: pkg.dir.clone(),
                message: format!("the \"{name}\" script runs itself"),
            });
        }
        self.running.push(key);
        let step = self.hooked(pkg, name, text, args, invoke, depth);
        self.running.pop();
        step
    }

    /// `name`'s script with its `pre`/`post` scripts where the package manager runs them.
    fn hooked(
        &mut self,
        pkg: &Package,
        name: &str,
        text: &str,
        args: &[String],
        invoke: Invoke,
        depth: usize,
    ) -> Step {
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
}

/// Shell builtins: sh runs them, not an executable.
const BUILTINS: &[&str] = &[
    "exit", ":", ".", "source", "eval", "exec", "set", "unset", "shift", "trap", "return",
    "readonly", "umask", "ulimit", "type", "command", "alias", "unalias", "hash", "times", "read",
    "wait", "break", "continue", "getopts", "local",
];

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

    use pith_testkit::write_file as write;

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
        write(&root, "package.json", r#"{"scripts":{"test":"ava"}}"#);
        assert!(read(&root).is_none());
        write(&root, "package.json", r#"{"scripts":{"test":"mocha"}}"#);
        assert_eq!(read(&root).unwrap().observed()[0].runner, Runner::Mocha);
        write(
            &root,
            "package.json",
            r#"{"scripts":{"test":"npm run nope && jest"}}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "said(1 npm: Missing script: \"nope\") && obs(jest)"
        );
        // A script that runs itself is answered at once, not started again and again.
        write(
            &root,
            "package.json",
            r#"{"scripts":{"test":"npm test && jest"}}"#,
        );
        assert_eq!(
            show(&read(&root).unwrap(), &root),
            "said(1 npm: the \"test\" script runs itself) && obs(jest)"
        );
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
            r#"{"scripts":{"test":"ava"},"devDependencies":{"jest":"^29"}}"#,
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
