//! The answers, as the faces hand them on: each query's result shaped by `wire` into its one
//! compact JSON line, with the exit code `pith` ends with. The engine → wire step happens
//! here and nowhere else, so a CLI command and its MCP tool answer the same bytes by
//! construction, not by convention.

use std::path::{Path, PathBuf};

use pith_model::Report;

use crate::impact::{self, ImpactError};
use crate::run;
use crate::state::{self, FailuresRequest, StatusRequest};
use crate::symbols::{self, Lookups, SymbolError};
use crate::watch::Watcher;
use crate::{EngineError, GainRequest, StateOptions, TestRequest};

/// Exit code of an answer that found what it looked for (`status`, `failures`, a symbol
/// with definitions or uses).
const EXIT_ANSWERED: u8 = 0;
/// Exit code of a symbol query that found nothing (the answer still says so).
const EXIT_NOTHING_FOUND: u8 = 1;

/// One answer: the bytes the CLI prints and an MCP tool returns, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The compact JSON line, without its newline (`pith gain --human`: a table, without its
    /// last newline).
    pub json: String,
    /// 0 green (or answered), 1 the code under test is not green (or nothing found), 2 pith
    /// could not do its job (a missing runner, a busy workspace).
    pub exit: u8,
    /// One-line warnings about the workspace state (a damaged database moved aside): the
    /// faces put them on stderr, never in the answer.
    pub warnings: Vec<String>,
}

/// `pith test`: runs the selected tests (or answers `unchanged` from the history). A run
/// recorded in the history is recorded for `pith gain` too: what its runners printed against
/// this answer.
pub fn test(req: &TestRequest, opts: &StateOptions) -> Result<Answer, EngineError> {
    let tested = run::run_tests_with(req, opts);
    // The runs' watchdogs, long gone by now, reaped: this process may end next.
    pith_runner::process::reap_watchdogs();
    let run::Tested { mut report, store } = tested?;
    let shaped = pith_wire::test_answer(&report);
    let json = pith_wire::to_json(&shaped);
    if let Some(store) = &store {
        let fidelity = pith_wire::fidelity(&report, &shaped);
        let warning = crate::gain::record(store, &report, &json, fidelity);
        report.warnings.extend(warning);
    }
    Ok(Answer {
        json,
        exit: report.status().exit_code() as u8,
        warnings: std::mem::take(&mut report.warnings),
    })
}

/// `pith gain`: the history's answered commands, what the agent would have read against
/// what pith answered; answered (exit 0) whatever they show. `human` is the answer as a
/// small table instead of its JSON line.
pub fn gain(req: &GainRequest, human: bool) -> Result<Answer, EngineError> {
    let mut gain = crate::gain::gain(req)?;
    let answer = pith_wire::gain_answer(&gain);
    let json = if human {
        pith_wire::gain_table(&answer).trim_end().to_owned()
    } else {
        pith_wire::to_json(&answer)
    };
    Ok(Answer {
        json,
        exit: EXIT_ANSWERED,
        warnings: std::mem::take(&mut gain.warnings),
    })
}

/// `pith test --report`: reads existing report files, running nothing.
pub fn reports(root: Option<&Path>, cwd: &Path, files: &[PathBuf]) -> Result<Answer, EngineError> {
    run::read_reports(root, cwd, files).map(tested)
}

/// A test report's answer; its status decides the exit code.
fn tested(mut report: Report) -> Answer {
    Answer {
        json: pith_wire::to_json(&pith_wire::test_answer(&report)),
        exit: report.status().exit_code() as u8,
        warnings: std::mem::take(&mut report.warnings),
    }
}

/// `pith status`: answered (exit 0) whatever the last run's status.
pub fn status(req: &StatusRequest) -> Result<Answer, EngineError> {
    let mut ws = state::status(req)?;
    Ok(Answer {
        json: pith_wire::to_json(&pith_wire::status_answer(&ws)),
        exit: EXIT_ANSWERED,
        warnings: std::mem::take(&mut ws.warnings),
    })
}

/// `pith failures`: one page (from 1) of the last run's failures; answered (exit 0) whatever
/// they are.
pub fn failures(req: &FailuresRequest, page: usize, stacks: bool) -> Result<Answer, EngineError> {
    let mut details = state::failures(req)?;
    Ok(Answer {
        json: pith_wire::to_json(&pith_wire::failures_answer(&details, page, stacks)),
        exit: EXIT_ANSWERED,
        warnings: std::mem::take(&mut details.warnings),
    })
}

