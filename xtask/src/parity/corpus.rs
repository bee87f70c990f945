//! The parity corpus as data: each set-up is a directory under `xtask/parity/corpus/<eco>/`
//! holding a small project and its `parity.json` (the raw command a developer types there, the
//! runners whose printed lines say counts and failing ids, the installed tool set it links,
//! its variants, and the disagreements known today with their reason and follow-up). Kept
//! apart from the run so that a malformed manifest fails before anything runs.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// Where the corpus lives, relative to the repository root.
pub const CORPUS: &str = "xtask/parity/corpus";
/// The installed tool sets (node_modules trees, virtualenvs), relative to the repository root.
pub const ENVS: &str = "xtask/parity/env";
/// The pinned JavaScript package sets of the scenario rows (`scripts/setup/js.sh` installs
/// them): a set-up's `env` may name one by its path (`tests/fixtures/js/jest27`), so that the
/// corpus runs the oldest of each runner's range on the very install the rows run, without a
/// second one.
pub const FIXTURE_SETS: &str = "tests/fixtures/js/";
/// Each set-up's manifest; never copied into the project a run sees.
pub const MANIFEST: &str = "parity.json";

/// Every runner whose printed lines the harness can read (`extract`), as manifests name them.
pub const RUNNERS: &[&str] = &[
    "pytest", "unittest", "cargo", "nextest", "go", "jest", "vitest", "node", "mocha", "maven",
    "gradle", "ctest", "bazel",
];

#[derive(Debug, Clone)]
pub struct Setup {
    /// `eco/name`, the directory below the corpus.
    pub name: String,
    pub dir: PathBuf,
    pub about: String,
    /// The raw side: commands run in order (argv, never a shell), stopping at the first that
    /// fails, as a developer types them one after the other.
    pub raw: Vec<Vec<String>>,
    /// The runners whose lines the raw output is read with.
    pub runners: Vec<String>,
    /// An installed tool set under `ENVS` (`node-*`: linked as `node_modules`; `py-*`: a
    /// virtualenv, active on both sides), or a package set under [`FIXTURE_SETS`] (linked as
    /// `node_modules`).
    pub env: Option<String>,
    /// Commands run in each copy after both sides' runs, whatever happened (a Bazel server to
    /// stop); their output is not read.
    pub after: Vec<Vec<String>>,
    /// Commands run in each fresh copy before either side, untimed and unread (`--prepare`:
    /// the configure step a developer ran once, e.g. `cmake -S . -B build -D…`, whose build
    /// directory pith then uses as the project's own).
    pub before: Vec<Vec<String>>,
    /// Arguments for `pith test` after `test` (none: what an agent types).
    pub pith_args: Vec<String>,
    /// In the quick half (`--quick`, `scripts/quick.sh`, CI).
    pub quick: bool,
    /// Seconds either side may take before its process group is killed.
    pub timeout: u64,
    pub variants: Vec<Variant>,
}

#[derive(Debug, Clone)]
pub struct Variant {
    pub name: String,
    /// What the raw command must answer here (`true`: exit 0): a set-up whose raw run does not
    /// is broken (a tool missing, a fixture wrong), whatever pith says.
    pub expect_green: bool,
    /// `"expect": "masked"`: the command exits 0 over failing tests (`|| true`,
    /// `testFailureIgnore`): the verdict compared is the tests' (red), and pith's answer must
    /// say `masked`.
    pub masked: bool,
    pub edits: Vec<Edit>,
    /// A disagreement known today: its reason and the follow-up that removes it.
    pub known: Option<Known>,
}

/// A text replacement in one file of the copy: the injected bug, or a harmless edit beside it.
#[derive(Debug, Clone)]
pub struct Edit {
    pub file: String,
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone)]
pub struct Known {
    pub reason: String,
    pub follow_up: String,
}

/// Differences known corpus-wide (one reason, many set-ups: pith's `.pith/` in every tree),
/// in `xtask/parity/known.json`, each with its reason and follow-up.
pub const KNOWN: &str = "xtask/parity/known.json";

#[derive(Debug, Clone)]
pub struct KnownDiff {
    /// A difference containing this text is known...
    pub diff: String,
    /// ...in the set-ups whose name contains this (all when empty).
    pub setups: String,
    pub reason: String,
    pub follow_up: String,
}

impl KnownDiff {
    pub fn covers(&self, setup: &str, diff: &str) -> bool {
        diff.contains(&self.diff) && setup.contains(&self.setups)
    }
}

