//! The index on one fixture source tree per language (`tests/fixtures/index/<lang>`):
//! definitions in containers, overloads, the same name in two modules, imports and aliases, a
//! file with a syntax error. Each language's answers are snapshotted as the CLI would print
//! them, and the properties that matter are asserted on their own.

use pith_index::{Definition, FileUses, Index, Kind};

/// A private copy of a fixture with every file an hour old, so the index sees settled files.
fn fixture(lang: &str) -> pith_testkit::Fixture {
    let copy = pith_testkit::fixture(&format!("index/{lang}"));
    pith_testkit::age_tree(copy.path());
    copy
}

fn symbol_line(index: &Index, query: &str) -> String {
    let defs = index.definitions(query, None);
    let shaped: Vec<pith_wire::SymbolDef> = defs.iter().map(shape_def).collect();
    pith_wire::to_json(&pith_wire::symbol_answer(query, &shaped))
}

fn shape_def(d: &Definition) -> pith_wire::SymbolDef<'_> {
    pith_wire::SymbolDef {
        kind: d.kind.name(),
        file: &d.file,
        line: d.line,
        container: d.container.as_deref(),
    }
}

fn usages_line(index: &Index, query: &str) -> String {
    let files = index.usages(query);
    let shaped: Vec<pith_wire::UsesInFile> = files.iter().map(shape_uses).collect();
    pith_wire::to_json(&pith_wire::usages_answer(query, &shaped))
}

fn shape_uses(f: &FileUses) -> pith_wire::UsesInFile<'_> {
    pith_wire::UsesInFile {
        file: &f.file,
        lines: &f.lines,
    }
}

/// Every answer for a language's queries, one `query → answer` per line, for a snapshot.
fn answers(index: &Index, symbols: &[&str], usages: &[&str]) -> String {
    let mut out = String::new();
    for q in symbols {
        let line = symbol_line(index, q);
        assert!(line.len() <= pith_wire::SYMBOL_MANY_BUDGET, "{line}");
        out.push_str(&format!("symbol {q}\n{line}\n"));
    }
    for q in usages {
        let line = usages_line(index, q);
        assert!(line.len() <= pith_wire::USAGES_MANY_BUDGET, "{line}");
        out.push_str(&format!("usages {q}\n{line}\n"));
    }
    out
}

fn sites(index: &Index, query: &str) -> Vec<String> {
    index
        .usages(query)
        .iter()
        .flat_map(|f| f.lines.iter().map(move |l| format!("{}:{l}", f.file)))
        .collect()
}

fn containers(index: &Index, query: &str) -> Vec<Option<String>> {
    index
        .definitions(query, None)
        .into_iter()
        .map(|d| d.container)
        .collect()
}

/// What every language's fixture must show, whatever its syntax.
struct Expect<'a> {
    /// A function defined once, used in several files, once through an import alias.
    func: &'a str,
    func_at: &'a str,
    /// Where the aliased use is.
    alias_use: &'a str,
    /// A method defined in two containers, `owner` one of them.
    method: &'a str,
    owner: &'a str,
    /// The qualified name that selects the owner's method (`Config::load`, `Config.load`).
    qualified: &'a str,
    /// A helper defined at top level in two modules.
    helper: &'a str,
    /// Defined before a syntax error, and after it.
    survivor: &'a str,
}

fn check_common(index: &Index, e: &Expect) {
    // One definition: its kind, place and container; one match fits the one-match budget.
    let defs = index.definitions(e.func, None);
    assert_eq!(
        defs.iter()
            .map(|d| format!("{}:{}", d.file, d.line))
            .next()
            .as_deref(),
        Some(e.func_at),
        "{defs:?}"
    );
    let one = symbol_line(index, e.func);
    if defs.len() == 1 {
        assert!(
            one.len() <= pith_wire::SYMBOL_ONE_BUDGET,
            "{} bytes: {one}",
            one.len()
        );
    }
    // Uses: the alias counts, comments and strings do not.
    let uses = sites(index, e.func);
    assert!(
        uses.iter().any(|u| u == e.alias_use),
        "aliased use {} missing from {uses:?}",
        e.alias_use
    );
    let few = usages_line(index, e.func);
    if uses.len() < 10 {
        assert!(
            few.len() <= pith_wire::USAGES_FEW_BUDGET,
            "{} bytes: {few}",
            few.len()
        );
    }
    // Same-named methods are told apart by container, and a qualified query keeps one.
    let all = containers(index, e.method);
    assert!(all.contains(&Some(e.owner.into())), "{all:?}");
    assert!(all.iter().any(|c| c.as_deref() != Some(e.owner)), "{all:?}");
    let narrowed = containers(index, e.qualified);
    assert!(!narrowed.is_empty(), "{} found nothing", e.qualified);
    assert!(
        narrowed.iter().all(|c| c.as_deref() == Some(e.owner)),
        "{narrowed:?}"
    );
    assert!(narrowed.len() < all.len());
    // Same name in two modules: two definitions, two containers.
    let helpers = containers(index, e.helper);
    let distinct: std::collections::HashSet<_> = helpers.iter().collect();
    assert!(distinct.len() >= 2, "{helpers:?}");
    // A syntax error does not lose what parsed.
    assert!(
        !index
            .definitions(e.survivor, Some(Kind::Function))
            .is_empty()
            || !index.definitions(e.survivor, Some(Kind::Method)).is_empty(),
        "{} lost to a syntax error",
        e.survivor
    );
}

