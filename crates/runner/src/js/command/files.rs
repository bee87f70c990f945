//! Where one run's files are: pith's reporter (installed once per content, or written per run
//! for mocha), the runner's JSON report, the reporter's records, node's exit hook and the
//! coverage directory, each in the run's scratch directory, cleared of an earlier run's.

use std::path::PathBuf;

use crate::{Context, RunnerError};

use super::super::{Js, Runner};

/// pith's jest and vitest reporters, each followed by what they share (`pithRecords`): one
/// file each, installed and loaded alone, whatever the project's module resolution.
const JEST_REPORTER: &str = concat!(
    include_str!("../pith_jest_reporter.cjs"),
    "\n",
    include_str!("../pith_reporter_records.js")
);

const VITEST_REPORTER: &str = concat!(
    include_str!("../pith_vitest_reporter.mjs"),
    "\n",
    include_str!("../pith_reporter_records.js")
);

/// pith's mocha reporter, written per run into the scratch directory with its records' path
/// and the script's reporter in it (see [`Js::files`]).
const MOCHA_REPORTER: &str = concat!(
    include_str!("../pith_mocha_reporter.cjs"),
    "\n",
    include_str!("../pith_reporter_records.js")
);

const NODE_REPORTER: &str = include_str!("../pith_node_reporter.mjs");

const NODE_EXIT_HOOK: &str = include_str!("../pith_node_exit.cjs");

/// Where one run's files are.
pub(crate) struct Files {
    pub(crate) reporter: PathBuf,
    /// The runner's own JSON report (jest, vitest).
    pub(crate) json: PathBuf,
    /// pith's reporter's records: beside the JSON report, where the reporters look for them.
    pub(crate) events: PathBuf,
    /// node: the exit hook, and where it records files that ended through `process.exit()`.
    pub(crate) exit_hook: PathBuf,
    pub(crate) exits: PathBuf,
    pub(crate) coverage: PathBuf,
}

impl Files {
    /// The reporter's list of traced test files (beside jest's JSON report).
    pub(crate) fn traced_index(&self) -> PathBuf {
        PathBuf::from(format!("{}.traced.json", self.json.display()))
    }

    /// The file whose presence asks the reporter to trace (beside jest's JSON report).
    pub(crate) fn trace_marker(&self) -> PathBuf {
        PathBuf::from(format!("{}.trace", self.json.display()))
    }
}

/// What a tracing re-run (jest, vitest) collects coverage of, into [`Files::coverage`]: glob
/// patterns relative to the runner's root directory, each naming one changed file.
pub(crate) struct Cover {
    pub(crate) globs: Vec<String>,
    /// jest: istanbul's instrumentation (babel) rather than V8's coverage, whatever the
    /// version: a run that traces itself takes each test file's coverage as it comes, already
    /// in the source's lines, and V8's precise coverage of every script in each worker (jest's
    /// own included) would cost the whole run more than the files traced.
    pub(crate) instrument: bool,
}

impl Js {
    /// Where this run's files go, pith's reporter installed and the records of an earlier
    /// run removed; for node, the exit hook written with the path it records to.
    pub(crate) fn files(&self, ctx: &Context<'_>) -> Result<Files, RunnerError> {
        let (file, content) = match self.runner {
            Runner::Jest => ("pith_jest_reporter.cjs", JEST_REPORTER),
            Runner::Vitest => ("pith_vitest_reporter.mjs", VITEST_REPORTER),
            Runner::Node => ("pith_node_reporter.mjs", NODE_REPORTER),
            Runner::Mocha => ("pith_mocha_reporter.cjs", MOCHA_REPORTER),
        };
        let events = ctx.scratch.join(format!("{}.events.jsonl", self.name()));
        let reporter = if self.runner == Runner::Mocha {
            // Written per run, carrying the records' path and the script's reporter: mocha
            // passes its reporter options on to the project's reporter, so none of pith's.
            let json = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "null".to_owned());
            let named = self.script.mocha_reporter();
            let text = MOCHA_REPORTER
                .replace("'__PITH_EVENTS__'", &json(&events.to_string_lossy()))
                .replace(
                    "'__PITH_PROJECT_REPORTER__'",
                    &named.as_deref().map_or_else(|| "null".to_owned(), json),
                );
            let path = ctx.scratch.join(file);
            std::fs::write(&path, text)
                .map_err(|e| RunnerError::io(format!("writing {}", path.display()), e))?;
            path
        } else {
            crate::install_embedded(ctx.cache, "js", file, content)?
        };
        let files = Files {
            reporter,
            events,
            json: ctx.scratch.join(format!("{}.json", self.name())),
            exit_hook: ctx.scratch.join("pith_node_exit.cjs"),
            exits: ctx.scratch.join("node-exits.jsonl"),
            coverage: ctx.scratch.join("coverage"),
        };
        let (marker, index) = (files.trace_marker(), files.traced_index());
        for f in [&files.events, &files.json, &files.exits, &marker, &index] {
            let _ = std::fs::remove_file(f);
        }
        if self.runner == Runner::Node {
            // The hook carries the path it records to: nothing in the tests' environment.
            let dest = serde_json::to_string(&files.exits.to_string_lossy())
                .unwrap_or_else(|_| "\"\"".to_owned());
            let hook = NODE_EXIT_HOOK.replace("\"__PITH_EXITS__\"", &dest);
            std::fs::write(&files.exit_hook, hook).map_err(|e| {
                RunnerError::io(format!("writing {}", files.exit_hook.display()), e)
            })?;
        }
        Ok(files)
    }
}