pub fn load_known(root: &Path) -> Result<Vec<KnownDiff>> {
    let path = root.join(KNOWN);
    let text = fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
    parse_known(&text).with_context(|| format!("{}", path.display()))
}

pub fn parse_known(text: &str) -> Result<Vec<KnownDiff>> {
    let v: Value = serde_json::from_str(text)?;
    let list = v
        .as_array()
        .context("a list of {diff, setups, reason, followUp}")?;
    list.iter()
        .map(|e| {
            let obj = e.as_object().context("an entry is an object")?;
            only_keys(obj, &["diff", "setups", "reason", "followUp"])?;
            let field = |k: &str| {
                obj.get(k)
                    .and_then(Value::as_str)
                    .filter(|s| !s.trim().is_empty())
                    .map(str::to_string)
                    .with_context(|| format!("an entry needs `{k}`"))
            };
            Ok(KnownDiff {
                diff: field("diff")?,
                setups: obj
                    .get("setups")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                reason: field("reason")?,
                follow_up: field("followUp")?,
            })
        })
        .collect()
}

/// Every set-up under the corpus, sorted by name.
pub fn load(root: &Path) -> Result<Vec<Setup>> {
    let corpus = root.join(CORPUS);
    let mut setups = Vec::new();
    let mut ecos: Vec<_> = fs::read_dir(&corpus)
        .with_context(|| format!("reading {}", corpus.display()))?
        .collect::<Result<_, _>>()?;
    ecos.sort_by_key(|e| e.file_name());
    for eco in ecos.into_iter().filter(|e| e.path().is_dir()) {
        let mut dirs: Vec<_> = fs::read_dir(eco.path())?.collect::<Result<_, _>>()?;
        dirs.sort_by_key(|e| e.file_name());
        for dir in dirs {
            let manifest = dir.path().join(MANIFEST);
            if !manifest.is_file() {
                continue;
            }
            let name = format!(
                "{}/{}",
                eco.file_name().to_string_lossy(),
                dir.file_name().to_string_lossy()
            );
            let text = fs::read_to_string(&manifest)?;
            let setup = parse(&name, &dir.path(), &text)
                .with_context(|| format!("{}", manifest.display()))?;
            setups.push(setup);
        }
    }
    Ok(setups)
}

/// One manifest. Unknown keys are refused: a misspelt `known` would otherwise hide nothing and
/// say nothing.
/// Where a set-up's `env` is installed: a package set under [`FIXTURE_SETS`] by its path, else
/// a tool set under [`ENVS`].
pub fn env_dir(root: &Path, env: &str) -> PathBuf {
    if env.starts_with(FIXTURE_SETS) {
        root.join(env)
    } else {
        root.join(ENVS).join(env)
    }
}

/// Whether `env` is a `node_modules` tree linked into each copy (not a virtualenv).
pub fn node_env(env: &str) -> bool {
    env.starts_with("node-") || env.starts_with(FIXTURE_SETS)
}

/// The setup script that installs `env`.
pub fn env_setup(env: &str) -> &'static str {
    if env.starts_with(FIXTURE_SETS) {
        "scripts/setup/js.sh"
    } else {
        "scripts/setup/parity.sh"
    }
}

