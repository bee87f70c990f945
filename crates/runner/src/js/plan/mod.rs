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
//!
//! Here the plan's steps and the builder's state; the builder's reading is in rooms, one
//! concern each: `script` (a script with its hooks and environment, read into a list),
//! `dispatch` (one command, and what its first word runs), `leaf` (a runner observed, or a
//! command run as written), `wrapper` (`c8`, `nyc`, `dotenv` in front of a runner) and
//! `managers` (the package managers' own commands). They call each other's methods as sh and
//! the package manager recurse; what they share is here.

use std::path::{Path, PathBuf};

mod dispatch;
mod leaf;
mod managers;
mod script;
mod wrapper;

use super::package::Runner;
use super::pm::{Manager, Package};
use super::shell::Op;
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

/// The value of `name` in an environment list (the last assignment wins).
fn lookup(env: &[(String, String)], name: &str) -> Option<String> {
    env.iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

fn ok_status(home: &Path) -> Step {
    Step::Status(Status {
        code: 0,
        tool: "sh".to_owned(),
        home: home.to_path_buf(),
        message: String::new(),
    })
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
