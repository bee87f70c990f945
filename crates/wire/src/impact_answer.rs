//! The impact answers: the tests of a file (`pith tests-for`), the tests the current changes
//! select (`pith select`), and a file's or symbol's blast radius (`pith blast`). Each is a few
//! names, nearest first, under a small byte budget, with what did not fit counted and the
//! reach that found them (`static`: the import graph) stated.

use pith_model::impact::{Blast, FileTests, Reach, Selection};
use serde::Serialize;

/// `pith tests-for`.
pub const TESTS_FOR_BUDGET: usize = 100;
/// `pith select`.
pub const SELECT_BUDGET: usize = 150;
/// `pith blast`.
pub const BLAST_BUDGET: usize = 200;

/// The file asked about is not repeated: the caller named it, and its bytes go to tests.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileTestsAnswer {
    pub reach: &'static str,
    /// Any test may read the file: the graph cannot place it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_tests: usize,
}

/// Shapes the tests of a file into at most [`TESTS_FOR_BUDGET`] bytes.
pub fn tests_for_answer(t: &FileTests) -> FileTestsAnswer {
    let mut a = FileTestsAnswer {
        reach: Reach::Static.name(),
        all: t.unplaced.then_some("not source: any test may read it"),
        tests: t.tests.clone(),
        more_tests: 0,
    };
    while size(&a) > TESTS_FOR_BUDGET && a.tests.pop().is_some() {
        a.more_tests += 1;
    }
    if a.tests.is_empty() && a.more_tests > 0 {
        // One name longer than the budget: its end, where the file's name is.
        let first = &t.tests[0];
        let room = TESTS_FOR_BUDGET.saturating_sub(size(&a) + 6);
        let start = first.len().saturating_sub(room);
        let start = (start..first.len())
            .find(|&i| first.is_char_boundary(i))
            .unwrap_or(0);
        a.tests.push(format!("…{}", &first[start..]));
        a.more_tests -= 1;
        while size(&a) > TESTS_FOR_BUDGET && a.tests[0].chars().count() > 2 {
            let mut rest = a.tests[0].chars().skip(2);
            a.tests[0] = format!("…{}", rest.by_ref().collect::<String>());
        }
    }
    a
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectAnswer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<&'static str>,
    /// Changed files.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub changed: usize,
    /// Every test is selected, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_tests: usize,
    /// Test files in the workspace.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub suite: usize,
}

