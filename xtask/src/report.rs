//! The benchmark's results and their rendering: one row per scenario, medians, the sanity
//! check on pith's answer, and the markdown tables (live runs; report files read). Pure: no
//! processes, no files.

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
    pub raw_kind: RawKind,
    /// The median of pith's wall time over the raw command's, run by run (see
    /// [`pair_ratio`]); `None` where the sides were not run in pairs.
    pub pair_ratio: Option<f64>,
}

/// What the raw side of a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawKind {
    /// The runner's commands, run and timed.
    Run,
    /// An existing report file the agent would read: nothing runs, so there is no raw wall time.
    Report,
}

impl Row {
    /// pith's wall time over the raw command's: the median ratio of the runs taken side by
    /// side ([`pair_ratio`]), else the ratio of the two medians.
    pub fn wall_ratio(&self) -> f64 {
        self.pair_ratio
            .unwrap_or_else(|| self.pith.wall.as_secs_f64() / self.raw.wall.as_secs_f64().max(1e-9))
    }
}

/// The median of `pith[i] / raw[i]`: each pith run against the raw run taken just before it,
/// so that a machine whose speed drifts during the bench (a shared one does) moves both
/// sides of each ratio, where a ratio of two medians takes them from different moments.
pub fn pair_ratio(raw: &[Duration], pith: &[Duration]) -> Option<f64> {
    // Each ratio as that many seconds, so [`median`] takes them (to the nanosecond).
    let ratios: Vec<Duration> = raw
        .iter()
        .zip(pith)
        .filter(|(r, _)| !r.is_zero())
        .map(|(r, p)| Duration::from_secs_f64(p.as_secs_f64() / r.as_secs_f64()))
        .collect();
    (!ratios.is_empty()).then(|| median(&ratios).as_secs_f64())
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

/// Why pith's answer cannot be trusted for this row, if it cannot: it is malformed
/// (`malformed_answer`) or disagrees with the raw run on green (exit 0) versus not green
/// (exit 1).
pub fn answer_problem(
    raw_code: Option<i32>,
    pith_code: Option<i32>,
    pith_stdout: &str,
) -> Option<String> {
    if let Some(problem) = malformed_answer(pith_code, pith_stdout) {
        return Some(problem);
    }
    let expected = if raw_code == Some(0) { 0 } else { 1 };
    if pith_code != Some(expected) {
        let raw = raw_code.map_or("signal".to_string(), |c| c.to_string());
        let pith = pith_code.map_or("signal".to_string(), |c| c.to_string());
        return Some(format!("raw exit {raw}, pith exit {pith}"));
    }
    None
}

/// Why pith's answer is no answer, if it is not: pith failed (exit 2 or a signal) or printed
/// something other than one line of JSON. All a report row can check, having no raw run.
pub fn malformed_answer(pith_code: Option<i32>, pith_stdout: &str) -> Option<String> {
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
    None
}

/// The most pith may add to the declared command's wall time on a green run: `pith test`
/// takes at most this many times what the project's own command takes (median, side by side).
pub const GREEN_WALL_TARGET: f64 = 1.10;

/// Whether a row is a runner's green run: `go/green`, `rust/green (cargo test)`.
pub fn is_green_row(name: &str) -> bool {
    name.split(" (").next().unwrap_or(name).ends_with("/green")
}

const GREEN_HEADER: [&str; 8] = [
    "green run",
    "declared command",
    "command (median)",
    "its spread",
    "pith test (median)",
    "pairs",
    "pith / command (pairs)",
    "within 1.10×",
];

/// What the green table shows of a row beside the row itself.
pub struct Declared {
    /// The declared command, as typed.
    pub command: String,
    /// The command's own [`spread`].
    pub spread: f64,
    /// How many pairs of runs were timed.
    pub pairs: usize,
}

/// How much a side's wall times spread: the interquartile range over the median, the noise
/// a ratio of medians is read against (a command against itself moves this much).
pub fn spread(samples: &[Duration]) -> f64 {
    let mut s = samples.to_vec();
    s.sort();
    if s.len() < 2 {
        return 0.0;
    }
    let q = |f: f64| s[((s.len() - 1) as f64 * f).round() as usize].as_secs_f64();
    let mid = median(&s).as_secs_f64();
    if mid <= 0.0 {
        return 0.0;
    }
    (q(0.75) - q(0.25)) / mid
}

/// The green runs' overhead, one row per runner: the project's declared command (the row's
/// raw side as typed) against `pith test` on the same copy, runs taken side by side (each
/// side's median; the ratio is the median of the pairs' ratios, [`pair_ratio`]), the
/// command's own [`spread`], how many pairs, and whether pith is within
/// [`GREEN_WALL_TARGET`]. Rows without a raw run are left out.
pub fn green_table(rows: &[(&Row, Declared)]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .filter(|(r, _)| r.raw_kind == RawKind::Run && is_green_row(&r.scenario))
        .map(|(r, d)| {
            let ratio = r.wall_ratio();
            let within = match &r.note {
                Some(note) => format!("⚠ {note}"),
                None if ratio <= GREEN_WALL_TARGET => "yes".to_owned(),
                None => "no".to_owned(),
            };
            vec![
                r.scenario.clone(),
                format!("`{}`", d.command),
                format!("{} ms", r.raw.wall.as_millis()),
                format!("±{:.0}%", d.spread * 50.0),
                format!("{} ms", r.pith.wall.as_millis()),
                d.pairs.to_string(),
                format!("{ratio:.2}×"),
                within,
            ]
        })
        .collect();
    if cells.is_empty() {
        return String::new();
    }
    render(&GREEN_HEADER, cells)
}

/// The green rows over [`GREEN_WALL_TARGET`], as `scenario: ratio` lines.
pub fn green_misses(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.raw_kind == RawKind::Run && r.note.is_none() && is_green_row(&r.scenario))
        .filter(|r| r.wall_ratio() > GREEN_WALL_TARGET)
        .map(|r| {
            format!(
                "{}: pith takes {:.2}× the declared command's wall time ({} / {} ms; target ≤ {GREEN_WALL_TARGET:.2}×)",
                r.scenario,
                r.wall_ratio(),
                r.pith.wall.as_millis(),
                r.raw.wall.as_millis()
            )
        })
        .collect()
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

/// The report rows' columns: the raw side is a file read, so there is only pith's wall time.
const REPORT_HEADER: [&str; 7] = [
    "report file (read, not run)",
    "file bytes",
    "file tokens",
    "pith bytes",
    "pith tokens",
    "ratio (file tokens / pith tokens)",
    "pith wall (reading it)",
];

/// The results as markdown: a table of the live runs, then (after a blank line) one of the
/// report files read, columns padded so they also read well in a terminal.
pub fn markdown_table(rows: &[Row]) -> String {
    let live: Vec<Vec<String>> = rows
        .iter()
        .filter(|r| r.raw_kind == RawKind::Run)
        .map(row_cells)
        .collect();
    let read: Vec<Vec<String>> = rows
        .iter()
        .filter(|r| r.raw_kind == RawKind::Report)
        .map(row_cells)
        .collect();
    let mut tables = Vec::new();
    if !live.is_empty() {
        tables.push(render(&HEADER, live));
    }
    if !read.is_empty() {
        tables.push(render(&REPORT_HEADER, read));
    }
    tables.join("\n")
}

fn render(header: &[&str], cells: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, &w))| {
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
    let mut out = line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
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
    for row in &cells {
        out.push_str(&line(row));
    }
    out
}

