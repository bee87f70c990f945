//! A command of the declared script that pith runs as written (`tsc`, `eslint`, `tsd`, a build
//! step, a runner pith does not know) and what its failure answers: the TypeScript
//! compiler's errors (`tsc`, `tsc -b`, `vue-tsc`) as build errors at workspace-relative
//! `file:line`, anything else as `RunnerFailed` naming the command, with its output's tail.

use std::path::Path;
use std::process::Command;

use pith_model::{BuildError, Exit, ExitMeaning, Run, Status};

use crate::process::{Captured, End};
use crate::verdict::{self as scaffold, Ending};
use crate::{Context, PathMap};

use super::plan::{Status as Said, Verbatim};

/// Build errors an answer keeps from one compiler run at most (the answer shows five).
const BUILD_ERRORS: usize = 50;

impl Verbatim {
    /// The process: its argv, or `sh -c` its text, in its directory with its environment.
    pub(super) fn command(&self) -> Command {
        let mut cmd = match &self.argv {
            Some(argv) => {
                let mut c = crate::base_command(&argv[0], &self.dir);
                c.args(&argv[1..]);
                c
            }
            None => {
                let mut c = crate::base_command("/bin/sh", &self.dir);
                c.arg("-c").arg(&self.text);
                c
            }
        };
        for var in super::command::RUNNER_ENV {
            cmd.env_remove(var);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// What a run of it that did not exit 0 says, as a run named after its program.
    pub(super) fn judge(&self, ctx: &Context<'_>, captured: &Captured) -> Run {
        let mut run = Run::new(&self.name);
        let paths = ctx.paths.based(&self.dir);
        let output = scaffold::combined(&[&captured.stdout_str(), &captured.stderr_str()]);
        run.duration = captured.elapsed;
        run.printed = captured.printed();
        match Ending::of(captured.end) {
            Ending::Stopped => {
                scaffold::stopped(&mut run, None, tail(&paths, &output));
                return run;
            }
            Ending::Killed(signal) => {
                let why = scaffold::killed_by(&self.name, &signal);
                scaffold::killed(&mut run, &self.name, &signal, None, tail(&paths, &output));
                run.reason = Some(why);
                return run;
            }
            Ending::Exited(code) => run.exit = Some(Exit::new(code, ExitMeaning::Other)),
        }
        let code = run.exit.map_or(0, |e| e.code);
        if self.tsc {
            run.build_errors = tsc_errors(&output, &paths);
        }
        if run.build_errors.is_empty() {
            run.status = Some(Status::RunnerFailed);
            run.reason = Some(format!(
                "{} exited {code}",
                crate::text::cut_chars(&self.text, 120)
            ));
            // The command's own report of its failure, as it ends (a tool's summary line
            // alone, `1 error`, says nothing of where).
            run.tail = tail(&paths, &output);
        }
        run
    }

    /// A command that could not be started at all (sh is missing): what sh would say.
    pub(super) fn unstartable(&self, e: &std::io::Error) -> Run {
        let mut run = Run::new(&self.name);
        run.status = Some(Status::RunnerFailed);
        run.reason = Some(format!("{} could not be started: {e}", self.name));
        run
    }
}

impl Said {
    /// A package manager's or sh's failure without a process (a missing script).
    pub(super) fn run(&self) -> Run {
        let mut run = Run::new(&self.tool);
        run.status = Some(Status::RunnerFailed);
        run.exit = Some(Exit::new(self.code, ExitMeaning::Other));
        run.reason = Some(self.message.clone());
        run
    }
}

fn tail(paths: &PathMap, output: &str) -> Option<String> {
    let t = crate::tails::tail(&paths.scrub(output));
    (!t.trim().is_empty()).then_some(t)
}

/// The TypeScript compiler's errors: `file(line,col): error TS2322: ...` (its plain form,
/// what it prints to a pipe) and `file:line:col - error TS2322: ...` (`--pretty`), paths
/// relative to where it ran, made workspace-relative.
pub(crate) fn tsc_errors(output: &str, paths: &PathMap) -> Vec<BuildError> {
    let clean = crate::text::strip_ansi(output);
    let mut out: Vec<BuildError> = Vec::new();
    for line in clean.lines() {
        let Some(e) = tsc_line(line.trim_end(), paths) else {
            continue;
        };
        if !out.contains(&e) {
            out.push(e);
        }
        if out.len() >= BUILD_ERRORS {
            break;
        }
    }
    out
}

fn tsc_line(line: &str, paths: &PathMap) -> Option<BuildError> {
    let (at, rest) = if let Some(i) = line.find("): error TS") {
        (&line[..=i], &line[i + 3..])
    } else if let Some(i) = line.find(" - error TS") {
        (&line[..i], &line[i + 3..])
    } else if let Some(rest) = line.strip_prefix("error TS") {
        // A project-wide error (a bad tsconfig): no place.
        let (code, message) = rest.split_once(": ")?;
        return Some(BuildError {
            file: None,
            line: None,
            code: Some(format!("TS{code}")),
            message: paths.scrub(message.trim()),
        });
    } else {
        return None;
    };
    let rest = rest.strip_prefix("error ")?;
    let (code, message) = rest.split_once(": ")?;
    let (file, line_no) = if let Some(open) = at.rfind('(') {
        // `src/a.ts(3,7)`
        let inner = at[open + 1..].trim_end_matches(')');
        (&at[..open], inner.split(',').next()?.parse::<u32>().ok()?)
    } else {
        // `src/a.ts:3:7`
        let mut parts = at.rsplitn(3, ':');
        let _col = parts.next()?;
        let l = parts.next()?.parse::<u32>().ok()?;
        (parts.next()?, l)
    };
    let file = file.trim();
    if file.is_empty() || !code.chars().skip(2).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rel = paths.relativize(file, Some(paths.base()));
    Some(BuildError {
        file: Some(rel.unwrap_or_else(|| paths.short_path(file))),
        line: Some(line_no),
        code: Some(code.to_owned()),
        message: paths.scrub(message.trim()),
    })
}

/// Whether a process ended so that nothing after it should run: pith stopped it.
pub(super) fn stopped(end: End) -> bool {
    matches!(end, End::TimedOut | End::Cancelled)
}

/// The exit status sh sees for a process that ended `end`.
pub(super) fn sh_status(end: End) -> i32 {
    match end {
        End::Exited(c) => c,
        End::Signaled(s) => 128 + s,
        End::TimedOut | End::Cancelled => 143,
    }
}

/// Where a run is answered: its package's directory, workspace-relative; `None` for the
/// project's own directory (the engine names that one).
pub(super) fn dir_of(home: &Path, project: &Path, root: &Path) -> Option<String> {
    if home == project {
        return None;
    }
    home.strip_prefix(root)
        .ok()
        .map(|r| r.to_string_lossy().into_owned())
        .filter(|r| !r.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsc_errors_in_both_forms_are_build_errors_at_file_line() {
        let paths = PathMap::new(Path::new("/ws")).based(Path::new("/ws/packages/a"));
        let out = "src/math.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n\
                   \u{1b}[96msrc/b.ts\u{1b}[0m:\u{1b}[93m10\u{1b}[0m:\u{1b}[93m2\u{1b}[0m - \u{1b}[91merror\u{1b}[0m\u{1b}[90m TS2304: \u{1b}[0mCannot find name 'x'.\n\
                   \n  10   x;\n\nFound 2 errors.\n\
                   error TS5023: Unknown compiler option 'bogus'.\n";
        let errs = tsc_errors(out, &paths);
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert_eq!(errs[0].file.as_deref(), Some("packages/a/src/math.ts"));
        assert_eq!(errs[0].line, Some(3));
        assert_eq!(errs[0].code.as_deref(), Some("TS2322"));
        assert_eq!(
            errs[0].message,
            "Type 'string' is not assignable to type 'number'."
        );
        assert_eq!(errs[1].file.as_deref(), Some("packages/a/src/b.ts"));
        assert_eq!(errs[1].line, Some(10));
        assert_eq!(errs[2].file, None);
        assert!(tsc_errors("all good\nerror: not tsc\n", &paths).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn tsc_output_never_panics(s in "(?s).{0,200}") {
            let paths = PathMap::new(Path::new("/ws"));
            let _ = tsc_errors(&s, &paths);
            let _ = tsc_errors(&format!("a.ts({s}): error TS1: {s}"), &paths);
        }
    }
}
