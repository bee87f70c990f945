//! The only crate that knows an answer's JSON shape. It decides what an answer shows (caps,
//! clusters, budgets) and serializes it: compact, camelCase, enums as names, no field without
//! signal. The budgets live here, beside the shapes they bound.

mod failures_answer;
mod gain_answer;
mod impact_answer;
mod output_answer;
mod shaping;
mod status_answer;
mod symbol_answer;
mod test_answer;

use pith_model::Report;

pub use failures_answer::{failures_answer, FailuresAnswer, FAILURES_PAGE};
pub use gain_answer::{
    fidelity, gain_answer, gain_table, GainAnswer, GAIN_BUDGET, GAIN_COMMANDS, GAIN_DAYS,
};
pub use impact_answer::{
    blast_answer, select_answer, tests_for_answer, BlastAnswer, FileTestsAnswer, SelectAnswer,
    BLAST_BUDGET, SELECT_BUDGET, TESTS_FOR_BUDGET,
};
pub use output_answer::{output_answer, OutputAnswer, OUTPUT_BUDGET};
pub use status_answer::{status_answer, StatusAnswer};
pub use symbol_answer::{
    symbol_answer, usages_answer, SymbolAnswer, SymbolDef, UsagesAnswer, UsesInFile, RESOLUTION,
};
pub use test_answer::TestAnswer;

/// A green run's answer stays within this many bytes, its generation included.
pub const GREEN_BUDGET: usize = 100;
/// One failure with a one-line message and two project frames.
pub const ONE_FAILURE_BUDGET: usize = 400;
/// Fifty failures from one broken helper.
pub const ONE_CAUSE_BUDGET: usize = 500;
/// Every `pith test` answer, whatever the run: any number of failures, causes, projects,
/// build errors, running tests, and its raw tail. Shaping trims to it (see `shaping`).
pub const ANSWER_CEILING: usize = 800;
/// A hundred distinct failures.
pub const MANY_FAILURES_BUDGET: usize = ANSWER_CEILING;
/// `pith symbol` with one definition.
pub const SYMBOL_ONE_BUDGET: usize = 170;
/// `pith symbol` with many definitions: the best few, the rest counted.
pub const SYMBOL_MANY_BUDGET: usize = 800;
/// `pith usages` with fewer than ten uses (sent flat, every site shown).
pub const USAGES_FEW_BUDGET: usize = 360;
/// `pith usages` with 480 uses across 60 files; a grouped answer never grows past it.
pub const USAGES_MANY_BUDGET: usize = 900;
/// `pith status --since N` when nothing changed.
pub const UNCHANGED_BUDGET: usize = 40;
/// A full `pith status` answer.
pub const STATUS_BUDGET: usize = 400;
/// `pith failures` for one test, without `--stacks`: [`FAILURE_FRAMES_BUDGET`] for everything
/// but the message, and room for a whole message ([`pith_model::DETAIL_BYTES`] of text, which
/// JSON escaping grows by a few hundred bytes at most in practice; a longer one sheds lines from
/// its end). The detail is what `pith failures` is asked for, so its message is not cut to a
/// line as in `pith test`; what surrounds it stays as small as before.
pub const FAILURE_DETAIL_BUDGET: usize = FAILURE_FRAMES_BUDGET + pith_model::DETAIL_BYTES + 400;
/// `pith failures` for one test, without `--stacks`, apart from its message: the id, phase,
/// flags and frames (the frames trimmed to fit).
pub const FAILURE_FRAMES_BUDGET: usize = 600;

/// Serializes any answer the one way answers are serialized.
pub fn to_json<T: serde::Serialize>(answer: &T) -> String {
    // Serializing plain structs of strings and numbers cannot fail.
    serde_json::to_string(answer).unwrap_or_else(|e| format!("{{\"error\":\"serialize: {e}\"}}"))
}

/// Shapes a report into the `pith test` answer: the whole answer, fitted under its budget
/// (`shaping`).
pub fn test_answer(report: &Report) -> TestAnswer {
    let (mut answer, fit) = test_answer::whole(report);
    if let Some(fit) = fit {
        shaping::shape(&mut answer, &fit.failures, &fit.suspects, fit.tied);
    }
    answer
}

/// The first line of a message that says something.
pub(crate) fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or(s)
}

/// Cuts text at a character boundary, marking the cut.
pub(crate) fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_owned(),
        Some((i, _)) => format!("{}…", s[..i].trim_end()),
    }
}

/// `skip_serializing_if` for counts: a zero count is no signal, so the field is left out.
pub(crate) fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}
