//! Which names a change touches: the definitions (functions, methods, types, constants) whose
//! lines changed, those gone since the old version, and, within the file, every definition
//! that mentions a touched one — so a test that reaches a changed module only for an
//! untouched function need not run. Where a change is to code that runs when the module
//! loads, or calls a touched name there, the whole file is touched: every test that reaches
//! it runs. A method that may be called without its name being written (a constructor, a
//! dunder, a trait or interface implementation, a Go method behind an interface) touches
//! its type's name too.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::{Lang, Role};

mod definitions;

use definitions::{definition, descends, Def};

/// What a change touches in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Touched {
    /// Names whose definition changed or went, or that reach one within the file.
    pub names: BTreeSet<String>,
    /// Code that runs when the module loads changed or mentions a touched name: everything
    /// that reaches the file is touched.
    pub whole: bool,
}

/// One definition: its name, where it is, and the type it belongs to.
#[derive(Debug, Clone)]
struct Unit {
    name: String,
    bytes: Range<usize>,
    lines: (u32, u32),
    /// The enclosing type's name, when a call of this member may not name it.
    implicit: Option<String>,
}

/// One change to a file read once: both versions' definitions, the module-level statements
/// and what each definition mentions, so the names any set of its hunks touches is a lookup
/// (a green run asks hunk by hunk).
pub struct Reading {
    defs: Vec<Unit>,
    statements: Vec<Statement>,
    /// Definitions of the old version the new one no longer has.
    gone: BTreeSet<String>,
    mentions: Vec<(Option<usize>, BTreeSet<String>)>,
}

/// `new` read against `old` (the file at the baseline). `None` for a language the index has
/// no grammar of, or a version that does not parse cleanly: then the whole file counts.
pub fn read_change(path: &str, old: &str, new: &str) -> Option<Reading> {
    let lang = Lang::of_path(path)?;
    let mut parser = lang.parser()?;
    let tree = parser.parse(new, None)?;
    let old_tree = parser.parse(old, None)?;
    if tree.root_node().has_error() || old_tree.root_node().has_error() {
        return None;
    }
    let defs = units(lang, &tree, new);
    let now: BTreeSet<&str> = defs.iter().map(|u| u.name.as_str()).collect();
    let gone = units(lang, &old_tree, old)
        .into_iter()
        .map(|u| u.name)
        .filter(|n| !now.contains(n.as_str()))
        .collect();
    let statements = module_statements(lang, &tree, new);
    let mentions = mentions(lang, &tree, new, &defs, &statements);
    Some(Reading {
        defs,
        statements,
        gone,
        mentions,
    })
}

/// What `hunks` (1-based inclusive lines of `new`) touch (see [`Reading::touched`]).
pub fn touched_names(path: &str, old: &str, new: &str, hunks: &[(u32, u32)]) -> Option<Touched> {
    Some(read_change(path, old, new)?.touched(hunks))
}

impl Reading {
    /// What `hunks` (1-based inclusive lines of the new version) touch: the definitions gone,
    /// those holding a changed line, and within the file what mentions them, to a fixpoint.
    pub fn touched(&self, hunks: &[(u32, u32)]) -> Touched {
        let mut out = Touched {
            names: self.gone.clone(),
            whole: false,
        };
        for &(first, last) in hunks {
            for line in first..=last {
                match innermost(&self.defs, line) {
                    Some(u) => touch(&mut out, u),
                    None => {
                        if self
                            .statements
                            .iter()
                            .any(|s| s.lines.0 <= line && line <= s.lines.1)
                        {
                            out.whole = true;
                        }
                    }
                }
            }
        }
        if out.whole {
            return out;
        }
        loop {
            let before = out.names.len();
            for (owner, names) in &self.mentions {
                if !names.iter().any(|n| out.names.contains(n)) {
                    continue;
                }
                match owner {
                    Some(i) => touch(&mut out, &self.defs[*i]),
                    None => {
                        out.whole = true;
                        return out;
                    }
                }
            }
            if out.names.len() == before {
                break;
            }
        }
        out
    }
}

fn touch(out: &mut Touched, u: &Unit) {
    out.names.insert(u.name.clone());
    if let Some(t) = &u.implicit {
        out.names.insert(t.clone());
    }
}

