//! Why a C or C++ build failed (CMake's, Bazel's `cc_*` rules'): compiler errors (`/src/x.cc:12:5: error: ...`, gcc and clang
//! alike, `fatal error:` included), CMake's own (`CMake Error at CMakeLists.txt:5 (add_executable):`
//! and the indented lines after it), and the linker's (`undefined reference to ...`), each kept
//! once. Paths outside the workspace (system headers, the build directory) keep no location.
//! An error inside a macro's expansion is told where the macro was expanded, its definition
//! named in the message.

use pith_model::BuildError;

use crate::{text, PathMap};

pub fn errors(output: &str, paths: &PathMap) -> Vec<BuildError> {
    let mut out: Vec<BuildError> = Vec::new();
    let mut push = |e: BuildError| {
        if !out.contains(&e) {
            out.push(e);
        }
    };
    let lines: Vec<&str> = output.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix("CMake Error") {
            // `CMake Error at FILE:LINE (command):` then the message, indented.
            let (file, line_no) = rest
                .strip_prefix(" at ")
                .and_then(|r| r.split_once(" ("))
                .and_then(|(loc, _)| crate::googletest::failure::file_line(loc))
                .map_or((None, None), |(f, l)| (Some(f), Some(l)));
            let message = lines[i + 1..]
                .iter()
                .take_while(|l| l.is_empty() || l.starts_with(' '))
                .map(|l| l.trim())
                .find(|l| !l.is_empty())
                .unwrap_or_else(|| rest.trim_start_matches(':').trim());
            let rel = file.and_then(|f| paths.relativize(&f, None));
            push(BuildError {
                line: rel.as_ref().and(line_no),
                file: rel,
                code: None,
                message: text::first_line(&paths.scrub(message)),
            });
        } else if let Some(mut e) = compiler_error(line, paths) {
            macro_site(&mut e, &lines[i + 1..], paths);
            push(e);
        } else if let Some(i) = line.find("undefined reference to ") {
            push(BuildError {
                message: text::first_line(&paths.scrub(&line[i..])),
                ..BuildError::default()
            });
        }
        i += 1;
    }
    out
}

/// `FILE:LINE:COL: error: MESSAGE` or `FILE:LINE: fatal error: MESSAGE`.
fn compiler_error(line: &str, paths: &PathMap) -> Option<BuildError> {
    let (head, message) = line
        .split_once(": fatal error: ")
        .or_else(|| line.split_once(": error: "))?;
    let mut parts = head.rsplitn(3, ':');
    let (file, line_no) = match (parts.next(), parts.next(), parts.next()) {
        (Some(col), Some(l), Some(f)) if is_num(col) && is_num(l) => (f, l.parse().ok()),
        (Some(l), Some(f), _) if is_num(l) => (f, l.parse().ok()),
        _ => (head, None),
    };
    // Tools that print `error:` without a file (`collect2: error: ...`) are not located.
    let rel = (file.contains('/') || file.contains('.'))
        .then(|| paths.relativize(file, None))
        .flatten()
        .filter(|r| PathMap::is_project(r));
    Some(BuildError {
        line: rel.as_ref().and(line_no),
        file: rel,
        code: None,
        message: text::first_line(&paths.scrub(message)),
    })
}

