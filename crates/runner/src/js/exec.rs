//! Running a project's declared command (`plan`) as sh and its package manager run it, and
//! what the runs of its steps answer.
//!
//! Steps run in order with sh's rules: after `&&` only when the status so far is 0, after `||`
//! only when it is not, after `;` always; the status of a list is its last command's, and a
//! workspace run's is the tool's (npm: the last failure's code; pnpm: the first's with bail,
//! else 1; yarn: 1). pith stops everything when it stops a step (its deadline, a cancel).
//!
//! What the runs answer:
//! - every observed runner segment that ran is a run, red or green: a test's failure is never
//!   hidden;
//! - a command run as written is a run only when its failure is the command's: it decided the
//!   status the whole command exits with (`tsc && vitest` with a type error; `vitest; lint`
//!   with lint failing). A failure the script ignores (`lint; jest`, `lint || true`) does not
//!   change a verdict the raw command gives green;
//! - when the whole command exits 0 over a runner's failures (`jest || true`, `jest; echo
//!   done`), those runs stay failed and say `masked`: the command itself would exit 0;
//! - a command that exits non-zero with nothing else to explain it is a run saying so.

use std::path::{Path, PathBuf};

use pith_model::{Exit, ExitMeaning, Run, Status};

use crate::{process, Context, RunnerError};

use super::plan::{Code, Each, List, Plan, Step, Verbatim};
use super::shell::Op;
use super::verbatim::{dir_of, sh_status, stopped};
use super::Js;

/// What one step left: sh's status, and the runs that explain a non-zero one (commands run
/// as written, a package manager's refusal).
struct Done {
    code: i32,
    why: Vec<Run>,
}

impl Done {
    fn ok() -> Done {
        Done {
            code: 0,
            why: Vec::new(),
        }
    }
}

struct Exec<'a, 'c> {
    ctx: &'a Context<'c>,
    /// The project's directory: runs of its own package are answered without a `dir`.
    project: &'a Path,
    runs: Vec<Run>,
    /// Observed segments run so far (each gets scratch of its own).
    segments: usize,
    /// pith stopped a step: nothing more runs.
    stopped: bool,
}

/// Runs the whole declared command and returns its runs (see the module doc).
pub(super) fn run_plan(
    ctx: &Context<'_>,
    project: &Path,
    plan: &Plan,
) -> Result<Vec<Run>, RunnerError> {
    let mut x = Exec {
        ctx,
        project,
        runs: Vec::new(),
        segments: 0,
        stopped: false,
    };
    let done = x.list(&plan.list)?;
    let mut runs = x.runs;
    let name = plan.observed().first().map_or("npm", |js| js.runner.name());
    if done.code == 0 && !x.stopped {
        let why = format!("{} exits 0 over these failures", plan.command);
        for r in &mut runs {
            let s = r.status();
            if !s.is_green() && s != Status::NoTestsRan {
                r.masked = Some(why.clone());
            }
        }
        if runs.is_empty() {
            // The command ran none of its runners (`lint || jest` with lint passing): no test
            // ran, and the answer says so rather than leaving the project out.
            runs.push(Run::new(name));
        }
    } else {
        runs.extend(done.why);
        if !x.stopped && runs.iter().all(|r| r.status().is_green()) {
            // The command failed and nothing pith ran says why.
            let mut r = Run::new(plan.command.split(' ').next().unwrap_or("npm"));
            r.status = Some(Status::RunnerFailed);
            r.exit = Some(Exit::new(done.code, ExitMeaning::Other));
            r.reason = Some(format!("{} exited {}", plan.command, done.code));
            runs.push(r);
        }
    }
    Ok(runs)
}

impl Exec<'_, '_> {
    fn list(&mut self, list: &List) -> Result<Done, RunnerError> {
        let mut done = Done::ok();
        for (op, step) in list {
            if self.stopped {
                break;
            }
            match op {
                Op::And if done.code != 0 => continue,
                Op::Or if done.code == 0 => continue,
                _ => {}
            }
            done = self.step(step)?;
        }
        Ok(done)
    }

