//! What the stream cannot say alone: how the go process ended (pith's deadline, a signal,
//! go failing before any test ran, a stream cut short), the build errors of the packages
//! that did not compile, deduplicated across the packages that repeat them, and what go's
//! exit code means. Apart from the packages' walk because it reads go's stderr and its exit,
//! which no single package's events carry.

use pith_model::{BuildError, ExitMeaning, Run, Status};

use super::super::events::Stream;
use super::super::lines::is_go_progress;
use super::super::output;
use super::{Judge, State};
use crate::paths::PathMap;
use crate::process::End;
use crate::text;

impl Judge<'_> {
    /// Compiler and vet errors of the packages that did not build, deduplicated: a broken
    /// package fails the build of every package importing it, each with the same errors.
    pub(super) fn build_errors(&self, stream: &Stream, run: &mut Run, st: &State) {
        if st.build_failed.is_empty() {
            return;
        }
        let mut diags: Vec<output::Diag> = Vec::new();
        for b in stream.builds.iter().filter(|b| b.failed) {
            diags.extend(output::diagnostics(&b.output.all()));
        }
        if diags.is_empty() {
            // Go before 1.24 printed build output as plain text on stderr.
            let mut lines: Vec<&str> = self.stderr.lines().filter(|l| !is_go_progress(l)).collect();
            lines.extend(stream.text.all());
            diags = output::diagnostics(&lines);
        }
        for d in diags {
            let e = self.build_error(d);
            if !run.build_errors.contains(&e) {
                run.build_errors.push(e);
            }
        }
        if run.build_errors.is_empty() {
            for pkg in &st.build_failed {
                run.build_errors.push(BuildError {
                    message: format!("{} failed to build", self.pkg_name(pkg)),
                    ..BuildError::default()
                });
            }
        }
    }

    fn build_error(&self, d: output::Diag) -> BuildError {
        let code = d.vet.then(|| "vet".to_owned());
        let at = d.file.as_deref().and_then(|f| {
            self.paths
                .relativize(f, Some(self.cwd))
                .filter(|rel| PathMap::is_project(rel))
        });
        let message = match (&at, &d.file, d.line) {
            (None, Some(f), Some(l)) => format!("{f}:{l}: {}", d.message),
            _ => d.message.clone(),
        };
        BuildError {
            line: at.as_ref().and(d.line),
            file: at,
            code,
            message: text::first_line(&self.paths.scrub(&message)),
        }
    }

    /// How the process ended, added to what the stream said.
    pub(super) fn ending(&self, stream: &Stream, run: &mut Run, st: &mut State) {
        match self.end {
            Some(End::TimedOut | End::Cancelled) => {
                st.raise(Status::TimedOut);
                st.tail.extend(self.stderr_lines());
            }
            Some(End::Signaled(sig)) => {
                st.raise(Status::Crashed);
                let signal = crate::process::signal_name(sig);
                st.tail.push(crate::verdict::killed_by("go", &signal));
                st.tail.extend(self.stderr_lines());
            }
            Some(End::Exited(code))
                if code != 0
                    && run.status() <= Status::TestsNotFound
                    && st.status.is_none()
                    && !st.unselected_failed =>
            {
                // go failed and the stream says nothing failed: go itself could not run the
                // tests (a broken go.mod, a missing module, a bad package pattern).
                let lines: Vec<&str> = self.stderr.lines().filter(|l| !is_go_progress(l)).collect();
                if lines.iter().any(|l| l.trim() == "no packages to test") {
                    // A module without a single package: nothing ran, nothing is broken.
                    st.tail.extend(self.stderr_lines());
                    return;
                }
                let diags = output::diagnostics(&lines);
                let located: Vec<output::Diag> =
                    diags.iter().filter(|d| d.file.is_some()).cloned().collect();
                let chosen = if located.is_empty() {
                    diags.into_iter().take(1).collect()
                } else {
                    located
                };
                for d in chosen {
                    let e = self.build_error(d);
                    if !run.build_errors.contains(&e) {
                        run.build_errors.push(e);
                    }
                }
                if run.build_errors.is_empty() {
                    run.build_errors.push(BuildError {
                        message: format!("go test exited with code {code}"),
                        ..BuildError::default()
                    });
                }
                st.tail.extend(self.stderr_lines());
            }
            None | Some(End::Exited(_)) => {
                // go ends every package it starts with the package's own result: one without
                // it stopped mid-run (a saved report cut short, a stream go could not finish).
                for p in stream
                    .packages
                    .iter()
                    .filter(|p| p.outcome.is_none() && !p.build_failed())
                {
                    st.raise(Status::Crashed);
                    let why = match self.end {
                        None => {
                            format!("the report ends before {} finished", self.pkg_name(&p.name))
                        }
                        Some(_) => {
                            format!("go test ended before {} finished", self.pkg_name(&p.name))
                        }
                    };
                    if !st.tail.contains(&why) {
                        st.tail.push(why);
                    }
                }
            }
        }
        if st.status.is_some() && st.tail.is_empty() {
            st.tail.extend(self.stderr_lines());
        }
    }
}

/// What go test's exit code says: 0 every package passed; 1 a test or a build failed (go uses
/// it for everything that is not a usage error, "no packages to test" included); 2 the go
/// command's usage error.
pub(super) fn exit_meaning(code: i32, stderr: &str) -> ExitMeaning {
    match code {
        0 => ExitMeaning::Passed,
        1 if stderr.lines().any(|l| l.trim() == "no packages to test") => ExitMeaning::NoTests,
        1 => ExitMeaning::Failed,
        2 => ExitMeaning::UsageError,
        _ => ExitMeaning::Other,
    }
}
