//! The tool table: each tool's declaration (name, full and slim description, input schema) and
//! the function that answers it by calling the engine's answer for the matching CLI command
//! (the same bytes by construction). Adding a tool is one entry here.
//!
//! Declarations are the byte prefix every step of an agent loop re-sends, so they are sorted by
//! name and hold only constants: nothing about the workspace, the time, the environment or the
//! detected runners (that belongs in answers).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::guide;

/// One call of a tool.
pub(crate) struct Call<'a> {
    /// The workspace root, the call's `root` or the server's default (see `workspace.rs`);
    /// empty for a tool that reads none.
    pub root: &'a Path,
    /// The file watcher on it, once it has started; until then, and without one, answers scan.
    pub watcher: Option<Arc<pith_engine::Watcher>>,
    pub args: &'a Map<String, Value>,
    /// Set when the client cancels the request; the engine then kills the runner's group.
    pub cancel: &'a Arc<AtomicBool>,
    /// Where a run's heartbeat goes, when the client asked for progress (a `progressToken`).
    pub progress: Option<Progress>,
    /// The code index the server keeps between lookups, the workspace's own.
    pub lookups: &'a pith_engine::Lookups,
}

/// A run's heartbeat, sent on as the client's progress notifications.
pub(crate) type Progress = Arc<dyn Fn(&pith_engine::Pulse) + Send + Sync>;

impl Call<'_> {
    /// The workspace as the engine takes it: the root, which relative paths are taken from.
    fn root(&self) -> (Option<PathBuf>, PathBuf) {
        (Some(self.root.to_path_buf()), self.root.to_path_buf())
    }
}

