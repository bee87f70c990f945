//! pith's nextest profile: the profile a developer's `cargo nextest run` uses in this workspace,
//! carried over setting by setting, plus only what pith needs to read the run.
//!
//! pith runs `cargo nextest run --profile pith` with a tool config (`--tool-config-file`) in its
//! scratch directory: that is how it gets a JUnit report without editing the project. But a
//! profile of its own replaces, key by key, what the project's profile says: a `slow-timeout`
//! with `terminate-after` (a test killed and failed after N periods) would be gone, and a test
//! that fails under `cargo nextest run` would pass under pith. And a tool config cannot inherit
//! from the project's profiles (nextest checks `inherits` within each file). So the project's
//! own profile — `NEXTEST_PROFILE`, else `default`, with every profile it inherits from — is
//! read from `.config/nextest.toml` and each of its settings written into pith's, and pith
//! changes only:
//! - `junit`: the report pith reads, in its scratch directory, with passing tests' output
//!   (whether libtest reported a test before its process exited) and ignored tests;
//! - `fail-fast = false`: every failure is seen (a run that would stop early is red all the
//!   same: this never turns a verdict);
//! - `slow-timeout`'s `grace-period`, 1 s: the time a test nextest terminates is given to exit
//!   before SIGKILL. At pith's deadline nextest gets SIGTERM and terminates its tests, each in a
//!   process group of its own that pith's kill does not reach: the report must be written, and
//!   the tests gone, before pith's own grace ends. The period, `terminate-after` and what a
//!   timeout means stay the project's.
//!
//! Left to nextest as it is: the default profile's per-test `overrides` and `scripts`, which
//! apply under every profile. A chosen profile's own `overrides` and `scripts` are not carried
//! (they name test groups and scripts of the project's file, which a tool config cannot see).

use std::io::Read;
use std::path::Path;

use toml_edit::{value, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::detect::NEXTEST_CONFIG;

/// The profile pith runs nextest with.
pub(super) const PROFILE: &str = "pith";

/// The grace a terminated test gets (see the module documentation).
const GRACE: &str = "1s";

/// nextest's own slow-timeout period, when no profile sets one.
const DEFAULT_PERIOD: &str = "60s";

/// A repository config larger than this is not read (its settings are then nextest's defaults).
const MAX_CONFIG: u64 = 1 << 20;

/// Profile settings pith does not carry: its own, or the project file's alone.
const NOT_CARRIED: &[&str] = &[
    "inherits",
    "junit",
    "fail-fast",
    "slow-timeout",
    "overrides",
    "scripts",
];

/// How deep an `inherits` chain is followed (nextest rejects cycles; a file pith reads may
/// have one all the same).
const MAX_CHAIN: usize = 16;

/// The tool config for a run in the workspace `dir` whose report goes to `junit`, for the
/// profile `chosen` (`NEXTEST_PROFILE`, else `None`: `default`).
pub(super) fn tool_config(dir: &Path, chosen: Option<&str>, junit: &Path) -> String {
    let repo = read(dir);
    let chosen = chosen.filter(|p| !p.is_empty()).unwrap_or("default");
    let chain = repo.as_ref().map(|d| chain(d, chosen)).unwrap_or_default();

    let mut pith = Table::new();
    // The most distant ancestor first, so that each profile's settings override its parents'.
    for profile in chain.iter().rev() {
        for (key, item) in profile.iter() {
            if NOT_CARRIED.contains(&key) {
                continue;
            }
            if let Ok(v) = item.clone().into_value() {
                pith.insert(key, Item::Value(v));
            }
        }
    }
    pith.insert("fail-fast", value(false));
    pith.insert("slow-timeout", Item::Value(slow_timeout(&chain)));
    let mut junit_table = Table::new();
    junit_table.insert("path", value(junit.to_string_lossy().into_owned()));
    junit_table.insert("store-success-output", value(true));
    junit_table.insert("store-failure-output", value(true));
    // `#[ignore]`d tests, as skipped cases: counted as `cargo test` counts them.
    junit_table.insert("report-skipped", value("ignored"));
    pith.insert("junit", Item::Table(junit_table));

    let mut profiles = Table::new();
    profiles.set_implicit(true);
    profiles.insert(PROFILE, Item::Table(pith));
    let mut doc = DocumentMut::new();
    doc.insert("profile", Item::Table(profiles));
    doc.to_string()
}

/// The workspace's nextest configuration, when there is one nextest could read.
fn read(dir: &Path) -> Option<DocumentMut> {
    let mut text = String::new();
    std::fs::File::open(dir.join(NEXTEST_CONFIG))
        .and_then(|f| f.take(MAX_CONFIG).read_to_string(&mut text))
        .ok()?;
    text.parse().ok()
}

/// The profile `name` and the profiles it inherits from, itself first; `default` last (every
/// profile inherits from it unless it names another).
fn chain<'d>(doc: &'d DocumentMut, name: &str) -> Vec<&'d dyn TableLike> {
    let Some(profiles) = doc.get("profile").and_then(Item::as_table_like) else {
        return Vec::new();
    };
    let mut out: Vec<&dyn TableLike> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut next = Some(name.to_owned());
    while let Some(n) = next.take() {
        if seen.contains(&n) || seen.len() >= MAX_CHAIN {
            break;
        }
        let table = profiles.get(&n).and_then(Item::as_table_like);
        if let Some(t) = table {
            out.push(t);
        }
        next = table
            .and_then(|t| t.get("inherits"))
            .and_then(Item::as_str)
            .map(str::to_owned)
            .or_else(|| (n != "default").then(|| "default".to_owned()));
        seen.push(n);
    }
    out
}

