//! A finished run kept: recorded in the history at the generation it tested (which annotates
//! its failures with what the history knows), and what its runners printed kept for
//! `pith output`. A cancelled run is neither: it says nothing of the code.

use std::path::Path;

use pith_model::Report;
use pith_store::Retention;

use crate::state::{keep, recovering};

use super::hold::Held;

/// Bytes of runner output above which the output is kept on a thread of its own.
const KEPT_IN_LINE: usize = 128 * 1024;

/// Records `report` (run for `selection`, `requested` ids asked) and keeps what its runners
/// printed; whether the history recorded it. What the runners printed is kept by any run that
/// ran to its end, a run the history cannot record included (its output is all there is to
/// read then). Recording annotates the report's failures, never what the runners printed, so
/// either may go first. A run that printed much (past [`KEPT_IN_LINE`]) keeps it on a thread
/// while it is recorded; a small one in line, as a thread's start and join cost more than the
/// write then (a virtual machine is slow to wake an idle processor: 0.7 ms against 0.3 ms for
/// a small crate's green run).
pub(super) fn record(
    held: &mut Held,
    root: &Path,
    report: &mut Report,
    selection: &str,
    requested: u32,
    cancelled: bool,
) -> bool {
    let shelf = held
        .store
        .as_ref()
        .filter(|_| !cancelled)
        .map(|s| s.output_shelf());
    let (beside, printed) = if printed_bytes(report) > KEPT_IN_LINE {
        (shelf, None)
    } else {
        (None, shelf)
    };
    let mut recorded = false;
    std::thread::scope(|sc| {
        let keeping = beside.map(|shelf| {
            let ran = report.clone();
            sc.spawn(move || shelf.keep(&crate::output::kept(root, &ran)))
        });
        let kept_here = printed.map(|shelf| shelf.keep(&crate::output::kept(root, report)));
        if let (Some(s), Some(g), false) = (held.store.as_mut(), held.generation, cancelled) {
            let retention = Retention::from_env();
            let recorded_run = recovering(s, |s| {
                s.record_pruned(g, selection, requested, report, retention)
            });
            recorded = keep(recorded_run, &mut held.warnings).is_some();
        }
        let kept = keeping
            .map(|k| k.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .or(kept_here);
        if let Some(Err(e)) = kept {
            held.warnings
                .push(format!("the run's output was not kept: {e}"));
        }
    });
    recorded
}

/// Bytes the report's runners printed, as kept for `pith output`.
fn printed_bytes(report: &Report) -> usize {
    report
        .runs
        .iter()
        .map(|r| r.printed.text.len() + r.printed.tail.len())
        .sum()
}
