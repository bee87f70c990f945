//! How the runner is started: its program (the project's `node_modules/.bin`), pith's
//! reporter, the argv and environment, and what is selected (files, then name patterns).
//!
//! `program` finds the runner and holds it to the versions pith observes; `files` installs
//! pith's reporter and names where one run writes; `args` builds the command itself; and
//! `selection` turns requested ids into the files and name patterns a runner is given.

mod args;
mod files;
mod program;
mod selection;

pub(super) use files::{Cover, Files};
pub(super) use selection::{glob_literal, Selection};

/// Variables a runner sets for the processes it starts: inherited from a caller that is itself
/// a test (a pith run inside a node test, a jest worker), they would make the runner act as a
/// child reporting to a parent that is not there.
pub(super) const RUNNER_ENV: &[&str] = &[
    "NODE_TEST_CONTEXT",
    "JEST_WORKER_ID",
    "VITEST",
    "VITEST_MODE",
    "VITEST_POOL_ID",
    "VITEST_WORKER_ID",
];