    fn step(&mut self, step: &Step) -> Result<Done, RunnerError> {
        match step {
            Step::Observed(js) => self.observed(js),
            Step::Verbatim(v) => self.verbatim(v),
            Step::Group(list) => self.list(list),
            Step::Each(each) => self.each(each),
            Step::Status(s) if s.code == 0 => Ok(Done::ok()),
            Step::Status(s) => {
                let mut run = s.run();
                run.dir = dir_of(&s.home, self.project, self.ctx.root);
                Ok(Done {
                    code: s.code,
                    why: vec![run],
                })
            }
        }
    }

    fn observed(&mut self, js: &Js) -> Result<Done, RunnerError> {
        let scratch = crate::Scratch::given(self.scratch()?);
        let ctx = Context {
            dir: &js.dir,
            scratch: &scratch,
            ..*self.ctx
        };
        let (mut run, code) = js.observe(&ctx, &[])?;
        self.stopped |= code.is_none();
        run.dir = dir_of(&js.home, self.project, self.ctx.root);
        self.runs.push(run);
        Ok(Done {
            code: code.unwrap_or(143),
            why: Vec::new(),
        })
    }

    /// The scratch directory of the next observed segment: the run's own for the first (where
    /// the engine's heartbeat and pith's tests look), one below it for each after.
    fn scratch(&mut self) -> Result<PathBuf, RunnerError> {
        let n = self.segments;
        self.segments += 1;
        if n == 0 {
            return Ok(self.ctx.scratch.to_path_buf());
        }
        let dir = self.ctx.scratch.join(format!("js-{n}"));
        std::fs::create_dir_all(&dir)
            .map_err(|e| RunnerError::io(format!("creating {}", dir.display()), e))?;
        Ok(dir)
    }

    fn verbatim(&mut self, v: &Verbatim) -> Result<Done, RunnerError> {
        let captured = match process::run(v.command(), self.ctx.deadline, self.ctx.cancel) {
            Ok(c) => c,
            Err(e) => {
                let mut run = v.unstartable(&e);
                run.dir = dir_of(&v.home, self.project, self.ctx.root);
                return Ok(Done {
                    code: 127,
                    why: vec![run],
                });
            }
        };
        if stopped(captured.end) {
            self.stopped = true;
        }
        let code = sh_status(captured.end);
        if code == 0 {
            return Ok(Done::ok());
        }
        let mut run = v.judge(self.ctx, &captured);
        run.dir = dir_of(&v.home, self.project, self.ctx.root);
        if self.stopped {
            // The deadline's run is the answer whatever the script would do next.
            self.runs.push(run);
            return Ok(Done {
                code,
                why: Vec::new(),
            });
        }
        Ok(Done {
            code,
            why: vec![run],
        })
    }

    fn each(&mut self, each: &Each) -> Result<Done, RunnerError> {
        let mut failed: Vec<Done> = Vec::new();
        for part in &each.parts {
            if self.stopped {
                break;
            }
            let d = self.step(part)?;
            if d.code != 0 {
                failed.push(d);
                if each.bail {
                    break;
                }
            }
        }
        let code = match (each.code, failed.first(), failed.last()) {
            (_, None, _) => 0,
            (Code::First, Some(f), _) => f.code,
            (Code::Last, _, Some(l)) => l.code,
            _ => 1,
        };
        Ok(Done {
            code,
            why: failed.into_iter().flat_map(|d| d.why).collect(),
        })
    }
}

