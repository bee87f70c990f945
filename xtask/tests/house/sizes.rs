//! Sizes: a production file holds at most [`FILE_LINES`] lines, and at most
//! [`LONG_FUNCTIONS`] production functions run over [`FUNCTION_LINES`]. A file is one thing
//! to read; a function past a screenful or two is several things, and which ones is what a
//! reader has to find out. Production lines are the lines outside `#[cfg(test)]` items; the
//! files of test-only modules (declared `#[cfg(test)] mod tests;`) do not count. A text file
//! that production code embeds (`include_str!`: a plugin, a listener) is a production file
//! too, counted whole. Data tables and embedded plugins may be longer, each listed in
//! [`LONG_FILES`] with the reason.

use crate::source::{crates, is_ident, synthetic, File};

const FILE_LINES: usize = 700;
const FUNCTION_LINES: usize = 100;
const LONG_FUNCTIONS: usize = 3;

/// Production files allowed past [`FILE_LINES`], from the workspace root, and why. A row whose
/// file is no longer that long fails the test too: delete it. Only data tables and embedded
/// plugins belong here; code past the limit is split.
const LONG_FILES: &[(&str, &str)] = &[
    // -- embedded plugins --
    (
        "crates/runner/src/pytest/pith_plugin.py",
        "embedded plugin: pytest imports it as one module (`-p pith_<hash>`) written from one \
         string into pith's cache; more files would mean a package to install beside it",
    ),
    (
        "crates/runner/src/unittest/pith_unittest.py",
        "embedded plugin: started as one script (`python <file>`, or Django's `--testrunner` \
         module) written from one string into pith's cache, named by its content's hash",
    ),
];

