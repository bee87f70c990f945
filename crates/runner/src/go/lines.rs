//! The lines of go's text output worth keeping: the first meaningful line of a test's output, a
//! tail without go's framing, goroutine dumps or timings.

use super::output;

pub(super) fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

/// The first line of output that is not go's framing.
pub(super) fn meaningful<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines
        .iter()
        .copied()
        .find(|l| !l.trim().is_empty() && !output::is_framing(l) && !is_summary(l))
}

/// go's per-package result lines.
pub(super) fn is_summary(l: &str) -> bool {
    l == "FAIL"
        || l == "PASS"
        || l.starts_with("FAIL\t")
        || l.starts_with("ok  \t")
        || l.starts_with("?   \t")
}

/// `go: downloading x v1`: the go command's progress on stderr.
pub(super) fn is_go_progress(l: &str) -> bool {
    ["go: downloading ", "go: finding ", "go: extracting "]
        .iter()
        .any(|p| l.starts_with(p))
}

/// Output for a tail: no framing, no goroutine dumps (the failures carry their frames).
pub(super) fn compact(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut dump = false;
    for l in lines {
        if l.starts_with("goroutine ") && l.trim_end().ends_with(':') {
            dump = true;
            continue;
        }
        if dump {
            let t = l.trim_end();
            let frame_line = l.starts_with('\t')
                || t.ends_with(')')
                || t.starts_with("created by ")
                || t.starts_with("...");
            if frame_line {
                continue;
            }
            dump = false;
        }
        if output::is_framing(l) || l.trim().is_empty() {
            continue;
        }
        out.push(without_timing(l).to_owned());
    }
    out
}

/// `FAIL\tpkg\t0.007s` → `FAIL\tpkg`: a tail says the same from one run to the next.
pub(super) fn without_timing(l: &str) -> &str {
    match l.rsplit_once('\t') {
        Some((head, t))
            if is_summary(l)
                && t.strip_suffix('s')
                    .is_some_and(|n| !n.is_empty() && n.parse::<f64>().is_ok()) =>
        {
            head
        }
        _ => l,
    }
}