fn row_cells(r: &Row) -> Vec<String> {
    let scenario = match &r.note {
        Some(note) => format!("{} ⚠ {note}", r.scenario),
        None => r.scenario.clone(),
    };
    let token_ratio = if r.pith.tokens == 0 {
        "n/a".to_string()
    } else {
        format!("{:.1}×", r.raw.tokens as f64 / r.pith.tokens as f64)
    };
    let wall = match r.raw_kind {
        RawKind::Run => format!(
            "{:.2} ({} / {} ms)",
            r.wall_ratio(),
            r.pith.wall.as_millis(),
            r.raw.wall.as_millis()
        ),
        RawKind::Report => format!("{} ms", r.pith.wall.as_millis()),
    };
    vec![
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
    fn the_ratio_is_taken_pair_by_pair() {
        // The machine slows down halfway: both sides of each pair move together.
        let raw = [ms(100), ms(100), ms(100), ms(200), ms(200)];
        let pith = [ms(105), ms(104), ms(106), ms(208), ms(210)];
        let r = pair_ratio(&raw, &pith).unwrap();
        assert!((r - 1.05).abs() < 1e-9, "{r}");
        // Medians from different moments would say otherwise: 106 / 100.
        assert_eq!(median(&pith), ms(106));
        let even = pair_ratio(&[ms(10), ms(20)], &[ms(11), ms(24)]).unwrap();
        assert!((even - 1.15).abs() < 1e-9, "{even}");
        assert_eq!(pair_ratio(&[], &[]), None);
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
            raw_kind: RawKind::Run,
            pair_ratio: None,
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
    fn report_rows_get_their_own_table_without_a_raw_wall_time() {
        let side = |bytes, tokens, wall| Side {
            bytes,
            tokens,
            wall: ms(wall),
        };
        let run = Row {
            scenario: "ctest/green".into(),
            raw: side(900, 300, 1000),
            pith: side(80, 25, 900),
            note: None,
            raw_kind: RawKind::Run,
            pair_ratio: None,
        };
        let read = Row {
            scenario: "trx/xunit-dotnet.trx".into(),
            raw: side(21764, 7000, 0),
            pith: side(700, 200, 12),
            note: None,
            raw_kind: RawKind::Report,
            pair_ratio: None,
        };
        let table = markdown_table(&[read.clone(), run]);
        let parts: Vec<&str> = table.split("\n\n").collect();
        assert_eq!(parts.len(), 2, "{table}");
        assert!(parts[0].starts_with("| scenario ") && parts[0].contains("| ctest/green "));
        assert!(parts[1].starts_with("| report file (read, not run) "));
        assert!(parts[1].contains(" 35.0× | "), "{}", parts[1]);
        assert!(parts[1].lines().nth(2).unwrap().ends_with(" 12 ms |"));
        assert!(!parts[1].contains("ctest/green"));
        let only_read = markdown_table(&[read]);
        assert_eq!(
            only_read.lines().filter(|l| l.starts_with("| --")).count(),
            1
        );
        assert!(only_read.starts_with("| report file"));
    }

    #[test]
    fn spread_is_the_interquartile_range_over_the_median() {
        let v: Vec<Duration> = [90, 100, 100, 110, 200].iter().map(|&n| ms(n)).collect();
        assert!((spread(&v) - 0.10).abs() < 1e-9, "{}", spread(&v));
        assert_eq!(spread(&[ms(5)]), 0.0);
        assert_eq!(spread(&[]), 0.0);
    }

    #[test]
    fn green_rows_get_their_overhead_table_and_misses() {
        assert!(is_green_row("go/green"));
        assert!(is_green_row("rust/green (cargo test)"));
        assert!(!is_green_row("rust/single (cargo test)"));
        assert!(!is_green_row("python/shape_green_ish"));
        let side = |wall| Side {
            bytes: 80,
            tokens: 25,
            wall: ms(wall),
        };
        let row = |name: &str, raw, pith| Row {
            scenario: name.into(),
            raw: side(raw),
            pith: side(pith),
            note: None,
            raw_kind: RawKind::Run,
            pair_ratio: None,
        };
        let rows = [
            row("go/green", 1000, 1050),
            row("rust/green (cargo test)", 100, 160),
            row("go/single", 100, 300),
        ];
        let with: Vec<(&Row, Declared)> = rows
            .iter()
            .map(|r| {
                let d = Declared {
                    command: "go test ./...".to_owned(),
                    spread: 0.1,
                    pairs: 33,
                };
                (r, d)
            })
            .collect();
        let table = green_table(&with);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[2].contains("| go/green ") && lines[2].contains(" 1.05× |"));
        assert!(lines[2].contains(" ±5% |"), "{}", lines[2]);
        let cells: Vec<&str> = lines[2].split('|').map(str::trim).collect();
        assert_eq!(cells[6..8], ["33", "1.05×"], "{}", lines[2]);
        assert!(lines[2].ends_with(" yes |"), "{}", lines[2]);
        assert!(lines[3].ends_with(" no |"), "{}", lines[3]);
        assert!(!table.contains("go/single"));
        let misses = green_misses(&rows);
        assert_eq!(misses.len(), 1);
        assert!(misses[0].starts_with("rust/green (cargo test): pith takes 1.60×"));
        assert!(green_table(&[]).is_empty());
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
        assert_eq!(malformed_answer(Some(1), json), None);
        assert_eq!(malformed_answer(Some(2), json), Some("pith exit 2".into()));
    }
}