/// Why a tool could not do its job; sent in band as an error result of one line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolError {
    #[error("{0}")]
    Arguments(String),
    #[error(transparent)]
    Engine(#[from] pith_engine::EngineError),
    #[error(transparent)]
    Symbol(#[from] pith_engine::SymbolError),
    #[error(transparent)]
    Impact(#[from] pith_engine::ImpactError),
}

pub(crate) struct ToolDef {
    pub name: &'static str,
    /// What `tools/list` says by default.
    pub description: &'static str,
    /// A few words, for `pith mcp --slim` (hosts that also get the instructions block).
    pub slim: &'static str,
    /// The JSON Schema of the arguments, as compact JSON; a `runner` property gets the
    /// runner names as its `enum` in the full declarations, and a workspace tool a bare
    /// `root` string unless it declares its own (`run_tests` describes it, once for all).
    pub schema: &'static str,
    /// Changes nothing (`readOnlyHint`): hosts need not ask the user before calling it.
    pub read_only: bool,
    /// Answers about the workspace (all but the guide): it takes `root` (declared and
    /// resolved by the server, never seen by `run`); without a workspace, the call is
    /// answered in band with the fix.
    pub workspace: bool,
    /// Runs one call at a time: it starts the project's runners.
    pub exclusive: bool,
    /// Answers one call with the exact bytes the matching CLI command prints.
    pub run: fn(&Call) -> Result<String, ToolError>,
}

/// Every tool, sorted by name. Each answers as one CLI command: `find_symbol` as
/// `pith symbol`, `find_usages` as `pith usages`, `get_failures` as `pith failures`,
/// `get_impact` as `pith tests-for`, `pith blast` or `pith select` by its argument,
/// `get_status` as `pith status`, `run_tests` as `pith test`.
///
/// Every tool but `run_tests` is read-only. None is declared idempotent: the hint means
/// something only for a tool that is not read-only, and `run_tests` is not (each run is
/// recorded, and moves what `get_status`, `flaky` and `since` say).
pub(crate) const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "find_symbol",
        description: "Where a name is defined: kind, file:line, container. \
`name`: plain or qualified (`Config::load`, `pkg.mod.func`); `kind`: function, class, \
struct, ...",
        slim: "Where a name is defined.",
        schema: r#"{"type":"object","properties":{"kind":{"type":"string"},"name":{"type":"string"}},"required":["name"]}"#,
        read_only: true,
        workspace: true,
        exclusive: false,
        run: find_symbol,
    },
    ToolDef {
        name: "find_usages",
        description: "Where a name is used: file:line, or counts per file when many.",
        slim: "Where a name is used.",
        schema: r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
        read_only: true,
        workspace: true,
        exclusive: false,
        run: find_usages,
    },
    ToolDef {
        name: "get_failures",
        description: "Last run's failures in full, without running: whole messages, \
every project frame, ten a page. `tests`: only these; `page`: `nextPage`; `stacks`: \
library frames too.",
        slim: "Last run's failures.",
        schema: r#"{"type":"object","properties":{"page":{"type":"integer"},"stacks":{"type":"boolean"},"tests":{"type":"array","items":{"type":"string"}}}}"#,
        read_only: true,
        workspace: true,
        exclusive: false,
        run: get_failures,
    },
    ToolDef {
        name: "get_guide",
        description: "A topic of pith's answers: clusters (grouping, counts), flaky (flaky, \
new, failingFor, recovered, masked), ids (re-runs), impact (suspects, selection), runners (limits, \
statuses).",
        slim: "A guide topic.",
        schema: r#"{"type":"object","properties":{"topic":{"type":"string","enum":["clusters","flaky","ids","impact","runners"]}},"required":["topic"]}"#,
        read_only: true,
        workspace: false,
        exclusive: false,
        run: get_guide,
    },
    ToolDef {
        name: "get_impact",
        description: "What a change reaches (import graph), nearest first. `file`: test files \
depending on it; `target` (file or symbol): its blast radius; neither: test files the \
changes since the last green run (or git `rev`) reach; all, with why, when pith cannot \
follow a change.",
        slim: "What a change reaches.",
        schema: r#"{"type":"object","properties":{"file":{"type":"string"},"rev":{"type":"string"},"target":{"type":"string"}}}"#,
        read_only: true,
        workspace: true,
        exclusive: false,
        run: get_impact,
    },
    ToolDef {
        name: "get_output",
        description: "Last run's raw runner output, paged, without running; last resort \
after `tail` and get_failures. `test`: its own output; `grep`: matching lines.",
        slim: "Last run's raw output.",
        schema: r#"{"type":"object","properties":{"grep":{"type":"string"},"page":{"type":"integer"},"test":{"type":"string"}}}"#,
        read_only: true,
        workspace: true,
        exclusive: false,
        run: get_output,
    },
    ToolDef {
        name: "get_status",
        description: "Workspace state without running: `generation` (grows whenever a \
file a test may read changes), last run (status, counts, generations behind), \
files changed since, edits no test reaches, runners. `since`: an earlier `generation`: if \
unchanged, just that.",
        slim: "Workspace state.",
        schema: r#"{"type":"object","properties":{"since":{"type":"integer"}}}"#,
        read_only: true,
        workspace: true,
        exclusive: false,
        run: get_status,
    },
    ToolDef {
        name: "run_tests",
        description: "Runs the tests through the project's own runner: `status`, counts, failing tests (`test`, `message`, `frames` \"file:line code\" \
deepest first), `clusters`, `suspects` (changed lines the failures reach), the rest counted. \
Use it, not test or build commands in a shell. `tests`: ids to re-run; `since`: a \
`generation`, unchanged answers without running; `changed`: only tests the changes since the \
last green run reach.",
        slim: "Run the tests.",
        schema: r#"{"type":"object","properties":{"changed":{"type":"boolean"},"root":{"type":"string","description":"Project dir; default: the server's"},"runner":{"type":"string"},"since":{"type":"integer"},"tests":{"type":"array","items":{"type":"string"}}}}"#,
        read_only: false,
        workspace: true,
        exclusive: true,
        run: run_tests,
    },
];

pub(crate) fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

fn run_tests(call: &Call) -> Result<String, ToolError> {
    let args = Args::new(call.args, &["changed", "runner", "since", "tests"])?;
    let (root, cwd) = call.root();
    let req = pith_engine::TestRequest {
        root,
        cwd,
        timeout: None,
        tests: args.strings("tests")?,
        runner: args.string("runner")?,
        cancel: Some(Arc::clone(call.cancel)),
        progress: None,
        beat: call
            .progress
            .clone()
            .map(|p| Box::new(move |pulse: &pith_engine::Pulse| p(pulse)) as pith_engine::Beat),
        changed: args
            .flag("changed")?
            .then_some(pith_engine::ChangedSince::LastGreen),
        trace: pith_engine::Trace::Auto,
    };
    let state = pith_engine::StateOptions {
        since: args.count("since")?,
        watcher: call.watcher.clone(),
        ..pith_engine::StateOptions::default()
    };
    Ok(sent(pith_engine::answer::test(&req, &state)?))
}

