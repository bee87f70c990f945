//! Where the two operands of a failed equality assertion first differ, said in a line: the
//! position (an index/key path into a printed collection, or a character offset) and a short
//! window of each side around it. Long operands cut after their first characters hide the
//! difference; every adapter that sees both operands (Rust `assert_eq!`, pytest's assertion
//! rewriting, jest/vitest `expect`) says it the same way through this module.

/// Operands this long together (in characters) are shown by their first difference rather than
/// whole.
pub const LONG_OPERANDS: usize = 80;
/// Characters of context a window keeps before the first difference...
const BEFORE: usize = 12;
/// ...and from it on.
const AFTER: usize = 16;
/// Components of a path kept (the outermost), so a deep structure does not make a long line.
const PATH_DEPTH: usize = 4;

/// `differ at [17]: left …, 42, 43, 44] right …, 42, 44, 45]` when `left` and `right` are
/// long together ([`LONG_OPERANDS`]) and differ; `None` otherwise.
pub fn first_difference(left: &str, right: &str) -> Option<String> {
    first_difference_as(left, right, ("left", "right"))
}

/// [`first_difference`] with the runner's own names for the two sides (jest's `Expected` and
/// `Received`).
pub fn first_difference_as(left: &str, right: &str, names: (&str, &str)) -> Option<String> {
    if left.chars().count() + right.chars().count() <= LONG_OPERANDS {
        return None;
    }
    let at = differ_at(left, right)?;
    let place = match path(left, at) {
        Some(p) => p,
        None => format!("offset {at}"),
    };
    Some(format!(
        "differ at {place}: {} {} {} {}",
        names.0,
        window(left, at),
        names.1,
        window(right, at)
    ))
}

/// The character index of the first difference; `None` when the two are equal.
pub fn differ_at(left: &str, right: &str) -> Option<usize> {
    let mut l = left.chars();
    let mut r = right.chars();
    let mut i = 0;
    loop {
        match (l.next(), r.next()) {
            (None, None) => return None,
            (a, b) if a != b => return Some(i),
            _ => i += 1,
        }
    }
}

/// The characters of `s` from [`BEFORE`] before `at` to [`AFTER`] after it, `…` marking a cut;
/// `<end>` when `s` ends at `at` (one side is a prefix of the other).
pub fn window(s: &str, at: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    let (start, end) = window_range(chars.len(), at);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if at >= chars.len() {
        out.push_str("<end>");
    } else if end < chars.len() {
        out.push('…');
    }
    out
}

/// The characters `start..end` of a `len`-character operand a window around `at` shows.
fn window_range(len: usize, at: usize) -> (usize, usize) {
    (at.saturating_sub(BEFORE).min(len), (at + AFTER).min(len))
}

