//! The tokenizer that finds a source's imports: strings, templates, comments and regular
//! expressions told apart in one pass over the bytes, so an import written inside a string or
//! a comment is not taken for one; resolving what it finds is the module's.

/// Mocking calls whose literal argument names a module the test depends on.
const MOCKS: &[&str] = &[
    "mock",
    "doMock",
    "unmock",
    "requireActual",
    "requireMock",
    "importActual",
    "importMock",
    "createMockFromModule",
    "setMock",
];

/// A JavaScript token, as far as finding imports needs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Name(&'a str),
    /// A string's or template's text, and whether it is a literal (a template with a
    /// substitution is not).
    Str(&'a str, bool),
    Num,
    Punct(u8),
}

/// The module specifiers a source imports literally, whether it imports by a computed name
/// (`require(x)`, `import(x)`), and its other literal strings that read as relative paths.
pub(super) fn scan(src: &str) -> (Vec<String>, bool, Vec<&str>) {
    let t = tokens(src);
    let mut specs = Vec::new();
    let mut dynamic = false;
    let at = |k: usize| t.get(k).copied();
    let lit = |k: usize| match at(k) {
        Some(Tok::Str(s, true)) => Some(s),
        _ => None,
    };
    let paths = t
        .iter()
        .filter_map(|x| match x {
            Tok::Str(s, true) if s.starts_with("./") || s.starts_with("../") => Some(*s),
            _ => None,
        })
        .collect();
    for k in 0..t.len() {
        let after_dot = k > 0 && t[k - 1] == Tok::Punct(b'.');
        match t[k] {
            Tok::Name("import") if !after_dot => match at(k + 1) {
                Some(Tok::Str(s, true)) => specs.push(s.to_owned()),
                Some(Tok::Punct(b'(')) => call_arg(&t, k + 2, &mut specs, &mut dynamic),
                Some(Tok::Name(_) | Tok::Punct(b'{' | b'*')) => specs.extend(from_clause(&t, k)),
                _ => {}
            },
            Tok::Name("export") if !after_dot => {
                if matches!(at(k + 1), Some(Tok::Punct(b'{' | b'*') | Tok::Name("type"))) {
                    specs.extend(from_clause(&t, k));
                }
            }
            Tok::Name("require")
                if !after_dot
                    && at(k + 1) == Some(Tok::Punct(b'('))
                    && (k == 0 || t[k - 1] != Tok::Name("function")) =>
            {
                call_arg(&t, k + 2, &mut specs, &mut dynamic);
            }
            Tok::Name("jest" | "vi")
                if at(k + 1) == Some(Tok::Punct(b'.'))
                    && at(k + 3) == Some(Tok::Punct(b'('))
                    && matches!(at(k + 2), Some(Tok::Name(m)) if MOCKS.contains(&m)) =>
            {
                specs.extend(lit(k + 4).map(str::to_owned));
            }
            _ => {}
        }
    }
    (specs, dynamic, paths)
}

/// The argument of `require(` / `import(` starting at token `k`: a literal specifier, or a
/// computed one (dynamic).
fn call_arg(t: &[Tok], k: usize, specs: &mut Vec<String>, dynamic: &mut bool) {
    match (t.get(k), t.get(k + 1)) {
        (Some(Tok::Str(s, true)), Some(Tok::Punct(b')' | b','))) => specs.push((*s).to_owned()),
        (Some(Tok::Punct(b')')), _) => {}
        _ => *dynamic = true,
    }
}

/// The `from '…'` ending an import or export clause that starts at token `k`, if the clause
/// has one before its statement ends.
fn from_clause<'a>(t: &[Tok<'a>], k: usize) -> Option<String> {
    let mut j = k + 1;
    let mut depth = 0usize;
    while j < t.len() && j < k + 2000 {
        match t[j] {
            Tok::Punct(b'{') => depth += 1,
            Tok::Punct(b'}') => depth = depth.saturating_sub(1),
            Tok::Name("from") if depth == 0 => {
                return match t.get(j + 1) {
                    Some(Tok::Str(s, true)) => Some((*s).to_owned()),
                    _ => None,
                };
            }
            Tok::Punct(b';' | b'=' | b'(') | Tok::Str(..) if depth == 0 => return None,
            Tok::Name("import" | "export") => return None,
            _ => {}
        }
        j += 1;
    }
    None
}

