//! The language rules: which `Role::Special` node of each language defines what, opens which
//! scope or binds an import alias. Kept apart from the walk, which is the same for every
//! language, so a language's rules read (and change) in one place.

use tree_sitter::Node;

use super::{last_segment, ScopeKind, Walker};
use crate::lang::{Lang, Role};
use crate::Kind;

impl<'a> Walker<'a> {
    /// The language rules for `Role::Special` nodes; returns whether to walk the children.
    pub(super) fn special(&mut self, node: Node<'a>, parent: Option<Node<'a>>) -> bool {
        let kind = node.kind();
        match self.lang {
            Lang::Rust => self.rust(node, kind),
            Lang::Python => self.python(node, kind, parent),
            Lang::Go => self.go(node, kind),
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => self.js(node, kind, parent),
            Lang::Java => self.java(node, kind),
            Lang::CSharp => self.csharp(node, kind),
        }
    }

    fn rust(&mut self, node: Node, kind: &str) -> bool {
        match kind {
            "function_item" | "function_signature_item" => {
                let k = self.function_kind();
                self.scoped_def(node, "name", k, ScopeKind::Function)
            }
            "struct_item" | "union_item" => {
                self.scoped_def(node, "name", Kind::Struct, ScopeKind::Type)
            }
            "enum_item" => self.scoped_def(node, "name", Kind::Enum, ScopeKind::Type),
            "trait_item" => self.scoped_def(node, "name", Kind::Trait, ScopeKind::Type),
            "mod_item" => self.scoped_def(node, "name", Kind::Module, ScopeKind::Module),
            "impl_item" => {
                if let Some(name) = self.field(node, "type").and_then(|t| self.base_type(t)) {
                    self.push(node.id(), name, ScopeKind::Type, None);
                }
                true
            }
            "enum_variant" => self.simple_def(node, "name", Kind::Variant),
            "field_declaration" => self.simple_def(node, "name", Kind::Field),
            "type_item" | "associated_type" => self.simple_def(node, "name", Kind::Type),
            "const_item" => self.simple_def(node, "name", Kind::Const),
            "static_item" => self.simple_def(node, "name", Kind::Static),
            "macro_definition" => self.simple_def(node, "name", Kind::Macro),
            "use_as_clause" => {
                if let Some(alias) = self.field(node, "alias") {
                    let path = self.field(node, "path");
                    self.alias(alias, path);
                }
                true
            }
            _ => true,
        }
    }

    /// The type an `impl` block is for, without generics or path: `impl<T> a::Foo<T>` → `Foo`.
    fn base_type(&self, mut t: Node) -> Option<String> {
        loop {
            match t.kind() {
                "generic_type" => t = self.field(t, "type")?,
                "scoped_type_identifier" => t = self.field(t, "name")?,
                "reference_type" | "pointer_type" => {
                    t = match self.field(t, "type") {
                        Some(inner) => inner,
                        None => t.named_child(0)?,
                    }
                }
                _ => return self.owned_text(t),
            }
        }
    }

    fn python(&mut self, node: Node, kind: &str, parent: Option<Node>) -> bool {
        match kind {
            "function_definition" => {
                let k = self.function_kind();
                self.scoped_def(node, "name", k, ScopeKind::Function)
            }
            "class_definition" => self.scoped_def(node, "name", Kind::Class, ScopeKind::Type),
            "assignment" => {
                let statement = parent.is_some_and(|p| p.kind() == "expression_statement");
                if statement && !self.in_function() {
                    if let Some(left) = self
                        .field(node, "left")
                        .filter(|l| l.kind() == "identifier")
                    {
                        let k = if self.in_type() {
                            Kind::Field
                        } else {
                            Kind::Variable
                        };
                        self.def(left, k);
                    }
                }
                true
            }
            "aliased_import" => {
                if let Some(alias) = self.field(node, "alias") {
                    let name = self.field(node, "name");
                    self.alias(alias, name);
                }
                true
            }
            _ => true,
        }
    }

