//! GoogleTest's text as any runner shows it — CTest (`gtest/`) and Bazel (`bazel/`) alike:
//! the console's markers ([`console`]), a failure's text ([`failure`]) and the end of what the
//! tests printed without gtest's banners ([`output_tail`]). A shared reader: it knows
//! GoogleTest, no runner.

pub(crate) mod console;
pub(crate) mod failure;

use crate::{verdict, PathMap};

/// The end of what tests printed, without gtest's banners and separators (`Running main()`,
/// `[----------]`, `[==========]`): what is left is the tests' own lines and their words.
pub(crate) fn output_tail<'a>(
    paths: &PathMap,
    lines: impl Iterator<Item = &'a str>,
) -> Option<String> {
    verdict::tail_of_lines(paths, lines, |l| {
        !(l.starts_with("Running main() from")
            || l.starts_with("Note: Google Test filter")
            || l.starts_with("[----------]")
            || l.starts_with("[==========]"))
    })
}
