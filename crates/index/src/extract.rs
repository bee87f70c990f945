//! One file's symbols from its syntax tree: definitions (name, kind, line, container chain) and
//! references (name, line, the syntactic qualifier where there is one). One generic walk over
//! the tree; what is language-specific is the tables in `lang` and the rules in `special`.
//! A tree with parse errors is walked like any other: whatever parsed is indexed.

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use crate::fx::FxHashMap as HashMap;

use tree_sitter::{Node, Tree};

use crate::lang::{Lang, Role};
use crate::Kind;

/// Marks "no string" in the local tables.
pub(crate) const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RawDef {
    pub(crate) line: u32,
    pub(crate) name: u32,
    pub(crate) kind: Kind,
    /// The full container chain (`config::Config`), for matching qualified queries.
    pub(crate) chain: u32,
    /// Where in `chain` the part an answer shows starts (`Config`).
    pub(crate) shown: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RawRef {
    pub(crate) name: u32,
    pub(crate) line: u32,
    pub(crate) qual: u32,
}

/// What one file contributes to the index; strings are indices into `strings`.
#[derive(Debug, Default)]
pub(crate) struct FileSymbols {
    pub(crate) strings: Vec<String>,
    pub(crate) defs: Vec<RawDef>,
    pub(crate) refs: Vec<RawRef>,
    pub(crate) lines: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Module,
    Type,
    Function,
}

struct Scope {
    /// The node whose subtree this scope covers; `usize::MAX` for the whole file.
    node: usize,
    name: String,
    kind: ScopeKind,
    /// Go: the receiver variable, which stands for the type inside the method.
    receiver: Option<String>,
}

/// Path-derived module name: the file stem, or the directory for `mod.rs`, `__init__.py` and
/// `index.*`; none for a crate root (`lib.rs`, `main.rs`).
pub(crate) fn path_module(path: &str) -> Option<&str> {
    let mut parts = path.rsplit('/');
    let file = parts.next()?;
    let stem = file.split('.').next().unwrap_or(file);
    match stem {
        "lib" | "main" if file.ends_with(".rs") => None,
        "mod" | "__init__" | "index" => parts.next().filter(|d| !d.is_empty() && *d != "src"),
        "" => None,
        s => Some(s),
    }
}

pub(crate) fn extract(lang: Lang, path: &str, tree: &Tree, src: &[u8]) -> FileSymbols {
    let mut w = Walker {
        lang,
        spec: lang.spec(),
        src,
        strings: HashMap::default(),
        out: FileSymbols::default(),
        scopes: Vec::new(),
        skip: HashSet::default(),
        aliases: HashMap::default(),
    };
    if lang.module_from_path() {
        if let Some(m) = path_module(path) {
            w.push(usize::MAX, m.to_owned(), ScopeKind::Module, None);
        }
    }
    w.walk(tree.root_node());
    let mut out = w.out;
    out.lines = u32::try_from(src.iter().filter(|b| **b == b'\n').count())
        .unwrap_or(u32::MAX)
        .saturating_add(u32::from(!src.is_empty() && !src.ends_with(b"\n")));
    out.defs.sort_unstable();
    out.defs.dedup();
    out.refs.sort_unstable_by_key(|r| (r.line, r.name, r.qual));
    out.refs.dedup();
    out
}

struct Walker<'a> {
    lang: Lang,
    spec: &'static crate::lang::Spec,
    src: &'a [u8],
    strings: HashMap<String, u32>,
    out: FileSymbols,
    scopes: Vec<Scope>,
    /// Nodes that are not references (definition names, alias bindings), or whose subtree is
    /// not walked (package clauses); each is removed when the walk reaches it.
    skip: HashSet<usize, BuildHasherDefault<crate::fx::FxHasher>>,
    /// Import aliases of this file: alias → the name it imports.
    aliases: HashMap<String, String>,
}