    fn go(&mut self, node: Node, kind: &str) -> bool {
        match kind {
            "function_declaration" => {
                self.scoped_def(node, "name", Kind::Function, ScopeKind::Function)
            }
            "method_declaration" => {
                let receiver = self.field(node, "receiver").and_then(|r| {
                    let mut c = r.walk();
                    let param = r
                        .named_children(&mut c)
                        .find(|p| p.kind() == "parameter_declaration")?;
                    let ty = self.base_type(self.field(param, "type")?)?;
                    let var = self.field(param, "name").and_then(|n| self.owned_text(n));
                    Some((ty, var))
                });
                if let Some((ty, var)) = receiver {
                    self.push(node.id(), ty, ScopeKind::Type, var);
                }
                self.scoped_def(node, "name", Kind::Method, ScopeKind::Function)
            }
            "type_spec" => {
                let k = match self.field(node, "type").map(|t| t.kind()) {
                    Some("struct_type") => Kind::Struct,
                    Some("interface_type") => Kind::Interface,
                    _ => Kind::Type,
                };
                self.scoped_def(node, "name", k, ScopeKind::Type)
            }
            "type_alias" => self.simple_def(node, "name", Kind::Type),
            "field_declaration" => self.each_name(node, Kind::Field),
            "method_elem" | "method_spec" => self.simple_def(node, "name", Kind::Method),
            "const_spec" if !self.in_function() => self.each_name(node, Kind::Const),
            "var_spec" if !self.in_function() => self.each_name(node, Kind::Variable),
            "package_clause" => {
                let mut c = node.walk();
                let name = node
                    .named_children(&mut c)
                    .find(|n| n.kind() == "package_identifier")
                    .and_then(|n| self.owned_text(n));
                if let Some(name) = name {
                    self.push(usize::MAX, name, ScopeKind::Module, None);
                }
                false
            }
            "import_spec" => {
                if let Some(alias) = self.field(node, "name") {
                    let path = self.field(node, "path");
                    self.skip.insert(alias.id());
                    let path = path.and_then(|p| self.owned_text(p));
                    let alias = self.owned_text(alias);
                    if let (Some(alias), Some(path)) = (alias, path) {
                        let pkg = path.trim_matches('"').trim_matches('`');
                        let pkg = pkg.rsplit('/').next().unwrap_or(pkg).to_owned();
                        if alias != "_" && alias != "." && !pkg.is_empty() && pkg != alias {
                            self.aliases.insert(alias, pkg);
                        }
                    }
                }
                true
            }
            _ => true,
        }
    }

    /// Every `name` child of a node is a definition (`var a, b int`, `X, Y int` fields).
    fn each_name(&mut self, node: Node, kind: Kind) -> bool {
        let mut c = node.walk();
        let names: Vec<Node> = node.children_by_field_name("name", &mut c).collect();
        for n in names {
            self.def(n, kind);
        }
        true
    }

