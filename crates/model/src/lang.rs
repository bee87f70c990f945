//! The languages pith reads the source of, as data: one [`Descriptor`] per language, in one
//! table ([`LANGUAGES`]): the extensions that make a file the language's and what starts one
//! of its comment lines. The index (which grammar parses a file, which resolver reads its
//! imports), the engine (which changed lines are comments only) and the ecosystems' source
//! extensions read it here (model depends on nothing), so a language's extensions are listed
//! once. Grammars and import rules stay the index's.

/// A language pith reads the source of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    Rust,
    Python,
    Go,
    JavaScript,
    /// TypeScript, `.tsx` files included: one language, whose JSX files parse apart (see
    /// [`Descriptor::jsx`]).
    TypeScript,
    Java,
    CSharp,
    C,
    Cpp,
    Kotlin,
    Scala,
    Swift,
    Dart,
    Ruby,
    Shell,
    Perl,
    R,
}

/// One language: the files that are its and how its comments start.
#[derive(Debug)]
pub struct Descriptor {
    /// What other crates match on (the index maps it to its grammars).
    pub id: Language,
    /// Extensions (without the dot, compared with their case) of its files. An extension is
    /// one language's only: a `.h` header is C's or C++'s alike, and is listed as C's (their
    /// comments are the same).
    pub extensions: &'static [&'static str],
    /// Among [`Descriptor::extensions`], those of files that may hold JSX markup where the
    /// language's other files may not: TypeScript's `tsx` (in a `.ts` file `<T>x` is a type
    /// assertion, so the two need two grammars). JavaScript allows JSX in every file: none.
    pub jsx: &'static [&'static str],
    /// What starts a comment line, once the line is trimmed: a line starting with one holds
    /// no code.
    pub comment_markers: &'static [&'static str],
}

/// Comments of C's family: `//` lines and `/* … */` blocks, whose continuation lines start
/// with `* ` by convention.
pub const C_COMMENTS: &[&str] = &["//", "/*", "* ", "*/"];
/// Comments that run from `#` to the end of their line.
pub const HASH_COMMENTS: &[&str] = &["#"];