#[test]
fn rust() {
    let dir = fixture("rust");
    let index = Index::open(dir.path()).unwrap();
    check_common(
        &index,
        &Expect {
            func: "parse_port",
            func_at: "src/net.rs:3",
            alias_use: "src/lib.rs:15",
            method: "load",
            owner: "Config",
            qualified: "Config::load",
            helper: "helper",
            survivor: "survivor",
        },
    );
    // `// parse_port in a comment` (line 14) and `"parse_port"` (line 16's argument) are not
    // uses; line 16's call is.
    assert!(!sites(&index, "parse_port").contains(&"src/lib.rs:14".into()));
    // `self.check(..)` inside `impl Config` is a use of `Config::check`.
    assert_eq!(sites(&index, "Config::check"), ["src/config.rs:19"]);
    assert_eq!(
        containers(&index, "after_error"),
        [Some("broken".to_owned())],
        "items after a syntax error are indexed too"
    );
    insta::assert_snapshot!(answers(
        &index,
        &[
            "parse_port",
            "load",
            "Config::load",
            "net::parse_port",
            "helper",
            "Mode",
            "port"
        ],
        &["parse_port", "Config::load", "port_of", "survivor"],
    ));
}

#[test]
fn python() {
    let dir = fixture("python");
    let index = Index::open(dir.path()).unwrap();
    check_common(
        &index,
        &Expect {
            func: "parse_port",
            func_at: "pkg/net.py:5",
            alias_use: "pkg/__init__.py:2",
            method: "load",
            owner: "Config",
            qualified: "Config.load",
            helper: "helper",
            survivor: "survivor",
        },
    );
    // Three definitions: two `@overload` stubs and the implementation.
    assert_eq!(index.definitions("parse_port", None).len(), 3);
    // `cfg` is `pkg.config` imported under another name: `cfg.Config` qualifies as `config`.
    assert_eq!(sites(&index, "config.Config"), ["app.py:6"]);
    insta::assert_snapshot!(answers(
        &index,
        &[
            "parse_port",
            "load",
            "Config.load",
            "net.helper",
            "Config",
            "retries"
        ],
        &["parse_port", "Config.load", "load", "_check"],
    ));
}

#[test]
fn go() {
    let dir = fixture("go");
    let index = Index::open(dir.path()).unwrap();
    check_common(
        &index,
        &Expect {
            func: "ParsePort",
            func_at: "net/net.go:9",
            alias_use: "main.go:12",
            method: "Load",
            owner: "Server",
            qualified: "Server.Load",
            helper: "helper",
            survivor: "Survivor",
        },
    );
    // `cfg` is the config package imported under another name.
    assert_eq!(sites(&index, "config.Load"), ["main.go:9"]);
    // The receiver `c` stands for `Config` inside its methods.
    assert_eq!(sites(&index, "Config.check"), ["config/config.go:23"]);
    insta::assert_snapshot!(answers(
        &index,
        &[
            "ParsePort",
            "Load",
            "Config.Validate",
            "net.helper",
            "Config",
            "Port"
        ],
        &["ParsePort", "config.Load", "Load"],
    ));
}

