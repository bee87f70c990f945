//! What the code index finds and every answer about symbols reports: a definition's kind,
//! place and container, and a name's uses per file. Here rather than in `index` so that the
//! index (which finds them) and `wire` (which shapes them) share the types without depending
//! on each other.

/// What a definition defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Function,
    Method,
    Constructor,
    Class,
    Struct,
    Enum,
    Interface,
    Trait,
    Type,
    Module,
    Macro,
    Const,
    Static,
    Variable,
    Field,
    Property,
    Variant,
}

impl Kind {
    pub const ALL: [Kind; 17] = [
        Kind::Function,
        Kind::Method,
        Kind::Constructor,
        Kind::Class,
        Kind::Struct,
        Kind::Enum,
        Kind::Interface,
        Kind::Trait,
        Kind::Type,
        Kind::Module,
        Kind::Macro,
        Kind::Const,
        Kind::Static,
        Kind::Variable,
        Kind::Field,
        Kind::Property,
        Kind::Variant,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Constructor => "constructor",
            Kind::Class => "class",
            Kind::Struct => "struct",
            Kind::Enum => "enum",
            Kind::Interface => "interface",
            Kind::Trait => "trait",
            Kind::Type => "type",
            Kind::Module => "module",
            Kind::Macro => "macro",
            Kind::Const => "const",
            Kind::Static => "static",
            Kind::Variable => "variable",
            Kind::Field => "field",
            Kind::Property => "property",
            Kind::Variant => "variant",
        }
    }

    /// A kind from its name or a language's keyword for it (`fn`, `def`, `func`, `impl`…).
    pub fn parse(s: &str) -> Option<Kind> {
        let s = s.trim().to_ascii_lowercase();
        let alias = match s.as_str() {
            "fn" | "func" | "def" | "fun" => Some(Kind::Function),
            "ctor" | "init" => Some(Kind::Constructor),
            "namespace" | "mod" | "package" => Some(Kind::Module),
            "var" | "let" => Some(Kind::Variable),
            "record" => Some(Kind::Class),
            "union" => Some(Kind::Struct),
            "alias" | "typedef" => Some(Kind::Type),
            "member" | "enum_member" | "enumconstant" => Some(Kind::Variant),
            "prop" => Some(Kind::Property),
            _ => None,
        };
        alias.or_else(|| {
            let singular = [s.strip_suffix("es"), s.strip_suffix('s')];
            Kind::ALL
                .into_iter()
                .find(|k| k.name() == s || singular.contains(&Some(k.name())))
        })
    }

    /// Order in an answer: types first, then callables, then values, then members.
    pub fn rank(self) -> u8 {
        match self {
            Kind::Class
            | Kind::Struct
            | Kind::Enum
            | Kind::Interface
            | Kind::Trait
            | Kind::Type => 0,
            Kind::Function | Kind::Method | Kind::Constructor | Kind::Macro => 1,
            Kind::Module | Kind::Const | Kind::Static | Kind::Variable => 2,
            Kind::Field | Kind::Property | Kind::Variant => 3,
        }
    }
}

/// One definition of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub kind: Kind,
    /// Workspace-relative, `/`-separated.
    pub file: String,
    pub line: u32,
    /// What it is defined in, as the language writes it: `Config`, `Outer.Inner`, a module
    /// or package for a top-level item.
    pub container: Option<String>,
}

/// The uses of a name in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUses {
    /// Workspace-relative, `/`-separated.
    pub file: String,
    /// Lines with a use, ascending; a line with several uses is one site.
    pub lines: Vec<u32>,
}
