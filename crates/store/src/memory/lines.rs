//! The line diff: which lines of a new content are new or changed relative to an old one, as
//! sorted hunks with neighbours joined, and how alike two contents are (to pair renames). Pure
//! functions of bytes, kept apart from the store and from git so they are tested on their own
//! and shared: git's parsed hunks are joined and spanned the same way.

use super::Hunk;

/// The share of lines two contents have in common, 0 to 1.
pub(super) fn similarity(old: &[u8], new: &[u8]) -> f32 {
    let (a, b) = (split_lines(old), split_lines(new));
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b);
    let equal: usize = ops
        .iter()
        .map(|op| match op {
            similar::DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    (2 * equal) as f32 / total as f32
}

/// The lines of `new` that are new or changed relative to `old` (see [`Hunk`]): a Myers
/// line diff, O((N+M)·D).
pub fn changed_lines(old: &str, new: &str) -> Vec<Hunk> {
    changed_line_slices(old.as_bytes(), new.as_bytes())
}

/// Lines as byte slices, each with its newline, so a changed last newline is a change.
fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

pub(crate) fn count_lines(data: &[u8]) -> u32 {
    u32::try_from(split_lines(data).len()).unwrap_or(u32::MAX)
}

pub(super) fn changed_line_slices(old: &[u8], new: &[u8]) -> Vec<Hunk> {
    let (a, b) = (split_lines(old), split_lines(new));
    let last = u32::try_from(b.len()).unwrap_or(u32::MAX);
    let line = |i: usize| u32::try_from(i).unwrap_or(u32::MAX).saturating_add(1);
    let mut hunks = Vec::new();
    // Where the new file is at: a deletion's own `new_index` is not always the position
    // that follows the ops before it, so it is tracked here.
    let mut at = 0;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        match op {
            similar::DiffOp::Equal { new_index, len, .. } => at = new_index + len,
            similar::DiffOp::Delete { .. } => {
                if last > 0 {
                    let line = line(at).min(last);
                    hunks.push(Hunk {
                        start: line,
                        end: line,
                    });
                }
            }
            similar::DiffOp::Insert {
                new_index, new_len, ..
            }
            | similar::DiffOp::Replace {
                new_index, new_len, ..
            } => {
                hunks.push(Hunk {
                    start: line(new_index),
                    end: line(new_index + new_len.max(1) - 1),
                });
                at = new_index + new_len;
            }
        }
    }
    merge(hunks)
}

/// Hunks sorted, overlapping or adjacent ones joined.
pub(crate) fn merge(mut hunks: Vec<Hunk>) -> Vec<Hunk> {
    hunks.sort();
    let mut out: Vec<Hunk> = Vec::with_capacity(hunks.len());
    for h in hunks {
        match out.last_mut() {
            Some(l) if h.start <= l.end.saturating_add(1) => l.end = l.end.max(h.end),
            _ => out.push(h),
        }
    }
    out
}

