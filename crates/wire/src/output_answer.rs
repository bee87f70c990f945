//! The answer to `pith output`: a page of the last run's raw output (or of one test's own
//! output, or of the lines a pattern matched), every page within [`OUTPUT_BUDGET`]. Pages are
//! cut greedily by bytes, so a page of short lines holds many and a long line is cut (marked
//! `…`) to fit alone; the same selection always pages the same way.

use pith_model::output::{OutputLines, RunView};
use serde::Serialize;

/// Every `pith output` page, its envelope included.
pub const OUTPUT_BUDGET: usize = crate::ANSWER_CEILING;

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutputAnswer {
    /// The generation the run tested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// The page's lines; numbered `N:line` when they are not consecutive (`--grep`, or a
    /// test's name found in the run's output).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// The number of the page's first line, when the page does not start at line 1 and its
    /// lines are not numbered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<u32>,
    /// This page and how many there are, when more than one.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub page: usize,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub pages: usize,
    /// Lines matched in all, with `--grep`.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub matches: usize,
    /// The test had no output of its own kept apart: these are the run's lines naming it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub by_name: bool,
    /// The run's output left its middle out: where (the line standing in for it) and how
    /// much.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<CutOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct CutOut {
    pub line: u32,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub lines: u64,
    pub bytes: u64,
}

/// Shapes page `page` (from 1) of the selected lines.
pub fn output_answer(out: &OutputLines, page: usize, grep: bool) -> OutputAnswer {
    let Some(view) = &out.run else {
        return OutputAnswer {
            hint: Some("no run recorded yet: pith test".to_owned()),
            ..OutputAnswer::default()
        };
    };
    let mut answer = OutputAnswer {
        generation: view.generation,
        by_name: view.by_name,
        cut: view.cut.map(|c| CutOut {
            line: c.line,
            lines: c.lines,
            bytes: c.bytes,
        }),
        matches: if grep { view.lines.len() } else { 0 },
        ..OutputAnswer::default()
    };
    let pages = paged(view, &answer);
    let page = page.max(1);
    let hint = if view.unknown_test {
        Some("no output of its own and no line naming it in the last run")
    } else if view.lines.is_empty() && grep {
        Some("no line matches")
    } else if view.lines.is_empty() {
        Some("the runner printed nothing")
    } else {
        None
    };
    if let Some(h) = hint {
        answer.hint = Some(h.to_owned());
        return answer;
    }
    let Some(range) = pages.get(page - 1) else {
        answer.hint = Some(format!("page {page} is past the last, {}", pages.len()));
        return answer;
    };
    if pages.len() > 1 {
        (answer.page, answer.pages) = (page, pages.len());
    }
    let first = view.lines[range.start].0;
    if !view.numbered && first != 1 {
        answer.from = Some(first);
    }
    let room = OUTPUT_BUDGET - envelope(&answer, view);
    answer.lines = view.lines[range.clone()]
        .iter()
        .map(|l| fit(shown(view, l), room))
        .collect();
    answer
}

/// A line as the page shows it.
fn shown(view: &RunView, (n, line): &(u32, String)) -> String {
    if view.numbered {
        format!("{n}:{line}")
    } else {
        line.clone()
    }
}

/// Bytes of `answer` around its lines at their largest (page numbers and `from` as large as
/// they can be for this selection), with room for one line's brackets.
fn envelope(answer: &OutputAnswer, view: &RunView) -> usize {
    let most = view.lines.len().max(1);
    let widest = OutputAnswer {
        lines: vec![String::new()],
        from: Some(view.lines.last().map_or(1, |l| l.0)),
        page: most,
        pages: most,
        hint: None,
        ..answer.clone()
    };
    // The empty line's `""` is the line's own cost.
    crate::to_json(&widest).len() - 2
}

/// Splits the selection into pages: as many lines as fit each (a line costs its JSON and a
/// comma), at least one a page.
fn paged(view: &RunView, answer: &OutputAnswer) -> Vec<std::ops::Range<usize>> {
    let room = OUTPUT_BUDGET - envelope(answer, view);
    let mut pages = Vec::new();
    let (mut start, mut spent) = (0, 0);
    for (i, l) in view.lines.iter().enumerate() {
        let cost = crate::to_json(&fit(shown(view, l), room)).len() + 1;
        if i > start && spent + cost > room {
            pages.push(start..i);
            (start, spent) = (i, 0);
        }
        spent += cost;
    }
    if start < view.lines.len() {
        pages.push(start..view.lines.len());
    }
    pages
}

