//! A failure's whole text for `pith failures` (`Failure::detail`): every line of the runner's
//! message, its diff and its cause chain, without colour, workspace paths relative, capped in
//! lines and bytes with a `… N more lines` remainder. One rule for every adapter, so the cap and
//! the test "says nothing beyond the message" are the same whatever the runner.

use pith_model::{Failure, DETAIL_BYTES, DETAIL_LINES};

use crate::paths::PathMap;

/// The whole text `full` of a failure whose `message` an answer shows, cleaned and capped; `None`
/// when it says nothing beyond `message` (or nothing at all).
pub fn detail(paths: &PathMap, full: &str, message: &str) -> Option<String> {
    let clean = paths.scrub(full);
    let mut lines: Vec<&str> = Vec::new();
    for line in clean.lines().map(str::trim_end) {
        // Runs of blank lines are one blank line; none leads.
        if line.is_empty() && lines.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        lines.push(line);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    // An indent every line shares is the runner's layout (an XML report's), not the text's.
    let indent = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(""))
        .collect();
    if lines.is_empty() || says_no_more(&lines, message) {
        return None;
    }
    Some(cap(&lines))
}

/// Sets `f.detail` from the failure's whole text `full`.
pub fn fill(f: &mut Failure, paths: &PathMap, full: &str) {
    f.detail = detail(paths, full, &f.message);
}

/// One line that the message already carries whole (not cut with `…`), give or take a prefix
/// (`panicked: `, a bare `Error: `).
fn says_no_more(lines: &[&str], message: &str) -> bool {
    let text = lines.join("\n");
    let text = text.trim();
    let message = message.trim();
    text == message
        || (lines.len() == 1
            && !message.is_empty()
            && (message.ends_with(text) || text.ends_with(message)))
}

/// The first lines within [`DETAIL_LINES`] and [`DETAIL_BYTES`]; the rest counted on a last
/// `… N more lines` line. A first line longer than the byte cap is cut at a character boundary.
fn cap(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut kept = 0;
    for line in lines {
        // Room for the remainder line, should one be needed.
        let room = DETAIL_BYTES.saturating_sub(out.len() + 1 + 24);
        if kept == DETAIL_LINES || (kept > 0 && line.len() > room) {
            break;
        }
        if kept > 0 {
            out.push('\n');
        }
        if line.len() > room {
            let mut end = room;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            out.push_str(&line[..end]);
            out.push('…');
        } else {
            out.push_str(line);
        }
        kept += 1;
    }
    if kept < lines.len() {
        out.push_str(&format!("\n… {} more lines", lines.len() - kept));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn paths() -> PathMap {
        PathMap::new(Path::new("/ws"))
    }

    #[test]
    fn the_whole_text_without_colour_or_workspace_paths() {
        let full = "\u{1b}[31mAssertionError: boom\u{1b}[0m\n\n\n  at /ws/src/a.js:3:4  \n\n";
        assert_eq!(
            detail(&paths(), full, "AssertionError: boom").as_deref(),
            Some("AssertionError: boom\n\n  at src/a.js:3:4")
        );
    }

    #[test]
    fn nothing_beyond_the_message_is_no_detail() {
        assert_eq!(detail(&paths(), "boom\n", "boom"), None);
        assert_eq!(detail(&paths(), "  \n", "boom"), None);
        assert_eq!(detail(&paths(), "boom", "panicked: boom"), None);
        assert_eq!(detail(&paths(), "Error: boom", "boom"), None);
        assert!(detail(&paths(), "boom\nmore", "boom").is_some());
        assert_eq!(
            detail(&paths(), "    Test threw:\n      Inner: why\n", "x").as_deref(),
            Some("Test threw:\n  Inner: why"),
            "a shared indent goes"
        );
        let long = "x".repeat(500);
        assert!(
            detail(&paths(), &long, &crate::text::first_line(&long)).is_some(),
            "a message cut at 400 characters is not the whole line"
        );
    }

    #[test]
    fn capped_in_lines_and_bytes_with_the_rest_counted() {
        let many: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let d = detail(&paths(), &many, "line 0").unwrap();
        assert_eq!(d.lines().count(), DETAIL_LINES + 1);
        assert_eq!(d.lines().last(), Some("… 40 more lines"));

        let wide: String = (0..20)
            .map(|i| format!("{i} {}\n", "é".repeat(300)))
            .collect();
        let d = detail(&paths(), &wide, "0").unwrap();
        assert!(d.len() <= DETAIL_BYTES, "{}", d.len());
        assert!(d.ends_with("more lines"), "{d}");

        let one = "é".repeat(3000);
        let d = detail(&paths(), &one, "").unwrap();
        assert!(d.len() <= DETAIL_BYTES && d.ends_with('…'), "{}", d.len());
    }

    proptest::proptest! {
        #[test]
        fn any_text_stays_within_the_cap(full in "(?s).{0,6000}", message in ".{0,50}") {
            if let Some(d) = detail(&paths(), &full, &message) {
                proptest::prop_assert!(d.len() <= DETAIL_BYTES + 4);
                proptest::prop_assert!(d.lines().count() <= DETAIL_LINES + 1);
            }
        }
    }
}