/// The innermost definition holding `line`.
fn innermost(units: &[Unit], line: u32) -> Option<&Unit> {
    units
        .iter()
        .filter(|u| u.lines.0 <= line && line <= u.lines.1)
        .min_by_key(|u| u.bytes.len())
}

fn lines_of(node: Node) -> (u32, u32) {
    let (start, end) = (node.start_position(), node.end_position());
    let last = if end.column == 0 && end.row > start.row {
        end.row
    } else {
        end.row + 1
    };
    (start.row as u32 + 1, last as u32)
}

pub(super) fn text<'s>(src: &'s str, node: Node) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Every definition of the file that code outside it can name: module-level ones and the
/// members of types (nested functions belong to the one they are in).
fn units(lang: Lang, tree: &Tree, src: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    // (node, the enclosing type's name)
    let mut stack: Vec<(Node, Option<String>)> = vec![(tree.root_node(), None)];
    while let Some((node, container)) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match definition(lang, child, src, container.as_deref()) {
                Some(Def::Type(name)) => {
                    out.push(Unit {
                        name: name.clone(),
                        bytes: child.byte_range(),
                        lines: lines_of(child),
                        implicit: None,
                    });
                    stack.push((child, Some(name)));
                }
                Some(Def::Member(names, implicit)) => {
                    for name in names {
                        out.push(Unit {
                            name,
                            bytes: child.byte_range(),
                            lines: lines_of(child),
                            implicit: implicit.clone(),
                        });
                    }
                }
                None if descends(lang, child) => stack.push((child, container.clone())),
                None => {}
            }
        }
    }
    out
}

/// A statement that runs when the module loads, with its lines; imports and exports only
/// name things, so they are left out (a changed import still touches the whole file: see
/// [`module_statements`]).
struct Statement {
    lines: (u32, u32),
    bytes: Range<usize>,
    /// An import or an export: it names what it lists without running it.
    names_only: bool,
}

/// The module-level statements that are not definitions (nor comments).
fn module_statements(lang: Lang, tree: &Tree, src: &str) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind().contains("comment") || child.is_extra() || is_docstring(lang, child) {
                continue;
            }
            if definition(lang, child, src, None).is_some() {
                continue;
            }
            if matches!(
                child.kind(),
                "namespace_declaration" | "file_scoped_namespace_declaration" | "declaration_list"
            ) {
                stack.push(child);
                continue;
            }
            if child.kind() == "export_statement"
                && child.child_by_field_name("declaration").is_some()
            {
                stack.push(child);
                continue;
            }
            out.push(Statement {
                lines: lines_of(child),
                bytes: child.byte_range(),
                names_only: names_only(lang, child, src),
            });
        }
    }
    out
}

/// A string that is a statement of its own: a docstring, which runs nothing.
fn is_docstring(lang: Lang, node: Node) -> bool {
    lang == Lang::Python
        && node.kind() == "expression_statement"
        && node.named_child_count() == 1
        && node.named_child(0).is_some_and(|c| c.kind() == "string")
}

fn names_only(lang: Lang, node: Node, src: &str) -> bool {
    let k = node.kind();
    match lang {
        Lang::Python => {
            matches!(
                k,
                "import_statement" | "import_from_statement" | "future_import_statement"
            ) || (k == "expression_statement"
                && text(src, node).trim_start().starts_with("__all__"))
        }
        // An export names only what it lists: `module.exports = function (…) {…}` or
        // `export default {…}` is code that uses names (a touched helper reaches every
        // importer through it, whatever they call it).
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => match k {
            "import_statement" => true,
            "export_statement" => {
                node.child_by_field_name("value")
                    .is_none_or(|v| passes_names(v, src))
                    && !renames_export(node)
            }
            "expression_statement" => node
                .named_child(0)
                .filter(|a| a.kind() == "assignment_expression")
                .is_some_and(|a| {
                    let left = a.child_by_field_name("left").map_or("", |l| text(src, l));
                    (left.starts_with("module.exports") || left.starts_with("exports."))
                        && a.child_by_field_name("right")
                            .is_some_and(|r| passes_names(r, src))
                }),
            _ => false,
        },
        Lang::Rust => matches!(
            k,
            "use_declaration" | "mod_item" | "extern_crate_declaration"
        ),
        Lang::Go => matches!(k, "import_declaration" | "package_clause"),
        Lang::Java => matches!(k, "import_declaration" | "package_declaration"),
        Lang::CSharp => matches!(k, "using_directive"),
    }
}

