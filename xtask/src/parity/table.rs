//! The parity table: one markdown row per compared run (set-up, variant, what the raw command
//! answered, what pith answered, agreement and every difference with its known reason), then a
//! summary by ecosystem and the time the whole took.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::{PithSide, RawSide, Row};

pub fn raw_cell(r: &RawSide) -> String {
    let o = &r.observed;
    let verdict = if r.exit == Some(0) { "green" } else { "red" };
    let counts = counts(o.passed, o.failed, o.skipped);
    let mut s = verdict.to_string();
    if !counts.is_empty() {
        s.push(' ');
        s.push_str(&counts);
    }
    if o.stopped_early {
        s.push_str(" (stopped early)");
    }
    if let Some(w) = o.written.filter(|&w| w > 0) {
        let _ = write!(s, ", {w} snapshot(s) written");
    }
    s
}

pub fn pith_cell(p: &PithSide) -> String {
    let mut s = p.status.clone();
    let c = counts(Some(p.passed), Some(p.failed), Some(p.skipped));
    if !c.is_empty() {
        s.push(' ');
        s.push_str(&c);
    }
    if p.written > 0 {
        let _ = write!(s, ", {} snapshot(s) written", p.written);
    }
    if !matches!(p.exit, Some(0 | 1)) {
        let _ = write!(
            s,
            " (exit {})",
            p.exit.map_or("signal".into(), |c| c.to_string())
        );
    }
    s
}

fn counts(passed: Option<u64>, failed: Option<u64>, skipped: Option<u64>) -> String {
    let mut parts = Vec::new();
    for (n, tag) in [(passed, "✓"), (failed, "✗"), (skipped, "s")] {
        if let Some(n) = n.filter(|&n| n > 0) {
            parts.push(format!("{n}{tag}"));
        }
    }
    parts.join(" ")
}

pub fn verdict_cell(r: &Row) -> &'static str {
    match (&r.broken, r.agrees(), r.covered) {
        (Some(_), _, _) => "BROKEN",
        (None, true, _) if r.listed => "yes (known entry stale)",
        (None, true, _) => "yes",
        (None, false, true) if r.stale => "no (known; the set-up's own entry is stale)",
        (None, false, true) => "no (known)",
        (None, false, false) => "NO",
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn markdown(rows: &[Row], elapsed: Duration, quick: bool, public: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| set-up | variant | raw | pith | agrees | differences (and the known reason) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for r in rows {
        let mut why = r.diffs.join("; ");
        if let Some(b) = &r.broken {
            why = format!("{}; {why}", b.lines().next().unwrap_or(b));
        }
        if r.agrees() && r.listed {
            why = "listed as known, agrees now: remove the entry".to_string();
        } else if r.stale {
            for k in &r.known {
                let _ = write!(why, " — known: {} (follow-up: {})", k.reason, k.follow_up);
            }
            let _ = write!(
                why,
                " — the set-up's own entry covers nothing now: remove it ({})",
                r.own.as_ref().map_or("", |k| k.follow_up.as_str())
            );
        } else {
            for k in &r.known {
                let _ = write!(why, " — known: {} (follow-up: {})", k.reason, k.follow_up);
            }
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&r.setup),
            cell(&r.variant),
            cell(&raw_cell(&r.raw)),
            cell(&pith_cell(&r.pith)),
            verdict_cell(r),
            cell(&why)
        );
    }
    let mut by_eco: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    for r in rows {
        let eco = r.setup.split('/').next().unwrap_or(&r.setup);
        let e = by_eco.entry(eco).or_default();
        e[0] += 1;
        if r.broken.is_some() {
            e[3] += 1;
        } else if r.agrees() {
            e[1] += 1;
        } else if r.covered {
            e[2] += 1;
        }
    }
    let setups: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.setup.as_str()).collect();
    let total = |i: usize| by_eco.values().map(|e| e[i]).sum::<usize>();
    let failing = rows.iter().filter(|r| r.fails()).count();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{}{} set-ups, {} runs: {} agree, {} disagree as known, {} disagree unknown, {} broken; {:.0} s.",
        if public { "Public projects: " } else if quick { "Quick half: " } else { "" },
        setups.len(),
        total(0),
        total(1),
        total(2),
        failing - total(3),
        total(3),
        elapsed.as_secs_f64()
    );
    let _ = writeln!(
        out,
        "By ecosystem (runs / agree / known): {}.",
        by_eco
            .iter()
            .map(|(k, e)| format!("{k} {}/{}/{}", e[0], e[1], e[2]))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out
}
