//! Compiler errors in a JVM build's console output, whichever tool printed them:
//! maven-compiler-plugin (`[ERROR] /abs/Foo.java:[12,5] cannot find symbol` with `symbol:` and
//! `location:` lines after it), javac as Gradle runs it (`/abs/Foo.java:12: error: ...`), and
//! kotlinc (`e: file:///abs/Foo.kt:12:5 msg`, `e: /abs/Foo.kt: (12, 5): msg`, or the same after
//! Maven's `[ERROR] `). Each error is kept once (Maven prints the list twice).

use pith_model::BuildError;

use crate::paths::PathMap;
use crate::text;

const SOURCE_EXTS: &[&str] = &[".java", ".kt", ".kts", ".groovy", ".scala"];

/// The compiler errors in `output`, paths workspace-relative, in order, without repeats.
pub fn parse(output: &str, paths: &PathMap) -> Vec<BuildError> {
    let owned: Vec<String> = output
        .lines()
        .map(|l| text::strip_ansi(l).into_owned())
        .collect();
    let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
    let mut out: Vec<BuildError> = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        let line = strip_level(raw);
        let Some((file, lineno, mut message)) = locate(line) else {
            continue;
        };
        // javac's `cannot find symbol` is useless without the `symbol:` line after it.
        if message.ends_with("cannot find symbol") || message.ends_with("cannot access") {
            if let Some(sym) = lines[i + 1..]
                .iter()
                .take(4)
                .map(|l| strip_level(l).trim())
                .find_map(|l| l.strip_prefix("symbol:"))
            {
                message = format!(
                    "{message}: {}",
                    sym.split_whitespace().collect::<Vec<_>>().join(" ")
                );
            }
        }
        let file = file.strip_prefix("file://").unwrap_or(file);
        let rel = paths.relativize(file, None);
        let err = BuildError {
            file: Some(rel.unwrap_or_else(|| file.to_owned())),
            line: Some(lineno),
            code: None,
            message: text::first_line(&paths.scrub(&message)),
        };
        if !out.contains(&err) {
            out.push(err);
        }
    }
    out
}

/// Removes Maven's `[ERROR] ` and kotlinc's `e: ` level markers.
fn strip_level(line: &str) -> &str {
    let l = line.trim_start();
    l.strip_prefix("[ERROR]")
        .map(str::trim_start)
        .or_else(|| l.strip_prefix("e: "))
        .unwrap_or(l)
}

/// `(file, line, message)` of one diagnostic line, if it is one.
fn locate(line: &str) -> Option<(&str, u32, String)> {
    let ext_end = SOURCE_EXTS
        .iter()
        .filter_map(|ext| line.find(&format!("{ext}:")).map(|i| i + ext.len()))
        .min()?;
    let file = line[..ext_end].trim();
    if file.is_empty() || file.contains(' ') && !file.starts_with('/') {
        return None;
    }
    let rest = &line[ext_end + 1..];
    // Maven: `:[12,5] msg`
    if let Some(r) = rest.strip_prefix('[') {
        let (pos, msg) = r.split_once(']')?;
        let l = pos.split(',').next()?.trim().parse().ok()?;
        return Some((file, l, msg.trim().to_owned()));
    }
    // kotlinc 1.x: `: (12, 5): msg`
    if let Some(r) = rest.trim_start().strip_prefix('(') {
        let (pos, msg) = r.split_once(')')?;
        let l = pos.split(',').next()?.trim().parse().ok()?;
        return Some((file, l, msg.trim_start_matches(':').trim().to_owned()));
    }
    // javac: `12: error: msg`; kotlinc 2.x: `12:5 msg`
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let l: u32 = digits.parse().ok()?;
    let mut msg = &rest[digits.len()..];
    if let Some(m) = msg.strip_prefix(':') {
        let col: String = m.chars().take_while(char::is_ascii_digit).collect();
        msg = &m[col.len()..];
    }
    let msg = msg.trim();
    let msg = match msg.strip_prefix("error:") {
        Some(m) => m.trim(),
        None if msg.starts_with("warning:") => return None,
        None => msg,
    };
    if msg.is_empty() {
        return None;
    }
    Some((file, l, msg.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Maven 3.8.7, maven-compiler-plugin 3.14.0.
    const MAVEN: &str = "\u{1b}[0m\u{1b}[0m[ERROR] COMPILATION ERROR : 
[ERROR] /ws/src/main/java/demo/Calc.java:[5,20] cannot find symbol
  symbol:   variable c
  location: class demo.Calc
[ERROR] /ws/src/main/java/demo/Other.java:[1,46] incompatible types: java.lang.String cannot be converted to int
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.14.0:compile (default-compile) on project green: Compilation failure: Compilation failure: 
[ERROR] /ws/src/main/java/demo/Calc.java:[5,20] cannot find symbol
[ERROR]   symbol:   variable c
[ERROR]   location: class demo.Calc
[ERROR] /ws/src/main/java/demo/Other.java:[1,46] incompatible types: java.lang.String cannot be converted to int
[ERROR] -> [Help 1]
";

    #[test]
    fn maven_compiler_errors_once_each() {
        let errs = parse(MAVEN, &PathMap::new(Path::new("/ws")));
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert_eq!(
            errs[0].file.as_deref(),
            Some("src/main/java/demo/Calc.java")
        );
        assert_eq!(errs[0].line, Some(5));
        assert_eq!(errs[0].message, "cannot find symbol: variable c");
        assert_eq!(errs[1].line, Some(1));
        assert!(errs[1].message.starts_with("incompatible types"));
    }

    #[test]
    fn gradle_javac_and_kotlin_shapes() {
        let paths = PathMap::new(Path::new("/ws"));
        let javac = "/ws/app/src/main/java/demo/Calc.java:5: error: cannot find symbol\n        return a + c;\n                   ^\n  symbol:   variable c\n  location: class Calc\n1 error\n/ws/x/Y.java:3: warning: [deprecation] old\n";
        let e = parse(javac, &paths);
        assert_eq!(e.len(), 1);
        assert_eq!(
            e[0].file.as_deref(),
            Some("app/src/main/java/demo/Calc.java")
        );
        assert_eq!(e[0].message, "cannot find symbol: variable c");
        let kt2 = parse(
            "e: file:///ws/src/main/kotlin/A.kt:12:5 Unresolved reference 'c'.\n",
            &paths,
        );
        assert_eq!(kt2[0].file.as_deref(), Some("src/main/kotlin/A.kt"));
        assert_eq!(
            (kt2[0].line, kt2[0].message.as_str()),
            (Some(12), "Unresolved reference 'c'.")
        );
        let kt1 = parse(
            "e: /ws/src/main/kotlin/A.kt: (7, 3): Unresolved reference: c\n",
            &paths,
        );
        assert_eq!(
            (kt1[0].line, kt1[0].message.as_str()),
            (Some(7), "Unresolved reference: c")
        );
        assert!(parse("[INFO] Building demo.java: fine\nTests run: 3", &paths).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}") {
            let _ = parse(&s, &PathMap::new(Path::new("/ws")));
            let _ = parse(&format!("[ERROR] /ws/A.java:{s}"), &PathMap::new(Path::new("/ws")));
        }
    }
}