/// Whether a JavaScript value only passes names on under their own names: a name, `a.b`,
/// `require("…")`, or an object of names (`{ total, count }`; `{ count: tally }` renames,
/// and an importer's `count` is no mention of `tally`).
fn passes_names(node: Node, src: &str) -> bool {
    match node.kind() {
        "identifier" | "member_expression" => true,
        "call_expression" => node
            .child_by_field_name("function")
            .is_some_and(|f| text(src, f) == "require"),
        "object" => {
            let mut cursor = node.walk();
            let all = node.named_children(&mut cursor).all(|c| match c.kind() {
                "shorthand_property_identifier" => true,
                "pair" => {
                    let key = c.child_by_field_name("key").map(|k| text(src, k));
                    let value = c.child_by_field_name("value");
                    value.is_some_and(|v| v.kind() == "identifier" && Some(text(src, v)) == key)
                }
                _ => c.kind().contains("comment"),
            });
            all
        }
        _ => false,
    }
}

/// Whether an export lists a name under another (`export { tally as count }`).
fn renames_export(node: Node) -> bool {
    let mut cursor = node.walk();
    let clause = node
        .named_children(&mut cursor)
        .find(|c| c.kind() == "export_clause");
    clause.is_some_and(|c| {
        let mut cursor = c.walk();
        let renamed = c
            .named_children(&mut cursor)
            .any(|s| s.child_by_field_name("alias").is_some());
        renamed
    })
}

/// The names each definition mentions (by the definition's index), and those mentioned by
/// module-level code that runs (`None`).
fn mentions(
    lang: Lang,
    tree: &Tree,
    src: &str,
    units: &[Unit],
    statements: &[Statement],
) -> Vec<(Option<usize>, BTreeSet<String>)> {
    let spec = lang.spec();
    let mut by_unit: Vec<BTreeSet<String>> = vec![BTreeSet::new(); units.len()];
    let mut module: BTreeSet<String> = BTreeSet::new();
    let mut cursor = tree.walk();
    'nodes: loop {
        let node = cursor.node();
        if node.child_count() == 0 && spec.role(node.kind_id()) == Role::Ident {
            let at = node.start_byte();
            let owner = units
                .iter()
                .enumerate()
                .filter(|(_, u)| u.bytes.contains(&at))
                .min_by_key(|(_, u)| u.bytes.len())
                .map(|(i, _)| i);
            let name = text(src, node).to_owned();
            match owner {
                Some(i) => {
                    by_unit[i].insert(name);
                }
                None => {
                    let runs = statements
                        .iter()
                        .any(|s| s.bytes.contains(&at) && !s.names_only);
                    if runs {
                        module.insert(name);
                    }
                }
            }
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'nodes;
            }
            if !cursor.goto_parent() {
                break 'nodes;
            }
        }
    }
    let mut out: Vec<(Option<usize>, BTreeSet<String>)> = by_unit
        .into_iter()
        .enumerate()
        .map(|(i, names)| (Some(i), names))
        .collect();
    out.push((None, module));
    out
}

/// How a file uses a set of names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// It names none of them.
    Not,
    /// It names them only where it imports and exports them under the same names (a
    /// package's `__init__`, an `index.js`, `pub use`): what runs them names them again.
    Relays,
    /// It names one in code, under another name, or in a way pith cannot read.
    Uses,
}