fn get_status(call: &Call) -> Result<String, ToolError> {
    let args = Args::new(call.args, &["since"])?;
    let (root, cwd) = call.root();
    let req = pith_engine::StatusRequest {
        root,
        cwd,
        since: args.count("since")?,
        watcher: call.watcher.clone(),
    };
    Ok(sent(pith_engine::answer::status(&req)?))
}

fn get_failures(call: &Call) -> Result<String, ToolError> {
    let args = Args::new(call.args, &["page", "stacks", "tests"])?;
    let page = match args.count("page")? {
        None => 1,
        Some(0) => return Err(ToolError::Arguments("page must be 1 or more".into())),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    let stacks = args.flag("stacks")?;
    let (root, cwd) = call.root();
    let req = pith_engine::FailuresRequest {
        root,
        cwd,
        tests: args.strings("tests")?,
    };
    Ok(sent(pith_engine::answer::failures(&req, page, stacks)?))
}

fn get_output(call: &Call) -> Result<String, ToolError> {
    let args = Args::new(call.args, &["grep", "page", "test"])?;
    let page = match args.count("page")? {
        None => 1,
        Some(0) => return Err(ToolError::Arguments("page must be 1 or more".into())),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    };
    let (root, cwd) = call.root();
    let req = pith_engine::OutputRequest {
        root,
        cwd,
        grep: args.string("grep")?,
        test: args.string("test")?,
    };
    Ok(sent(pith_engine::answer::output(&req, page)?))
}

fn find_symbol(call: &Call) -> Result<String, ToolError> {
    let args = Args::new(call.args, &["kind", "name"])?;
    let name = args.required("name")?;
    let kind = args.string("kind")?;
    let watcher = call.watcher.as_deref();
    let answer =
        pith_engine::answer::symbol_kept(call.root, &name, kind.as_deref(), call.lookups, watcher)?;
    Ok(sent(answer))
}

fn find_usages(call: &Call) -> Result<String, ToolError> {
    let args = Args::new(call.args, &["name"])?;
    let name = args.required("name")?;
    let watcher = call.watcher.as_deref();
    Ok(sent(pith_engine::answer::usages_kept(
        call.root,
        &name,
        call.lookups,
        watcher,
    )?))
}

/// One tool for the three impact questions, each one call: `file` → `pith tests-for`,
/// `target` → `pith blast`, neither → `pith select` (since `rev` when given).
fn get_impact(call: &Call) -> Result<String, ToolError> {
    let args = Args::new(call.args, &["file", "rev", "target"])?;
    let (root, cwd) = (Some(call.root), call.root);
    let answer = match (
        args.string("file")?,
        args.string("target")?,
        args.string("rev")?,
    ) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => {
            return Err(ToolError::Arguments(
                "one of file, target or rev (or none: the tests the changes reach)".into(),
            ))
        }
        (Some(file), None, None) => pith_engine::answer::tests_for(root, cwd, &file)?,
        (None, Some(target), None) => pith_engine::answer::blast(root, cwd, &target)?,
        (None, None, rev) => pith_engine::answer::select(root, cwd, rev.as_deref())?,
    };
    Ok(sent(answer))
}

/// The answer's bytes, the tool result's one text block (its exit code is the CLI's
/// business). Its warnings (a workspace state the engine could not use) go where the CLI
/// puts them: stderr, never into the protocol.
fn sent(answer: pith_engine::Answer) -> String {
    for w in &answer.warnings {
        eprintln!("pith: {w}");
    }
    answer.json
}

fn get_guide(call: &Call) -> Result<String, ToolError> {
    let args = Args::new(call.args, &["topic"])?;
    let name = args
        .string("topic")?
        .ok_or_else(|| ToolError::Arguments(format!("topic is required ({})", guide::names())))?;
    guide::topic(&name).map(str::to_owned).ok_or_else(|| {
        ToolError::Arguments(format!("no topic {name:?} (topics: {})", guide::names()))
    })
}

