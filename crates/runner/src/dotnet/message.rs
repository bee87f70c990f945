//! One useful line from a .NET test failure message, and the failure's kind for clustering.
//! Frameworks put the verdict on the first line and the values on the next ones: xUnit's
//! `Assert.Equal() Failure` / `Expected: 3` / `Actual: 2`, NUnit's `Expected: True` /
//! `But was: False`, MSTest's `Test method X threw exception:` / `Type: message`. The value
//! lines are folded in, since the first line alone does not say what went wrong.

use crate::text;

/// The failure's one line, whitespace runs collapsed, cut at [`text::MESSAGE_CHARS`].
pub fn fold(raw: &str) -> String {
    let lines: Vec<String> = raw
        .lines()
        .map(collapse)
        .filter(|l| !l.is_empty())
        .take(12)
        .collect();
    let Some(first) = lines.first() else {
        return String::new();
    };
    let is_value = |l: &str| {
        ["Expected:", "Actual:", "But was:"]
            .iter()
            .any(|p| l.starts_with(p))
    };
    let values: Vec<&str> = lines[1..]
        .iter()
        .map(String::as_str)
        .take_while(|l| is_value(l))
        .collect();
    let line = if first.ends_with(':') && lines.len() > 1 {
        format!("{first} {}", lines[1])
    } else if values.is_empty() {
        first.clone()
    } else if is_value(first) {
        // NUnit: the first line is itself a value.
        std::iter::once(first.as_str())
            .chain(values)
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        format!("{first} ({})", values.join(", "))
    };
    text::cut_chars(&line, text::MESSAGE_CHARS).into_owned()
}

fn collapse(l: &str) -> String {
    l.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The exception type named in a message (`System.DivideByZeroException : ...`), else the
/// assertion (`Assert.Equal`), else `None`.
pub fn kind(folded: &str) -> Option<String> {
    let exception = folded.split_whitespace().find_map(|tok| {
        let t = tok.trim_end_matches(':');
        let ident = !t.is_empty()
            && t.chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '_' || c == '`');
        (ident && t.ends_with("Exception") && t.len() > "Exception".len()).then(|| t.to_owned())
    });
    if exception.is_some() {
        return exception;
    }
    if let Some(rest) = folded.strip_prefix("Assert.") {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            return Some(format!("Assert.{name}"));
        }
    }
    folded.starts_with("Expected:").then(|| "Assert".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_lines_are_folded_in() {
        assert_eq!(
            fold("Assert.Equal() Failure\r\nExpected: 3\r\nActual:   2"),
            "Assert.Equal() Failure (Expected: 3, Actual: 2)"
        );
        assert_eq!(
            fold("Assert.Null() Failure: Value is not null\nExpected: null\nActual:   Fixture { }"),
            "Assert.Null() Failure: Value is not null (Expected: null, Actual: Fixture { })"
        );
        assert_eq!(
            fold("  Expected: True\r\n  But was:  False\r\n"),
            "Expected: True, But was: False"
        );
        assert_eq!(
            fold("\n   Test method A.B.C threw exception:\n   Should.Core.Exceptions.NotEqualException: Assert.NotEqual() Failure\n"),
            "Test method A.B.C threw exception: Should.Core.Exceptions.NotEqualException: Assert.NotEqual() Failure"
        );
        assert_eq!(
            fold("System.Exception : Test\nmore"),
            "System.Exception : Test"
        );
        assert_eq!(fold(""), "");
    }

    #[test]
    fn kinds_for_clustering() {
        assert_eq!(
            kind("System.DivideByZeroException : Attempted to divide by zero.").as_deref(),
            Some("System.DivideByZeroException")
        );
        assert_eq!(
            kind("Test method A threw exception: Should.Core.Exceptions.NotEqualException: x")
                .as_deref(),
            Some("Should.Core.Exceptions.NotEqualException")
        );
        assert_eq!(
            kind("Assert.Equal() Failure (Expected: 3, Actual: 2)").as_deref(),
            Some("Assert.Equal")
        );
        assert_eq!(
            kind("Expected: True, But was: False").as_deref(),
            Some("Assert")
        );
        assert_eq!(kind("something odd"), None);
    }
}