/// The index/key path to the character at `at` in a printed collection (`[3]`, `[3].name`,
/// `.items[2]`), reading brackets and quoted strings; `None` when `at` is not inside one.
fn path(s: &str, at: usize) -> Option<String> {
    struct Level {
        list: bool,
        index: usize,
        key: String,
        /// The key of the current entry is being read (a map or struct, before `:`/`=`).
        in_key: bool,
    }
    let mut levels: Vec<Level> = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.chars().enumerate() {
        if i == at {
            break;
        }
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            if let Some(l) = levels.last_mut().filter(|l| l.in_key) {
                l.key.push(c);
            }
            continue;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                if let Some(l) = levels.last_mut().filter(|l| l.in_key) {
                    l.key.push(c);
                }
            }
            '[' | '(' => levels.push(Level {
                list: true,
                index: 0,
                key: String::new(),
                in_key: false,
            }),
            '{' => levels.push(Level {
                list: false,
                index: 0,
                key: String::new(),
                in_key: true,
            }),
            ']' | ')' | '}' => {
                levels.pop();
            }
            ',' => {
                if let Some(l) = levels.last_mut() {
                    l.index += 1;
                    l.key.clear();
                    l.in_key = !l.list;
                }
            }
            ':' | '=' => {
                if let Some(l) = levels.last_mut().filter(|l| l.in_key) {
                    l.in_key = false;
                }
            }
            c => {
                if let Some(l) = levels.last_mut().filter(|l| l.in_key) {
                    l.key.push(c);
                }
            }
        }
    }
    if levels.is_empty() {
        return None;
    }
    let mut out = String::new();
    for l in levels.iter().take(PATH_DEPTH) {
        if l.list {
            out.push_str(&format!("[{}]", l.index));
        } else {
            let key = l.key.trim().trim_end_matches("=>").trim();
            if key.is_empty() || l.in_key {
                // Inside a key, or a map printed without keys: its entry's index.
                out.push_str(&format!("{{{}}}", l.index));
            } else {
                out.push('.');
                out.extend(key.chars().take(24));
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vec_text(v: &[u32]) -> String {
        format!("{v:?}")
    }

    #[test]
    fn a_list_differs_at_an_index_with_a_window_of_each_side() {
        let left: Vec<u32> = (0..40).collect();
        let mut right = left.clone();
        right[17] = 99;
        let line = first_difference(&vec_text(&left), &vec_text(&right)).unwrap();
        assert_eq!(line, "differ at [17]: left …14, 15, 16, 17, 18, 19, 20, … right …14, 15, 16, 99, 18, 19, 20, …");
    }

    #[test]
    fn a_struct_differs_at_a_key_and_a_string_at_an_offset() {
        let left = r#"Config { name: "server", ports: [80, 443, 8080], tags: {"env": "prod", "tier": "web"} }"#;
        let right = r#"Config { name: "server", ports: [80, 443, 8080], tags: {"env": "prod", "tier": "db"} }"#;
        let line = first_difference(left, right).unwrap();
        assert!(
            line.starts_with(r#"differ at .tags."tier": left "#),
            "{line}"
        );
        let a = "a".repeat(60) + "xyz";
        let b = "a".repeat(60) + "xYz";
        assert_eq!(
            first_difference(&a, &b).unwrap(),
            "differ at offset 61: left …aaaaaaaaaaaxyz right …aaaaaaaaaaaxYz"
        );
    }

    #[test]
    fn a_prefix_ends_where_the_other_goes_on() {
        let a = "[".to_owned() + &"1, ".repeat(30) + "1]";
        let b = "[".to_owned() + &"1, ".repeat(30) + "1, 2]";
        let line = first_difference(&a, &b).unwrap();
        assert_eq!(
            line,
            "differ at [30]: left …, 1, 1, 1, 1] right …, 1, 1, 1, 1, 2]"
        );
        let line = first_difference(&a[..a.len() - 1], &b).unwrap();
        assert!(line.contains("<end>"), "{line}");
    }

    #[test]
    fn short_or_equal_operands_say_nothing() {
        assert_eq!(first_difference("[1, 2]", "[1, 3]"), None);
        let long = "x".repeat(100);
        assert_eq!(first_difference(&long, &long), None);
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_the_window_holds_the_difference(
            common in "(?s).{0,120}", a in "(?s).{0,40}", b in "(?s).{0,40}"
        ) {
            let left = common.clone() + &a;
            let right = common.clone() + &b;
            let line = first_difference(&left, &right);
            match differ_at(&left, &right) {
                None => proptest::prop_assert!(line.is_none()),
                Some(at) => {
                    let l: Vec<char> = left.chars().collect();
                    let r: Vec<char> = right.chars().collect();
                    proptest::prop_assert!(l.get(at) != r.get(at));
                    proptest::prop_assert!(l[..at.min(l.len())] == r[..at.min(r.len())]);
                    for (s, chars) in [(&left, &l), (&right, &r)] {
                        let (start, end) = window_range(chars.len(), at);
                        // The window holds the differing character, or the operand's end.
                        proptest::prop_assert!(start <= at && (at < end || at >= chars.len()));
                        let w = window(s, at);
                        let text: String = chars[start..end].iter().collect();
                        let expected = format!(
                            "{}{text}{}",
                            if start > 0 { "…" } else { "" },
                            if at >= chars.len() { "<end>" } else if end < chars.len() { "…" } else { "" }
                        );
                        proptest::prop_assert_eq!(w, expected);
                    }
                    if left.chars().count() + right.chars().count() > LONG_OPERANDS {
                        proptest::prop_assert!(line.is_some());
                    }
                }
            }
        }
    }
}