pub const RUST: Descriptor = Descriptor {
    id: Language::Rust,
    extensions: &["rs"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const PYTHON: Descriptor = Descriptor {
    id: Language::Python,
    extensions: &["py", "pyi"],
    jsx: &[],
    comment_markers: HASH_COMMENTS,
};

pub const GO: Descriptor = Descriptor {
    id: Language::Go,
    extensions: &["go"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const JAVASCRIPT: Descriptor = Descriptor {
    id: Language::JavaScript,
    extensions: &["js", "jsx", "mjs", "cjs"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const TYPESCRIPT: Descriptor = Descriptor {
    id: Language::TypeScript,
    extensions: &["ts", "tsx", "mts", "cts"],
    jsx: &["tsx"],
    comment_markers: C_COMMENTS,
};

pub const JAVA: Descriptor = Descriptor {
    id: Language::Java,
    extensions: &["java"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const CSHARP: Descriptor = Descriptor {
    id: Language::CSharp,
    extensions: &["cs"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const C: Descriptor = Descriptor {
    id: Language::C,
    extensions: &["c", "h"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const CPP: Descriptor = Descriptor {
    id: Language::Cpp,
    // Headers, and the inline and template implementation files headers include, are as
    // much its source as its translation units.
    extensions: &[
        "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp", "inl", "tcc",
    ],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const KOTLIN: Descriptor = Descriptor {
    id: Language::Kotlin,
    extensions: &["kt", "kts"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const SCALA: Descriptor = Descriptor {
    id: Language::Scala,
    extensions: &["scala"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const SWIFT: Descriptor = Descriptor {
    id: Language::Swift,
    extensions: &["swift"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const DART: Descriptor = Descriptor {
    id: Language::Dart,
    extensions: &["dart"],
    jsx: &[],
    comment_markers: C_COMMENTS,
};

pub const RUBY: Descriptor = Descriptor {
    id: Language::Ruby,
    extensions: &["rb"],
    jsx: &[],
    comment_markers: HASH_COMMENTS,
};

pub const SHELL: Descriptor = Descriptor {
    id: Language::Shell,
    extensions: &["sh", "bash"],
    jsx: &[],
    comment_markers: HASH_COMMENTS,
};

pub const PERL: Descriptor = Descriptor {
    id: Language::Perl,
    extensions: &["pl"],
    jsx: &[],
    comment_markers: HASH_COMMENTS,
};

pub const R: Descriptor = Descriptor {
    id: Language::R,
    // Both cases are common for R scripts, and extensions are compared with their case.
    extensions: &["r", "R"],
    jsx: &[],
    comment_markers: HASH_COMMENTS,
};

/// Every language pith reads the source of, one descriptor each.
pub const LANGUAGES: &[&Descriptor] = &[
    &RUST,
    &PYTHON,
    &GO,
    &JAVASCRIPT,
    &TYPESCRIPT,
    &JAVA,
    &CSHARP,
    &C,
    &CPP,
    &KOTLIN,
    &SCALA,
    &SWIFT,
    &DART,
    &RUBY,
    &SHELL,
    &PERL,
    &R,
];

/// The extension of a path's file name, without the dot.
fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map(|(_, e)| e)
}

/// The language of a file, told from its extension.
pub fn of_path(path: &str) -> Option<&'static Descriptor> {
    let ext = extension(path)?;
    LANGUAGES
        .iter()
        .copied()
        .find(|l| l.extensions.contains(&ext))
}

/// What starts a comment line in `path`'s language, where pith knows its language.
pub fn comment_markers(path: &str) -> Option<&'static [&'static str]> {
    of_path(path).map(|l| l.comment_markers)
}

/// Whether `path`'s extension makes it a JSX file of a language whose other files are not
/// (see [`Descriptor::jsx`]).
pub fn is_jsx(path: &str) -> bool {
    extension(path).is_some_and(|ext| LANGUAGES.iter().any(|l| l.jsx.contains(&ext)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extension_is_one_languages_and_a_language_is_listed_once() {
        for l in LANGUAGES {
            assert_eq!(LANGUAGES.iter().filter(|o| o.id == l.id).count(), 1);
            assert!(!l.extensions.is_empty(), "{:?}", l.id);
            assert!(!l.comment_markers.is_empty(), "{:?}", l.id);
            for x in l.jsx {
                assert!(l.extensions.contains(x), "{x}");
            }
            for x in l.extensions {
                let owners = LANGUAGES.iter().filter(|o| o.extensions.contains(x));
                assert_eq!(owners.count(), 1, "{x}");
                assert!(!x.contains(['.', '/']), "{x}");
            }
        }
    }

    #[test]
    fn files_are_told_by_their_names_extension() {
        let id = |p: &str| of_path(p).map(|l| l.id);
        assert_eq!(id("src/a.rs"), Some(Language::Rust));
        assert_eq!(id("a/b.tsx"), Some(Language::TypeScript));
        assert_eq!(id("a/b.pyi"), Some(Language::Python));
        assert_eq!(id("inc/x.h"), Some(Language::C));
        assert_eq!(id("inc/x.c++"), Some(Language::Cpp));
        assert_eq!(id("a.R"), Some(Language::R));
        assert_eq!(id("a.RS"), None);
        assert_eq!(id("Makefile"), None);
        assert_eq!(id("a.rs/Makefile"), None);
        assert_eq!(id("a.b/c"), None);
        assert!(is_jsx("a/b.tsx"));
        assert!(!is_jsx("a/b.ts") && !is_jsx("a/b.jsx") && !is_jsx("a.tsx/b"));
        assert_eq!(comment_markers("x.sh"), Some(HASH_COMMENTS));
        assert_eq!(comment_markers("x.kts"), Some(C_COMMENTS));
        assert_eq!(comment_markers("x.txt"), None);
    }
}