/// An error inside a macro's expansion, told at the place that expanded it with the macro's
/// definition in its message: gcc reports it at the definition (a header) with `note: in
/// expansion of macro 'X'` at each expansion, the last one in the edited file; clang at the
/// expansion with `note: expanded from macro 'X'` at the definition. `after` is the output
/// after the error's line, read up to the next error or warning.
fn macro_site(e: &mut BuildError, after: &[&str], paths: &PathMap) {
    let mut expansions: Vec<(String, Option<(String, u32)>)> = Vec::new();
    let mut definition: Option<(String, Option<(String, u32)>)> = None;
    for l in after.iter().take(40) {
        if [": error: ", ": fatal error: ", ": warning: "]
            .iter()
            .any(|m| l.contains(m))
        {
            break;
        }
        let Some((head, note)) = l.split_once(": note: ") else {
            continue;
        };
        let at = located(head, paths);
        if let Some(name) = macro_name(note, "in expansion of macro ") {
            expansions.push((name, at));
        } else if let Some(name) = macro_name(note, "expanded from macro ") {
            definition.get_or_insert((name, at));
        }
    }
    let defined = |name: &str, at: Option<(String, u32)>| match at {
        Some((file, line)) => format!(" (macro {name} defined at {file}:{line})"),
        None => format!(" (macro {name})"),
    };
    if let Some((name, _)) = expansions.first() {
        // gcc: the error is at the definition; the outermost expansion in the project is the
        // place that was edited.
        let Some((file, line)) = expansions.iter().rev().find_map(|(_, at)| at.clone()) else {
            return;
        };
        let here = e.file.clone().zip(e.line);
        e.message.push_str(&defined(name, here));
        e.file = Some(file);
        e.line = Some(line);
    } else if let Some((name, at)) = definition {
        e.message.push_str(&defined(&name, at));
    }
}

/// `X` from `in expansion of macro 'X'` (gcc's quotes, ASCII or typographic).
fn macro_name(note: &str, words: &str) -> Option<String> {
    let rest = note.trim().strip_prefix(words)?;
    let name = rest.trim_matches(|c| matches!(c, '\'' | '‘' | '’' | '`' | '"'));
    (!name.is_empty()).then(|| name.to_owned())
}

/// `FILE:LINE:COL` (or `FILE:LINE`) in the project, workspace-relative.
fn located(head: &str, paths: &PathMap) -> Option<(String, u32)> {
    let mut parts = head.rsplitn(3, ':');
    let (file, line) = match (parts.next(), parts.next(), parts.next()) {
        (Some(col), Some(l), Some(f)) if is_num(col) && is_num(l) => (f, l),
        (Some(l), Some(f), _) if is_num(l) => (f, l),
        _ => return None,
    };
    let rel = paths
        .relativize(file, None)
        .filter(|r| PathMap::is_project(r))?;
    Some((rel, line.parse().ok()?))
}

