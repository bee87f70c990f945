//! A script as its package manager runs it: `pre`/`post` hooks where it runs them, the
//! environment it gives the script, the answer for a missing script or one that reaches
//! itself, and the script's text read into a list of steps, `cd` and `export` carried along.

use std::path::Path;

use super::super::pm::{Manager, Package};
use super::super::shell::{self, Op};
use super::{ok_status, Builder, Invoke, List, Scope, Status, Step, MAX_DEPTH, MAX_STEPS};

impl Builder {
    /// `name` of `pkg` as its package manager runs it: `pre<name>`, `<name>`, `post<name>`
    /// where it runs those, each stopping the next when it fails; `args` appended to the
    /// main script as npm appends them.
    pub(super) fn script(
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
    /// [`Builder::script`] with the command's own environment additions (`A=1 npm test`).
    pub(super) fn script_with(
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