impl<'a> Walker<'a> {
    fn walk(&mut self, root: Node<'a>) {
        let mut cursor = root.walk();
        // Ancestors of the cursor's node, for the parent of an identifier (tree-sitter's own
        // `parent()` walks down from the root each time).
        let mut stack: Vec<Node<'a>> = Vec::new();
        loop {
            let node = cursor.node();
            let descend = self.enter(node, stack.last().copied(), cursor.field_id());
            if descend && cursor.goto_first_child() {
                stack.push(node);
                continue;
            }
            loop {
                self.leave(cursor.node());
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                stack.pop();
            }
        }
    }

    /// Handles a node on the way down; returns whether to walk its children.
    fn enter(
        &mut self,
        node: Node<'a>,
        parent: Option<Node<'a>>,
        field: Option<std::num::NonZeroU16>,
    ) -> bool {
        let role = self.spec.role(node.kind_id());
        if role == Role::Other {
            return true;
        }
        if !self.skip.is_empty() && self.skip.remove(&node.id()) {
            return role != Role::Special;
        }
        match role {
            Role::Ident => {
                self.reference(node, parent, field);
                true
            }
            Role::Special => self.special(node, parent),
            _ => true,
        }
    }

    fn leave(&mut self, node: Node<'a>) {
        let id = node.id();
        while self.scopes.last().is_some_and(|s| s.node == id) {
            self.scopes.pop();
        }
    }