/// A call's arguments, checked against what the tool takes. Schema violations are the
/// model's to fix, so they come back in band, naming the argument.
struct Args<'a>(&'a Map<String, Value>);

impl<'a> Args<'a> {
    fn new(args: &'a Map<String, Value>, known: &[&str]) -> Result<Self, ToolError> {
        if let Some(other) = args.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(ToolError::Arguments(format!(
                "unknown argument {other:?} (takes: {})",
                known.join(", ")
            )));
        }
        Ok(Args(args))
    }

    fn string(&self, key: &str) -> Result<Option<String>, ToolError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(_) => Err(ToolError::Arguments(format!(
                "{key} must be a non-empty string"
            ))),
        }
    }

    fn required(&self, key: &str) -> Result<String, ToolError> {
        self.string(key)?
            .ok_or_else(|| ToolError::Arguments(format!("{key} is required")))
    }

    fn count(&self, key: &str) -> Result<Option<u64>, ToolError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64()),
            Some(_) => Err(ToolError::Arguments(format!(
                "{key} must be a whole number, 0 or more"
            ))),
        }
    }

    fn flag(&self, key: &str) -> Result<bool, ToolError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ToolError::Arguments(format!("{key} must be true or false"))),
        }
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, ToolError> {
        let bad = || ToolError::Arguments(format!("{key} must be a list of non-empty strings"));
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) if !s.is_empty() => Ok(s.clone()),
                    _ => Err(bad()),
                })
                .collect(),
            Some(_) => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_are_sorted_by_name() {
        let names: Vec<_> = TOOLS.iter().map(|t| t.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }

    #[test]
    fn schemas_are_compact_objects() {
        for t in TOOLS {
            let v: Value = serde_json::from_str(t.schema).unwrap();
            assert_eq!(v["type"], "object", "{}", t.name);
            assert_eq!(serde_json::to_string(&v).unwrap().len(), t.schema.len());
            assert!(!t.slim.contains('\n') && !t.description.contains('\n'));
        }
    }

    #[test]
    fn only_the_tool_that_runs_tests_is_not_read_only() {
        for t in TOOLS {
            assert_eq!(t.read_only, !t.exclusive, "{}", t.name);
        }
    }

    #[test]
    fn guide_enum_lists_every_topic() {
        let v: Value = serde_json::from_str(find("get_guide").unwrap().schema).unwrap();
        let listed: Vec<_> = v["properties"]["topic"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let topics: Vec<_> = guide::TOPICS.iter().map(|(n, _)| *n).collect();
        assert_eq!(listed, topics);
    }

    fn call(name: &str, args: Value) -> Result<String, ToolError> {
        let root = std::env::temp_dir();
        let cancel = Arc::new(AtomicBool::new(false));
        let args = args.as_object().unwrap().clone();
        (find(name).unwrap().run)(&Call {
            root: &root,
            watcher: None,
            args: &args,
            cancel: &cancel,
            progress: None,
            lookups: &pith_engine::Lookups::new(),
        })
    }

    #[test]
    fn bad_arguments_are_one_clear_line() {
        let e = call("run_tests", serde_json::json!({"tests": "a"})).unwrap_err();
        assert_eq!(e.to_string(), "tests must be a list of non-empty strings");
        let e = call("run_tests", serde_json::json!({"test": ["a"]})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown argument \"test\" (takes: changed, runner, since, tests)"
        );
        let e = call("get_guide", serde_json::json!({"topic": "x"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no topic \"x\" (topics: clusters, flaky, ids, impact, runners)"
        );
        let e = call("get_guide", serde_json::json!({})).unwrap_err();
        assert!(e.to_string().starts_with("topic is required"));
    }

    #[test]
    fn guide_answers_its_topic() {
        let text = call("get_guide", serde_json::json!({"topic": "flaky"})).unwrap();
        assert!(text.starts_with("# Flaky, new, failing for"));
        // The rule every runner shares: a pass on the project's own retry is green, listed;
        // a failure the command hides from its exit is still red.
        assert!(
            text.contains("counted in `passed`, never in `failed`"),
            "{text}"
        );
        assert!(text.contains("`masked`"), "{text}");
        assert!(!text.contains("the run is not green"), "{text}");
    }
}
