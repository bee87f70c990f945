//! A GoogleTest failure text as a model failure. gtest writes one per failed assertion:
//! the location (`/src/t.cc:12`, `/src/t.cc:12: Failure` on the console, `unknown file` for an
//! exception), the assertion's words over several lines, the test author's `<<` message, and
//! the `SCOPED_TRACE` stack (`Google Test trace:` then `file:line: message`, innermost first).
//! The location is the only frame gtest gives; scoped traces add the callers that set one.

use pith_model::{Failure, Frame};

use crate::{text, PathMap};

/// One failure text split into its parts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub location: Option<(String, u32)>,
    /// The assertion's lines, the author's message included, untrimmed.
    pub body: Vec<String>,
    /// `SCOPED_TRACE` locations, innermost first (as printed).
    pub traces: Vec<(String, u32)>,
}

pub fn parse(text: &str) -> Parsed {
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r'));
    let mut parsed = Parsed::default();
    let Some(first) = lines.next() else {
        return parsed;
    };
    let head = first
        .strip_suffix(": Failure")
        .or_else(|| first.strip_suffix(": Skipped"))
        .unwrap_or(first);
    parsed.location = file_line(head);
    if parsed.location.is_none() && head != "unknown file" {
        parsed.body.push(first.to_owned());
    }
    let mut in_trace = false;
    for l in lines {
        if l == "Google Test trace:" {
            in_trace = true;
        } else if in_trace {
            let loc = l.split_once(": ").map_or(l, |(loc, _)| loc);
            if let Some(fl) = file_line(loc) {
                parsed.traces.push(fl);
            }
        } else {
            parsed.body.push(l.to_owned());
        }
    }
    parsed
}

/// `path:12` → (path, 12).
pub fn file_line(s: &str) -> Option<(String, u32)> {
    let (file, line) = s.trim().rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    (!file.is_empty() && line > 0).then(|| (file.to_owned(), line))
}

/// The assertion in one line. Where gtest's first line says nothing alone
/// (`Expected equality of these values:`, `Value of: x`, `Failed`), the lines after it are
/// folded in: `Expected equality: add(2, 2) == 5 (4 vs 5)`.
pub fn message(body: &[String]) -> String {
    let lines: Vec<&str> = body
        .iter()
        .map(|l| l.as_str())
        .skip_while(|l| l.trim().is_empty())
        .collect();
    let Some(first) = lines.first().map(|l| l.trim()) else {
        return String::new();
    };
    let rest = &lines[1..];
    let folded = if first == "Expected equality of these values:" {
        equality(rest)
    } else if first == "Failed" {
        // `FAIL() << why`: the why is the message.
        rest.iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .unwrap_or("Failed")
            .to_owned()
    } else if first.starts_with("Value of:") || first.ends_with(':') {
        let more: Vec<&str> = rest
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .take(3)
            .collect();
        if more.is_empty() {
            first.to_owned()
        } else {
            format!("{first} ({})", more.join(", "))
        }
    } else {
        first.to_owned()
    };
    text::cut_chars(&folded, text::MESSAGE_CHARS).into_owned()
}

/// `EXPECT_EQ`'s text: two expressions at two spaces, each with an optional `Which is:` value
/// at four, then the author's message at none.
fn equality(rest: &[&str]) -> String {
    let mut sides: Vec<(String, Option<String>)> = Vec::new();
    let mut extra: Vec<&str> = Vec::new();
    for l in rest {
        if let Some(v) = l.strip_prefix("    Which is: ") {
            if let Some(last) = sides.last_mut() {
                last.1 = Some(v.trim().to_owned());
            }
        } else if l.starts_with("    ") {
            // A multi-line value or a diff: the summary has what matters.
        } else if let Some(e) = l.strip_prefix("  ").filter(|_| sides.len() < 2) {
            sides.push((e.trim().to_owned(), None));
        } else if l.trim() == "With diff:" {
            break;
        } else if !l.trim().is_empty() {
            extra.push(l.trim());
        }
    }
    let mut out = match sides.as_slice() {
        [(a, va), (b, vb)] => {
            let mut s = format!("Expected equality: {a} == {b}");
            if va.is_some() || vb.is_some() {
                let v = |e: &String, v: &Option<String>| v.clone().unwrap_or_else(|| e.clone());
                s.push_str(&format!(" ({} vs {})", v(a, va), v(b, vb)));
            }
            s
        }
        _ => "Expected equality of these values".to_owned(),
    };
    if let Some(msg) = extra.first() {
        out.push_str(": ");
        out.push_str(msg);
    }
    out
}

/// A model failure from a test's failure texts (the first one decides), frames outermost
/// first: the scoped traces from the outermost, then the assertion.
pub fn failure(test: String, texts: &[String], paths: &PathMap) -> Failure {
    let Some(first) = texts.first() else {
        return Failure {
            test,
            message: "failed".to_owned(),
            ..Failure::default()
        };
    };
    let p = parse(first);
    let mut frames: Vec<Frame> = p
        .traces
        .iter()
        .rev()
        .chain(p.location.iter())
        .map(|(file, line)| paths.frame(file, *line, None))
        .collect();
    paths.fill_code(&mut frames);
    let mut msg = paths.scrub(&message(&p.body));
    if msg.is_empty() {
        msg = "failed".to_owned();
    }
    let mut f = Failure {
        test,
        message: msg,
        // Located assertions group by where they broke; exceptions (no location) by message.
        kind: p.location.is_some().then(|| "assertion".to_owned()),
        frames,
        ..Failure::default()
    };
    crate::detail::fill(&mut f, paths, &whole(&p, &texts[1..]));
    f
}

