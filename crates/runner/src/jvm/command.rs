//! What Maven or Gradle is asked to run: requested ids as classes and methods, source paths
//! as classes, and what a command builder needs.

use std::path::{Path, PathBuf};

pub(super) fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// What a command builder needs.
#[derive(Clone, Copy)]
pub(crate) struct Invocation<'a> {
    pub program: &'a Path,
    pub dir: &'a Path,
    pub scratch: &'a Path,
    /// The listener's classpath directory, when it could be compiled.
    pub listener: Option<&'a Path>,
    pub events: &'a Path,
    pub selection: &'a [TestId],
}

/// A requested test: a class, or a method of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestId {
    /// The id as given.
    pub full: String,
    pub class: String,
    /// The method part verbatim (`addsZero(int)[2]`); `None` for a whole class.
    pub method: Option<String>,
}

pub(super) const SOURCE_EXTS: &[&str] = &[".java", ".kt", ".groovy", ".scala"];

impl TestId {
    pub fn parse(id: &str) -> Option<TestId> {
        // An id is never an option: `-x`, `-Dtest=...` name no test.
        if id.starts_with('-') {
            return None;
        }
        if let Some(class) = class_of_path(id) {
            return Some(TestId {
                full: id.to_owned(),
                class,
                method: None,
            });
        }
        let (class, method) = id.split_once('#')?;
        (is_class_name(class) && method.chars().next().is_some_and(|c| !c.is_whitespace())).then(
            || TestId {
                full: id.to_owned(),
                class: class.to_owned(),
                method: Some(method.to_owned()),
            },
        )
    }

    /// The Java method name the id selects (`addsZero` of `addsZero(int)[2]`, and of
    /// `addsZero{int}[2]`, Surefire 2.22's name of the same invocation); `None` when the name
    /// part is a display name no filter can select (`[1] 1`).
    pub fn method_base(&self) -> Option<&str> {
        let m = self.method.as_deref()?;
        let end = m
            .find(|c| PARAMETERS.contains(&c) || c == ' ')
            .unwrap_or(m.len());
        let base = &m[..end];
        (!base.is_empty() && is_identifier(base)).then_some(base)
    }

    /// Whether the reported test `class#name` is one this id asked for.
    pub(super) fn wants(&self, class: &str, name: &str) -> bool {
        if self.class != class {
            return false;
        }
        match self.method.as_deref() {
            None => true,
            Some(m) if m == name => true,
            // A method asked for by its bare name takes all its invocations.
            Some(m) => self.method_base() == Some(m) && base_of(name) == Some(m),
        }
    }
}

/// Where a reported method name's parameters or invocation index start: `(int)[2]` from
/// Surefire 3 and Gradle, `{int}[2]` from Surefire 2.22's JUnit Platform provider, which
/// writes a parametrized invocation's legacy name with braces.
const PARAMETERS: [char; 3] = ['(', '{', '['];

pub(super) fn base_of(name: &str) -> Option<&str> {
    let end = name.find(PARAMETERS).unwrap_or(name.len());
    let base = &name[..end];
    (!base.is_empty()).then_some(base)
}

pub(super) fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// `pkg.Outer$Inner`: dotted identifiers.
pub(super) fn is_class_name(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_identifier)
}

/// `src/test/java/demo/CalcTest.java` → `demo.CalcTest`.
pub fn class_of_path(path: &str) -> Option<String> {
    let ext = SOURCE_EXTS.iter().find(|e| path.ends_with(*e))?;
    let stem = &path[..path.len() - ext.len()];
    if stem.is_empty() || path.contains(char::is_whitespace) || path.contains('#') {
        return None;
    }
    let parts: Vec<&str> = stem
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    // The package starts after the source root: `src/<set>/<lang>/`, else after `src/`.
    let start = parts
        .iter()
        .rposition(|p| ["java", "kotlin", "groovy", "scala"].contains(p))
        .map(|i| i + 1)
        .or_else(|| parts.iter().rposition(|p| *p == "src").map(|i| i + 1))
        .unwrap_or(parts.len().saturating_sub(1));
    let class = parts.get(start..)?.join(".");
    is_class_name(&class).then_some(class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_from_source_paths() {
        assert_eq!(
            class_of_path("src/test/java/demo/CalcTest.java").as_deref(),
            Some("demo.CalcTest")
        );
        assert_eq!(
            class_of_path("mod/src/it/kotlin/a/b/X.kt").as_deref(),
            Some("a.b.X")
        );
        assert_eq!(class_of_path("src/X.java").as_deref(), Some("X"));
        assert_eq!(class_of_path("X.java").as_deref(), Some("X"));
        assert_eq!(class_of_path("src/test/java/x-y/Z.java"), None);
        assert_eq!(class_of_path(".java"), None);
    }

    #[test]
    fn selection_matches_invocations() {
        let whole = TestId::parse("demo.T#adds").unwrap();
        assert!(whole.wants("demo.T", "adds"));
        assert!(whole.wants("demo.T", "adds(int)[3]"));
        assert!(!whole.wants("demo.T", "addsMore"));
        assert!(!whole.wants("demo.U", "adds"));
        let one = TestId::parse("demo.T#adds(int)[2]").unwrap();
        assert_eq!(one.method_base(), Some("adds"));
        assert!(one.wants("demo.T", "adds(int)[2]"));
        assert!(!one.wants("demo.T", "adds(int)[3]"));
        let old = TestId::parse("demo.T#adds{int}[2]").unwrap();
        assert_eq!(old.method_base(), Some("adds"));
        assert!(old.wants("demo.T", "adds{int}[2]"));
        assert!(!old.wants("demo.T", "adds{int}[3]"));
        assert!(whole.wants("demo.T", "adds{int}[3]"));
        let display = TestId::parse("demo.T#[1] 1").unwrap();
        assert_eq!(display.method_base(), None);
        let class = TestId::parse("src/test/java/demo/T.java").unwrap();
        assert!(class.wants("demo.T", "anything"));
    }
}