pub fn parse(name: &str, dir: &Path, text: &str) -> Result<Setup> {
    let v: Value = serde_json::from_str(text)?;
    let obj = v.as_object().context("a manifest is a JSON object")?;
    only_keys(
        obj,
        &[
            "about", "raw", "runners", "env", "after", "pith", "quick", "timeout", "variants",
        ],
    )?;
    let about = obj
        .get("about")
        .and_then(Value::as_str)
        .context("`about` (what real projects this set-up is shaped like) is required")?
        .to_string();
    let raw = commands(obj.get("raw").context("`raw` is required")?)?;
    if raw.is_empty() {
        bail!("`raw` names no command");
    }
    let runners = strings(obj.get("runners").unwrap_or(&Value::Null))?;
    for r in &runners {
        if !RUNNERS.contains(&r.as_str()) {
            bail!("unknown runner {r:?} (one of {RUNNERS:?})");
        }
    }
    let env = obj.get("env").and_then(Value::as_str).map(str::to_string);
    if let Some(e) = &env {
        let set = e.strip_prefix(FIXTURE_SETS);
        let named = if e.contains('/') {
            set
        } else {
            Some(e.as_str())
        };
        if named.is_none_or(|n| n.is_empty() || n.contains('/') || n.starts_with('.')) {
            bail!("`env` {e:?}: a tool set under {ENVS} or a package set {FIXTURE_SETS}<name>");
        }
    }
    let after = match obj.get("after") {
        Some(a) => commands(a)?,
        None => Vec::new(),
    };
    let pith_args = strings(obj.get("pith").unwrap_or(&Value::Null))?;
    let quick = obj.get("quick").and_then(Value::as_bool).unwrap_or(false);
    let timeout = obj.get("timeout").and_then(Value::as_u64).unwrap_or(300);
    let variants_v = obj
        .get("variants")
        .and_then(Value::as_object)
        .context("`variants` (an object: name → {expect, edits, known}) is required")?;
    let mut variants = Vec::new();
    for (vname, vv) in variants_v {
        let vo = vv.as_object().context("a variant is an object")?;
        only_keys(vo, &["expect", "edits", "known"])?;
        let (expect_green, masked) = match vo.get("expect").and_then(Value::as_str) {
            Some("green") => (true, false),
            Some("red") => (false, false),
            Some("masked") => (true, true),
            other => bail!(
                "variant {vname}: `expect` is \"green\", \"red\" or \"masked\", not {other:?}"
            ),
        };
        let mut edits = Vec::new();
        for e in vo
            .get("edits")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
        {
            let field = |k: &str| {
                e.get(k)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .with_context(|| format!("variant {vname}: an edit needs `{k}`"))
            };
            edits.push(Edit {
                file: field("file")?,
                from: field("from")?,
                to: field("to")?,
            });
        }
        let known = match vo.get("known") {
            None => None,
            Some(k) => {
                let field = |key: &str| {
                    k.get(key)
                        .and_then(Value::as_str)
                        .filter(|s| !s.trim().is_empty())
                        .map(str::to_string)
                        .with_context(|| format!("variant {vname}: `known` needs `{key}`"))
                };
                Some(Known {
                    reason: field("reason")?,
                    follow_up: field("followUp")?,
                })
            }
        };
        variants.push(Variant {
            name: vname.clone(),
            expect_green,
            masked,
            edits,
            known,
        });
    }
    if variants.is_empty() {
        bail!("no variant");
    }
    Ok(Setup {
        name: name.to_string(),
        dir: dir.to_path_buf(),
        about,
        raw,
        runners,
        env,
        after,
        before: Vec::new(),
        pith_args,
        quick,
        timeout,
        variants,
    })
}

fn only_keys(obj: &serde_json::Map<String, Value>, allowed: &[&str]) -> Result<()> {
    for k in obj.keys() {
        if !allowed.contains(&k.as_str()) {
            bail!("unknown key {k:?} (allowed: {allowed:?})");
        }
    }
    Ok(())
}

fn strings(v: &Value) -> Result<Vec<String>> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(a) => a
            .iter()
            .map(|s| s.as_str().map(str::to_string).context("expected a string"))
            .collect(),
        _ => bail!("expected a list of strings"),
    }
}

/// A list of commands, each an argv list.
fn commands(v: &Value) -> Result<Vec<Vec<String>>> {
    let list = v.as_array().context("expected a list of argv lists")?;
    list.iter()
        .map(|c| {
            let argv = strings(c)?;
            if argv.is_empty() {
                bail!("an empty command");
            }
            Ok(argv)
        })
        .collect()
}