/// One hunk spanning a file of `lines` lines (none for an empty file).
pub(crate) fn whole(lines: u32) -> Vec<Hunk> {
    if lines == 0 {
        Vec::new()
    } else {
        vec![Hunk {
            start: 1,
            end: lines,
        }]
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn h(start: u32, end: u32) -> Hunk {
        Hunk { start, end }
    }

    #[test]
    fn changed_lines_marks_edits_insertions_and_deletions() {
        let old = "1\n2\n3\n4\n5\n";
        assert_eq!(changed_lines(old, old), vec![]);
        assert_eq!(changed_lines(old, "1\n2\nx\n4\n5\n"), vec![h(3, 3)]);
        assert_eq!(changed_lines(old, "1\n2\nx\ny\n3\n4\n5\n"), vec![h(3, 4)]);
        // Pure deletions: the line after; at the end, clamped to the last line.
        assert_eq!(changed_lines(old, "1\n4\n5\n"), vec![h(2, 2)]);
        assert_eq!(changed_lines(old, "1\n2\n3\n"), vec![h(3, 3)]);
        assert_eq!(changed_lines(old, "2\n3\n4\n5\n"), vec![h(1, 1)]);
        assert_eq!(changed_lines(old, ""), vec![]);
        assert_eq!(changed_lines("", "a\nb\n"), vec![h(1, 2)]);
        assert_eq!(
            changed_lines(old, "1\n2\n3\n4\n5"),
            vec![h(5, 5)],
            "newline at end"
        );
        assert_eq!(
            changed_lines(old, "x\n2\n3\n4\ny\n"),
            vec![h(1, 1), h(5, 5)]
        );
    }

    #[test]
    fn changed_lines_is_fast_on_a_big_file_with_few_edits() {
        let old: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
        let new = old.replacen("line 100000\n", "edited\n", 1);
        let t = std::time::Instant::now();
        assert_eq!(changed_lines(&old, &new), vec![h(100_001, 100_001)]);
        // Quadratic would be 4·10^10 steps; linear in N with D = 2 is milliseconds.
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }

    /// Whether `old` can be `new` with the marked lines replaced: the unmarked runs of `new`, in
    /// order, are `old`'s start, end and pieces between, with anything between two runs (a hunk
    /// separates them). A missed changed or deleted line breaks it.
    fn explains(old: &[&str], new: &[&str], hunks: &[Hunk]) -> bool {
        let marked = |i: usize| {
            hunks
                .iter()
                .any(|h| h.start as usize <= i + 1 && i < h.end as usize)
        };
        let lines: Vec<Option<&str>> = new
            .iter()
            .enumerate()
            .map(|(i, l)| (!marked(i)).then_some(*l))
            .collect();
        if lines.iter().all(Option::is_some) {
            return old == new;
        }
        let runs: Vec<Vec<&str>> = lines
            .split(Option::is_none)
            .map(|r| r.iter().flatten().copied().collect())
            .collect();
        let (first, last) = (&runs[0], &runs[runs.len() - 1]);
        if old.len() < first.len() + last.len() || !old.starts_with(first) || !old.ends_with(last) {
            return false;
        }
        let mut at = first.len();
        let end = old.len() - last.len();
        for run in runs[1..runs.len() - 1].iter().filter(|r| !r.is_empty()) {
            match (at..end).find(|&i| i + run.len() <= end && old[i..i + run.len()] == run[..]) {
                Some(i) => at = i + run.len(),
                None => return false,
            }
        }
        true
    }

    proptest! {
        #[test]
        fn changed_lines_marks_every_changed_line(
            old in prop::collection::vec(0u8..4, 0..30),
            edits in prop::collection::vec((0usize..40, 0u8..3, 0u8..6), 0..6),
        ) {
            let mut new = old.clone();
            for (at, op, v) in edits {
                let i = if new.is_empty() { 0 } else { at % (new.len() + 1) };
                match op {
                    0 => new.insert(i, v),
                    1 if i < new.len() => { new.remove(i); }
                    _ if i < new.len() => new[i] = v,
                    _ => new.push(v),
                }
            }
            let text = |v: &[u8]| v.iter().map(|n| format!("{n}\n")).collect::<String>();
            let (o, n) = (text(&old), text(&new));
            let hunks = changed_lines(&o, &n);
            let (ol, nl): (Vec<&str>, Vec<&str>) = (o.lines().collect(), n.lines().collect());
            // An emptied file has no line to mark: the change is the file's listing.
            prop_assert!(
                if nl.is_empty() { hunks.is_empty() } else { explains(&ol, &nl, &hunks) },
                "{o:?} -> {n:?}: {hunks:?}"
            );
            for w in hunks.windows(2) {
                prop_assert!(w[0].end + 1 < w[1].start);
            }
            for hk in &hunks {
                prop_assert!(1 <= hk.start && hk.start <= hk.end && hk.end as usize <= nl.len());
            }
        }
    }
}