/// How `text`, the content of `path`, uses `names` (see [`Use`]).
pub fn use_of(path: &str, text: &str, names: &BTreeSet<String>) -> Use {
    if !mentions_any(text, names) {
        return Use::Not;
    }
    let Some(lang) = Lang::of_path(path) else {
        return Use::Uses;
    };
    if text.len() > LARGEST {
        return Use::Uses;
    }
    let Some(mut parser) = lang.parser() else {
        return Use::Uses;
    };
    let Some(tree) = parser
        .parse(text, None)
        .filter(|t| !t.root_node().has_error())
    else {
        return Use::Uses;
    };
    let relays: Vec<Range<usize>> = module_statements(lang, &tree, text)
        .into_iter()
        .filter(|s| s.names_only)
        .map(|s| s.bytes)
        .collect();
    let spec = lang.spec();
    let mut cursor = tree.walk();
    'nodes: loop {
        let node = cursor.node();
        if node.child_count() == 0 {
            let leaf = text.get(node.byte_range()).unwrap_or("");
            let named = if spec.role(node.kind_id()) == Role::Ident {
                names.contains(leaf)
            } else {
                // A name in a string may be looked up by it (`getattr`); one in a comment
                // runs nothing.
                !node.kind().contains("comment") && words_name(leaf, names)
            };
            if named {
                let at = node.start_byte();
                match relays.iter().find(|r| r.contains(&at)) {
                    // Imported or exported under another name: the new name is unknown here.
                    Some(r) if !renames(lang, text.get(r.clone()).unwrap_or("")) => {}
                    _ => return Use::Uses,
                }
            }
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'nodes;
            }
            if !cursor.goto_parent() {
                break 'nodes;
            }
        }
    }
    Use::Relays
}

/// Whether an import or export statement binds something under another name (`as`, and in
/// JavaScript an object's `key: value`).
fn renames(lang: Lang, statement: &str) -> bool {
    let js = matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx);
    statement.contains(" as ") || (js && statement.contains(':'))
}

/// Files larger than this are read as using every name they mention.
const LARGEST: usize = 512 << 10;

fn words_name(text: &str, names: &BTreeSet<String>) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .any(|w| !w.is_empty() && names.contains(w))
}