fn is_num(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn compiler_cmake_and_linker_errors() {
        let paths = PathMap::new(Path::new("/ws"));
        let out = "[1/4] Building CXX object CMakeFiles/t.dir/src/calc.cc.o
FAILED: CMakeFiles/t.dir/src/calc.cc.o
/usr/bin/c++ -c /ws/src/calc.cc
/ws/src/calc.cc: In function 'int add(int, int)':
/ws/src/calc.cc:4:12: error: 'c' was not declared in this scope
    4 |     return c + b;
      |            ^
In file included from /ws/tests/t.cc:1:
/ws/src/calc.h:2:1: fatal error: missing.h: No such file or directory
/usr/include/c++/12/bits/x.h:9:3: error: something in a system header
/ws/src/calc.cc:4:12: error: 'c' was not declared in this scope
ninja: build stopped: subcommand failed.
";
        let errs = errors(out, &paths);
        assert_eq!(errs.len(), 3, "{errs:#?}");
        assert_eq!(errs[0].file.as_deref(), Some("src/calc.cc"));
        assert_eq!(errs[0].line, Some(4));
        assert_eq!(errs[0].message, "'c' was not declared in this scope");
        assert_eq!(errs[1].file.as_deref(), Some("src/calc.h"));
        assert_eq!(errs[2].file, None);

        let cmake = "CMake Error at CMakeLists.txt:7 (add_executable):\n  Cannot find source file:\n\n    tests/nope.cc\n\n-- Generating done\n";
        let errs = errors(cmake, &PathMap::new(Path::new("/ws")));
        assert_eq!(errs[0].message, "Cannot find source file:");
        // Relative to the workspace: CMake prints paths from the source directory.
        assert_eq!(errs[0].file.as_deref(), Some("CMakeLists.txt"));
        assert_eq!(errs[0].line, Some(7));

        let ld = "/usr/bin/ld: CMakeFiles/t.dir/tests/t.cc.o: in function `Sum_Ok_Test::TestBody()':\nt.cc:(.text+0x1d): undefined reference to `add(int, int)'\ncollect2: error: ld returned 1 exit status\n";
        let errs = errors(ld, &paths);
        assert_eq!(errs[0].message, "undefined reference to `add(int, int)'");
        assert_eq!(errs[1].message, "ld returned 1 exit status");
        assert_eq!(errs[1].file, None);
    }

    #[test]
    fn a_macro_error_is_told_at_its_expansion_with_its_definition() {
        let paths = PathMap::new(Path::new("/tmp/me"));
        // gcc 12 on tests/fixtures/cpp/macro_error.
        let gcc = "[1/4] Building CXX object CMakeFiles/calc.dir/src/calc.cc.o
FAILED: CMakeFiles/calc.dir/src/calc.cc.o 
/usr/bin/c++  -I/tmp/me/src -std=gnu++17 -o CMakeFiles/calc.dir/src/calc.cc.o -c /tmp/me/src/calc.cc
In file included from /tmp/me/src/calc.cc:3:
/tmp/me/src/calc.cc: In function ‘int mul(int, int)’:
/tmp/me/src/calc.h:4:23: error: request for member ‘value’ in ‘a’, which is of non-class type ‘int’
    4 | #define TWICE(x) ((x).value * 2)
      |                       ^~~~~
/tmp/me/src/calc.cc:6:32: note: in expansion of macro ‘TWICE’
    6 | int mul(int a, int b) { return TWICE(a) / 2 * b; }
      |                                ^~~~~
[2/4] Building CXX object CMakeFiles/calc_test.dir/tests/calc_test.cc.o
ninja: build stopped: subcommand failed.
";
        let errs = errors(gcc, &paths);
        assert_eq!(errs.len(), 1, "{errs:#?}");
        assert_eq!(errs[0].file.as_deref(), Some("src/calc.cc"));
        assert_eq!(errs[0].line, Some(6));
        assert_eq!(
            errs[0].message,
            "request for member ‘value’ in ‘a’, which is of non-class type ‘int’ \
             (macro TWICE defined at src/calc.h:4)"
        );
        // clang's shape: the error at the expansion, the definition in a note.
        let clang = "/tmp/me/src/calc.cc:6:32: error: member reference base type 'int' is not a structure or union
int mul(int a, int b) { return TWICE(a) / 2 * b; }
                               ^~~~~~~~
/tmp/me/src/calc.h:4:23: note: expanded from macro 'TWICE'
#define TWICE(x) ((x).value * 2)
                  ~~~^~~~~~
1 error generated.
";
        let errs = errors(clang, &paths);
        assert_eq!(errs[0].file.as_deref(), Some("src/calc.cc"));
        assert_eq!(errs[0].line, Some(6));
        assert!(
            errs[0]
                .message
                .ends_with("(macro TWICE defined at src/calc.h:4)"),
            "{}",
            errs[0].message
        );
        // A note after the next error belongs to that one.
        let two = "/tmp/me/src/a.cc:1:1: error: first\n/tmp/me/src/b.h:2:1: error: second\n/tmp/me/src/b.cc:3:1: note: in expansion of macro 'M'\n";
        let errs = errors(two, &paths);
        assert_eq!(errs[0].message, "first");
        assert_eq!(errs[1].file.as_deref(), Some("src/b.cc"));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}") {
            let paths = PathMap::new(Path::new("/ws"));
            let _ = errors(&s, &paths);
            let _ = errors(&format!("CMake Error at {s}"), &paths);
            let _ = errors(&format!("{s}: error: {s}"), &paths);
        }
    }
}
