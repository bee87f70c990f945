//! One file's symbols from its syntax tree: definitions (name, kind, line, container chain) and
//! references (name, line, the syntactic qualifier where there is one). One generic walk over
//! the tree; what is language-specific is the tables in `lang` and the rules in `special`.
//! A tree with parse errors is walked like any other: whatever parsed is indexed.

mod special;

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
}

/// `a::b::c`, `a.b.c`, `"a/b/c"` → `c`.
pub(crate) fn last_segment(s: &str) -> &str {
    let s = s.trim_matches(|c| c == '"' || c == '\'');
    s.rsplit([':', '.', '/']).next().unwrap_or(s).trim()
}