/// A test's failure texts whole for `Failure::detail`: the first assertion's lines as gtest
/// wrote them (values, `With diff:`, the author's message), then each later failed assertion
/// with its location.
fn whole(first: &Parsed, later: &[String]) -> String {
    let mut out = first.body.join("\n");
    for t in later {
        let p = parse(t);
        out.push_str("\n\n");
        if let Some((file, line)) = &p.location {
            out.push_str(&format!("{file}:{line}: Failure\n"));
        }
        out.push_str(&p.body.join("\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(s: &str) -> Vec<String> {
        s.lines().map(str::to_owned).collect()
    }

    #[test]
    fn the_detail_is_every_assertion_whole() {
        let paths = PathMap::new(std::path::Path::new("/ws"));
        let texts = [
            "/ws/t.cc:12\nExpected equality of these values:\n  s\n    Which is: \"a\\nb\"\n  t\n    Which is: \"c\"\nWith diff:\n@@ -1,2 +1 @@\n-a\n-b\n+c".to_owned(),
            "/ws/t.cc:13\nValue of: ok\n  Actual: false\nExpected: true".to_owned(),
        ];
        let f = failure("T.t".into(), &texts, &paths);
        assert_eq!(f.message, "Expected equality: s == t (\"a\\nb\" vs \"c\")");
        assert_eq!(
            f.detail.as_deref(),
            Some("Expected equality of these values:\n  s\n    Which is: \"a\\nb\"\n  t\n    Which is: \"c\"\nWith diff:\n@@ -1,2 +1 @@\n-a\n-b\n+c\n\nt.cc:13: Failure\nValue of: ok\n  Actual: false\nExpected: true")
        );
    }

    #[test]
    fn equality_is_folded_into_one_line() {
        assert_eq!(
            message(&body("Expected equality of these values:\n  add(n, n)\n    Which is: 5\n  2 * n\n    Which is: 4\nextra context")),
            "Expected equality: add(n, n) == 2 * n (5 vs 4): extra context"
        );
        assert_eq!(
            message(&body("Expected equality of these values:\n  1\n  2")),
            "Expected equality: 1 == 2"
        );
        assert_eq!(
            message(&body("Expected equality of these values:\n  s\n    Which is: \"a\\nb\"\n  t\n    Which is: \"c\"\nWith diff:\n@@ -1,2 +1 @@\n-a\n-b\n+c")),
            "Expected equality: s == t (\"a\\nb\" vs \"c\")"
        );
        assert_eq!(
            message(&body("Value of: b\n  Actual: false\nExpected: true")),
            "Value of: b (Actual: false, Expected: true)"
        );
        assert_eq!(message(&body("Failed\ndb down")), "db down");
        assert_eq!(
            message(&body("Expected: (a) != (b), actual: 1 vs 1\nctx")),
            "Expected: (a) != (b), actual: 1 vs 1"
        );
        assert_eq!(message(&[]), "");
    }

    #[test]
    fn json_and_console_texts_give_the_same_parts() {
        let json = "/ws/t.cc:3\nExpected equality of these values:\n  1\n  2\nGoogle Test trace:\n/ws/t.cc:9: from Bad\n/ws/t.cc:20: outer";
        let console = "/ws/t.cc:3: Failure\nExpected equality of these values:\n  1\n  2\nGoogle Test trace:\n/ws/t.cc:9: from Bad\n/ws/t.cc:20: outer";
        let a = parse(json);
        assert_eq!(a, parse(console));
        assert_eq!(a.location, Some(("/ws/t.cc".to_owned(), 3)));
        assert_eq!(
            a.traces,
            [("/ws/t.cc".to_owned(), 9), ("/ws/t.cc".to_owned(), 20)]
        );
        let exc =
            parse("unknown file\nC++ exception with description \"boom\" thrown in the test body.");
        assert_eq!(exc.location, None);
        assert_eq!(
            message(&exc.body),
            "C++ exception with description \"boom\" thrown in the test body."
        );
    }

    #[test]
    fn frames_run_from_the_outermost_trace_to_the_assertion() {
        let paths = PathMap::new(std::path::Path::new("/ws"));
        let f = failure(
            "Sum.Bad".into(),
            &["/ws/src/calc.cc:3\nFailed\nboom\nGoogle Test trace:\n/ws/tests/t.cc:9: inner\n/ws/tests/t.cc:20: outer".into()],
            &paths,
        );
        let locs: Vec<String> = f.frames.iter().map(|f| f.location()).collect();
        assert_eq!(locs, ["tests/t.cc:20", "tests/t.cc:9", "src/calc.cc:3"]);
        assert_eq!(f.message, "boom");
        assert_eq!(f.kind.as_deref(), Some("assertion"));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}") {
            let paths = PathMap::new(std::path::Path::new("/ws"));
            let _ = failure("A.B".into(), std::slice::from_ref(&s), &paths);
            let _ = failure("A.B".into(), &[format!("/ws/a.cc:1\nExpected equality of these values:\n{s}")], &paths);
        }
    }
}
