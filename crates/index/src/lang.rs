//! The seven languages the index parses: which of the model's languages each is (which files
//! are whose is the model's language table), their tree-sitter grammars, and per-grammar
//! tables resolved once from node-kind names to ids, so the tree walk classifies a node with
//! one array lookup instead of string compares.

use std::sync::OnceLock;

use pith_model::lang::{self, Language};
use tree_sitter::Parser;

/// A language the index understands: one of the model's [`Language`]s, but for TypeScript,
/// which is one language with two grammars (its JSX files', TSX, apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Lang {
    Rust,
    Python,
    Go,
    JavaScript,
    TypeScript,
    Tsx,
    Java,
    CSharp,
}

pub(crate) const ALL: [Lang; 8] = [
    Lang::Rust,
    Lang::Python,
    Lang::Go,
    Lang::JavaScript,
    Lang::TypeScript,
    Lang::Tsx,
    Lang::Java,
    Lang::CSharp,
];

impl Lang {
    /// The language of a file, told from its extension by the model's language table; the
    /// languages the index has no grammar of are none.
    pub(crate) fn of_path(path: &str) -> Option<Lang> {
        Some(match lang::of_path(path)?.id {
            Language::Rust => Lang::Rust,
            Language::Python => Lang::Python,
            Language::Go => Lang::Go,
            Language::JavaScript => Lang::JavaScript,
            Language::TypeScript if lang::is_jsx(path) => Lang::Tsx,
            Language::TypeScript => Lang::TypeScript,
            Language::Java => Lang::Java,
            Language::CSharp => Lang::CSharp,
            Language::C
            | Language::Cpp
            | Language::Kotlin
            | Language::Scala
            | Language::Swift
            | Language::Dart
            | Language::Ruby
            | Language::Shell
            | Language::Perl
            | Language::R => return None,
        })
    }

    pub(crate) fn code(self) -> u8 {
        ALL.iter().position(|l| *l == self).unwrap_or(0) as u8 + 1
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
        }
    }

    /// How the language writes a qualified name (`Type::method`, `module.func`).
    pub(crate) fn separator(self) -> &'static str {
        match self {
            Lang::Rust => "::",
            _ => ".",
        }
    }

    /// Whether a file is a module named by its path (Python, Rust, JavaScript, TypeScript);
    /// Go, Java and C# name theirs in the source (`package`, `namespace`).
    pub(crate) fn module_from_path(self) -> bool {
        !matches!(self, Lang::Go | Lang::Java | Lang::CSharp)
    }

    /// A parser for this language, or `None` when the grammar's ABI does not match the
    /// tree-sitter library (a build problem, reported as unparseable files, never a panic).
    pub(crate) fn parser(self) -> Option<Parser> {
        let mut parser = Parser::new();
        parser.set_language(&self.spec().language).ok()?;
        Some(parser)
    }

    pub(crate) fn spec(self) -> &'static Spec {
        static SPECS: OnceLock<Vec<Spec>> = OnceLock::new();
        let specs = SPECS.get_or_init(|| ALL.iter().map(|l| Spec::new(*l)).collect());
        &specs[usize::from(self.code() - 1)]
    }
}

/// What a node kind means to the tree walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Other,
    /// A name: a reference unless it is the name of a definition or an import alias.
    Ident,
    /// `self`, `this`: stands for the enclosing type when it qualifies a member.
    SelfKw,
    /// A node the language rules look at by kind name: definitions, scopes, imports, packages.
    Special,
}

/// A member access: a node of kind `parent` whose `name` field is qualified by its `object`
/// field (`Type::name`, `obj.name`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct QualRule {
    pub(crate) name: std::num::NonZeroU16,
    pub(crate) object: std::num::NonZeroU16,
}

pub(crate) struct Spec {
    pub(crate) language: tree_sitter::Language,
    roles: Vec<Role>,
    /// By kind id: the member-access rule of that kind, if any.
    quals: Vec<Option<QualRule>>,
}

impl Spec {
    fn new(lang: Lang) -> Spec {
        let language = lang.grammar();
        let count = language.node_kind_count();
        let mut roles = vec![Role::Other; count];
        let mut quals = vec![None; count];
        let Tables {
            idents,
            selves,
            special,
            quals: rules,
        } = tables(lang);
        for id in 0..count {
            let id16 = id as u16;
            let Some(name) = language.node_kind_for_id(id16) else {
                continue;
            };
            let named = language.node_kind_is_named(id16);
            if named && idents.contains(&name) {
                roles[id] = Role::Ident;
            } else if selves.contains(&name) {
                roles[id] = Role::SelfKw;
            } else if named && special.contains(&name) {
                roles[id] = Role::Special;
            }
            if named {
                if let Some((_, n, o)) = rules.iter().find(|(k, _, _)| *k == name) {
                    if let (Some(name), Some(object)) =
                        (language.field_id_for_name(n), language.field_id_for_name(o))
                    {
                        quals[id] = Some(QualRule { name, object });
                    }
                }
            }
        }
        Spec {
            language,
            roles,
            quals,
        }
    }

    pub(crate) fn role(&self, kind_id: u16) -> Role {
        self.roles
            .get(usize::from(kind_id))
            .copied()
            .unwrap_or(Role::Other)
    }

    pub(crate) fn qual_rule(&self, kind_id: u16) -> Option<QualRule> {
        self.quals.get(usize::from(kind_id)).copied().flatten()
    }
}

/// What one language's grammar calls its names, `self`, the definitions the rules look at and
/// its member accesses.
struct Tables {
    /// Kinds that are names.
    idents: &'static [&'static str],
    /// Kinds that stand for the enclosing type.
    selves: &'static [&'static str],
    /// Kinds the language rules in `extract` handle.
    special: &'static [&'static str],
    /// Member-access rules: (node kind, name field, object field).
    quals: &'static [(&'static str, &'static str, &'static str)],
}