/// `pith output`: one page (from 1) of the last run's raw output, of one test's own output, or
/// of the lines matching a pattern; answered (exit 0) whatever it shows, no run yet included.
pub fn output(req: &crate::OutputRequest, page: usize) -> Result<Answer, EngineError> {
    let lines = crate::output::output(req)?;
    Ok(Answer {
        json: pith_wire::to_json(&pith_wire::output_answer(&lines, page, req.grep.is_some())),
        exit: EXIT_ANSWERED,
        warnings: Vec::new(),
    })
}

/// `pith symbol`: where `name` is defined; exit 1 when nowhere.
pub fn symbol(
    root: Option<&Path>,
    cwd: &Path,
    name: &str,
    kind: Option<&str>,
) -> Result<Answer, SymbolError> {
    let defs = symbols::find_symbol(root, cwd, name, kind)?;
    let shaped: Vec<pith_wire::SymbolDef> = defs.iter().map(Into::into).collect();
    let answer = pith_wire::symbol_answer(name.trim(), &shaped);
    Ok(found(pith_wire::to_json(&answer), answer.found()))
}

/// `pith usages`: where `name` is used; exit 1 when nowhere.
pub fn usages(root: Option<&Path>, cwd: &Path, name: &str) -> Result<Answer, SymbolError> {
    let files = symbols::find_usages(root, cwd, name)?;
    let shaped: Vec<pith_wire::UsesInFile> = files.iter().map(Into::into).collect();
    let answer = pith_wire::usages_answer(name.trim(), &shaped);
    Ok(found(pith_wire::to_json(&answer), answer.count() > 0))
}

/// `pith symbol` for a long-running face: the index kept in `lookups` between calls and
/// refreshed from `watcher`'s changes; the same answer as [`symbol`].
pub fn symbol_kept(
    root: &Path,
    name: &str,
    kind: Option<&str>,
    lookups: &Lookups,
    watcher: Option<&Watcher>,
) -> Result<Answer, SymbolError> {
    let defs = symbols::find_symbol_kept(root, name, kind, lookups, watcher)?;
    let shaped: Vec<pith_wire::SymbolDef> = defs.iter().map(Into::into).collect();
    let answer = pith_wire::symbol_answer(name.trim(), &shaped);
    Ok(found(pith_wire::to_json(&answer), answer.found()))
}

/// `pith usages` for a long-running face (see [`symbol_kept`]).
pub fn usages_kept(
    root: &Path,
    name: &str,
    lookups: &Lookups,
    watcher: Option<&Watcher>,
) -> Result<Answer, SymbolError> {
    let files = symbols::find_usages_kept(root, name, lookups, watcher)?;
    let shaped: Vec<pith_wire::UsesInFile> = files.iter().map(Into::into).collect();
    let answer = pith_wire::usages_answer(name.trim(), &shaped);
    Ok(found(pith_wire::to_json(&answer), answer.count() > 0))
}

/// `pith tests-for`: the test files that depend on a file; exit 1 when none does (a file no
/// graph places answers that any test may read it, exit 0).
pub fn tests_for(root: Option<&Path>, cwd: &Path, file: &str) -> Result<Answer, ImpactError> {
    let tests = impact::tests_for_file(root, cwd, file)?;
    let json = pith_wire::to_json(&pith_wire::tests_for_answer(&tests));
    Ok(found(json, tests.unplaced || !tests.tests.is_empty()))
}

/// `pith select`: the test files the current changes select (since the last green run, or
/// git revision `rev`); answered (exit 0) whatever it selects.
pub fn select(root: Option<&Path>, cwd: &Path, rev: Option<&str>) -> Result<Answer, ImpactError> {
    let selection = impact::select(root, cwd, rev)?;
    let json = pith_wire::to_json(&pith_wire::select_answer(&selection));
    Ok(found(json, true))
}

/// `pith blast`: what depends on a file or a symbol; exit 1 when the target is unknown.
pub fn blast(root: Option<&Path>, cwd: &Path, target: &str) -> Result<Answer, ImpactError> {
    let blast = impact::blast(root, cwd, target)?;
    let json = pith_wire::to_json(&pith_wire::blast_answer(&blast));
    Ok(found(json, !blast.unknown))
}

fn found(json: String, any: bool) -> Answer {
    Answer {
        json,
        exit: if any {
            EXIT_ANSWERED
        } else {
            EXIT_NOTHING_FOUND
        },
        warnings: Vec::new(),
    }
}
