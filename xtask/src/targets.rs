//! The targets the benchmark holds pith's red answers to (issue 14, "answers on real suites"):
//! each within 800 bytes, their median within 120 o200k tokens, and none losing a failing
//! test's id or its deepest project frame against a committed baseline of earlier answers.
//! Kept apart from `report` (the tables) because the baseline is a file: this module reads and
//! writes it; the checks themselves are pure.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

/// The ceiling on one red answer, in bytes.
pub const MAX_BYTES: usize = 800;
/// The ceiling on the median red answer, in o200k tokens.
pub const MAX_MEDIAN_TOKENS: f64 = 120.0;
/// The baseline, relative to the repository root.
pub const BASELINE: &str = "xtask/baseline/answers.json";

/// What a red answer must keep showing: its failing tests' ids, and the places it names
/// (each failure's deepest frame, each cluster's and build error's `at`), as `file:line`.
/// Shallower frames are left out: the trimming ladder may drop them, the deepest it may not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub ids: BTreeSet<String>,
    pub locations: BTreeSet<String>,
}

/// Per scenario name, what its answer showed when the baseline was recorded.
pub type Baseline = BTreeMap<String, Facts>;

/// One scenario's answer, as the checks see it.
pub struct Answer<'a> {
    pub scenario: &'a str,
    /// pith answered red (exit 1): a failure, a build error, a crash, a timeout.
    pub red: bool,
    pub bytes: usize,
    pub tokens: usize,
    pub text: &'a str,
    /// Why the answer is no answer (malformed, disagrees with the raw run), if it is not.
    pub problem: Option<&'a str>,
}

/// The facts `answer` (one JSON line) shows; none for text that is not JSON.
pub fn facts(answer: &str) -> Option<Facts> {
    let value: Value = serde_json::from_str(answer.trim()).ok()?;
    let mut out = Facts::default();
    collect(&value, &mut out);
    Some(out)
}

/// What a baseline records of one scenario's runs (`answers`): the facts every run shows.
/// Of an answer that shows only some of its failures (clustered, or `moreFailures`), which
/// ones it shows follows the order tests finish in, so its picks are no fact a later answer
/// could be held to (runs of an unchanged pith showed different ids on rust/distinct100 under
/// nextest, different places under cargo test): it records no ids, and only the places of
/// causes, not of picks: a cluster's of two or more, a build error's, and the deepest frame
/// its shown failures all share. None when one is not JSON or there are none.
pub fn baseline_facts(answers: &[String]) -> Option<Facts> {
    let mut facts = common_facts(answers)?;
    let values: Vec<Value> = answers
        .iter()
        .filter_map(|a| serde_json::from_str(a.trim()).ok())
        .collect();
    if values.iter().any(shows_some) {
        facts.ids.clear();
        for v in &values {
            let mut causes = BTreeSet::new();
            cause_places(v, &mut causes);
            facts.locations.retain(|at| causes.contains(at));
        }
    }
    Some(facts)
}

/// The places of causes in an answer at any depth: clusters of two or more, build errors,
/// and a `failures` list's deepest frame when every failure with frames has that one.
fn cause_places(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("clusters", Value::Array(clusters)) => {
                        for c in clusters {
                            if c["affected"].as_u64().is_some_and(|n| n >= 2) {
                                out.extend(c["at"].as_str().and_then(location));
                            }
                        }
                    }
                    ("buildErrors", Value::Array(errors)) => {
                        for e in errors {
                            out.extend(e["at"].as_str().and_then(location));
                        }
                    }
                    ("failures", Value::Array(failures)) => {
                        let deepest: BTreeSet<String> = failures
                            .iter()
                            .filter_map(|f| f["frames"][0].as_str().and_then(location))
                            .collect();
                        if deepest.len() == 1 {
                            out.extend(deepest);
                        }
                    }
                    _ => cause_places(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| cause_places(v, out)),
        _ => {}
    }
}

/// Whether an answer (or one of its nested runs) leaves failures unshown.
fn shows_some(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(key, v)| match (key.as_str(), v) {
            ("moreFailures", Value::Number(n)) => n.as_u64() != Some(0),
            ("clusters", Value::Array(c)) => !c.is_empty(),
            _ => shows_some(v),
        }),
        Value::Array(items) => items.iter().any(shows_some),
        _ => false,
    }
}

/// The facts every one of `answers` shows (the runs of one scenario); none when one is not
/// JSON or there are none.
fn common_facts(answers: &[String]) -> Option<Facts> {
    let mut all = answers.iter().map(|a| facts(a));
    let mut common = all.next()??;
    for f in all {
        let f = f?;
        common.ids.retain(|id| f.ids.contains(id));
        common.locations.retain(|at| f.locations.contains(at));
    }
    Some(common)
}

