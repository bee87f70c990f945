//! What a re-run selects: the requested ids split into files and full names, and the patterns
//! each runner is given for them, every character that means something to the runner escaped.

use std::path::Path;

use super::super::{id_file, SEP};

/// A path as a glob matching only itself (jest's and vitest's picomatch): every character
/// that means something in a glob escaped.
pub(crate) fn glob_literal(path: &str) -> String {
    crate::text::escape_chars(path, |c| "\\*?[]{}()!+@,".contains(c))
}

/// Requested ids, split for the runner.
#[derive(Debug, Clone, Default)]
pub(crate) struct Selection {
    /// Every requested id, normalized.
    pub(crate) ids: Vec<String>,
    /// Their files, workspace-relative, each once.
    pub(crate) files: Vec<String>,
    /// Files asked for whole.
    pub(crate) whole: Vec<String>,
    /// The names of each id that names a test.
    pub(crate) names: Vec<Vec<String>>,
}

impl Selection {
    /// The selection, and the ids whose file is not in the workspace.
    pub(crate) fn of(ids: &[String], root: &Path) -> (Selection, Vec<String>) {
        let mut sel = Selection::default();
        let mut gone = Vec::new();
        for raw in ids {
            let id = Self::normal(raw);
            let file = id_file(&id).to_owned();
            // An id is never an option, whatever file it might also name.
            if file.starts_with('-') || !root.join(&file).is_file() {
                gone.push(raw.clone());
                continue;
            }
            if sel.ids.contains(&id) {
                continue;
            }
            match id.split_once(SEP) {
                None => sel.whole.push(file.clone()),
                Some((_, rest)) => sel.names.push(rest.split(SEP).map(str::to_owned).collect()),
            }
            if !sel.files.contains(&file) {
                sel.files.push(file);
            }
            sel.ids.push(id);
        }
        (sel, gone)
    }

    /// An id as the selection holds it: trimmed, without a leading `./`.
    pub(crate) fn normal(raw: &str) -> String {
        raw.trim().trim_start_matches("./").to_owned()
    }

    pub(crate) fn wants(&self, id: &str, file: &str) -> bool {
        self.whole.iter().any(|w| w == file) || self.ids.iter().any(|i| i == id)
    }

    /// jest's and vitest's `-t`: the full names (levels joined by a space); a level whose title
    /// holds ` > ` was split, so either joint matches. None when a whole file is asked for.
    pub(crate) fn full_name_pattern(&self) -> Option<String> {
        if !self.whole.is_empty() || self.names.is_empty() {
            return None;
        }
        let alts: Vec<String> = self
            .names
            .iter()
            .map(|n| {
                n.iter()
                    .map(|x| escape(x))
                    .collect::<Vec<_>>()
                    .join("(?: | > )")
            })
            .collect();
        Some(format!("^(?:{})$", alts.join("|")))
    }

    /// node's `--test-name-pattern`: node 20 matches each level's own name (a suite or parent
    /// test must match for its children to run), later nodes the full name; both are in.
    pub(crate) fn node_pattern(&self) -> Option<String> {
        if !self.whole.is_empty() || self.names.is_empty() {
            return None;
        }
        let mut alts: Vec<String> = Vec::new();
        for n in &self.names {
            for part in n.iter().map(|x| escape(x)).chain([n
                .iter()
                .map(|x| escape(x))
                .collect::<Vec<_>>()
                .join(" ")])
            {
                if !alts.contains(&part) {
                    alts.push(part);
                }
            }
        }
        Some(format!("^(?:{})$", alts.join("|")))
    }
}

/// A string as a literal in a JavaScript regular expression.
pub(crate) fn escape(s: &str) -> String {
    crate::text::escape_chars(s, |c| "\\^$.*+?()[]{}|/".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::is_test_id;

    #[test]
    fn selections_make_patterns() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.test.js"), "").unwrap();
        let ids: Vec<String> = [
            "./a.test.js > sum > adds (1+1)",
            "a.test.js > top",
            "gone.test.js > x",
        ]
        .map(String::from)
        .to_vec();
        let (sel, gone) = Selection::of(&ids, d.path());
        assert_eq!(gone, ["gone.test.js > x"]);
        assert_eq!(sel.files, ["a.test.js"]);
        assert_eq!(
            sel.full_name_pattern().unwrap(),
            r"^(?:sum(?: | > )adds \(1\+1\)|top)$"
        );
        assert_eq!(
            sel.node_pattern().unwrap(),
            r"^(?:sum|adds \(1\+1\)|sum adds \(1\+1\)|top)$"
        );
        assert!(sel.wants("a.test.js > top", "a.test.js"));
        assert!(!sel.wants("a.test.js > other", "a.test.js"));
        let (whole, _) = Selection::of(&["a.test.js".to_owned()], d.path());
        assert_eq!(whole.full_name_pattern(), None);
        assert!(whole.wants("a.test.js > anything", "a.test.js"));
    }

    #[test]
    fn ids_that_start_with_a_dash_name_nothing() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("-x.test.js"), "").unwrap();
        let ids = ["-x.test.js".to_owned(), "--help".to_owned()];
        let (sel, gone) = Selection::of(&ids, d.path());
        assert!(sel.files.is_empty());
        assert_eq!(gone, ids);
        assert!(!is_test_id("--config.test.js"));
    }
}