/// Whether `text` (a file's content) may use one of `names`: it mentions one as a word, or
/// imports everything of a module at once (`import *`, `export *`, `::*`, `.*;`), whose
/// names it then uses unwritten. Words in comments and strings count: better one test too many.
pub fn mentions_any(text: &str, names: &BTreeSet<String>) -> bool {
    if text.contains("import *")
        || text.contains("export *")
        || text.contains("::*")
        || text.contains(".*;")
        || text.contains("import .")
    {
        return true;
    }
    words_name(text, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(path: &str, old: &str, new: &str, hunks: &[(u32, u32)]) -> (Vec<String>, bool) {
        let t = touched_names(path, old, new, hunks).expect("parses");
        (t.names.into_iter().collect(), t.whole)
    }

    fn v(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_owned()).collect()
    }

    const MONEY: &str = "\"\"\"Money.\"\"\"\n\nfrom decimal import Decimal\n\nRATE = 100\n\n\ndef cents(amount):\n    return round(amount * RATE)\n\n\ndef total(prices):\n    return sum(cents(p) for p in prices)\n\n\ndef fmt(c):\n    return f\"{c // 100}\"\n";

    #[test]
    fn a_changed_function_touches_it_and_what_in_its_file_calls_it() {
        let new = MONEY.replace("round(amount * RATE)", "round(amount * RATE + 1)");
        assert_eq!(
            names("m.py", MONEY, &new, &[(9, 9)]),
            (v(&["cents", "total"]), false)
        );
        // A constant: every definition that reads it.
        let new = MONEY.replace("RATE = 100", "RATE = 1000");
        assert_eq!(
            names("m.py", MONEY, &new, &[(5, 5)]),
            (v(&["RATE", "cents", "total"]), false)
        );
        // Comments, blank lines and the module's docstring touch nothing.
        let new = MONEY.replace("\"\"\"Money.\"\"\"", "\"\"\"Money, in cents.\"\"\"");
        assert_eq!(names("m.py", MONEY, &new, &[(1, 1)]), (v(&[]), false));
    }

    #[test]
    fn code_that_runs_on_load_touches_the_whole_file() {
        let new = MONEY.replace("RATE = 100\n", "RATE = 100\nprint(cents(1))\n");
        assert!(names("m.py", MONEY, &new, &[(6, 6)]).1);
        // An import changed: what it binds is unknown here.
        let new = MONEY.replace(
            "from decimal import Decimal",
            "from fractions import Decimal",
        );
        assert!(names("m.py", MONEY, &new, &[(3, 3)]).1);
        // Code on load that calls a touched function.
        let old = "def f():\n    return 1\n\n\nX = [f()]\n";
        let new = "def f():\n    return 2\n\n\nX = [f()]\n";
        assert_eq!(names("m.py", old, new, &[(2, 2)]), (v(&["X", "f"]), false));
        let old = "def f():\n    return 1\n\n\nprint(f())\n";
        let new = "def f():\n    return 2\n\n\nprint(f())\n";
        assert!(names("m.py", old, new, &[(2, 2)]).1);
    }

    #[test]
    fn a_deleted_function_is_touched_by_its_name() {
        let new = MONEY.replace("\n\ndef fmt(c):\n    return f\"{c // 100}\"\n", "\n");
        let (touched, whole) = names("m.py", MONEY, &new, &[(14, 14)]);
        assert!(touched.contains(&"fmt".to_owned()), "{touched:?}");
        assert!(!whole);
    }

    #[test]
    fn a_method_called_without_its_name_touches_its_type() {
        let old = "class Money:\n    def __init__(self, c):\n        self.c = c\n\n    def half(self):\n        return self.c // 2\n";
        let new = old.replace("self.c = c", "self.c = c + 1");
        assert_eq!(
            names("m.py", old, &new, &[(3, 3)]),
            (v(&["Money", "__init__"]), false)
        );
        let new = old.replace("// 2", "// 3");
        assert_eq!(names("m.py", old, &new, &[(6, 6)]), (v(&["half"]), false));
        // Rust: a trait's method through its type; an inherent one by its name.
        let old = "struct M(i64);\nimpl std::fmt::Display for M {\n    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {\n        write!(f, \"{}\", self.0)\n    }\n}\nimpl M {\n    fn half(&self) -> i64 {\n        self.0 / 2\n    }\n}\n";
        let new = old.replace("self.0)", "self.0 + 1)");
        assert_eq!(
            names("m.rs", old, &new, &[(4, 4)]),
            (v(&["M", "fmt"]), false)
        );
        let new = old.replace("/ 2", "/ 3");
        assert_eq!(names("m.rs", old, &new, &[(9, 9)]), (v(&["half"]), false));
        // Go: a method and its receiver's type (interfaces are implicit).
        let old = "package m\n\ntype M int\n\nfunc (m M) String() string {\n\treturn \"m\"\n}\n";
        let new = old.replace("\"m\"", "\"n\"");
        assert_eq!(
            names("m.go", old, &new, &[(6, 6)]),
            (v(&["M", "String"]), false)
        );
        // Java: an override through its class; a plain method by its name.
        let old = "class M {\n    @Override\n    public String toString() {\n        return \"m\";\n    }\n\n    long half(long c) {\n        return c / 2;\n    }\n}\n";
        let new = old.replace("\"m\"", "\"n\"");
        assert_eq!(
            names("M.java", old, &new, &[(4, 4)]),
            (v(&["M", "toString"]), false)
        );
        let new = old.replace("/ 2", "/ 3");
        assert_eq!(names("M.java", old, &new, &[(8, 8)]), (v(&["half"]), false));
    }

    #[test]
    fn exports_name_without_running() {
        let old = "const { cents } = require(\"./money\");\n\nfunction total(p) {\n  return p.reduce((s, x) => s + cents(x), 0);\n}\n\nfunction count(p) {\n  return p.length;\n}\n\nmodule.exports = { total, count };\n";
        let new = old.replace("p.length", "p.length + 1");
        assert_eq!(
            names("cart.js", old, &new, &[(8, 8)]),
            (v(&["count"]), false)
        );
        let new = old.replace("{ total, count }", "{ count, total }");
        assert!(
            names("cart.js", old, &new, &[(11, 11)]).1,
            "a changed export is the file's"
        );
    }

    #[test]
    fn a_helper_of_an_exported_function_expression_touches_the_whole_file() {
        // mime-types' `mimeScore.js`: what an importer calls the export, this file cannot say.
        let old = "var SOURCE_SCORES = {\n  nginx: 10,\n  apache: 20\n}\n\nmodule.exports = function mimeScore (type, source) {\n  return SOURCE_SCORES[source] || 0\n}\n";
        let new = old.replace("apache: 20", "apache: 50");
        assert!(names("mimeScore.js", old, &new, &[(3, 3)]).1);
        for export in [
            "export default function (source) {\n  return SOURCE_SCORES[source]\n}\n",
            "exports.score = (source) => SOURCE_SCORES[source]\n",
            "export default { score: (s) => SOURCE_SCORES[s] }\n",
        ] {
            let old = format!("const SOURCE_SCORES = {{ apache: 20 }}\n\n{export}");
            let new = old.replace("apache: 20", "apache: 50");
            assert!(names("score.js", &old, &new, &[(1, 1)]).1, "{export}");
        }
        // Exports that only name things still relay.
        let old = "const SOURCE_SCORES = { apache: 20 }\n\nfunction score(s) {\n  return 1\n}\n\nmodule.exports = { score, SOURCE_SCORES: SOURCE_SCORES }\nexports.x = require(\"./x\")\n";
        let new = old.replace("apache: 20", "apache: 50");
        assert_eq!(
            names("score.js", old, &new, &[(1, 1)]),
            (v(&["SOURCE_SCORES"]), false)
        );
        let esm = "const tally = 1\nconst other = 2\n\nexport { tally as count, other }\n";
        let new = esm.replace("tally = 1", "tally = 2");
        assert!(
            names("score.mjs", esm, &new, &[(1, 1)]).1,
            "renamed on export"
        );
        let plain = esm.replace("tally as count", "tally");
        let new = plain.replace("tally = 1", "tally = 2");
        assert_eq!(
            names("score.mjs", &plain, &new, &[(1, 1)]),
            (v(&["tally"]), false)
        );
        // Exported under another name: an importer's name for it is not this one.
        let renamed = old.replace("SOURCE_SCORES: SOURCE_SCORES", "SCORES: SOURCE_SCORES");
        let new = renamed.replace("apache: 20", "apache: 50");
        assert!(names("score.js", &renamed, &new, &[(1, 1)]).1);
    }

    #[test]
    fn what_does_not_parse_cleanly_or_has_no_grammar_is_left_whole() {
        assert_eq!(touched_names("m.py", MONEY, "def f(:\n", &[(1, 1)]), None);
        assert_eq!(touched_names("m.py", "def f(:\n", MONEY, &[(1, 1)]), None);
        assert_eq!(touched_names("m.c", "", "int x;\n", &[(1, 1)]), None);
    }

    #[test]
    fn a_file_mentions_a_name_as_a_word_or_through_a_wildcard() {
        let names: BTreeSet<String> = ["cents".to_owned()].into();
        assert!(mentions_any("from shop.money import cents\n", &names));
        assert!(mentions_any("x = money.cents(1)\n", &names));
        assert!(!mentions_any("x = money.centsless(1)\n", &names));
        assert!(mentions_any("from shop.money import *\n", &names));
        assert!(!mentions_any("from shop.money import fmt\n", &names));
    }

    #[test]
    fn a_file_that_only_passes_a_name_on_relays_it() {
        let names: BTreeSet<String> = ["cents".to_owned()].into();
        let relay = "from .money import cents, fmt\n\n__all__ = [\"cents\", \"fmt\"]\n";
        assert_eq!(use_of("pkg/__init__.py", relay, &names), Use::Relays);
        assert_eq!(
            use_of("pkg/__init__.py", "from .money import *\n", &names),
            Use::Relays
        );
        assert_eq!(use_of("pkg/a.py", "import os\n", &names), Use::Not);
        // Under another name, called, looked up by a string: used.
        let renamed = "from .money import cents as c\n";
        assert_eq!(use_of("pkg/__init__.py", renamed, &names), Use::Uses);
        let called = "from .money import cents\n\nX = cents(1)\n";
        assert_eq!(use_of("pkg/a.py", called, &names), Use::Uses);
        let looked_up = "import money\n\nf = getattr(money, \"cents\")\n";
        assert_eq!(use_of("pkg/a.py", looked_up, &names), Use::Uses);
        let commented = "from .money import fmt  # not cents\n";
        assert_ne!(use_of("pkg/a.py", commented, &names), Use::Uses);
        let js = "const { cents, fmt } = require(\"./money\");\nmodule.exports = { cents, fmt };\n";
        assert_eq!(
            use_of("index.js", js, &names),
            Use::Uses,
            "a destructuring require runs"
        );
        let reexport = "export { cents, fmt } from \"./money\";\n";
        assert_eq!(use_of("index.js", reexport, &names), Use::Relays);
        let rust = "pub use crate::money::{cents, fmt};\n";
        assert_eq!(use_of("src/lib.rs", rust, &names), Use::Relays);
    }
}