/// Walks the whole answer, not just its top level: a multi-runner answer nests its runs, and
/// the shape of the answer is `wire`'s to change.
fn collect(value: &Value, out: &mut Facts) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("test", Value::String(id)) => {
                        out.ids.insert(id.clone());
                    }
                    ("frames", Value::Array(frames)) => {
                        if let Some(Value::String(deepest)) = frames.first() {
                            out.locations.extend(location(deepest));
                        }
                    }
                    ("at", Value::String(at)) => {
                        out.locations.extend(location(at));
                    }
                    _ => {}
                }
                collect(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
        _ => {}
    }
}

/// A frame's `file:line`: frames read `file:line source`.
fn location(frame: &str) -> Option<String> {
    frame.split_whitespace().next().map(str::to_string)
}

/// What of `want` `answer` no longer shows, one line each. An id or place counts as shown
/// wherever it stands in the answer's text (an id in a cluster's list of ids is kept), but
/// whole: `tests::case_1` is not shown by `tests::case_10`, nor `lib.rs:4` by `src/lib.rs:41`.
pub fn lost(want: &Facts, answer: &str) -> Vec<String> {
    // The decoded strings, so that an id with quotes or backslashes is found as written.
    let mut text = String::from(answer);
    if let Ok(value) = serde_json::from_str::<Value>(answer.trim()) {
        strings(&value, &mut text);
    }
    let ids = want
        .ids
        .iter()
        .filter(|id| !mentions(&text, id))
        .map(|id| format!("lost test id {id:?}"));
    let places = want
        .locations
        .iter()
        .filter(|at| !mentions(&text, at))
        .map(|at| format!("lost location {at}"));
    ids.chain(places).collect()
}

fn strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push('\n');
            out.push_str(s);
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Whether `needle` stands whole in `text`: not inside a longer word, number or path.
fn mentions(text: &str, needle: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(needle).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + needle.len()..].chars().next();
        !before.is_some_and(|c| word(c) || c == '/' || c == '.') && !after.is_some_and(word)
    })
}

/// The median of `values`; the mean of the middle two for an even count.
fn median(values: &[usize]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_unstable();
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2] as f64),
        n => Some((v[n / 2 - 1] + v[n / 2]) as f64 / 2.0),
    }
}

/// The targets' verdict: a markdown section, and how many misses it lists.
pub struct Summary {
    pub text: String,
    pub misses: usize,
}

/// Checks every answer against the targets: a section that says, target by target, what was
/// measured and lists each miss.
pub fn check(answers: &[Answer<'_>], baseline: &Baseline) -> Summary {
    let mut text = String::from("\n## Targets (issue 14)\n\n");
    let mut misses = 0;
    let mut miss = |text: &mut String, line: String| {
        misses += 1;
        text.push_str(&format!("  - MISS {line}\n"));
    };

    let problems: Vec<&Answer> = answers.iter().filter(|a| a.problem.is_some()).collect();
    text.push_str(&format!(
        "- every answer is one JSON line that agrees with the runner: {}\n",
        if problems.is_empty() { "yes" } else { "no" }
    ));
    for a in problems {
        miss(
            &mut text,
            format!("{}: {}", a.scenario, a.problem.unwrap_or("")),
        );
    }

    let red: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.red && a.problem.is_none())
        .collect();
    let over: Vec<&&Answer> = red.iter().filter(|a| a.bytes > MAX_BYTES).collect();
    text.push_str(&format!(
        "- every red answer ≤ {MAX_BYTES} B: {} of {} over\n",
        over.len(),
        red.len()
    ));
    for a in over {
        miss(&mut text, format!("{}: {} B", a.scenario, a.bytes));
    }

    let tokens: Vec<usize> = red.iter().map(|a| a.tokens).collect();
    match median(&tokens) {
        Some(m) => {
            text.push_str(&format!(
                "- median o200k tokens over {} red answers: {m} (target ≤ {MAX_MEDIAN_TOKENS})\n",
                red.len()
            ));
            if m > MAX_MEDIAN_TOKENS {
                miss(
                    &mut text,
                    format!("median {m} tokens > {MAX_MEDIAN_TOKENS}"),
                );
            }
        }
        None => text.push_str("- median o200k tokens: no red answer\n"),
    }

    let (mut checked, mut unrecorded) = (0, Vec::new());
    let mut losses = Vec::new();
    for a in &red {
        match baseline.get(a.scenario) {
            Some(want) => {
                checked += 1;
                losses.extend(
                    lost(want, a.text)
                        .into_iter()
                        .map(|l| format!("{}: {l}", a.scenario)),
                );
            }
            None => unrecorded.push(a.scenario),
        }
    }
    text.push_str(&format!(
        "- no failing test's id or deepest frame lost against {BASELINE}: {checked} answers checked, {} losses\n",
        losses.len()
    ));
    for l in losses {
        miss(&mut text, l);
    }
    if !unrecorded.is_empty() {
        text.push_str(&format!(
            "  - not in the baseline (record it with --record-baseline): {}\n",
            unrecorded.join(", ")
        ));
    }
    text.push_str(&match misses {
        0 => "\nAll targets met.\n".to_string(),
        n => format!("\nTargets missed: {n} (each listed above as MISS).\n"),
    });
    Summary { text, misses }
}

