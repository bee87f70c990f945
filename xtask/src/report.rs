//! The benchmark's results and their rendering: one row per scenario, medians, the sanity
//! check on pith's answer, and the markdown table. Pure: no processes, no files.

use std::time::Duration;

/// What one side (the raw command or pith) produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub bytes: usize,
    pub tokens: usize,
    /// Median wall time over the timed runs.
    pub wall: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub scenario: String,
    pub raw: Side,
    pub pith: Side,
    /// Set when pith's answer disagrees with the raw run or is malformed.
    pub note: Option<String>,
}

impl Row {
    /// pith's median wall time over the raw command's.
    pub fn wall_ratio(&self) -> f64 {
        self.pith.wall.as_secs_f64() / self.raw.wall.as_secs_f64().max(1e-9)
    }
}

/// The median; the mean of the middle two for an even count. Zero for no samples.
pub fn median(samples: &[Duration]) -> Duration {
    let mut s = samples.to_vec();
    s.sort();
    match s.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2,
    }
}

/// Why pith's answer cannot be trusted for this row, if it cannot: pith failed (exit 2 or a
/// signal), printed something other than one line of JSON, or disagrees with the raw run on
/// green (exit 0) versus not green (exit 1).
pub fn answer_problem(
    raw_code: Option<i32>,
    pith_code: Option<i32>,
    pith_stdout: &str,
) -> Option<String> {
    let Some(pith) = pith_code else {
        return Some("pith killed by a signal".into());
    };
    if pith == 2 {
        return Some("pith exit 2".into());
    }
    let lines = pith_stdout.lines().count();
    if lines != 1 || !pith_stdout.trim_start().starts_with('{') {
        return Some(format!("pith printed {lines} lines, not one JSON line"));
    }
    let expected = if raw_code == Some(0) { 0 } else { 1 };
    if pith != expected {
        let raw = raw_code.map_or("signal".to_string(), |c| c.to_string());
        return Some(format!("raw exit {raw}, pith exit {pith}"));
    }
    None
}

const HEADER: [&str; 7] = [
    "scenario",
    "raw bytes",
    "raw tokens",
    "pith bytes",
    "pith tokens",
    "ratio (raw tokens / pith tokens)",
    "pith wall / raw wall",
];

/// The results as a markdown table, columns padded so it also reads well in a terminal.
pub fn markdown_table(rows: &[Row]) -> String {
    let cells: Vec<[String; 7]> = rows.iter().map(row_cells).collect();
    let mut widths = HEADER.map(|h| h.chars().count());
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: [String; 7]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (c, w))| {
                let pad = " ".repeat(w - c.chars().count());
                if i == 0 {
                    format!("{c}{pad}")
                } else {
                    format!("{pad}{c}")
                }
            })
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = line(HEADER.map(String::from));
    let rule: Vec<String> = widths
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            if i == 0 {
                "-".repeat(w)
            } else {
                format!("{}:", "-".repeat(w - 1))
            }
        })
        .collect();
    out.push_str(&format!("| {} |\n", rule.join(" | ")));
    for row in cells {
        out.push_str(&line(row));
    }
    out
}

fn row_cells(r: &Row) -> [String; 7] {
    let scenario = match &r.note {
        Some(note) => format!("{} ⚠ {note}", r.scenario),
        None => r.scenario.clone(),
    };
    let token_ratio = if r.pith.tokens == 0 {
        "n/a".to_string()
    } else {
        format!("{:.1}×", r.raw.tokens as f64 / r.pith.tokens as f64)
    };
    let wall = format!(
        "{:.2} ({} / {} ms)",
        r.wall_ratio(),
        r.pith.wall.as_millis(),
        r.raw.wall.as_millis()
    );
    [
        scenario,
        r.raw.bytes.to_string(),
        r.raw.tokens.to_string(),
        r.pith.bytes.to_string(),
        r.pith.tokens.to_string(),
        token_ratio,
        wall,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[ms(30), ms(10), ms(20)]), ms(20));
        assert_eq!(median(&[ms(40), ms(10), ms(20), ms(30)]), ms(25));
        assert_eq!(median(&[ms(7)]), ms(7));
        assert_eq!(median(&[]), Duration::ZERO);
    }

    #[test]
    fn table_has_header_rule_and_aligned_rows() {
        let row = Row {
            scenario: "python/green".into(),
            raw: Side {
                bytes: 1200,
                tokens: 400,
                wall: ms(800),
            },
            pith: Side {
                bytes: 60,
                tokens: 20,
                wall: ms(840),
            },
            note: None,
        };
        let bad = Row {
            scenario: "rust/single (nextest)".into(),
            note: Some("pith exit 2".into()),
            pith: Side {
                tokens: 0,
                ..row.pith.clone()
            },
            ..row.clone()
        };
        let table = markdown_table(&[row, bad]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("| scenario "));
        assert!(lines[0].ends_with("| pith wall / raw wall |"));
        assert!(lines[1].starts_with("| ---") && lines[1].ends_with(": |"));
        assert!(lines[2].contains(" 20.0× |"), "{}", lines[2]);
        assert!(lines[2].ends_with(" 1.05 (840 / 800 ms) |"), "{}", lines[2]);
        assert!(lines[3].starts_with("| rust/single (nextest) ⚠ pith exit 2 |"));
        assert!(lines[3].contains(" n/a |"));
        let width = |l: &str| l.chars().count();
        assert!(lines.iter().all(|l| width(l) == width(lines[0])), "{table}");
    }

    #[test]
    fn answer_problems() {
        let json = "{\"status\":\"green\"}\n";
        assert_eq!(answer_problem(Some(0), Some(0), json), None);
        assert_eq!(answer_problem(Some(101), Some(1), json), None);
        assert_eq!(
            answer_problem(Some(1), Some(2), ""),
            Some("pith exit 2".into())
        );
        assert_eq!(
            answer_problem(Some(0), None, json),
            Some("pith killed by a signal".into())
        );
        assert_eq!(
            answer_problem(Some(0), Some(1), json),
            Some("raw exit 0, pith exit 1".into())
        );
        assert!(answer_problem(Some(0), Some(0), "{}\n{}\n").is_some());
    }
}