/// The observed segments that own `ids` (each id's file lies in the segment's package, the
/// deepest package first; among a package's segments, the first whose own paths name the
/// file, else its first), each with its ids; ids no segment owns are left over.
pub(super) fn owners<'a>(
    segments: &[&'a Js],
    ids: &[String],
    root: &Path,
) -> (Vec<(&'a Js, Vec<String>)>, Vec<String>) {
    let mut out: Vec<(&'a Js, Vec<String>)> = Vec::new();
    let mut left = Vec::new();
    for id in ids {
        let file = root.join(super::id_file(
            super::command::Selection::normal(id).as_str(),
        ));
        let mut homes: Vec<&Path> = segments
            .iter()
            .map(|s| s.home.as_path())
            .filter(|h| file.starts_with(h))
            .collect();
        homes.sort_by_key(|h| std::cmp::Reverse(h.as_os_str().len()));
        let Some(home) = homes.first() else {
            left.push(id.clone());
            continue;
        };
        let mine: Vec<&&Js> = segments.iter().filter(|s| s.home == *home).collect();
        let owner = mine
            .iter()
            .find(|s| s.names_file(&file))
            .or_else(|| mine.first())
            .map(|s| **s);
        let Some(owner) = owner else {
            left.push(id.clone());
            continue;
        };
        match out.iter_mut().find(|(s, _)| std::ptr::eq(*s, owner)) {
            Some((_, list)) => list.push(id.clone()),
            None => out.push((owner, vec![id.clone()])),
        }
    }
    (out, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::plan::{Status as Said, Verbatim};
    use crate::PathMap;
    use std::time::{Duration, Instant};

    /// `sh -c text` in `dir`, answered as `name`.
    fn sh(dir: &Path, name: &str, text: &str) -> Step {
        Step::Verbatim(Verbatim {
            dir: dir.to_path_buf(),
            home: dir.to_path_buf(),
            env: Vec::new(),
            argv: None,
            text: text.to_owned(),
            name: name.to_owned(),
            tsc: false,
        })
    }

    fn plan(list: List) -> Plan {
        Plan {
            list,
            command: "npm test".to_owned(),
            members: Vec::new(),
        }
    }

    /// The runs of `list` run in a scratch project: (runner, status, reason) each.
    fn outcome(list: impl Fn(&Path) -> List) -> Vec<(String, Status, Option<String>)> {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let paths = PathMap::new(root);
        let scratch_dir = tempfile::tempdir().unwrap();
        let scratch = crate::Scratch::given(scratch_dir.path());
        let ctx = Context {
            root,
            dir: root,
            paths: &paths,
            deadline: Instant::now() + Duration::from_secs(60),
            scratch: &scratch,
            cache: scratch_dir.path(),
            cancel: None,
            trace: None,
        };
        run_plan(&ctx, root, &plan(list(root)))
            .unwrap()
            .into_iter()
            .map(|r| (r.runner.clone(), r.status(), r.reason.clone()))
            .collect()
    }

    #[test]
    fn a_failure_is_an_answer_when_it_decides_the_commands_status() {
        // `lint && test`: lint's failure is the command's.
        let runs = outcome(|d| {
            vec![
                (Op::Then, sh(d, "lint", "exit 2")),
                (Op::And, sh(d, "x", "true")),
            ]
        });
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert_eq!(runs[0].0, "lint");
        assert_eq!(runs[0].1, Status::RunnerFailed);
        assert_eq!(runs[0].2.as_deref(), Some("exit 2 exited 2"));
        // `lint; test`: the script ignores it; nothing ran a test.
        let runs = outcome(|d| {
            vec![
                (Op::Then, sh(d, "lint", "exit 2")),
                (Op::Then, sh(d, "x", "true")),
            ]
        });
        assert_eq!(runs.len(), 1, "{runs:?}");
        assert_eq!(runs[0].1, Status::NoTestsRan);
        // `a || b`: b decides.
        let runs = outcome(|d| {
            vec![
                (Op::Then, sh(d, "a", "false")),
                (Op::Or, sh(d, "b", "exit 3")),
            ]
        });
        assert_eq!(runs.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn workspace_runs_exit_as_their_tool_does() {
        let each = |d: &Path, bail: bool, code: Code| {
            vec![(
                Op::Then,
                Step::Each(Each {
                    parts: vec![
                        sh(d, "a", "exit 2"),
                        sh(d, "b", "true"),
                        sh(d, "c", "exit 3"),
                    ],
                    bail,
                    code,
                }),
            )]
        };
        // npm: every package runs; every failure is the command's.
        let runs = outcome(|d| each(d, false, Code::Last));
        assert_eq!(
            runs.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
            ["a", "c"]
        );
        // pnpm with bail: the first failure stops the rest.
        let runs = outcome(|d| each(d, true, Code::First));
        assert_eq!(runs.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(), ["a"]);
        // A package manager's own refusal (a missing script) is an answer too.
        let runs = outcome(|d| {
            vec![(
                Op::Then,
                Step::Status(Said {
                    code: 1,
                    tool: "npm".to_owned(),
                    home: d.to_path_buf(),
                    message: "Missing script: \"unit\"".to_owned(),
                }),
            )]
        });
        assert_eq!(
            runs,
            [(
                "npm".to_owned(),
                Status::RunnerFailed,
                Some("Missing script: \"unit\"".to_owned())
            )]
        );
    }
}