/// Reads the baseline; an empty one when the file does not exist yet.
pub fn load(path: &Path) -> Result<Baseline> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Baseline::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let mut out = Baseline::new();
    for (scenario, facts) in value.as_object().into_iter().flatten() {
        let list = |key: &str| -> BTreeSet<String> {
            facts[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        out.insert(
            scenario.clone(),
            Facts {
                ids: list("ids"),
                locations: list("locations"),
            },
        );
    }
    Ok(out)
}

/// Writes the baseline, sorted, one scenario per block, so a re-recording diffs line by line.
pub fn save(path: &Path, baseline: &Baseline) -> Result<()> {
    let mut root = serde_json::Map::new();
    for (scenario, facts) in baseline {
        let mut entry = serde_json::Map::new();
        entry.insert("ids".into(), facts.ids.iter().cloned().collect());
        entry.insert(
            "locations".into(),
            facts.locations.iter().cloned().collect(),
        );
        root.insert(scenario.clone(), Value::Object(entry));
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(&Value::Object(root))? + "\n";
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANSWER: &str = r#"{"status":"TestsFailed","runner":"cargo","failures":[{"test":"single tests::off_by_one","message":"m","frames":["src/lib.rs:11 assert_eq!(add(a, b), want);","src/lib.rs:34 check_sum(2, 2, 5);"]}],"clusters":[{"error":"e","at":"src/other.rs:3","affected":9}],"runs":[{"failures":[{"test":"nested \"quoted\" id","frames":["lib.go:7"]}]}]}"#;

    fn set(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn facts_are_ids_deepest_frames_and_places_at_any_depth() {
        let f = facts(ANSWER).unwrap();
        assert_eq!(
            f.ids,
            set(&["single tests::off_by_one", "nested \"quoted\" id"])
        );
        // The shallower frame (src/lib.rs:34) is not a fact to keep.
        assert_eq!(
            f.locations,
            set(&["src/lib.rs:11", "src/other.rs:3", "lib.go:7"])
        );
        assert!(facts("not json").is_none());
        assert_eq!(
            facts("{\"status\":\"TestsPassed\"}"),
            Some(Facts::default())
        );
    }

    #[test]
    fn a_baseline_keeps_what_every_run_shows() {
        let run = |id: &str, at: &str| {
            format!(
                r#"{{"failures":[{{"test":"t0","frames":["a.rs:1 x"]}},{{"test":"{id}","frames":["{at} y"]}}]}}"#
            )
        };
        let runs = [
            run("t1", "b.rs:2"),
            run("t2", "b.rs:2"),
            run("t1", "b.rs:2"),
        ];
        let common = common_facts(&runs).unwrap();
        assert_eq!(common.ids, set(&["t0"]));
        assert_eq!(common.locations, set(&["a.rs:1", "b.rs:2"]));
        assert!(common_facts(&[]).is_none());
        assert!(common_facts(&[runs[0].clone(), "oops".into()]).is_none());
        // All failures shown: their ids are facts.
        assert_eq!(baseline_facts(&runs).unwrap(), common);
    }

    #[test]
    fn a_capped_answer_keeps_its_places_but_not_its_pick_of_ids() {
        let capped = [
            r#"{"failures":[{"test":"t1","frames":["a.rs:1 x"]}],"moreFailures":29}"#.to_string(),
            r#"{"runs":[{"failures":[{"test":"t1","frames":["a.rs:1 x"]}],"clusters":[{"error":"e","at":"b.rs:2","affected":9}]}]}"#.to_string(),
        ];
        for a in &capped {
            let f = baseline_facts(std::slice::from_ref(a)).unwrap();
            assert!(f.ids.is_empty(), "{a}");
            assert!(f.locations.contains("a.rs:1"), "{a}");
        }
        assert!(baseline_facts(&capped[1..])
            .unwrap()
            .locations
            .contains("b.rs:2"));
        // Picks are not causes: distinct deepest frames, a cluster of one.
        let picks = r#"{"failures":[{"test":"t1","frames":["a.rs:1 x"]},{"test":"t2","frames":["a.rs:2 x"]},{"test":"t3"}],"clusters":[{"error":"e","at":"c.rs:3","affected":1},{"error":"f","at":"d.rs:4","affected":2}]}"#;
        let f = baseline_facts(&[picks.to_string()]).unwrap();
        assert_eq!(f.locations, set(&["d.rs:4"]));
        let whole =
            r#"{"failures":[{"test":"t1","frames":["a.rs:1 x"]}],"moreFailures":0,"clusters":[]}"#;
        assert_eq!(
            baseline_facts(&[whole.to_string()]).unwrap().ids,
            set(&["t1"])
        );
    }

    #[test]
    fn nothing_lost_from_the_answer_itself_or_a_reshaped_one() {
        let f = facts(ANSWER).unwrap();
        assert!(lost(&f, ANSWER).is_empty(), "{:?}", lost(&f, ANSWER));
        // The same facts in another shape: ids listed in a cluster, places in its text.
        let reshaped = r#"{"clusters":[{"ids":["single tests::off_by_one","nested \"quoted\" id"],"at":"src/lib.rs:11:9","also":"src/other.rs:3, lib.go:7"}]}"#;
        assert!(lost(&f, reshaped).is_empty(), "{:?}", lost(&f, reshaped));
    }

    #[test]
    fn a_dropped_id_or_place_is_lost_even_inside_a_longer_one() {
        let f = Facts {
            ids: set(&["tests::case_1"]),
            locations: set(&["lib.rs:4"]),
        };
        let answer = r#"{"failures":[{"test":"tests::case_10","frames":["src/lib.rs:41 x","mylib.rs:4 y"]}]}"#;
        assert_eq!(
            lost(&f, answer),
            ["lost test id \"tests::case_1\"", "lost location lib.rs:4"]
        );
        let kept = r#"{"failures":[{"test":"tests::case_1","frames":["lib.rs:4 y"]}]}"#;
        assert!(lost(&f, kept).is_empty());
    }

    fn answer<'a>(scenario: &'a str, bytes: usize, tokens: usize, text: &'a str) -> Answer<'a> {
        Answer {
            scenario,
            red: true,
            bytes,
            tokens,
            text,
            problem: None,
        }
    }

    #[test]
    fn summary_lists_each_miss_and_counts_them() {
        let mut baseline = Baseline::new();
        baseline.insert("a".into(), facts(ANSWER).unwrap());
        let green = Answer {
            red: false,
            ..answer("green", 5000, 2000, "{}")
        };
        let answers = [
            answer("a", 900, 300, r#"{"failures":[]}"#),
            answer("b", 100, 40, "{}"),
            answer("c", 800, 100, "{}"),
            green,
        ];
        let s = check(&answers, &baseline);
        // a over 800 B; the median of 300, 40, 100 is 100 (met); a lost 2 ids and 3 places.
        assert_eq!(s.misses, 1 + 5, "{}", s.text);
        assert!(s.text.contains("  - MISS a: 900 B\n"), "{}", s.text);
        assert!(!s.text.contains("MISS c:"), "800 B is within: {}", s.text);
        assert!(s
            .text
            .contains("median o200k tokens over 3 red answers: 100 (target ≤ 120)"));
        assert!(s
            .text
            .contains("MISS a: lost test id \"single tests::off_by_one\""));
        assert!(s.text.contains("MISS a: lost location src/other.rs:3"));
        assert!(s
            .text
            .contains("not in the baseline (record it with --record-baseline): b, c"));
        assert!(s
            .text
            .ends_with("Targets missed: 6 (each listed above as MISS).\n"));

        let high = [answer("x", 10, 121, "{}"), answer("y", 10, 130, "{}")];
        let s = check(&high, &Baseline::new());
        assert_eq!(s.misses, 1);
        assert!(s.text.contains(": 125.5 (target ≤ 120)"), "{}", s.text);
        assert!(s.text.contains("MISS median 125.5 tokens > 120"));

        let bad = Answer {
            problem: Some("pith exit 2"),
            ..answer("z", 10, 10, "")
        };
        let s = check(&[bad], &Baseline::new());
        assert_eq!(s.misses, 1);
        assert!(s.text.contains("MISS z: pith exit 2"));
        assert!(check(&[], &Baseline::new())
            .text
            .ends_with("All targets met.\n"));
    }

    #[test]
    fn baseline_round_trips_and_starts_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("baseline/answers.json");
        assert!(load(&path).unwrap().is_empty());
        let mut b = Baseline::new();
        b.insert("rust/x (cargo test)".into(), facts(ANSWER).unwrap());
        b.insert("go/y".into(), Facts::default());
        save(&path, &b).unwrap();
        assert_eq!(load(&path).unwrap(), b);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.find("go/y").unwrap() < text.find("rust/x").unwrap());
    }
}
