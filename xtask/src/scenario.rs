//! The benchmark's scenarios: which fixture, which raw command an agent would type, and which
//! `pith test --runner` it is compared with.

/// How a scenario's tests are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Pytest,
    Cargo,
    Nextest,
    Go,
    Jest,
    Vitest,
    Node,
    Maven,
}

impl Kind {
    /// The runner's default command, as an agent would type it.
    pub fn raw_argv(self) -> &'static [&'static str] {
        match self {
            Kind::Pytest => &["python3", "-m", "pytest"],
            Kind::Cargo => &["cargo", "test"],
            Kind::Nextest => &["cargo", "nextest", "run"],
            Kind::Go => &["go", "test", "./..."],
            Kind::Jest => &["npx", "jest"],
            Kind::Vitest => &["npx", "vitest", "run"],
            Kind::Node => &["node", "--test"],
            Kind::Maven => &["mvn", "test"],
        }
    }

    /// The `--runner` pith is told to use, if any.
    pub fn pith_runner(self) -> Option<&'static str> {
        match self {
            Kind::Pytest => None,
            Kind::Cargo => Some("cargo"),
            Kind::Nextest => Some("nextest"),
            Kind::Go => Some("go"),
            Kind::Jest => Some("jest"),
            Kind::Vitest => Some("vitest"),
            Kind::Node => Some("node"),
            Kind::Maven => Some("maven"),
        }
    }

    /// Whether the fixture uses the JS fixtures' shared, installed `node_modules`.
    pub fn needs_node_modules(self) -> bool {
        matches!(self, Kind::Jest | Kind::Vitest | Kind::Node)
    }

    /// Whether the scenario builds Rust (and so shares the bench's CARGO_TARGET_DIR).
    pub fn builds_rust(self) -> bool {
        matches!(self, Kind::Cargo | Kind::Nextest)
    }
}

#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    /// The fixture directory, relative to the repository root.
    pub source: String,
    pub kind: Kind,
}

const PYTHON: [&str; 4] = ["green", "plain", "helper50", "distinct100"];
const RUST: [&str; 4] = ["green", "single", "helper50", "distinct100"];

/// Every scenario, in table order.
pub fn all() -> Vec<Scenario> {
    let mut out = Vec::new();
    for name in PYTHON {
        out.push(Scenario {
            name: format!("python/{name}"),
            source: format!("tests/fixtures/python/{name}"),
            kind: Kind::Pytest,
        });
    }
    for name in RUST {
        for (kind, label) in [(Kind::Cargo, "cargo test"), (Kind::Nextest, "nextest")] {
            out.push(Scenario {
                name: format!("rust/{name} ({label})"),
                source: format!("tests/fixtures/rust/{name}"),
                kind,
            });
        }
    }
    // The other runners: one row per fixture scenario, raw command against `pith test`.
    for (dir, label, kind) in [
        ("go", "go", Kind::Go),
        ("js/jest", "jest", Kind::Jest),
        ("js/vitest", "vitest", Kind::Vitest),
        ("js/node", "node", Kind::Node),
        ("java/maven", "maven", Kind::Maven),
    ] {
        for name in RUST {
            out.push(Scenario {
                name: format!("{label}/{name}"),
                source: format!("tests/fixtures/{dir}/{name}"),
                kind,
            });
        }
    }
    out.push(Scenario {
        name: "examples/demo".into(),
        source: "examples/demo".into(),
        kind: Kind::Pytest,
    });
    out
}

/// Whether `name` is selected: no filters selects everything, else any filter is a substring.
pub fn selected(name: &str, filters: &[String]) -> bool {
    filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rust_fixture_has_a_cargo_and_a_nextest_row() {
        let all = all();
        assert_eq!(all.len(), 4 + 2 * 4 + 5 * 4 + 1);
        let green: Vec<_> = all
            .iter()
            .filter(|s| s.source.ends_with("rust/green"))
            .collect();
        assert_eq!(green.len(), 2);
        assert!(green.iter().all(|s| s.kind.builds_rust()));
    }

    #[test]
    fn every_scenario_has_its_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap();
        for s in all() {
            assert!(
                root.join(&s.source).is_dir(),
                "{} has no fixture at {}",
                s.name,
                s.source
            );
        }
    }

    #[test]
    fn filters_are_substrings() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(selected("rust/green (nextest)", &[]));
        assert!(selected("rust/green (nextest)", &f(&["rust/green"])));
        assert!(selected("rust/green (nextest)", &f(&["demo", "nextest"])));
        assert!(!selected("python/green", &f(&["rust/"])));
    }
}
