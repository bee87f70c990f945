//! A build that failed, as errors: the compilers' words from the failed actions' output
//! (gcc, clang, javac alike), and Bazel's own `ERROR:` lines where no compiler spoke (a BUILD
//! file that does not load, a target that does not exist). Apart from the cases: a build that
//! failed leaves no test results, only the actions' output and Bazel's console.

use pith_model::BuildError;

use super::super::bep::Stream;
use super::files::read_end;
use crate::{c_build, text, PathMap};

/// Compiler errors from the failed actions' stderr (gcc, clang, javac alike), each once.
pub(super) fn build_errors(stream: &Stream, paths: &PathMap) -> Vec<BuildError> {
    let mut out: Vec<BuildError> = Vec::new();
    for a in &stream.failed_actions {
        let text = [a.stderr.as_deref(), a.stdout.as_deref()]
            .into_iter()
            .flatten()
            .map(read_end)
            .collect::<Vec<_>>()
            .join("\n");
        for e in c_build::errors(&text, paths) {
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    if out.is_empty() && !stream.failed_actions.is_empty() {
        // The stderr files are gone (a later build overwrote them): the console has the same
        // compiler lines.
        out = c_build::errors(&stream.console.join("\n"), paths);
    }
    out
}

/// Bazel's own `ERROR: /ws/pkg/BUILD:3:11: message` lines (loading and analysis failures).
pub(super) fn bazel_errors(console: &[String], paths: &PathMap) -> Vec<BuildError> {
    let mut out: Vec<BuildError> = Vec::new();
    for line in console {
        let Some(rest) = line.strip_prefix("ERROR: ") else {
            continue;
        };
        let located = rest.split_once(": ").and_then(|(loc, msg)| {
            let mut parts = loc.rsplitn(3, ':');
            let (a, b, file) = (parts.next()?, parts.next()?, parts.next()?);
            let line: u32 = if file.contains('/') && a.parse::<u32>().is_ok() {
                b.parse().ok()?
            } else {
                return None;
            };
            Some((paths.relativize(file, None)?, line, msg))
        });
        let e = match located {
            Some((file, line, msg)) => BuildError {
                file: Some(file),
                line: Some(line),
                code: None,
                message: text::first_line(&paths.scrub(msg)),
            },
            None if rest.starts_with("Build did NOT complete")
                || rest.starts_with("Couldn't start the build") =>
            {
                continue
            }
            None => BuildError {
                message: text::first_line(&paths.scrub(rest)),
                ..BuildError::default()
            },
        };
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bazels_own_errors_are_located_in_build_files() {
        let ws = tempfile::tempdir().unwrap();
        let paths = PathMap::new(ws.path());
        let console = vec![
            format!(
                "ERROR: {}/pkg/BUILD:5:8: no such target '//pkg:nope'",
                ws.path().display()
            ),
            "ERROR: Build did NOT complete successfully".to_owned(),
            "ERROR: Skipping '//x:y': no such package".to_owned(),
        ];
        let e = bazel_errors(&console, &paths);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].file.as_deref(), Some("pkg/BUILD"));
        assert_eq!(e[0].line, Some(5));
        assert_eq!(e[0].message, "no such target '//pkg:nope'");
        assert!(e[1].file.is_none());
    }
}