/// `line`, cut (marked `…`) until its JSON fits `room` bytes.
fn fit(line: String, room: usize) -> String {
    if crate::to_json(&line).len() < room {
        return line;
    }
    // Escapes make bytes and characters differ: halve until it fits, then grow back.
    let (mut lo, mut hi) = (0, line.chars().count());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if crate::to_json(&crate::cut(&line, mid)).len() < room {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    crate::cut(&line, lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pith_model::output::Cut;

    fn view(lines: Vec<String>, numbered: bool) -> OutputLines {
        let lines = lines
            .into_iter()
            .enumerate()
            .map(|(i, l)| (i as u32 + 1, l))
            .collect();
        OutputLines {
            run: Some(RunView {
                generation: Some(12),
                lines,
                numbered,
                ..RunView::default()
            }),
        }
    }

    fn all_pages(out: &OutputLines, grep: bool) -> Vec<OutputAnswer> {
        let first = output_answer(out, 1, grep);
        let n = first.pages.max(1);
        (1..=n).map(|p| output_answer(out, p, grep)).collect()
    }

    #[test]
    fn every_page_is_within_budget_and_the_pages_hold_every_line_once() {
        let lines: Vec<String> = (0..500)
            .map(|i| format!("line {i}: {}", "x".repeat(i % 97)))
            .collect();
        for numbered in [false, true] {
            let out = view(lines.clone(), numbered);
            let pages = all_pages(&out, numbered);
            assert!(pages.len() > 10);
            let mut seen = Vec::new();
            for (i, p) in pages.iter().enumerate() {
                let json = crate::to_json(p);
                assert!(json.len() <= OUTPUT_BUDGET, "{} bytes: {json}", json.len());
                assert_eq!((p.page, p.pages), (i + 1, pages.len()));
                if !numbered && i > 0 {
                    assert_eq!(p.from, Some(seen.len() as u32 + 1));
                }
                seen.extend(p.lines.iter().cloned());
            }
            let expected: Vec<String> = match numbered {
                false => lines.clone(),
                true => (1..).zip(&lines).map(|(n, l)| format!("{n}:{l}")).collect(),
            };
            assert_eq!(seen, expected);
        }
    }

    #[test]
    fn a_line_longer_than_a_page_is_cut_to_fit_and_escapes_count() {
        let lines = vec![
            "a".repeat(5000),
            "\u{1}".repeat(3000),
            "é\"\\".repeat(900),
            "short".into(),
        ];
        for p in all_pages(&view(lines, false), false) {
            let json = crate::to_json(&p);
            assert!(json.len() <= OUTPUT_BUDGET, "{} bytes: {json}", json.len());
            assert!(p.lines.iter().all(|l| l.ends_with('…') || l == "short"));
        }
    }

    #[test]
    fn one_page_carries_no_page_numbers_and_a_cut_says_where_and_how_much() {
        let mut out = view(
            vec!["a".into(), "[pith: 9 lines (90 bytes) left out]".into()],
            false,
        );
        if let Some(r) = out.run.as_mut() {
            r.cut = Some(Cut {
                line: 2,
                lines: 9,
                bytes: 90,
            });
        }
        insta::assert_snapshot!(
            crate::to_json(&output_answer(&out, 1, false)),
            @r#"{"generation":12,"lines":["a","[pith: 9 lines (90 bytes) left out]"],"cut":{"line":2,"lines":9,"bytes":90}}"#
        );
    }

    #[test]
    fn nothing_to_show_is_one_hint() {
        let none = OutputLines::default();
        let shapes = [
            crate::to_json(&output_answer(&none, 1, false)),
            crate::to_json(&output_answer(&view(Vec::new(), true), 1, true)),
            crate::to_json(&output_answer(&view(Vec::new(), false), 1, false)),
            crate::to_json(&output_answer(&view(vec!["x".into()], false), 3, false)),
        ];
        insta::assert_snapshot!(shapes.join("\n"), @r#"
        {"hint":"no run recorded yet: pith test"}
        {"generation":12,"hint":"no line matches"}
        {"generation":12,"hint":"the runner printed nothing"}
        {"generation":12,"hint":"page 3 is past the last, 1"}
        "#);
    }
}