    fn js(&mut self, node: Node, kind: &str, parent: Option<Node>) -> bool {
        match kind {
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                self.scoped_def(node, "name", Kind::Function, ScopeKind::Function)
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                self.scoped_def(node, "name", Kind::Class, ScopeKind::Type)
            }
            "method_definition" => {
                let is_ctor = self
                    .field(node, "name")
                    .and_then(|n| self.text(n))
                    .is_some_and(|n| n == "constructor");
                let k = if is_ctor {
                    Kind::Constructor
                } else {
                    Kind::Method
                };
                self.scoped_def(node, "name", k, ScopeKind::Function)
            }
            "method_signature" | "abstract_method_signature" => {
                self.simple_def(node, "name", Kind::Method)
            }
            "field_definition" => self.simple_def(node, "property", Kind::Field),
            "public_field_definition" | "property_signature" => {
                self.simple_def(node, "name", Kind::Field)
            }
            "interface_declaration" => {
                self.scoped_def(node, "name", Kind::Interface, ScopeKind::Type)
            }
            "type_alias_declaration" => self.simple_def(node, "name", Kind::Type),
            "enum_declaration" => self.scoped_def(node, "name", Kind::Enum, ScopeKind::Type),
            "enum_body" => self.each_name(node, Kind::Variant),
            "enum_assignment" => self.simple_def(node, "name", Kind::Variant),
            "internal_module" | "module" => {
                let named = self
                    .field(node, "name")
                    .filter(|n| self.spec.role(n.kind_id()) == Role::Ident);
                if let Some(name_node) = named {
                    if let Some(name) = self.def(name_node, Kind::Module) {
                        self.push(node.id(), name, ScopeKind::Module, None);
                    }
                }
                true
            }
            "variable_declarator" if !self.in_function() => self.js_variable(node, parent),
            "import_specifier" => {
                if let Some(alias) = self.field(node, "alias") {
                    let name = self.field(node, "name");
                    self.alias(alias, name);
                }
                true
            }
            _ => true,
        }
    }

    /// A top-level `const`/`let`/`var` declarator: a function when bound to one (and then a
    /// scope), a constant under `const`, a variable otherwise.
    fn js_variable(&mut self, node: Node, parent: Option<Node>) -> bool {
        let Some(name_node) = self
            .field(node, "name")
            .filter(|n| n.kind() == "identifier")
        else {
            return true;
        };
        let value = self.field(node, "value").map(|v| v.kind());
        let k = match value {
            Some("arrow_function" | "function_expression" | "function" | "generator_function") => {
                Kind::Function
            }
            _ if parent.is_some_and(|p| {
                p.kind() == "lexical_declaration" && p.child(0).is_some_and(|k| k.kind() == "const")
            }) =>
            {
                Kind::Const
            }
            _ => Kind::Variable,
        };
        if let Some(name) = self.def(name_node, k) {
            if k == Kind::Function {
                self.push(node.id(), name, ScopeKind::Function, None);
            }
        }
        true
    }

    fn java(&mut self, node: Node, kind: &str) -> bool {
        match kind {
            "class_declaration" | "record_declaration" => {
                self.scoped_def(node, "name", Kind::Class, ScopeKind::Type)
            }
            "enum_declaration" => self.scoped_def(node, "name", Kind::Enum, ScopeKind::Type),
            "interface_declaration" | "annotation_type_declaration" => {
                self.scoped_def(node, "name", Kind::Interface, ScopeKind::Type)
            }
            "method_declaration" => {
                self.scoped_def(node, "name", Kind::Method, ScopeKind::Function)
            }
            "constructor_declaration" | "compact_constructor_declaration" => {
                self.scoped_def(node, "name", Kind::Constructor, ScopeKind::Function)
            }
            "field_declaration" => self.declarators(node, Kind::Field),
            "constant_declaration" => self.declarators(node, Kind::Const),
            "enum_constant" => self.simple_def(node, "name", Kind::Variant),
            "package_declaration" => {
                let mut c = node.walk();
                let name = node
                    .named_children(&mut c)
                    .next()
                    .and_then(|n| self.owned_text(n));
                if let Some(name) = name {
                    self.push(usize::MAX, name, ScopeKind::Module, None);
                }
                false
            }
            _ => true,
        }
    }

    /// Java `int a, b;`: each declarator's name is a definition.
    fn declarators(&mut self, node: Node, kind: Kind) -> bool {
        let mut c = node.walk();
        let names: Vec<Node> = node
            .children_by_field_name("declarator", &mut c)
            .filter_map(|d| d.child_by_field_name("name"))
            .collect();
        for n in names {
            self.def(n, kind);
        }
        true
    }

    fn csharp(&mut self, node: Node, kind: &str) -> bool {
        match kind {
            "class_declaration" | "record_declaration" => {
                self.scoped_def(node, "name", Kind::Class, ScopeKind::Type)
            }
            "struct_declaration" | "record_struct_declaration" => {
                self.scoped_def(node, "name", Kind::Struct, ScopeKind::Type)
            }
            "interface_declaration" => {
                self.scoped_def(node, "name", Kind::Interface, ScopeKind::Type)
            }
            "enum_declaration" => self.scoped_def(node, "name", Kind::Enum, ScopeKind::Type),
            "method_declaration" => {
                self.scoped_def(node, "name", Kind::Method, ScopeKind::Function)
            }
            "local_function_statement" => {
                self.scoped_def(node, "name", Kind::Function, ScopeKind::Function)
            }
            "constructor_declaration" => {
                self.scoped_def(node, "name", Kind::Constructor, ScopeKind::Function)
            }
            "property_declaration" => self.simple_def(node, "name", Kind::Property),
            "field_declaration" => self.csharp_fields(node),
            "enum_member_declaration" => self.simple_def(node, "name", Kind::Variant),
            "delegate_declaration" => self.simple_def(node, "name", Kind::Type),
            "namespace_declaration" | "file_scoped_namespace_declaration" => {
                if let Some(name_node) = self.field(node, "name") {
                    if let Some(name) = self.owned_text(name_node) {
                        self.def_named(last_segment(&name), name_node, Kind::Module);
                        self.skip_subtree(name_node);
                        let scope_node = if kind == "namespace_declaration" {
                            node.id()
                        } else {
                            usize::MAX
                        };
                        self.push(scope_node, name, ScopeKind::Module, None);
                    }
                }
                true
            }
            "using_directive" => {
                if let Some(alias) = self.field(node, "name") {
                    let mut c = node.walk();
                    let target = node
                        .named_children(&mut c)
                        .filter(|n| n.id() != alias.id())
                        .last();
                    self.alias(alias, target);
                }
                true
            }
            _ => true,
        }
    }

    /// C# `int a, b;` (`const` among the modifiers makes them constants): each declarator's
    /// name is a definition.
    fn csharp_fields(&mut self, node: Node) -> bool {
        let mut c = node.walk();
        let is_const = node
            .children(&mut c)
            .any(|m| m.kind() == "modifier" && self.text(m).as_deref() == Some("const"));
        let k = if is_const { Kind::Const } else { Kind::Field };
        let mut c = node.walk();
        let decls: Vec<Node> = node
            .named_children(&mut c)
            .filter(|n| n.kind() == "variable_declaration")
            .flat_map(|v| {
                let mut c2 = v.walk();
                v.named_children(&mut c2)
                    .filter(|d| d.kind() == "variable_declarator")
                    .filter_map(|d| d.child_by_field_name("name"))
                    .collect::<Vec<_>>()
            })
            .collect();
        for n in decls {
            self.def(n, k);
        }
        true
    }

    /// Marks every name in a subtree as not a reference (a qualified namespace name).
    fn skip_subtree(&mut self, node: Node) {
        let mut c = node.walk();
        let mut todo = vec![node];
        while let Some(n) = todo.pop() {
            if self.spec.role(n.kind_id()) == Role::Ident {
                self.skip.insert(n.id());
            }
            todo.extend(n.named_children(&mut c));
        }
    }
}
