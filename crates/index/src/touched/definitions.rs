//! What a syntax node defines, language by language: the names a change inside it touches
//! (a function, a method, a constant, a field) and the type whose other members an implicit
//! call of it goes through (a constructor, a dunder, a trait method, a Go method).

use tree_sitter::Node;

use super::text;
use crate::lang::Lang;

pub(super) enum Def {
    /// A type whose members are definitions of their own.
    Type(String),
    /// A function, method, constant or field: its names, and the type a call of it may name
    /// in its place.
    Member(Vec<String>, Option<String>),
}

/// Wrappers a definition may sit in: decorators, exports, bodies of types and namespaces.
pub(super) fn descends(lang: Lang, node: Node) -> bool {
    let k = node.kind();
    matches!(
        k,
        "decorated_definition"
            | "export_statement"
            | "class_body"
            | "block"
            | "declaration_list"
            | "field_declaration_list"
            | "enum_body"
            | "interface_body"
            | "enum_variant_list"
            | "namespace_declaration"
            | "file_scoped_namespace_declaration"
            | "module"
            | "mod_item"
    ) || (lang == Lang::Python && k == "if_statement")
}

fn name_field(node: Node, src: &str) -> Option<String> {
    let n = node.child_by_field_name("name")?;
    Some(text(src, n).to_owned())
}

/// The first identifier in a type's text: `Money` of `Money<T>`, `&Money`, `*Money`.
fn type_name(s: &str) -> Option<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .map(str::to_owned)
}

pub(super) fn definition(
    lang: Lang,
    node: Node,
    src: &str,
    container: Option<&str>,
) -> Option<Def> {
    match lang {
        Lang::Python => python(node, src, container),
        Lang::Rust => rust(node, src, container),
        Lang::Go => go(node, src, container),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => javascript(node, src, container),
        Lang::Java | Lang::CSharp => jvm(node, src, container),
    }
}

/// A member definition of `names`; `implicit`: a call of it may name `container` instead.
fn member(names: Vec<String>, implicit: bool, container: Option<&str>) -> Option<Def> {
    let implicit = implicit.then(|| container.map(str::to_owned)).flatten();
    (!names.is_empty()).then_some(Def::Member(names, implicit))
}

fn python(node: Node, src: &str, container: Option<&str>) -> Option<Def> {
    match node.kind() {
        "class_definition" => name_field(node, src).map(Def::Type),
        "function_definition" => {
            let name = name_field(node, src)?;
            let dunder = name.starts_with("__") && name.ends_with("__");
            member(vec![name], dunder, container)
        }
        "decorated_definition" => {
            let inner = node.child_by_field_name("definition")?;
            // The decorators' lines are the definition's.
            definition(Lang::Python, inner, src, container)
        }
        "expression_statement" => {
            let a = node.named_child(0).filter(|a| a.kind() == "assignment")?;
            let left = a.child_by_field_name("left")?;
            // `__all__` lists what the module exports: it names, it does not define.
            let names: Vec<String> = if left.kind() == "identifier" && text(src, left) != "__all__"
            {
                vec![text(src, left).to_owned()]
            } else {
                return None;
            };
            member(names, false, container)
        }
        _ => None,
    }
}

fn rust(node: Node, src: &str, container: Option<&str>) -> Option<Def> {
    match node.kind() {
        "struct_item" | "enum_item" | "union_item" | "trait_item" => {
            name_field(node, src).map(Def::Type)
        }
        "impl_item" => {
            let ty = node.child_by_field_name("type")?;
            let name = type_name(text(src, ty))?;
            // A trait's methods are called through the trait (operators, `Display`,
            // `Drop`, `Iterator`): its type is what callers name.
            Some(Def::Type(name))
        }
        "function_item" | "function_signature_item" => {
            let implicit = node.parent().and_then(|p| p.parent()).is_some_and(|imp| {
                imp.kind() == "impl_item" && imp.child_by_field_name("trait").is_some()
            });
            member(vec![name_field(node, src)?], implicit, container)
        }
        "const_item" | "static_item" | "type_item" | "macro_definition" => {
            member(vec![name_field(node, src)?], false, container)
        }
        "mod_item" if node.child_by_field_name("body").is_none() => None,
        _ => None,
    }
}

