//! MSBuild's error lines, as `dotnet test` prints them when the build (or restore) fails:
//! `/src/Foo.cs(12,5): error CS1002: ; expected [/src/Foo.csproj]`, or without a location
//! `/src/Foo.csproj : error NU1101: Unable to find package X`. MSBuild repeats every error in
//! its summary; each is kept once.

use pith_model::BuildError;

use crate::{text, PathMap};

pub fn errors(output: &str, paths: &PathMap) -> Vec<BuildError> {
    let mut out: Vec<BuildError> = Vec::new();
    for line in output.lines() {
        if let Some(e) = error_line(line.trim(), paths) {
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

fn error_line(line: &str, paths: &PathMap) -> Option<BuildError> {
    let at = line.find(": error ").or_else(|| {
        // `error CS1002: ...` with nothing before it.
        line.starts_with("error ").then_some(0)
    })?;
    let (head, rest) = if at == 0 && line.starts_with("error ") {
        ("", &line["error ".len()..])
    } else {
        (line[..at].trim(), &line[at + ": error ".len()..])
    };
    // Test failures that MSBuild relays as errors (`error TESTERROR:`, the VSTest task's
    // MSB4181 "returned false") are not build errors: the build succeeded.
    if ["TESTERROR", "MSB4181", "run failed", "Tests failed"]
        .iter()
        .any(|p| rest.starts_with(p))
    {
        return None;
    }
    let (code, message) = match rest.split_once(": ") {
        Some((c, m)) if is_code(c) => (Some(c.to_owned()), m),
        _ => (None, rest),
    };
    // The project the error belongs to, appended in brackets.
    let message = match message.rfind(" [") {
        Some(i) if message.ends_with(']') => &message[..i],
        _ => message,
    };
    let (file, line_no) = location(head);
    let rel = file
        .map(|f| f.replace('\\', "/"))
        .filter(|f| f.starts_with('/'))
        .and_then(|f| paths.relativize(&f, None));
    Some(BuildError {
        line: rel.as_ref().and(line_no),
        file: rel,
        code,
        message: text::first_line(&paths.scrub(message)),
    })
}

/// `CS1002`, `MSB1009`, `NU1101`, `FS0039`: letters then digits.
fn is_code(s: &str) -> bool {
    let letters = s.chars().take_while(|c| c.is_ascii_uppercase()).count();
    letters > 0 && letters < s.len() && s[letters..].chars().all(|c| c.is_ascii_digit())
}

/// `path(12,5)` or `path(12,5,12,9)` → (path, 12); anything else has no line.
fn location(head: &str) -> (Option<&str>, Option<u32>) {
    if head.ends_with(')') {
        if let Some(open) = head.rfind('(') {
            let inside = &head[open + 1..head.len() - 1];
            if let Some(Ok(line)) = inside.split(',').next().map(|l| l.trim().parse::<u32>()) {
                return (Some(&head[..open]), Some(line));
            }
        }
    }
    ((!head.is_empty()).then_some(head), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn compiler_and_restore_errors() {
        let paths = PathMap::new(Path::new("/ws"));
        let out = "  Determining projects to restore...\n/ws/src/Calc.cs(12,5): error CS1002: ; expected [/ws/src/Calc.csproj]\n/ws/tests/T.csproj : error NU1101: Unable to find package Nope. No packages exist with this id in source(s): nuget.org [/ws/tests/T.csproj]\n/ws/src/Calc.cs(3,1): warning CS0168: unused [/ws/src/Calc.csproj]\nBuild FAILED.\n/ws/src/Calc.cs(12,5): error CS1002: ; expected [/ws/src/Calc.csproj]\nMSBUILD : error MSB1009: Project file does not exist.\n";
        let errs = errors(out, &paths);
        assert_eq!(errs.len(), 3, "{errs:#?}");
        assert_eq!(
            errs[0],
            BuildError {
                file: Some("src/Calc.cs".into()),
                line: Some(12),
                code: Some("CS1002".into()),
                message: "; expected".into()
            }
        );
        assert_eq!(errs[1].file, Some("tests/T.csproj".into()));
        assert_eq!(errs[1].line, None);
        assert_eq!(errs[1].code.as_deref(), Some("NU1101"));
        assert_eq!(errs[2].code.as_deref(), Some("MSB1009"));
        assert_eq!(errs[2].file, None);
        // A path from elsewhere is not located.
        let win = errors(
            "C:\\b\\x.cs(1,1): error CS0103: The name 'y' does not exist",
            &paths,
        );
        assert_eq!(win[0].file, None);
        assert!(errors("all fine\nPassed!", &paths).is_empty());
        let relayed = "/ws/t/T.cs(9): error TESTERROR: \n      T.C.M (3ms): Error Message: boom [/ws/t/T.csproj]\n/usr/share/dotnet/sdk/8.0.100/Microsoft.TestPlatform.targets(37,5): error MSB4181: The \"VSTestTask\" task returned false but did not log an error.";
        assert!(errors(relayed, &paths).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,300}") {
            let paths = PathMap::new(Path::new("/ws"));
            let _ = errors(&s, &paths);
            let _ = errors(&format!("{s}: error {s}"), &paths);
            let _ = errors(&format!("x({s}): error CS1: {s} [{s}]"), &paths);
        }
    }
}