    fn text(&self, node: Node) -> Option<Cow<'a, str>> {
        let src: &'a [u8] = self.src;
        let bytes = src.get(node.byte_range())?;
        if bytes.is_empty() {
            return None;
        }
        Some(String::from_utf8_lossy(bytes))
    }

    fn owned_text(&self, node: Node) -> Option<String> {
        self.text(node).map(Cow::into_owned)
    }

    fn intern(&mut self, s: &str) -> u32 {
        if let Some(id) = self.strings.get(s) {
            return *id;
        }
        let id = self.out.strings.len() as u32;
        self.out.strings.push(s.to_owned());
        self.strings.insert(s.to_owned(), id);
        id
    }

    fn push(&mut self, node: usize, name: String, kind: ScopeKind, receiver: Option<String>) {
        self.scopes.push(Scope {
            node,
            name,
            kind,
            receiver,
        });
    }

    fn in_type(&self) -> bool {
        self.scopes
            .last()
            .is_some_and(|s| s.kind == ScopeKind::Type)
    }

    fn in_function(&self) -> bool {
        self.scopes.iter().any(|s| s.kind == ScopeKind::Function)
    }

    fn innermost_type(&self) -> Option<&Scope> {
        self.scopes.iter().rev().find(|s| s.kind == ScopeKind::Type)
    }

    // ---- references ----

    fn reference(
        &mut self,
        node: Node<'a>,
        parent: Option<Node<'a>>,
        field: Option<std::num::NonZeroU16>,
    ) {
        let Some(name) = self.text(node) else {
            return;
        };
        let qual = parent.and_then(|p| {
            let rule = self.spec.qual_rule(p.kind_id())?;
            (field == Some(rule.name))
                .then(|| p.child_by_field_id(rule.object.get()))
                .flatten()
                .and_then(|object| self.qualifier(object))
        });
        let line = node.start_position().row as u32 + 1;
        let qual_id = match &qual {
            Some(q) => self.intern(q),
            None => NONE,
        };
        let name_id = self.intern(&name);
        self.out.refs.push(RawRef {
            name: name_id,
            line,
            qual: qual_id,
        });
        if let Some(original) = self.aliases.get(name.as_ref()).cloned() {
            let name_id = self.intern(&original);
            self.out.refs.push(RawRef {
                name: name_id,
                line,
                qual: qual_id,
            });
        }
    }

    /// The qualifier an expression gives the member after it: its last name segment, with
    /// `self`/`this` (and a Go receiver) standing for the enclosing type and import aliases
    /// standing for what they import.
    fn qualifier(&self, object: Node) -> Option<Cow<'a, str>> {
        match self.spec.role(object.kind_id()) {
            Role::SelfKw => self.innermost_type().map(|s| Cow::Owned(s.name.clone())),
            Role::Ident => {
                let text = self.text(object)?;
                if let Some(t) = self.innermost_type() {
                    let is_self = match self.lang {
                        Lang::Python => text == "self" || text == "cls",
                        Lang::Rust => text == "Self",
                        Lang::Go => t.receiver.as_deref() == Some(text.as_ref()),
                        _ => false,
                    };
                    if is_self {
                        return Some(Cow::Owned(t.name.clone()));
                    }
                }
                match self.aliases.get(text.as_ref()) {
                    Some(original) => Some(Cow::Owned(original.clone())),
                    None => Some(text),
                }
            }
            _ => {
                let rule = self.spec.qual_rule(object.kind_id())?;
                let last = object.child_by_field_id(rule.name.get())?;
                (self.spec.role(last.kind_id()) == Role::Ident)
                    .then(|| self.text(last))
                    .flatten()
            }
        }
    }

    // ---- definitions ----

    /// Records a definition named by `name_node`, in the current scopes.
    fn def(&mut self, name_node: Node, kind: Kind) -> Option<String> {
        let name = self.owned_text(name_node)?;
        self.skip.insert(name_node.id());
        self.def_named(&name, name_node, kind);
        Some(name)
    }

    fn def_named(&mut self, name: &str, at: Node, kind: Kind) {
        let sep = self.lang.separator();
        let (chain, shown) = if self.scopes.is_empty() {
            (NONE, 0)
        } else {
            let last_module = self
                .scopes
                .iter()
                .rposition(|s| s.kind == ScopeKind::Module);
            let shown_from = match last_module {
                Some(m) if m + 1 == self.scopes.len() => m,
                Some(m) => m + 1,
                None => 0,
            };
            let mut chain = String::new();
            let mut shown = 0;
            for (i, s) in self.scopes.iter().enumerate() {
                if i > 0 {
                    chain.push_str(sep);
                }
                if i == shown_from {
                    shown = chain.len() as u32;
                }
                chain.push_str(&s.name);
            }
            (self.intern(&chain), shown)
        };
        let name = self.intern(name);
        self.out.defs.push(RawDef {
            line: at.start_position().row as u32 + 1,
            name,
            kind,
            chain,
            shown,
        });
    }

    fn field<'t>(&self, node: Node<'t>, name: &str) -> Option<Node<'t>> {
        node.child_by_field_name(name)
    }

    /// A definition that also opens a scope for what is nested in it.
    fn scoped_def(&mut self, node: Node, name_field: &str, kind: Kind, scope: ScopeKind) -> bool {
        if let Some(name_node) = self.field(node, name_field) {
            if let Some(name) = self.def(name_node, kind) {
                self.push(node.id(), name, scope, None);
            }
        }
        true
    }

    fn simple_def(&mut self, node: Node, name_field: &str, kind: Kind) -> bool {
        if let Some(name_node) = self.field(node, name_field) {
            self.def(name_node, kind);
        }
        true
    }

    fn function_kind(&self) -> Kind {
        if self.in_type() {
            Kind::Method
        } else {
            Kind::Function
        }
    }

    fn alias(&mut self, alias: Node, original: Option<Node>) {
        self.skip.insert(alias.id());
        let (Some(alias), Some(original)) = (
            self.owned_text(alias),
            original.and_then(|o| self.owned_text(o)),
        ) else {
            return;
        };
        let original = last_segment(&original).to_owned();
        if !original.is_empty() && original != alias {
            self.aliases.insert(alias, original);
        }
    }

    /// The language rules for `Role::Special` nodes; returns whether to walk the children.
    fn special(&mut self, node: Node<'a>, parent: Option<Node<'a>>) -> bool {
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

/// `a::b::c`, `a.b.c`, `"a/b/c"` → `c`.
pub(crate) fn last_segment(s: &str) -> &str {
    let s = s.trim_matches(|c| c == '"' || c == '\'');
    s.rsplit([':', '.', '/']).next().unwrap_or(s).trim()
}