/// Splits a command line the way a user quotes it (`'…'`, `"…"`, backslash), into argv; it
/// runs no shell, so `&&`, pipes and variables are only words.
pub fn split_words(line: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => bail!("unclosed ' in {line:?}"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => cur.push(chars.next().context("trailing \\")?),
                        Some(c) => cur.push(c),
                        None => bail!("unclosed \" in {line:?}"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.push(chars.next().context("trailing \\")?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        bail!("an empty command");
    }
    Ok(words)
}

/// The set-ups' names by ecosystem, for the summary.
pub fn by_ecosystem(setups: &[Setup]) -> BTreeMap<&str, usize> {
    let mut map = BTreeMap::new();
    for s in setups {
        let eco = s.name.split('/').next().unwrap_or(&s.name);
        *map.entry(eco).or_insert(0) += 1;
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_and_refuses_what_it_does_not_know() {
        let text = r#"{"about":"a","raw":[["npm","test"]],"runners":["jest"],"env":"node-current",
            "quick":true,"variants":{"green":{"expect":"green"},
            "bug":{"expect":"red","edits":[{"file":"a.js","from":"+","to":"-"}],
                   "known":{"reason":"r","followUp":"lane js"}}}}"#;
        let s = parse("js/a", Path::new("/x"), text).unwrap();
        assert_eq!(s.raw, vec![vec!["npm".to_string(), "test".to_string()]]);
        assert!(s.quick);
        assert_eq!(s.timeout, 300);
        let bug = s.variants.iter().find(|v| v.name == "bug").unwrap();
        assert!(!bug.expect_green);
        assert_eq!(bug.edits[0].to, "-");
        assert_eq!(bug.known.as_ref().unwrap().follow_up, "lane js");
        assert!(parse(
            "x",
            Path::new("/x"),
            r#"{"about":"a","raw":[["a"]],"variants":{"g":{"expect":"green"}},"knwon":1}"#
        )
        .is_err());
        assert!(parse(
            "x",
            Path::new("/x"),
            r#"{"about":"a","raw":[["a"]],"runners":["ava"],"variants":{"g":{"expect":"green"}}}"#
        )
        .is_err());
        assert!(parse(
            "x",
            Path::new("/x"),
            r#"{"about":"a","raw":[["a"]],"variants":{"g":{"expect":"yes"}}}"#
        )
        .is_err());
        assert!(parse(
            "x",
            Path::new("/x"),
            r#"{"about":"a","raw":[["a"]],"variants":{"g":{"expect":"red","known":{"reason":""}}}}"#
        )
        .is_err());
        // A package set of the scenario rows, by its path; nothing else outside the tool sets.
        let with_env = |env: &str| {
            parse(
                "x",
                Path::new("/x"),
                &format!(
                    r#"{{"about":"a","raw":[["a"]],"env":"{env}","variants":{{"g":{{"expect":"green"}}}}}}"#
                ),
            )
        };
        let set = with_env("tests/fixtures/js/jest27").unwrap();
        let env = set.env.as_deref().unwrap();
        assert!(node_env(env));
        assert_eq!(
            env_dir(Path::new("/r"), env),
            Path::new("/r/tests/fixtures/js/jest27")
        );
        assert_eq!(env_setup(env), "scripts/setup/js.sh");
        assert_eq!(
            env_dir(Path::new("/r"), "node-current"),
            Path::new("/r/xtask/parity/env/node-current")
        );
        for bad in [
            "tests/fixtures/js/",
            "tests/fixtures/js/../../etc",
            "tests/fixtures/python/pytest7",
            "../node-current",
        ] {
            assert!(with_env(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn words_split_as_a_user_quotes_them_without_a_shell() {
        assert_eq!(split_words("npm test").unwrap(), ["npm", "test"]);
        assert_eq!(
            split_words(r#"go test './...' -run "Test A" a\ b"#).unwrap(),
            ["go", "test", "./...", "-run", "Test A", "a b"]
        );
        assert_eq!(split_words("a && b").unwrap(), ["a", "&&", "b"]);
        assert!(split_words("  ").is_err());
        assert!(split_words("'open").is_err());
    }

    #[test]
    fn the_committed_corpus_loads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let setups = load(root).unwrap();
        assert!(setups.len() >= 60, "{} set-ups", setups.len());
        for s in &setups {
            assert!(s.dir.join(MANIFEST).is_file());
            if let Some(env) = &s.env {
                assert!(
                    env_dir(root, env).join("package.json").is_file()
                        || env_dir(root, env).join("requirements.txt").is_file(),
                    "{}: no tool set {env}",
                    s.name
                );
            }
            for v in &s.variants {
                for e in &v.edits {
                    let text = fs::read_to_string(s.dir.join(&e.file))
                        .unwrap_or_else(|_| panic!("{} {}: no file {}", s.name, v.name, e.file));
                    assert_eq!(
                        text.matches(&e.from).count(),
                        1,
                        "{} {}: {:?} must occur once in {}",
                        s.name,
                        v.name,
                        e.from,
                        e.file
                    );
                }
            }
        }
        assert!(!load_known(root).unwrap().is_empty());
        let ecos = by_ecosystem(&setups);
        for eco in ["python", "rust", "go", "js", "jvm", "cpp", "bazel"] {
            assert!(ecos.contains_key(eco), "no {eco} set-up");
        }
    }
}