/// A function of the production code: where its `fn` is and how many lines it runs, from its
/// `fn` line to its closing brace.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// Every function with a body in `code` (comments, literals and test items blanked, so a
/// brace in a string is no brace), nested ones too.
fn functions(code: &str) -> Vec<Function> {
    let c: Vec<char> = code.chars().collect();
    let line_at = |k: usize| 1 + c[..k].iter().filter(|&&ch| ch == '\n').count();
    let mut found = Vec::new();
    for k in 0..c.len().saturating_sub(2) {
        let word = c[k] == 'f'
            && c[k + 1] == 'n'
            && !is_ident(c[k + 2])
            && (k == 0 || !is_ident(c[k - 1]));
        if !word {
            continue;
        }
        // `fn name`, not a pointer type (`fn(u8)`) or a macro's `fn $name`.
        let mut j = k + 2;
        while j < c.len() && c[j].is_whitespace() {
            j += 1;
        }
        let start = j;
        while j < c.len() && is_ident(c[j]) {
            j += 1;
        }
        if j == start || c[start].is_numeric() {
            continue;
        }
        let name: String = c[start..j].iter().collect();
        // The body: the first `{` outside the signature's parentheses and brackets; a `;`
        // first is a declaration without one.
        let mut depth = 0usize;
        let mut open = None;
        while j < c.len() {
            match c[j] {
                '(' | '[' => depth += 1,
                ')' | ']' => depth = depth.saturating_sub(1),
                '{' if depth == 0 => {
                    open = Some(j);
                    break;
                }
                ';' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let Some(open) = open else {
            continue;
        };
        let mut braces = 0usize;
        let close = (open..c.len()).find(|&m| {
            match c[m] {
                '{' => braces += 1,
                '}' => braces -= 1,
                _ => {}
            }
            braces == 0
        });
        let Some(close) = close else {
            continue;
        };
        let line = line_at(k);
        found.push(Function {
            name,
            line,
            lines: line_at(close) - line + 1,
        });
    }
    found
}

/// Every production file over [`FILE_LINES`] that `allowed` ([`LONG_FILES`]) does not list,
/// and every row of it that no longer holds: one line each.
fn long_files(files: &[(String, usize)], allowed: &[(&str, &str)]) -> Vec<String> {
    let mut wrong = Vec::new();
    for (path, lines) in files {
        if *lines > FILE_LINES && !allowed.iter().any(|(p, _)| p == path) {
            wrong.push(format!(
                "{path}: {lines} production lines, over {FILE_LINES}: split it by what its \
                 parts do (a data table or an embedded plugin: add a row to LONG_FILES in \
                 xtask/tests/house/sizes.rs with the reason)"
            ));
        }
    }
    for (path, _) in allowed {
        match files.iter().find(|(p, _)| p == path) {
            Some((_, lines)) if *lines > FILE_LINES => {}
            Some((_, lines)) => wrong.push(format!(
                "LONG_FILES lists {path}, now {lines} lines, not over {FILE_LINES}: delete its row"
            )),
            None => wrong.push(format!(
                "LONG_FILES lists {path}, no production file: delete its row"
            )),
        }
    }
    wrong
}

/// Every production function over [`FUNCTION_LINES`], as `file:line name (N lines)`, longest
/// first.
fn long_functions<'a>(files: impl IntoIterator<Item = &'a File>) -> Vec<String> {
    let mut long: Vec<(usize, String)> = Vec::new();
    for f in files {
        for g in functions(&f.code) {
            if g.lines > FUNCTION_LINES {
                let at = format!(
                    "{}:{} {} ({} lines)",
                    f.path.display(),
                    g.line,
                    g.name,
                    g.lines
                );
                long.push((g.lines, at));
            }
        }
    }
    long.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    long.into_iter().map(|(_, at)| at).collect()
}

/// The failure of [`few_production_functions_are_long`], if it fails.
fn too_many(long: &[String]) -> Option<String> {
    (long.len() > LONG_FUNCTIONS).then(|| {
        format!(
            "{} production functions over {FUNCTION_LINES} lines, at most {LONG_FUNCTIONS} may \
             be (split one by what its parts do):\n  {}",
            long.len(),
            long.join("\n  ")
        )
    })
}

#[test]
fn no_production_file_is_too_long() {
    let mut files: Vec<(String, usize)> = Vec::new();
    for c in crates() {
        for f in &c.files {
            files.push((f.path.display().to_string(), f.production_lines()));
        }
        for e in &c.embedded {
            files.push((e.path.display().to_string(), e.lines));
        }
    }
    assert!(
        files.iter().any(|(p, _)| p.ends_with(".py")),
        "no embedded file read"
    );
    let wrong = long_files(&files, LONG_FILES);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn few_production_functions_are_long() {
    let long = long_functions(crates().iter().flat_map(|c| &c.files));
    if let Some(wrong) = too_many(&long) {
        panic!("{wrong}");
    }
}

#[test]
fn a_long_function_is_counted_and_a_brace_in_a_string_or_a_test_is_not() {
    let body = |n: usize| "    let x = 1;\n".repeat(n);
    let long = format!("fn long() {{\n{}}}\n", body(99));
    let src = format!(
        "{long}\
         pub(crate) fn just(a: [u8; 2], f: fn(u8) -> u8) -> impl Fn() where T: Copy {{\n\
         {}    let s = \"}}}}\"; // }}\n\
         }}\n\
         trait T {{ fn declared(&self); }}\n\
         #[cfg(test)]\n\
         mod tests {{\n    fn in_a_test() {{\n{}    }}\n}}\n",
        body(97),
        body(200),
    );
    let files = synthetic(&[("lib.rs", &src)]);
    let found = functions(&files[0].code);
    assert_eq!(
        found,
        [
            Function {
                name: "long".into(),
                line: 1,
                lines: 101
            },
            Function {
                name: "just".into(),
                line: 102,
                lines: 100
            },
        ]
    );
    let long = long_functions(&files);
    assert_eq!(long, ["crates/x/src/lib.rs:1 long (101 lines)"]);
    assert_eq!(too_many(&long), None);
    let four: Vec<String> = (0..4).map(|_| long[0].clone()).collect();
    let wrong = too_many(&four).unwrap();
    assert!(
        wrong.starts_with("4 production functions over 100 lines, at most 3 may be")
            && wrong.ends_with("\n  crates/x/src/lib.rs:1 long (101 lines)"),
        "{wrong}"
    );
    // The test module's 200 lines are not the file's.
    assert_eq!(files[0].production_lines(), 202);
}

#[test]
fn a_long_file_is_named_and_a_stale_row_too() {
    let wrong = long_files(
        &[
            ("crates/x/src/big.rs".into(), 701),
            ("crates/x/src/ok.rs".into(), 700),
            ("crates/x/src/plugin.py".into(), 800),
            ("crates/x/src/smaller.py".into(), 650),
        ],
        &[
            ("crates/x/src/plugin.py", "a plugin"),
            ("crates/x/src/smaller.py", "a plugin"),
            ("crates/x/src/gone.rs", "a table"),
        ],
    );
    assert_eq!(
        wrong,
        [
            "crates/x/src/big.rs: 701 production lines, over 700: split it by what its parts \
             do (a data table or an embedded plugin: add a row to LONG_FILES in \
             xtask/tests/house/sizes.rs with the reason)",
            "LONG_FILES lists crates/x/src/smaller.py, now 650 lines, not over 700: delete its \
             row",
            "LONG_FILES lists crates/x/src/gone.rs, no production file: delete its row",
        ]
    );
}
