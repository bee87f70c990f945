//! Why a CMake build failed: compiler errors (`/src/x.cc:12:5: error: ...`, gcc and clang
//! alike, `fatal error:` included), CMake's own (`CMake Error at CMakeLists.txt:5 (add_executable):`
//! and the indented lines after it), and the linker's (`undefined reference to ...`), each kept
//! once. Paths outside the workspace (system headers, the build directory) keep no location.

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
                .and_then(|(loc, _)| super::failure::file_line(loc))
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
        } else if let Some(e) = compiler_error(line, paths) {
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
