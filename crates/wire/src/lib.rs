//! The only crate that knows an answer's JSON shape. It decides what an answer shows (caps,
//! clusters, budgets) and serializes it: compact, camelCase, enums as names, no field without
//! signal. The budgets live here, beside the shapes they bound.

mod test_answer;

pub use test_answer::{test_answer, TestAnswer};

/// A green run's answer stays within this many bytes.
pub const GREEN_BUDGET: usize = 100;
/// One failure with a one-line message and two project frames.
pub const ONE_FAILURE_BUDGET: usize = 400;
/// Fifty failures from one broken helper.
pub const ONE_CAUSE_BUDGET: usize = 500;
/// A hundred distinct failures; also the target the shaper trims a red answer towards
/// (excluding a raw tail, which has its own bound).
pub const MANY_FAILURES_BUDGET: usize = 800;

/// Serializes any answer the one way answers are serialized.
pub fn to_json<T: serde::Serialize>(answer: &T) -> String {
    // Serializing plain structs of strings and numbers cannot fail.
    serde_json::to_string(answer).unwrap_or_else(|e| format!("{{\"error\":\"serialize: {e}\"}}"))
}
