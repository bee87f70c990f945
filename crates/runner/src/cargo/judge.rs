//! Failures and compile errors as the model wants them, common to both drives (plain `cargo
//! test` and nextest): a failed test from its captured output (its panic and backtrace, a
//! `#[should_panic]` note, or its first line), paths rustc printed located in the workspace,
//! and the tail of raw output without cargo's progress.

use std::path::Path;

use pith_model::{BuildError, Failure, Frame};

use super::command::split_id;
use super::parse::{doctest_block, is_progress, should_panic_note};
use super::{diag, doctest, panic};
use crate::{text, Context};

/// Where a path rustc printed relative to the cargo workspace root lives in pith's workspace.
/// That root is the project's directory (`rust/` under a workspace of several projects) unless
/// it lies above it; the package directory's ancestors are tried when the file is not under the
/// project's directory.
pub(super) fn locate(ctx: &Context<'_>, file: &str, line: u32, pkg_dir: Option<&Path>) -> Frame {
    if Path::new(file).is_absolute() {
        return ctx.paths.frame(file, line, None);
    }
    if ctx.dir.join(file).exists() {
        return ctx.paths.frame(file, line, Some(ctx.dir));
    }
    if let Some(dir) = pkg_dir {
        for base in dir.ancestors() {
            if base.join(file).exists() {
                return ctx.paths.frame(file, line, Some(base));
            }
        }
    }
    ctx.paths.frame(file, line, Some(ctx.dir))
}