fn go(node: Node, src: &str, container: Option<&str>) -> Option<Def> {
    match node.kind() {
        "function_declaration" => member(vec![name_field(node, src)?], false, container),
        "method_declaration" => {
            // Go's interfaces are implicit: a method may be called through one (`String`,
            // `Error`, `Read`) where only its type's value is passed.
            let receiver = node.child_by_field_name("receiver")?;
            let ty = receiver
                .named_child(0)
                .and_then(|p| p.child_by_field_name("type"))
                .and_then(|t| type_name(text(src, t)))?;
            Some(Def::Member(vec![name_field(node, src)?], Some(ty)))
        }
        "type_declaration" | "const_declaration" | "var_declaration" => {
            let mut names = Vec::new();
            let mut cursor = node.walk();
            for spec in node.named_children(&mut cursor) {
                let mut c2 = spec.walk();
                for n in spec.children_by_field_name("name", &mut c2) {
                    names.push(text(src, n).to_owned());
                }
            }
            member(names, false, container)
        }
        _ => None,
    }
}

fn javascript(node: Node, src: &str, container: Option<&str>) -> Option<Def> {
    match node.kind() {
        "class_declaration" | "abstract_class_declaration" | "class" => {
            name_field(node, src).map(Def::Type)
        }
        "function_declaration"
        | "generator_function_declaration"
        | "function_signature"
        | "interface_declaration"
        | "type_alias_declaration"
        | "enum_declaration" => member(vec![name_field(node, src)?], false, container),
        "method_definition"
        | "public_field_definition"
        | "field_definition"
        | "method_signature" => {
            let name = node
                .child_by_field_name("name")
                .or_else(|| node.child_by_field_name("property"))?;
            let name_text = text(src, name).to_owned();
            let implicit = name.kind() == "computed_property_name"
                || matches!(
                    name_text.as_str(),
                    "constructor" | "toString" | "valueOf" | "toJSON"
                );
            member(vec![name_text], implicit, container)
        }
        "lexical_declaration" | "variable_declaration" => {
            let mut names = Vec::new();
            let mut cursor = node.walk();
            for d in node.named_children(&mut cursor) {
                if let Some(n) = d
                    .child_by_field_name("name")
                    .filter(|n| n.kind() == "identifier")
                {
                    names.push(text(src, n).to_owned());
                } else {
                    return None;
                }
            }
            member(names, false, container)
        }
        _ => None,
    }
}

fn jvm(node: Node, src: &str, container: Option<&str>) -> Option<Def> {
    match node.kind() {
        "class_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration"
        | "struct_declaration"
        | "annotation_type_declaration"
        | "record_struct_declaration" => name_field(node, src).map(Def::Type),
        "method_declaration" | "property_declaration" | "event_declaration" => {
            // An override is called through the type it overrides (`equals`, `compareTo`,
            // `ToString`), which callers need not name.
            let head = text(src, node);
            let head = head.split('(').next().unwrap_or(head);
            let implicit = head.contains("@Override") || head.contains("override ");
            member(vec![name_field(node, src)?], implicit, container)
        }
        "constructor_declaration" | "static_initializer" | "compact_constructor_declaration" => {
            member(vec![container?.to_owned()], false, container)
        }
        "field_declaration" => {
            let mut names = Vec::new();
            collect_declarators(node, src, &mut names);
            // A field's initialiser runs when its type is made.
            names.extend(container.map(str::to_owned));
            member(names, false, container)
        }
        _ => None,
    }
}

fn collect_declarators(node: Node, src: &str, out: &mut Vec<String>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "variable_declarator" {
            if let Some(n) = child
                .child_by_field_name("name")
                .or_else(|| child.named_child(0))
            {
                out.push(text(src, n).to_owned());
            }
        } else if child.kind() == "variable_declaration" {
            collect_declarators(child, src, out);
        }
    }
}
