//! The scaffolding every integration test shares, so each test file says only what it checks:
//! private copies of `tests/fixtures/`, the runner `Context` an adapter test needs, and the
//! real `pith` binary run on a workspace with its one-line answer read back, and the project's
//! own command run raw beside it. A dev-dependency
//! only: nothing here ships.

mod answer;
mod context;
mod fixture;
mod pith;
mod raw;

pub use answer::{answer_of, assert_clean, frames, strings, Answer};
pub use context::{traced_lines, Runs};
pub use fixture::{
    age_tree, copy_tree, fixture, fixture_at, fixtures_dir, link_node_modules, repo_root,
    shared_node_modules, write_file, Fixture,
};
pub use pith::{
    harness_base, harness_cache, pith_bare, shared_target, state_dir, without_callers_knobs,
    without_callers_pith_variables, Pith, CALLERS_KNOBS,
};
/// Where pith keeps a workspace's state under a base directory (the store's own answer).
pub use pith_store::state_path;
pub use raw::{raw, Raw};