fn tables(lang: Lang) -> &'static Tables {
    match lang {
        Lang::Rust => &RUST,
        Lang::Python => &PYTHON,
        Lang::Go => &GO,
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => &JS,
        Lang::Java => &JAVA,
        Lang::CSharp => &CSHARP,
    }
}

const RUST: Tables = Tables {
    idents: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "shorthand_field_identifier",
    ],
    selves: &["self"],
    special: &[
        "function_item",
        "function_signature_item",
        "struct_item",
        "union_item",
        "enum_item",
        "enum_variant",
        "trait_item",
        "impl_item",
        "mod_item",
        "field_declaration",
        "type_item",
        "associated_type",
        "const_item",
        "static_item",
        "macro_definition",
        "use_as_clause",
    ],
    quals: &[
        ("scoped_identifier", "name", "path"),
        ("scoped_type_identifier", "name", "path"),
        ("field_expression", "field", "value"),
    ],
};

const PYTHON: Tables = Tables {
    idents: &["identifier"],
    selves: &[],
    special: &[
        "function_definition",
        "class_definition",
        "assignment",
        "aliased_import",
    ],
    quals: &[("attribute", "attribute", "object")],
};

const GO: Tables = Tables {
    idents: &[
        "identifier",
        "type_identifier",
        "field_identifier",
        "package_identifier",
    ],
    selves: &[],
    special: &[
        "function_declaration",
        "method_declaration",
        "type_spec",
        "type_alias",
        "field_declaration",
        "method_elem",
        "method_spec",
        "const_spec",
        "var_spec",
        "package_clause",
        "import_spec",
    ],
    quals: &[
        ("selector_expression", "field", "operand"),
        ("qualified_type", "name", "package"),
    ],
};

/// JavaScript, TypeScript and TSX share their node kinds.
const JS: Tables = Tables {
    idents: &[
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "private_property_identifier",
        "type_identifier",
        "statement_identifier",
    ],
    selves: &["this"],
    special: &[
        "function_declaration",
        "generator_function_declaration",
        "function_signature",
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "field_definition",
        "public_field_definition",
        "property_signature",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "enum_body",
        "enum_assignment",
        "internal_module",
        "module",
        "variable_declarator",
        "import_specifier",
    ],
    quals: &[
        ("member_expression", "property", "object"),
        ("nested_type_identifier", "name", "module"),
    ],
};

const JAVA: Tables = Tables {
    idents: &["identifier", "type_identifier"],
    selves: &["this"],
    special: &[
        "class_declaration",
        "record_declaration",
        "enum_declaration",
        "interface_declaration",
        "annotation_type_declaration",
        "method_declaration",
        "constructor_declaration",
        "compact_constructor_declaration",
        "field_declaration",
        "constant_declaration",
        "enum_constant",
        "package_declaration",
    ],
    quals: &[
        ("method_invocation", "name", "object"),
        ("field_access", "field", "object"),
        ("scoped_identifier", "name", "scope"),
        ("scoped_type_identifier", "name", "scope"),
    ],
};

const CSHARP: Tables = Tables {
    idents: &["identifier"],
    selves: &["this"],
    special: &[
        "class_declaration",
        "record_declaration",
        "record_struct_declaration",
        "struct_declaration",
        "interface_declaration",
        "enum_declaration",
        "method_declaration",
        "local_function_statement",
        "constructor_declaration",
        "property_declaration",
        "field_declaration",
        "enum_member_declaration",
        "delegate_declaration",
        "namespace_declaration",
        "file_scoped_namespace_declaration",
        "using_directive",
    ],
    quals: &[
        ("member_access_expression", "name", "expression"),
        ("qualified_name", "name", "qualifier"),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_loads_into_this_tree_sitter() {
        for lang in ALL {
            assert!(lang.parser().is_some(), "{lang:?}: grammar ABI mismatch");
            assert!(
                lang.spec().roles.contains(&Role::Ident),
                "{lang:?}: no identifier kind resolved"
            );
        }
    }

    #[test]
    fn extensions() {
        assert_eq!(Lang::of_path("a/b.tsx"), Some(Lang::Tsx));
        assert_eq!(Lang::of_path("a/b.pyi"), Some(Lang::Python));
        assert_eq!(Lang::of_path("Makefile"), None);
        assert_eq!(Lang::of_path("a.b/c"), None);
        // The match the index had before the model's table: the same language for each
        // extension it named, and none for any other the table knows.
        let before = [
            ("rs", Lang::Rust),
            ("py", Lang::Python),
            ("pyi", Lang::Python),
            ("go", Lang::Go),
            ("js", Lang::JavaScript),
            ("mjs", Lang::JavaScript),
            ("cjs", Lang::JavaScript),
            ("jsx", Lang::JavaScript),
            ("ts", Lang::TypeScript),
            ("mts", Lang::TypeScript),
            ("cts", Lang::TypeScript),
            ("tsx", Lang::Tsx),
            ("java", Lang::Java),
            ("cs", Lang::CSharp),
        ];
        for l in lang::LANGUAGES {
            for x in l.extensions {
                let was = before.iter().find(|(e, _)| e == x).map(|(_, was)| *was);
                assert_eq!(Lang::of_path(&format!("src/a.{x}")), was, "{x}");
            }
        }
        for (x, _) in before {
            assert!(lang::of_path(&format!("a.{x}")).is_some(), "{x}");
        }
        let codes: std::collections::HashSet<u8> = ALL.iter().map(|l| l.code()).collect();
        assert_eq!(codes.len(), ALL.len());
        assert!(!codes.contains(&0), "0 marks a file that is not indexed");
    }
}