/// Compile errors as the model wants them: located in the workspace, first line only, without
/// duplicates (a lib and its test harness compile the same file).
pub(super) fn build_errors(ctx: &Context<'_>, diags: &[diag::Diagnostic]) -> Vec<BuildError> {
    let mut out: Vec<BuildError> = Vec::new();
    for d in diags {
        let frames: Vec<Frame> = d
            .spans
            .iter()
            .map(|(f, l)| locate(ctx, f, *l, d.package_dir.as_deref()))
            .collect();
        let mut at = frames.iter().find(|f| f.project);
        let mut message = text::first_line(&ctx.paths.scrub(&d.message));
        // An error inside a macro defined in the project: told where the macro was expanded
        // (the outermost call in the project, the code that was edited), its definition named.
        let project: Vec<&Frame> = frames.iter().filter(|f| f.project).collect();
        let primary_in_project = frames.first().is_some_and(|f| f.project);
        if let (Some(name), [def, .., call], true) =
            (&d.macro_name, project.as_slice(), primary_in_project)
        {
            message = format!("{message} (macro {name} defined at {})", def.location());
            at = Some(call);
        }
        let e = BuildError {
            file: at.map(|f| f.file.clone()),
            line: at.map(|f| f.line),
            code: d.code.clone(),
            message,
        };
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// A failed test from its captured output: the panic's message and frames, or else the first
/// line of what it printed (a test returning `Err` prints `Error: ...`).
pub(super) fn failure(
    ctx: &Context<'_>,
    test: String,
    output: &str,
    pkg_dir: Option<&Path>,
    fallback: Option<&str>,
) -> Failure {
    let note = should_panic_note(output);
    let Some(p) = panic::parse(output) else {
        if let Some((message, at)) = note {
            let mut frames: Vec<Frame> = at
                .map(|(file, line)| locate(ctx, &file, line, pkg_dir))
                .into_iter()
                .collect();
            ctx.paths.fill_code(&mut frames);
            return Failure {
                test,
                message: ctx.paths.scrub(&message),
                frames,
                ..Failure::default()
            };
        }
        let mut message = text::first_line(&ctx.paths.scrub(output));
        if message.is_empty() || message.starts_with("running ") {
            message = fallback
                .map(|f| text::first_line(&ctx.paths.scrub(f)))
                .unwrap_or_default();
        }
        if message.is_empty() {
            message = "failed".to_owned();
        }
        let mut f = Failure {
            test,
            message,
            ..Failure::default()
        };
        crate::detail::fill(&mut f, ctx.paths, output);
        return f;
    };
    let mut frames = backtrace_frames(ctx, &p.frames, pkg_dir);
    // Without a backtrace the panic's location is the one frame, in the project or not (so
    // `enrich` can tell a re-run panicked at the same place); with one, the location is added
    // only when the backtrace names no project frame.
    if let Some(at) = panic_location(ctx, &p, pkg_dir) {
        if frames.is_empty() || (at.project && !frames.iter().any(|f| f.project)) {
            frames.push(at);
        }
    }
    let block = doctest_block(&test);
    if let Some((file, _)) = block {
        frames.retain(|f| !f.file.ends_with(file));
    }
    ctx.paths.fill_code(&mut frames);
    if let Some((file, line)) = block {
        // rustdoc numbers a doctest's panic within the program it wraps the block in (its
        // prelude lines included; rust-lang/rust#73469), not within the file: `src/lib.rs:8`
        // for an assert at line 10. Mapped back into the doc comment when the block can be
        // read; else the block's own line (the fence) is the place to open.
        let fence = locate(ctx, file, line, pkg_dir);
        let mut at = doctest_frame(ctx, &test, &p, file, &fence).unwrap_or(fence);
        ctx.paths.fill_code(std::slice::from_mut(&mut at));
        frames.push(at);
    }
    // A `#[should_panic(expected)]` test that panicked otherwise: libtest's note says what was
    // wrong, the panic says where.
    let mut message = match &note {
        Some((m, _)) => ctx.paths.scrub(m),
        None => ctx.paths.scrub(&p.message),
    };
    if message.is_empty() {
        message = "panicked".to_owned();
    }
    let mut f = Failure {
        test,
        message: text::cut_chars(&message, text::MESSAGE_CHARS).into_owned(),
        kind: Some("panic".to_owned()),
        frames,
        ..Failure::default()
    };
    let whole = match &note {
        // libtest's note first, then the panic it explains.
        Some(_) => format!("{}\n{}", f.message, p.text),
        None => p.text,
    };
    crate::detail::fill(&mut f, ctx.paths, &whole);
    f
}

/// A doctest's panic in its doc comment: the program line rustdoc printed under the block's
/// file, mapped through the block read from `fence`'s file (edition 2024 merges doctests into
/// a bundle file of its own, which names no line of the source).
fn doctest_frame(
    ctx: &Context<'_>,
    test: &str,
    p: &panic::Panic,
    file: &str,
    fence: &Frame,
) -> Option<Frame> {
    let (at, program) = p.location.as_ref()?;
    if at != file {
        return None;
    }
    let crate_name = split_id(test)?.0.split("::").next()?.replace('-', "_");
    let source = std::fs::read_to_string(ctx.paths.root().join(&fence.file)).ok()?;
    let line = doctest::file_line(&source, fence.line, *program, &crate_name)?;
    Some(Frame {
        line,
        code: None,
        ..fence.clone()
    })
}

/// Where a panic happened, located like its frames.
pub(super) fn panic_location(
    ctx: &Context<'_>,
    p: &panic::Panic,
    pkg_dir: Option<&Path>,
) -> Option<Frame> {
    let (file, line) = p.location.as_ref()?;
    Some(locate(ctx, file, *line, pkg_dir))
}

/// Backtrace frames, outermost first. `./src/x.rs` is relative to the package directory (the
/// test binary's cwd). The libtest harness closure around each test is dropped: it points at
/// the `fn` line of the test, which the test's own frame already names.
pub(super) fn backtrace_frames(
    ctx: &Context<'_>,
    raw: &[panic::RawFrame],
    pkg_dir: Option<&Path>,
) -> Vec<Frame> {
    let mut out = Vec::new();
    for (i, f) in raw.iter().enumerate() {
        let Some(file) = &f.file else { continue };
        if i > 0 {
            if let Some(outer) = f.symbol.strip_suffix("::{{closure}}") {
                if raw[i - 1].symbol == outer {
                    continue;
                }
            }
        }
        let frame = if file.starts_with("./") || file.starts_with("../") {
            ctx.paths.frame(file, f.line, pkg_dir)
        } else if Path::new(file).is_absolute() {
            ctx.paths.frame(file, f.line, None)
        } else {
            // A relative path without `./`: as rustc was given it (workspace-relative).
            locate(ctx, file, f.line, pkg_dir)
        };
        out.push(frame);
    }
    out.reverse();
    out
}

/// The end of some raw output, paths relative; `None` when there is nothing to say.
pub(super) fn tail_of(ctx: &Context<'_>, s: &str) -> Option<String> {
    crate::verdict::tail_of_lines(ctx.paths, s.lines(), |l| !is_progress(l))
}