/// The chosen profile's `slow-timeout` (the nearest in the chain that sets one, else nextest's
/// default period) with pith's grace period.
fn slow_timeout(chain: &[&dyn TableLike]) -> Value {
    let own = chain.iter().find_map(|t| t.get("slow-timeout"));
    let mut table = match own.cloned().map(Item::into_value) {
        Some(Ok(Value::InlineTable(t))) => t,
        Some(Ok(Value::String(period))) => {
            let mut t = InlineTable::new();
            t.insert("period", Value::String(period));
            t
        }
        _ => InlineTable::new(),
    };
    if !table.contains_key("period") {
        table.insert("period", DEFAULT_PERIOD.into());
    }
    table.insert("grace-period", GRACE.into());
    table.fmt();
    Value::InlineTable(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(repo: Option<&str>, chosen: Option<&str>) -> toml_edit::DocumentMut {
        let d = tempfile::tempdir().unwrap();
        if let Some(text) = repo {
            std::fs::create_dir_all(d.path().join(".config")).unwrap();
            std::fs::write(d.path().join(NEXTEST_CONFIG), text).unwrap();
        }
        tool_config(d.path(), chosen, Path::new("/scratch/j \"x\".xml"))
            .parse()
            .unwrap()
    }

    fn pith(doc: &toml_edit::DocumentMut) -> &Table {
        doc["profile"][PROFILE].as_table().unwrap()
    }

    fn timeout(doc: &toml_edit::DocumentMut) -> String {
        pith(doc)["slow-timeout"].to_string().trim().to_owned()
    }

    #[test]
    fn without_a_project_config_pith_sets_only_what_it_reads() {
        let doc = config(None, None);
        let p = pith(&doc);
        assert_eq!(p["fail-fast"].as_bool(), Some(false));
        assert_eq!(timeout(&doc), r#"{ period = "60s", grace-period = "1s" }"#);
        assert_eq!(p["junit"]["path"].as_str(), Some("/scratch/j \"x\".xml"));
        assert_eq!(p["junit"]["store-success-output"].as_bool(), Some(true));
        assert_eq!(p["junit"]["report-skipped"].as_str(), Some("ignored"));
        let keys: Vec<&str> = p.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["fail-fast", "slow-timeout", "junit"]);
    }

    #[test]
    fn the_projects_timeout_stays_the_projects_but_for_the_grace() {
        // What turns a slow test into a failure is the project's: without it, a test
        // `cargo nextest run` fails would pass under pith.
        let doc = config(
            Some(
                "[profile.default]\n\
                 slow-timeout = { period = \"2s\", terminate-after = 3, grace-period = \"30s\" }\n",
            ),
            None,
        );
        assert_eq!(
            timeout(&doc),
            r#"{ period = "2s", terminate-after = 3, grace-period = "1s" }"#
        );
        let doc = config(Some("[profile.default]\nslow-timeout = \"5s\"\n"), None);
        assert_eq!(timeout(&doc), r#"{ period = "5s", grace-period = "1s" }"#);
        // A table of its own.
        let doc = config(
            Some("[profile.default.slow-timeout]\nperiod = \"4s\"\nterminate-after = 2\n"),
            None,
        );
        assert_eq!(
            timeout(&doc),
            r#"{ period = "4s", terminate-after = 2, grace-period = "1s" }"#
        );
    }

    #[test]
    fn the_chosen_profile_and_its_ancestors_are_carried_nearest_first() {
        let repo = "\
[profile.default]
retries = 1
test-threads = 4
slow-timeout = { period = \"9s\", terminate-after = 2 }
fail-fast = true
[profile.default.junit]
path = \"junit.xml\"

[profile.base]
retries = 2
leak-timeout = \"200ms\"

[profile.ci]
inherits = \"base\"
test-threads = 1

[[profile.ci.overrides]]
filter = \"test(slow)\"
test-group = \"serial\"
";
        // A developer's `cargo nextest run`: the default profile.
        let doc = config(Some(repo), None);
        let p = pith(&doc);
        assert_eq!(p["retries"].as_integer(), Some(1));
        assert_eq!(p["test-threads"].as_integer(), Some(4));
        assert_eq!(p["fail-fast"].as_bool(), Some(false));
        assert!(p.get("leak-timeout").is_none());
        // `NEXTEST_PROFILE=ci`: ci over base over default.
        let doc = config(Some(repo), Some("ci"));
        let p = pith(&doc);
        assert_eq!(p["retries"].as_integer(), Some(2));
        assert_eq!(p["test-threads"].as_integer(), Some(1));
        assert_eq!(p["leak-timeout"].as_str(), Some("200ms"));
        assert_eq!(
            timeout(&doc),
            r#"{ period = "9s", terminate-after = 2, grace-period = "1s" }"#
        );
        assert!(p.get("overrides").is_none() && p.get("inherits").is_none());
        assert_eq!(p["junit"]["path"].as_str(), Some("/scratch/j \"x\".xml"));
    }

    #[test]
    fn unreadable_or_looping_configs_leave_nextests_defaults() {
        let doc = config(Some("[profile.default\nretries = "), None);
        assert_eq!(timeout(&doc), r#"{ period = "60s", grace-period = "1s" }"#);
        let doc = config(
            Some("[profile.a]\ninherits = \"b\"\nretries = 3\n[profile.b]\ninherits = \"a\"\n"),
            Some("a"),
        );
        assert_eq!(pith(&doc)["retries"].as_integer(), Some(3));
        // A profile the file does not have: nothing of it to carry.
        let doc = config(Some("[profile.default]\nretries = 1\n"), Some("nope"));
        assert_eq!(pith(&doc)["retries"].as_integer(), Some(1));
    }
}