/// Shapes a selection into at most [`SELECT_BUDGET`] bytes.
pub fn select_answer(s: &Selection) -> SelectAnswer {
    let mut a = SelectAnswer {
        baseline: s.baseline.map(|b| b.name()),
        changed: s.changed.len(),
        all: s.all.clone(),
        reach: s.all.is_none().then(|| Reach::Static.name()),
        tests: s.tests.clone(),
        more_tests: 0,
        suite: s.suite,
    };
    while size(&a) > SELECT_BUDGET && a.tests.pop().is_some() {
        a.more_tests += 1;
    }
    // A reason longer than the room keeps its start (the file that forced it).
    let reason = a.all.clone().unwrap_or_default();
    let mut keep = reason.chars().count();
    while size(&a) > SELECT_BUDGET && keep > 0 {
        keep -= 1;
        a.all = Some(crate::cut(&reason, keep));
    }
    a
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlastAnswer {
    pub target: String,
    /// Neither a file the graph places nor a symbol the index knows.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unknown: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<&'static str>,
    /// Where the symbol is defined.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub defined: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_defined: usize,
    /// Dependent files that are not tests, nearest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_files: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<String>,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub more_tests: usize,
}

/// Shapes a blast radius into at most [`BLAST_BUDGET`] bytes: the longest list gives way
/// first, each keeps its nearest entry as long as anything else can go.
pub fn blast_answer(b: &Blast) -> BlastAnswer {
    let mut a = BlastAnswer {
        target: b.target.clone(),
        unknown: b.unknown,
        reach: (!b.unknown).then(|| Reach::Static.name()),
        defined: b.symbols.clone(),
        more_defined: 0,
        files: b
            .files
            .iter()
            .filter(|f| !b.tests.contains(f))
            .cloned()
            .collect(),
        more_files: 0,
        tests: b.tests.clone(),
        more_tests: 0,
    };
    while size(&a) > BLAST_BUDGET {
        // The longest list gives way while any has more than one entry; then the last
        // entries go, files before definitions before tests (what an agent runs next).
        let lists = [(a.files.len(), 0), (a.defined.len(), 2), (a.tests.len(), 1)];
        let longest = lists.iter().filter(|(n, _)| *n > 1).max_by_key(|(n, _)| *n);
        let Some(&(_, which)) = longest.or_else(|| lists.iter().find(|(n, _)| *n > 0)) else {
            a.target = crate::cut(&a.target, 40);
            break;
        };
        match which {
            0 => {
                a.files.pop();
                a.more_files += 1;
            }
            1 => {
                a.tests.pop();
                a.more_tests += 1;
            }
            _ => {
                a.defined.pop();
                a.more_defined += 1;
            }
        }
    }
    a
}

fn size<T: Serialize>(a: &T) -> usize {
    crate::to_json(a).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pith_model::impact::Baseline;

    fn names(prefix: &str, n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("{prefix}/test_module_{i}.py"))
            .collect()
    }

    #[test]
    fn tests_for_fits_and_counts_what_it_leaves() {
        let t = FileTests {
            file: "src/pkg/util.py".into(),
            tests: names("tests", 12),
            unplaced: false,
        };
        let a = tests_for_answer(&t);
        let json = crate::to_json(&a);
        assert!(json.len() <= TESTS_FOR_BUDGET, "{json}");
        assert_eq!(a.tests.len() + a.more_tests, 12, "{json}");
        assert!(!a.tests.is_empty(), "{json}");
        assert_eq!(a.tests[0], "tests/test_module_0.py", "nearest first");
        // A name too long for the budget keeps its end.
        let deep = FileTests {
            file: "x.py".into(),
            tests: vec![
                format!("{}/tests/test_deep.py", "very_deep_directory".repeat(6)),
                "t.py".into(),
            ],
            unplaced: false,
        };
        let a = tests_for_answer(&deep);
        let json = crate::to_json(&a);
        assert!(json.len() <= TESTS_FOR_BUDGET, "{json}");
        assert!(
            a.tests[0].ends_with("tests/test_deep.py") && a.more_tests == 1,
            "{json}"
        );
    }

    #[test]
    fn an_unplaced_file_says_every_test_may_read_it() {
        let t = FileTests {
            file: "data/prices.json".into(),
            tests: Vec::new(),
            unplaced: true,
        };
        assert_eq!(
            crate::to_json(&tests_for_answer(&t)),
            r#"{"reach":"static","all":"not source: any test may read it"}"#
        );
    }

    #[test]
    fn select_fits_with_its_reason_or_its_tests() {
        let s = Selection {
            baseline: Some(Baseline::LastGreen),
            changed: vec!["src/a.py".into(), "src/b.py".into()],
            tests: names("tests/unit", 30),
            all: None,
            suite: 240,
            failing: 0,
        };
        let a = select_answer(&s);
        let json = crate::to_json(&a);
        assert!(json.len() <= SELECT_BUDGET, "{json}");
        assert_eq!(a.tests.len() + a.more_tests, 30);
        assert!(json.starts_with(r#"{"baseline":"lastGreen","changed":2,"reach":"static","tests":["tests/unit/test_module_0.py""#), "{json}");
        let all = Selection {
            baseline: Some(Baseline::Git),
            changed: vec!["pyproject.toml".into()],
            all: Some("a/very/deep/directory/structure/that/goes/on/and/on/pyproject.toml changed (not source pith can follow)".into()),
            suite: 240,
            ..Selection::default()
        };
        let json = crate::to_json(&select_answer(&all));
        assert!(json.len() <= SELECT_BUDGET, "{json}");
        assert!(
            json.contains(r#""all":"a/very"#) && !json.contains("tests"),
            "{json}"
        );
    }

    #[test]
    fn blast_fits_keeping_one_of_each() {
        let b = Blast {
            target: "parse_price".into(),
            files: names("src", 20)
                .into_iter()
                .chain(names("tests", 9))
                .collect(),
            symbols: vec!["src/prices.py:12".into(), "src/legacy/prices.py:40".into()],
            tests: names("tests", 9),
            unknown: false,
        };
        let a = blast_answer(&b);
        let json = crate::to_json(&a);
        assert!(json.len() <= BLAST_BUDGET, "{json}");
        assert_eq!(a.files.len() + a.more_files, 20, "{json}");
        assert_eq!(a.tests.len() + a.more_tests, 9, "{json}");
        assert_eq!(a.defined.len() + a.more_defined, 2, "{json}");
        assert!(
            !a.files.is_empty() && !a.tests.is_empty() && !a.defined.is_empty(),
            "{json}"
        );
    }
}