#[test]
fn javascript() {
    let dir = fixture("js");
    let index = Index::open(dir.path()).unwrap();
    check_common(
        &index,
        &Expect {
            func: "parsePort",
            func_at: "src/net.js:1",
            alias_use: "src/app.js:7",
            method: "load",
            owner: "Config",
            qualified: "Config.load",
            helper: "helper",
            survivor: "survivor",
        },
    );
    assert_eq!(sites(&index, "Config.check"), ["src/config.js:16"]);
    insta::assert_snapshot!(answers(
        &index,
        &["parsePort", "load", "Config.load", "helper", "DEFAULT_PORT"],
        &["parsePort", "Config.load", "portOf"],
    ));
}

#[test]
fn typescript_and_tsx() {
    let dir = fixture("ts");
    let index = Index::open(dir.path()).unwrap();
    check_common(
        &index,
        &Expect {
            func: "parsePort",
            func_at: "src/net.ts:1",
            alias_use: "src/view.tsx:5",
            method: "load",
            owner: "Config",
            qualified: "Config.load",
            helper: "helper",
            survivor: "survivor",
        },
    );
    // Overloads: two signatures and the implementation, for the function and the method.
    assert_eq!(index.definitions("parsePort", None).len(), 3);
    assert_eq!(index.definitions("Config.load", None).len(), 3);
    // TSX: a component and the uses inside JSX.
    assert_eq!(containers(&index, "PortView"), [Some("view".to_owned())]);
    assert_eq!(
        sites(&index, "portOf"),
        ["src/view.tsx:5", "src/view.tsx:6"]
    );
    insta::assert_snapshot!(answers(
        &index,
        &[
            "parsePort",
            "Config.load",
            "Loader",
            "Port",
            "Mode",
            "util.helper",
            "PortView"
        ],
        &["parsePort", "Config.check", "Mode"],
    ));
}

#[test]
fn java() {
    let dir = fixture("java");
    let index = Index::open(dir.path()).unwrap();
    check_common(
        &index,
        &Expect {
            func: "parsePort",
            func_at: "src/app/net/Net.java:4",
            alias_use: "src/app/config/Config.java:15",
            method: "load",
            owner: "Config",
            qualified: "Config.load",
            helper: "helper",
            survivor: "survivor",
        },
    );
    // Overloads, a constructor named like its class, a nested class, the package.
    let kinds: Vec<Kind> = index
        .definitions("Config", None)
        .iter()
        .map(|d| d.kind)
        .collect();
    assert_eq!(kinds, [Kind::Class, Kind::Constructor]);
    assert_eq!(
        containers(&index, "app.config.Config"),
        [Some("app.config".to_owned())]
    );
    assert_eq!(
        containers(&index, "Builder.load"),
        [Some("Config.Builder".to_owned())]
    );
    insta::assert_snapshot!(answers(
        &index,
        &["parsePort", "load", "Config", "Config.Builder.load", "FAST"],
        &["parsePort", "Config.load", "Config.check"],
    ));
}

#[test]
fn csharp() {
    let dir = fixture("csharp");
    let index = Index::open(dir.path()).unwrap();
    check_common(
        &index,
        &Expect {
            func: "ParsePort",
            func_at: "src/Net.cs:5",
            alias_use: "src/Program.cs:9",
            method: "Load",
            owner: "Config",
            qualified: "Config.Load",
            helper: "Load",
            survivor: "Survivor",
        },
    );
    // `P` is an alias of `App.Net.PortParser`: `P.ParsePort` is qualified as `PortParser`.
    assert_eq!(
        sites(&index, "PortParser.ParsePort"),
        ["src/Config.cs:23", "src/Net.cs:12", "src/Program.cs:9"]
    );
    assert_eq!(sites(&index, "Config.Check"), ["src/Config.cs:27"]);
    assert_eq!(
        containers(&index, "App.Settings.Config"),
        [Some("App.Settings".to_owned())]
    );
    insta::assert_snapshot!(answers(
        &index,
        &["ParsePort", "Load", "Config", "Port", "DefaultPort", "Mode"],
        &["ParsePort", "Config.Load", "Validate"],
    ));
}

#[test]
fn kind_filter_keeps_one_kind() {
    let dir = fixture("rust");
    let index = Index::open(dir.path()).unwrap();
    let port = index.definitions("port", None);
    assert_eq!(port.len(), 2, "{port:?}");
    let fields = index.definitions("port", Some(Kind::Field));
    assert_eq!(fields.len(), 1);
    assert_eq!(fields[0].container.as_deref(), Some("Config"));
    assert!(index.definitions("port", Some(Kind::Class)).is_empty());
}
