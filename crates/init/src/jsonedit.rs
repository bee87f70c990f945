//! Minimal-diff edits of a user's JSON config: set members of an object found by a key path,
//! leaving every other byte of the file as it was (formatting, key order, other entries, the
//! user's own keys beside pith's). JSONC — `//` and `/* */` comments, trailing commas, which
//! VS Code and Gemini CLI accept — is read through [`sanitize`], a same-length copy in which
//! comments and trailing commas are blanks: offsets found in it are offsets in the original,
//! so every edit lands in the original text and its comments stay.

/// A value pith writes: strings, numbers, booleans, lists of strings and objects with ordered
/// keys. The YAML editor writes the same values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Str(&'static str),
    Num(u64),
    Bool(bool),
    List(Vec<&'static str>),
    Obj(Vec<(&'static str, Node)>),
}

impl Node {
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Node::Str(s) => Value::String((*s).to_owned()),
            Node::Num(n) => Value::from(*n),
            Node::Bool(b) => Value::Bool(*b),
            Node::List(items) => items
                .iter()
                .map(|s| Value::String((*s).to_owned()))
                .collect(),
            Node::Obj(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// Pretty JSON whose first line continues the current one and whose other lines start
    /// with `indent`.
    fn render(&self, indent: &str, unit: &str) -> String {
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
        match self {
            Node::Str(s) => quote(s),
            Node::Num(n) => n.to_string(),
            Node::Bool(b) => b.to_string(),
            Node::List(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|s| quote(s))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Node::Obj(fields) if fields.is_empty() => "{}".to_owned(),
            Node::Obj(fields) => {
                let inner = format!("{indent}{unit}");
                let body: Vec<String> = fields
                    .iter()
                    .map(|(k, v)| format!("{inner}{}: {}", quote(k), v.render(&inner, unit)))
                    .collect();
                format!("{{\n{}\n{indent}}}", body.join(",\n"))
            }
        }
    }
}

/// A whole new file holding `value` under `path`.
pub(crate) fn new_document(path: &[&'static str], key: &'static str, value: &Node) -> String {
    format!("{}\n", wrap(path, key, value).render("", "  "))
}

pub(crate) fn wrap(path: &[&'static str], key: &'static str, value: &Node) -> Node {
    path.iter()
        .rev()
        .fold(Node::Obj(vec![(key, value.clone())]), |inner, seg| {
            Node::Obj(vec![(seg, inner)])
        })
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EditError {
    #[error("`{0}` is not an object")]
    NotAnObject(String),
    #[error("not a JSON object")]
    NotJson,
}

/// `text` (JSONC) with `path.key` set to `value`: the existing value replaced in place, or
/// the key added as the object's last member (objects on the path created as needed).
pub(crate) fn set_entry(
    text: &str,
    path: &[&'static str],
    key: &'static str,
    value: &Node,
) -> Result<String, EditError> {
    let clean = sanitize(text);
    let bytes = clean.as_bytes();
    let start = skip_ws(bytes, 0);
    let (_, root) = parse_value(bytes, start).ok_or(EditError::NotJson)?;
    let mut obj = root.ok_or(EditError::NotJson)?;
    let unit = indent_unit(text, &obj);
    let mut walked = Vec::new();
    for (i, seg) in path.iter().enumerate() {
        walked.push(*seg);
        match obj.members.iter().position(|m| m.key == *seg) {
            Some(m) => match obj.members.swap_remove(m).obj {
                Some(inner) => obj = inner,
                None => return Err(EditError::NotAnObject(walked.join("."))),
            },
            None => {
                let rest = wrap(&path[i + 1..], key, value);
                return Ok(insert_member(text, &obj, seg, &rest, &unit));
            }
        }
    }
    match obj.members.iter().find(|m| m.key == key) {
        Some(m) => {
            let indent = line_indent(text, m.key_start);
            Ok(format!(
                "{}{}{}",
                &text[..m.value_start],
                value.render(&indent, &unit),
                &text[m.value_end..]
            ))
        }
        None => Ok(insert_member(text, &obj, key, value, &unit)),
    }
}

/// The value at `path` in `text` (JSONC), if there is one.
pub(crate) fn get(text: &str, path: &[&str]) -> Result<Option<serde_json::Value>, String> {
    let value: serde_json::Value =
        serde_json::from_str(&sanitize(text)).map_err(|e| e.to_string())?;
    Ok(path.iter().try_fold(&value, |v, k| v.get(*k)).cloned())
}

/// `text` with every comment and trailing comma turned into blanks (newlines kept), byte for
/// byte the same length: strict JSON when `text` is JSONC.
pub(crate) fn sanitize(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    // The last comma seen outside strings, while only blanks and comments followed it.
    let mut comma: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                comma = None;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |n| i + 2 + n + 2);
                blank(&mut out, i, end);
                i = end;
            }
            b',' => {
                comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(c) = comma.take() {
                    out[c] = b' ';
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                comma = None;
                i += 1;
            }
        }
    }
    // Only ASCII bytes were replaced, each by a space: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

fn insert_member(text: &str, obj: &Obj, key: &str, value: &Node, unit: &str) -> String {
    let quoted = serde_json::to_string(key).unwrap_or_default();
    match obj.members.last() {
        Some(last) => {
            let indent = line_indent(text, obj.members[0].key_start);
            let entry = format!("{quoted}: {}", value.render(&indent, unit));
            // A trailing comma after the last member (JSONC) stays the file's style: the new
            // member goes after it and gets one too.
            let b = text.as_bytes();
            let mut j = last.value_end;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if b.get(j) == Some(&b',') {
                let (head, tail) = text.split_at(j + 1);
                format!("{head}\n{indent}{entry},{tail}")
            } else {
                let (head, tail) = text.split_at(last.value_end);
                format!("{head},\n{indent}{entry}{tail}")
            }
        }
        None => {
            let outer = line_indent(text, obj.open);
            let indent = format!("{outer}{unit}");
            let entry = format!("{quoted}: {}", value.render(&indent, unit));
            let inside = &text[obj.open + 1..obj.close];
            if inside.trim().is_empty() {
                format!(
                    "{}{{\n{indent}{entry}\n{outer}}}{}",
                    &text[..obj.open],
                    &text[obj.close + 1..]
                )
            } else {
                // Only comments inside: they stay, after the new member.
                let (head, tail) = text.split_at(obj.open + 1);
                format!("{head}\n{indent}{entry}{tail}")
            }
        }
    }
}

/// The whitespace that starts the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The file's own indentation step: that of the root's first member, else two spaces.
fn indent_unit(text: &str, root: &Obj) -> String {
    match root.members.first() {
        Some(m) if text[root.open..m.key_start].contains('\n') => {
            let unit = line_indent(text, m.key_start);
            if unit.is_empty() {
                "  ".to_owned()
            } else {
                unit
            }
        }
        _ => "  ".to_owned(),
    }
}

#[derive(Debug)]
struct Obj {
    /// Byte offsets of `{` and `}`.
    open: usize,
    close: usize,
    members: Vec<Member>,
}

#[derive(Debug)]
struct Member {
    key: String,
    key_start: usize,
    value_start: usize,
    value_end: usize,
    obj: Option<Obj>,
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Parses the value at `i`: its end (exclusive) and, for an object, its members.
fn parse_value(b: &[u8], i: usize) -> Option<(usize, Option<Obj>)> {
    match *b.get(i)? {
        b'{' => parse_object(b, i).map(|(end, o)| (end, Some(o))),
        b'[' => {
            let mut j = skip_ws(b, i + 1);
            if b.get(j) == Some(&b']') {
                return Some((j + 1, None));
            }
            loop {
                let (end, _) = parse_value(b, j)?;
                j = skip_ws(b, end);
                match *b.get(j)? {
                    b',' => j = skip_ws(b, j + 1),
                    b']' => return Some((j + 1, None)),
                    _ => return None,
                }
            }
        }
        b'"' => parse_string(b, i).map(|(end, _)| (end, None)),
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            (j > i).then_some((j, None))
        }
    }
}

fn parse_object(b: &[u8], open: usize) -> Option<(usize, Obj)> {
    let mut members = Vec::new();
    let mut j = skip_ws(b, open + 1);
    if b.get(j) == Some(&b'}') {
        return Some((
            j + 1,
            Obj {
                open,
                close: j,
                members,
            },
        ));
    }
    loop {
        let key_start = j;
        let (key_end, key) = parse_string(b, j)?;
        j = skip_ws(b, key_end);
        if b.get(j) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(b, j + 1);
        let (value_end, obj) = parse_value(b, value_start)?;
        members.push(Member {
            key,
            key_start,
            value_start,
            value_end,
            obj,
        });
        j = skip_ws(b, value_end);
        match *b.get(j)? {
            b',' => j = skip_ws(b, j + 1),
            b'}' => {
                return Some((
                    j + 1,
                    Obj {
                        open,
                        close: j,
                        members,
                    },
                ))
            }
            _ => return None,
        }
    }
}

/// A string token at `i`: its end (exclusive) and decoded value.
fn parse_string(b: &[u8], i: usize) -> Option<(usize, String)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => {
                let raw = std::str::from_utf8(&b[i..=j]).ok()?;
                return Some((j + 1, serde_json::from_str(raw).ok()?));
            }
            _ => j += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pith() -> Node {
        Node::Obj(vec![
            ("command", Node::Str("pith")),
            ("args", Node::List(vec!["mcp"])),
        ])
    }

    #[test]
    fn new_document_is_pretty() {
        assert_eq!(
            new_document(&["mcpServers"], "pith", &pith()),
            "{\n  \"mcpServers\": {\n    \"pith\": {\n      \"command\": \"pith\",\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn adds_beside_other_servers_keeping_their_bytes() {
        let text = "{\n    \"theme\": \"dark\",\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n    }\n}\n";
        let out = set_entry(text, &["mcpServers"], "pith", &pith()).unwrap();
        assert_eq!(
            out,
            "{\n    \"theme\": \"dark\",\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"},\n        \"pith\": {\n            \"command\": \"pith\",\n            \"args\": [\"mcp\"]\n        }\n    }\n}\n"
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["mcpServers"]["pith"], pith().to_value());
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
    }

    #[test]
    fn creates_the_servers_object_when_missing() {
        let text = "{\n  \"a\": [1, {\"b\": \"}\"}]\n}";
        let out = set_entry(text, &["mcp", "servers"], "pith", &pith()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["mcp"]["servers"]["pith"], pith().to_value());
        assert!(out.starts_with("{\n  \"a\": [1, {\"b\": \"}\"}],\n  \"mcp\": {\n"));
    }

    #[test]
    fn fills_an_empty_object_and_replaces_in_place() {
        let out = set_entry("{}", &["servers"], "pith", &pith()).unwrap();
        let out2 = set_entry(&out, &["servers"], "pith", &Node::Str("x")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out2).unwrap();
        assert_eq!(v["servers"]["pith"], "x");
        let out3 = set_entry("{\"servers\": {}}", &["servers"], "pith", &pith()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out3).unwrap();
        assert_eq!(v["servers"]["pith"], pith().to_value());
    }

    #[test]
    fn refuses_a_non_object_on_the_path() {
        assert_eq!(
            set_entry("{\"mcp\": [1]}", &["mcp"], "pith", &pith()),
            Err(EditError::NotAnObject("mcp".into()))
        );
        assert_eq!(
            set_entry("[1]", &["mcp"], "pith", &pith()),
            Err(EditError::NotJson)
        );
    }

    #[test]
    fn sanitize_blanks_comments_and_trailing_commas_only() {
        let strict = "{\"url\": \"http://x/*y*/\", \"q\": \"\\\"// ,}\", \"a\": [1, 2]}";
        assert_eq!(sanitize(strict), strict);
        let jsonc = "{ // c\n \"a\": [1, 2,], /* b\n */ \"b\": {\"c\": 1,},\n}";
        let clean = sanitize(jsonc);
        assert_eq!(clean.len(), jsonc.len());
        assert_eq!(clean.matches('\n').count(), jsonc.matches('\n').count());
        let v: serde_json::Value = serde_json::from_str(&clean).unwrap();
        assert_eq!(v, serde_json::json!({"a": [1, 2], "b": {"c": 1}}));
    }

    #[test]
    fn keys_with_escapes_are_matched_decoded() {
        let text = "{\"mcp\\u0053ervers\": {\"a\": 1}}";
        let out = set_entry(text, &["mcpServers"], "pith", &Node::Str("p")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["mcpServers"]["pith"], "p");
        assert_eq!(v["mcpServers"]["a"], 1);
    }
}
