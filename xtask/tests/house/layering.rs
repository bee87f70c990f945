//! The house rule, checked: which pith crate may depend on which. The domain model reaches
//! nothing; the runner, the store and `wire` see the model only; the index sees the model and
//! the store; the engine reaches everything below it; the faces (`pith`, `pith-mcp`) reach the
//! engine only, so an answer is computed and shaped in one place. Read from
//! `cargo metadata --no-deps`: normal and build dependencies are edges, dev-dependencies are
//! free (a test may use anything).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// A crate's allowed pith dependencies, and why the rule is what it is; `None`: any (test
/// support, reached only through dev-dependencies, which no row allows as an edge).
struct Row {
    package: &'static str,
    allowed: Option<&'static [&'static str]>,
    why: &'static str,
}

const BELOW_ENGINE: &[&str] = &[
    "pith-model",
    "pith-runner",
    "pith-store",
    "pith-wire",
    "pith-index",
];

const RULES: &[Row] = &[
    Row {
        package: "pith-model",
        allowed: Some(&[]),
        why: "the domain model reaches nothing of pith",
    },
    Row {
        package: "pith-runner",
        allowed: Some(&["pith-model"]),
        why: "the runner adapters see the model only",
    },
    Row {
        package: "pith-store",
        allowed: Some(&["pith-model"]),
        why: "the store sees the model only",
    },
    Row {
        package: "pith-wire",
        allowed: Some(&["pith-model"]),
        why: "wire shapes the model only",
    },
    Row {
        package: "pith-index",
        allowed: Some(&["pith-model", "pith-store"]),
        why: "the index sees the model and the store only",
    },
    Row {
        package: "pith-engine",
        allowed: Some(BELOW_ENGINE),
        why: "the engine reaches only the layers below it",
    },
    Row {
        package: "pith-init",
        allowed: Some(&["pith-model"]),
        why: "pith init's host table stands alone (the model at most)",
    },
    Row {
        package: "pith-mcp",
        allowed: Some(&["pith-engine"]),
        why: "faces reach the engine only",
    },
    Row {
        package: "pith",
        allowed: Some(&["pith-engine", "pith-mcp", "pith-init"]),
        why: "faces reach the engine only (the binary also starts the MCP face and pith init)",
    },
    Row {
        package: "xtask",
        allowed: Some(&[]),
        why: "xtask drives the built binary, not the crates (its house tests read the model's \
              names: a dev-dependency)",
    },
    Row {
        package: "pith-testkit",
        allowed: None,
        why: "test support, used only as a dev-dependency",
    },
];

/// Every edge between workspace crates that the table does not allow, as one line each, and
/// every workspace crate the table does not know.
fn violations(metadata: &Value) -> Vec<String> {
    let packages = metadata["packages"].as_array().expect("packages");
    let members: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut wrong = Vec::new();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default();
        let Some(row) = RULES.iter().find(|r| r.package == name) else {
            wrong.push(format!(
                "{name} is not in the layering table (xtask/tests/house/layering.rs): add its row"
            ));
            continue;
        };
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let to = dep["name"].as_str().unwrap_or_default();
            let dev = dep["kind"].as_str() == Some("dev");
            if dev || !members.contains(&to) {
                continue;
            }
            if row.allowed.is_some_and(|allowed| !allowed.contains(&to)) {
                wrong.push(format!("{name} → {to} is not allowed: {}", row.why));
            }
        }
    }
    wrong
}

/// The workspace's crates and their declared dependencies.
fn metadata() -> Value {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn crates_depend_only_downward() {
    let metadata = metadata();
    let wrong = violations(&metadata);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The table is not vacuous: the layers it names are the workspace's.
    let names: Vec<&str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    for layer in BELOW_ENGINE
        .iter()
        .chain(&["pith-engine", "pith-mcp", "pith"])
    {
        assert!(names.contains(layer), "{layer} is not a workspace crate");
    }
}

/// A dependency as `cargo metadata` lists it: its name and its kind (`None`: normal).
type Dep<'a> = (&'a str, Option<&'a str>);

/// A small workspace, crate → its dependencies.
fn workspace(edges: &[(&str, &[Dep])]) -> Value {
    let packages: Vec<Value> = edges
        .iter()
        .map(|(name, deps)| {
            let deps: Vec<Value> = deps
                .iter()
                .map(|(to, kind)| serde_json::json!({"name": to, "kind": kind}))
                .collect();
            serde_json::json!({"name": name, "dependencies": deps})
        })
        .collect();
    serde_json::json!({ "packages": packages })
}

#[test]
fn a_face_reaching_past_the_engine_is_named() {
    let ws = workspace(&[
        ("pith-model", &[]),
        ("pith-runner", &[("pith-model", None)]),
        (
            "pith-engine",
            &[("pith-runner", None), ("pith-model", None)],
        ),
        (
            "pith",
            &[
                ("pith-engine", None),
                ("pith-runner", None),
                ("pith-model", Some("dev")),
                ("clap", None),
            ],
        ),
    ]);
    assert_eq!(
        violations(&ws),
        [
            "pith → pith-runner is not allowed: faces reach the engine only (the binary also \
          starts the MCP face and pith init)"
        ]
    );
}

#[test]
fn an_unknown_crate_and_an_upward_edge_are_named() {
    let ws = workspace(&[
        ("pith-model", &[("pith-wire", Some("build"))]),
        ("pith-wire", &[("pith-model", None)]),
        ("pith-extra", &[]),
    ]);
    assert_eq!(
        violations(&ws),
        [
            "pith-model → pith-wire is not allowed: the domain model reaches nothing of pith",
            "pith-extra is not in the layering table (xtask/tests/house/layering.rs): add its row",
        ]
    );
}