/// Keywords after which a `/` starts a regular expression, not a division.
const BEFORE_REGEX: &[&str] = &[
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "instanceof",
    "new",
    "delete",
    "void",
    "throw",
    "yield",
    "await",
    "of",
];

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The tokens of a JavaScript or TypeScript source (JSX text reads as loose punctuation).
/// Never fails: an unterminated string ends at its line's end, a `/` that does not close
/// as a regular expression on its line is a division.
fn tokens(src: &str) -> Vec<Tok<'_>> {
    let b = src.as_bytes();
    let mut out: Vec<Tok> = Vec::new();
    // Brace depths at which an open template's substitution closes.
    let mut templates: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            }
            b'/' if regex_allowed(out.last()) => match regex_end(b, i) {
                Some(end) => {
                    out.push(Tok::Str("", false));
                    i = end;
                }
                None => {
                    out.push(Tok::Punct(b'/'));
                    i += 1;
                }
            },
            b'\'' | b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != c && b[j] != b'\n' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(b.len());
                out.push(Tok::Str(src.get(i + 1..end).unwrap_or(""), true));
                i = (end + 1).min(b.len());
            }
            b'`' => i = template(src, i + 1, true, &mut out, &mut templates, depth),
            b'}' if templates.last() == Some(&depth) => {
                templates.pop();
                i = template(src, i + 1, false, &mut out, &mut templates, depth);
            }
            c if is_name_byte(c) && !c.is_ascii_digit() => {
                let s = i;
                while i < b.len() && is_name_byte(b[i]) {
                    i += 1;
                }
                if let Some(name) = src.get(s..i) {
                    out.push(Tok::Name(name));
                }
            }
            c if c.is_ascii_digit() => {
                while i < b.len() && (is_name_byte(b[i]) || b[i] == b'.') {
                    i += 1;
                }
                out.push(Tok::Num);
            }
            c if c.is_ascii_whitespace() => i += 1,
            c => {
                match c {
                    b'{' => depth += 1,
                    b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                out.push(Tok::Punct(c));
                i += 1;
            }
        }
    }
    out
}

/// Scans a template's text from `i` (just after its backtick, or after a substitution's
/// `}`) to its end or its next `${`; pushes it as one string token (a literal only when it
/// is a whole template without substitution) and returns where scanning goes on.
fn template<'a>(
    src: &'a str,
    i: usize,
    whole: bool,
    out: &mut Vec<Tok<'a>>,
    templates: &mut Vec<usize>,
    depth: usize,
) -> usize {
    let b = src.as_bytes();
    let mut j = i;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'`' => {
                out.push(Tok::Str(src.get(i..j).unwrap_or(""), whole));
                return j + 1;
            }
            b'$' if b.get(j + 1) == Some(&b'{') => {
                out.push(Tok::Str(src.get(i..j).unwrap_or(""), false));
                templates.push(depth);
                return j + 2;
            }
            _ => j += 1,
        }
    }
    out.push(Tok::Str("", false));
    b.len()
}

fn regex_allowed(prev: Option<&Tok>) -> bool {
    match prev {
        None => true,
        Some(Tok::Name(n)) => BEFORE_REGEX.contains(n),
        Some(Tok::Str(..) | Tok::Num) => false,
        Some(Tok::Punct(p)) => !matches!(p, b')' | b']' | b'}'),
    }
}

/// Where a regular expression starting at the `/` at `i` ends, if it closes on its line.
fn regex_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let mut class = false;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'\n' => return None,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => {
                j += 1;
                while j < b.len() && b[j].is_ascii_alphabetic() {
                    j += 1;
                }
                return Some(j);
            }
            _ => {}
        }
        j += 1;
    }
    None
}
