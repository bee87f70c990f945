//! The graph on small real-looking projects written into temp dirs: exact edges, distances,
//! tests, the dynamic hole, and robustness against odd files.

use super::*;

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn owned(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

fn dist(list: &[(&str, u32)]) -> Vec<(String, u32)> {
    list.iter().map(|(s, d)| ((*s).to_owned(), *d)).collect()
}

const PYTHON: &[(&str, &str)] = &[
    (
        "pyproject.toml",
        "[project]\nname = \"shop\"\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
    ),
    ("src/shop/__init__.py", "from .cart import Cart\n"),
    (
        "src/shop/cart.py",
        r#""""The cart.

Not an import: from shop import loader
"""
from .pricing import (
    price,  # the base price
    discount as d,
)
from . import (
    util,  # a submodule, in brackets
)
import json, os.path as osp


class Cart:
    def total(self):
        try:
            import shop.plugins.extra
        except ImportError:
            pass
        s = "import shop.loader"
        return price() - d()
"#,
    ),
    (
        "src/shop/pricing.py",
        "from shop.util import clamp\n\ndef price():\n    return clamp(3)\n\ndef discount():\n    return 1\n",
    ),
    (
        "src/shop/util.py",
        "import importlib\n\ndef clamp(x):\n    return x\n\ndef load(name):\n    return importlib.import_module(name)\n",
    ),
    ("src/shop/plugins/__init__.py", ""),
    (
        "src/shop/plugins/extra.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING: from ..cart import Cart\n",
    ),
    (
        "src/shop/loader.py",
        "mod = __import__(\"shop.pricing\")\n",
    ),
    (
        "tests/conftest.py",
        "import pytest\nfrom shop.cart import Cart\n\n@pytest.fixture\ndef cart():\n    return Cart()\n",
    ),
    (
        "tests/unit/test_cart.py",
        "from shop import cart\n\ndef test_total():\n    assert cart.Cart().total() == 2\n",
    ),
    (
        "tests/unit/test_pricing.py",
        "from shop.pricing import price\n# import shop.util\n\ndef test_price():\n    assert price() == 3\n",
    ),
];

#[test]
fn python_src_layout_edges() {
    let dir = project(PYTHON);
    let g = Graph::build(dir.path()).unwrap();
    let cases: &[(&str, &[&str])] = &[
        ("src/shop/__init__.py", &["src/shop/cart.py"]),
        (
            "src/shop/cart.py",
            &[
                "src/shop/__init__.py",
                "src/shop/plugins/__init__.py",
                "src/shop/plugins/extra.py",
                "src/shop/pricing.py",
                "src/shop/util.py",
            ],
        ),
        (
            "src/shop/pricing.py",
            &["src/shop/__init__.py", "src/shop/util.py"],
        ),
        ("src/shop/util.py", &[]),
        (
            "src/shop/plugins/extra.py",
            &["src/shop/__init__.py", "src/shop/cart.py"],
        ),
        (
            "src/shop/loader.py",
            &["src/shop/__init__.py", "src/shop/pricing.py"],
        ),
        (
            "tests/conftest.py",
            &["src/shop/__init__.py", "src/shop/cart.py"],
        ),
        (
            "tests/unit/test_cart.py",
            &[
                "src/shop/__init__.py",
                "src/shop/cart.py",
                "tests/conftest.py",
            ],
        ),
        (
            "tests/unit/test_pricing.py",
            &[
                "src/shop/__init__.py",
                "src/shop/pricing.py",
                "tests/conftest.py",
            ],
        ),
    ];
    for (file, want) in cases {
        assert_eq!(g.imports(file), owned(want).as_slice(), "{file}");
    }
    assert_eq!(g.size(), (10, 20));
}

#[test]
fn python_distances_tests_and_the_dynamic_hole() {
    let dir = project(PYTHON);
    let g = Graph::build(dir.path()).unwrap();
    assert_eq!(
        g.dependents("src/shop/util.py"),
        dist(&[
            ("src/shop/cart.py", 1),
            ("src/shop/pricing.py", 1),
            ("src/shop/__init__.py", 2),
            ("src/shop/loader.py", 2),
            ("src/shop/plugins/extra.py", 2),
            ("tests/conftest.py", 2),
            ("tests/unit/test_cart.py", 2),
            ("tests/unit/test_pricing.py", 2),
        ])
    );
    // conftest.py is loaded by the tests, but holds none.
    assert_eq!(
        g.tests_of("src/shop/util.py"),
        dist(&[
            ("tests/unit/test_cart.py", 2),
            ("tests/unit/test_pricing.py", 2)
        ])
    );
    assert_eq!(
        g.tests_of("src/shop/plugins/__init__.py"),
        dist(&[
            ("tests/unit/test_cart.py", 2),
            ("tests/unit/test_pricing.py", 3)
        ])
    );
    assert_eq!(
        g.tests_of("tests/unit/test_cart.py"),
        dist(&[("tests/unit/test_cart.py", 0)])
    );
    assert_eq!(
        g.dependencies("tests/unit/test_pricing.py"),
        dist(&[
            ("src/shop/__init__.py", 1),
            ("src/shop/pricing.py", 1),
            ("tests/conftest.py", 1),
            ("src/shop/cart.py", 2),
            ("src/shop/util.py", 2),
            ("src/shop/plugins/__init__.py", 3),
            ("src/shop/plugins/extra.py", 3),
        ])
    );
    assert!(g.is_dynamic("src/shop/util.py"));
    assert!(!g.is_dynamic("src/shop/loader.py"), "a literal is an edge");
    assert!(!g.is_dynamic("src/shop/cart.py"));
    assert!(g.places("src/shop/cart.py"));
    assert!(g.places("./src/shop/cart.py"));
    assert!(!g.places("pyproject.toml"));
    assert!(
        !g.places("src/shop/gone.py"),
        "a deleted file is not placed"
    );
    assert!(g.dependents("src/shop/gone.py").is_empty());
}

#[test]
fn what_a_run_saw_loaded_closes_the_dynamic_hole_for_that_test_alone() {
    let dir = project(PYTHON);
    let mut g = Graph::build(dir.path()).unwrap();
    // util.py imports by a computed name: every test that reaches it is open.
    let open = owned(&["tests/unit/test_cart.py", "tests/unit/test_pricing.py"]);
    assert_eq!(g.dynamic_tests(false), open);
    let before = g.tests_of("src/shop/loader.py");
    assert!(!before
        .iter()
        .any(|(t, _)| t == "tests/unit/test_pricing.py"));

    let mut loads = std::collections::BTreeMap::new();
    loads.insert(
        "tests/unit/test_pricing.py".to_owned(),
        owned(&["src/shop/loader.py", "src/shop/not_there.py"]),
    );
    g.observe(&loads);
    // The observed test is closed; the other stays open; an addition opens both again.
    assert_eq!(g.dynamic_tests(false), owned(&["tests/unit/test_cart.py"]));
    assert_eq!(g.dynamic_tests(true), open);
    // The load is an edge like an import: the test reaches the module and what it imports.
    let reached = g.tests_of("src/shop/loader.py");
    assert!(
        reached.contains(&("tests/unit/test_pricing.py".to_owned(), 1)),
        "{reached:?}"
    );
    assert!(g
        .imports("tests/unit/test_pricing.py")
        .contains(&"src/shop/loader.py".to_owned()));
    // The static edges are all still there.
    assert_eq!(
        g.tests_of("src/shop/util.py"),
        dist(&[
            ("tests/unit/test_cart.py", 2),
            ("tests/unit/test_pricing.py", 2)
        ])
    );
}

/// What pytest loads or runs without an import: plugins named in `pytest_plugins`, scripts
/// run by their path.
#[test]
fn python_tests_depend_on_plugins_and_scripts_they_run() {
    let dir = project(&[
        ("app/__init__.py", ""),
        ("app/plugin.py", "import pytest, \\\r\n    app.cli\r\n"),
        ("app/cli.py", "print('hi')\n"),
        ("tests/conftest.py", "pytest_plugins = [\n    \"app.plugin\",\n]\n"),
        (
            "tests/test_cli.py",
            "import subprocess, sys\n\ndef test_cli():\n    subprocess.run([sys.executable, \"app/cli.py\"], check=True)\n    assert \"missing.py\"\n",
        ),
    ]);
    let g = Graph::build(dir.path()).unwrap();
    assert_eq!(
        g.imports("tests/conftest.py"),
        owned(&["app/__init__.py", "app/plugin.py"])
    );
    assert_eq!(
        g.imports("tests/test_cli.py"),
        owned(&["app/cli.py", "tests/conftest.py"])
    );
    assert_eq!(
        g.imports("app/plugin.py"),
        owned(&["app/__init__.py", "app/cli.py"]),
        "a continued line in a CRLF file"
    );
    assert_eq!(
        g.tests_of("app/plugin.py"),
        dist(&[("tests/test_cli.py", 2)])
    );
}

const MONOREPO: &[(&str, &str)] = &[
    (
        "package.json",
        r#"{"name": "mono", "private": true, "workspaces": ["packages/*"]}"#,
    ),
    (
        "tsconfig.base.json",
        r#"{
  // shared by every package
  "compilerOptions": {
    "strict": true,
    "baseUrl": ".",
    "paths": {
      "@core/*": ["packages/core/src/*"], /* the source, not dist */
    },
  },
}
"#,
    ),
    (
        "packages/core/package.json",
        r#"{"name": "@acme/core", "main": "dist/index.js", "types": "dist/index.d.ts"}"#,
    ),
    (
        "packages/core/src/index.ts",
        "export * from './math.js';\nexport { fmt } from \"./fmt\";\n",
    ),
    (
        "packages/core/src/math.ts",
        "export const add = (a: number, b: number) => a + b;\nexport const sum = (xs: number[]) => xs.reduce(add, 0);\n",
    ),
    (
        "packages/core/src/fmt.ts",
        "import type { Opts } from './types';\nexport function fmt(x: number, o?: Opts) {\n  return `${x}`;\n}\n",
    ),
    ("packages/core/src/types.ts", "export interface Opts { digits: number }\n"),
    (
        "packages/core/src/plugins.ts",
        "export async function load(name: string) {\n  return import(name);\n}\n",
    ),
    (
        "packages/app/package.json",
        r#"{"name": "@acme/app", "dependencies": {"@acme/core": "*", "react": "^18"}}"#,
    ),
    (
        "packages/app/tsconfig.json",
        r#"{"extends": "../../tsconfig.base.json", "compilerOptions": {"outDir": "dist"}}"#,
    ),
    (
        "packages/app/src/main.ts",
        r#"import { add } from '@acme/core';
import { fmt } from '@core/fmt';
import React from 'react';
const quote = /'/g; import './styles';
const re = /import x from '.\/ghost'/g;
// import { x } from './ghost'
const s = "require('./ghost')";
export function run() {
  return fmt(add(1, 2)) + s + String(re) + String(quote) + React;
}
"#,
    ),
    ("packages/app/src/styles/index.ts", "export const css = '';\n"),
    // Named only by text that reads like an import: no file depends on it.
    ("packages/app/src/ghost.ts", "export const x = 1;\n"),
    (
        "packages/app/src/legacy.js",
        "const util = require('./util.cjs');\nmodule.exports = function (p) {\n  return require(p);\n};\n",
    ),
    ("packages/app/src/util.cjs", "module.exports = {};\n"),
    (
        "packages/app/test/main.test.ts",
        r#"import { run } from '../src/main';
import { sum } from '@acme/core/math';
jest.mock('../src/legacy');

test('run', () => {
  expect(run()).toBe('3');
  expect(sum([1])).toBe(1);
});
"#,
    ),
    (
        "packages/app/bin/cli.js",
        "#!/usr/bin/env node\nconsole.log(process.argv.length);\n",
    ),
    (
        "packages/app/test/cli.test.js",
        r#"const { execFileSync } = require("child_process");
const path = require("path");

test("prints", () => {
  const cli = path.join(__dirname, "../bin/cli.js");
  expect(execFileSync("node", [cli, "../not/a/file.js"]).toString()).toBe("3\n");
});
"#,
    ),
    ("node_modules/react/index.js", "module.exports = require('./cjs/react.js');\n"),
    (
        "packages/app/node_modules/@acme/core/index.js",
        "module.exports = {};\n",
    ),
];

#[test]
fn typescript_monorepo_edges() {
    let dir = project(MONOREPO);
    let g = Graph::build(dir.path()).unwrap();
    let cases: &[(&str, &[&str])] = &[
        (
            "packages/app/src/main.ts",
            &[
                "packages/app/src/styles/index.ts",
                "packages/core/src/fmt.ts",
                "packages/core/src/index.ts",
            ],
        ),
        (
            "packages/core/src/index.ts",
            &["packages/core/src/fmt.ts", "packages/core/src/math.ts"],
        ),
        ("packages/core/src/fmt.ts", &["packages/core/src/types.ts"]),
        ("packages/core/src/plugins.ts", &[]),
        ("packages/app/src/legacy.js", &["packages/app/src/util.cjs"]),
        (
            "packages/app/test/cli.test.js",
            &["packages/app/bin/cli.js"],
        ),
        (
            "packages/app/test/main.test.ts",
            &[
                "packages/app/src/legacy.js",
                "packages/app/src/main.ts",
                "packages/core/src/math.ts",
            ],
        ),
    ];
    for (file, want) in cases {
        assert_eq!(g.imports(file), owned(want).as_slice(), "{file}");
    }
    assert_eq!(g.size(), (13, 11));
    assert!(g.dependents("packages/app/src/ghost.ts").is_empty());
    assert!(
        !g.places("node_modules/react/index.js"),
        "node_modules is not walked"
    );
    assert!(!g.places("packages/app/node_modules/@acme/core/index.js"));
}

#[test]
fn typescript_distances_tests_and_the_dynamic_hole() {
    let dir = project(MONOREPO);
    let g = Graph::build(dir.path()).unwrap();
    assert_eq!(
        g.dependents("packages/core/src/math.ts"),
        dist(&[
            ("packages/app/test/main.test.ts", 1),
            ("packages/core/src/index.ts", 1),
            ("packages/app/src/main.ts", 2),
        ])
    );
    assert_eq!(
        g.tests_of("packages/core/src/types.ts"),
        dist(&[("packages/app/test/main.test.ts", 3)])
    );
    assert_eq!(
        g.tests_of("packages/app/src/util.cjs"),
        dist(&[("packages/app/test/main.test.ts", 2)])
    );
    assert_eq!(
        g.tests_of("packages/app/bin/cli.js"),
        dist(&[("packages/app/test/cli.test.js", 1)])
    );
    assert!(g.is_dynamic("packages/core/src/plugins.ts"));
    assert!(g.is_dynamic("packages/app/src/legacy.js"));
    assert!(!g.is_dynamic("packages/app/src/main.ts"));
    assert!(g.places("packages/app/src/util.cjs"));
    assert!(!g.places("packages/app/package.json"));
}

#[test]
fn rust_tests_are_told_by_their_attributes() {
    assert!(holds_rust_tests(
        "fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n"
    ));
    assert!(holds_rust_tests(
        "    #[tokio::test]\n    async fn t() {}\n"
    ));
    assert!(!holds_rust_tests(
        "/// Run with `#[test]` attributes.\nfn f() { let s = \"#[cfg(test)]\"; }\n"
    ));
    assert!(!holds_rust_tests(
        "#[cfg(feature = \"test-utils\")]\nfn f() {}\n"
    ));
}

#[test]
fn odd_files_are_not_placed_and_break_nothing() {
    let dir = project(&[
        ("app/ok.py", "import app.bad\nimport app.binary\n"),
        ("app/__init__.py", ""),
        ("app/binary.py", "import os\n\0\0\0"),
        ("web/a.js", "import './b';\n"),
    ]);
    std::fs::write(
        dir.path().join("app/bad.py"),
        b"import app.ok\n\xff\xfe x = '\xc3\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("web/b.js"),
        b"require('./a'\xf0\x9f); `${\n",
    )
    .unwrap();
    let g = Graph::build(dir.path()).unwrap();
    assert!(!g.places("app/binary.py"));
    assert!(g.places("app/bad.py"));
    assert_eq!(
        g.imports("app/bad.py"),
        owned(&["app/__init__.py", "app/ok.py"])
    );
    assert_eq!(
        g.imports("app/ok.py"),
        owned(&["app/__init__.py", "app/bad.py", "app/binary.py"])
    );
    assert_eq!(g.imports("web/a.js"), owned(&["web/b.js"]));
    assert!(g.places("web/b.js"));
}

/// Tokenizing never panics, whatever the bytes: a fixed pseudo-random stream of the
/// characters that open and close tokens, cut at every length.
#[test]
fn the_tokenizers_survive_garbage() {
    let alphabet: Vec<char> =
        "import from require ( ) { } [ ] ' \" ` $ \\ / * # . , ; : \n é 😀 r f b 0"
            .chars()
            .collect();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut text = String::new();
    for _ in 0..4000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        text.push(alphabet[(seed % alphabet.len() as u64) as usize]);
    }
    let cuts: Vec<usize> = (0..=text.len())
        .filter(|i| text.is_char_boundary(*i))
        .step_by(7)
        .collect();
    for cut in cuts {
        let t = &text[..cut];
        let _ = python::tests_scan(t);
        let _ = javascript::tests_scan(t);
    }
}

#[test]
fn paths_join_within_the_workspace_only() {
    assert_eq!(paths::join("a/b", "../c/./d").as_deref(), Some("a/c/d"));
    assert_eq!(paths::join("", "../x"), None);
    assert_eq!(paths::join("a", "../../x"), None);
    assert_eq!(
        paths::ancestors("a/b/c.py").collect::<Vec<_>>(),
        ["a/b", "a", ""]
    );
    assert_eq!(paths::ancestors("c.py").collect::<Vec<_>>(), [""]);
}

fn panics(
    _: &Path,
    files: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    for f in files {
        read(f);
    }
    panic!("a resolver's bug");
}

/// A resolver that fails places none of its files (a change to one then selects every
/// test), and the other languages' edges stand.
#[test]
fn a_failing_resolver_places_nothing() {
    let dir = project(&[
        ("a.py", "import b\n"),
        ("b.py", ""),
        ("c.js", "require('./d')\n"),
        ("d.js", ""),
    ]);
    let files = owned(&["a.py", "b.py", "c.js", "d.js"]);
    let table = [
        Resolver {
            languages: &[&pith_model::lang::PYTHON],
            edges: panics,
        },
        Resolver {
            languages: &[&pith_model::lang::JAVASCRIPT],
            edges: javascript::edges,
        },
    ];
    let g = Graph::from_files_with(dir.path(), files, &table);
    assert!(!g.places("a.py") && !g.places("b.py"));
    assert!(g.places("c.js"));
    assert_eq!(g.imports("c.js"), owned(&["d.js"]));
}
