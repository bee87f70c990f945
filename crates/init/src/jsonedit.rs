//! Minimal-diff edits of a user's JSON config: set one entry of an object found by a key path,
//! leaving every other byte of the file as it was (formatting, key order, other entries).
//! The text must already be valid JSON (callers check with serde_json first).

/// A value pith writes: strings, lists of strings and objects with ordered keys.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Str(&'static str),
    List(Vec<&'static str>),
    Obj(Vec<(&'static str, Node)>),
}

impl Node {
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Node::Str(s) => Value::String((*s).to_owned()),
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

fn wrap(path: &[&'static str], key: &'static str, value: &Node) -> Node {
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

/// `text` with `path.key` set to `value`: the existing value replaced in place, or the key
/// added as the object's last member (objects on the path created as needed).
pub(crate) fn set_entry(
    text: &str,
    path: &[&'static str],
    key: &'static str,
    value: &Node,
) -> Result<String, EditError> {
    let bytes = text.as_bytes();
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

fn insert_member(text: &str, obj: &Obj, key: &str, value: &Node, unit: &str) -> String {
    let quoted = serde_json::to_string(key).unwrap_or_default();
    match obj.members.last() {
        Some(last) => {
            let indent = line_indent(text, obj.members[0].key_start);
            format!(
                "{},\n{indent}{quoted}: {}{}",
                &text[..last.value_end],
                value.render(&indent, unit),
                &text[last.value_end..]
            )
        }
        None => {
            let outer = line_indent(text, obj.open);
            let indent = format!("{outer}{unit}");
            format!(
                "{}{{\n{indent}{quoted}: {}\n{outer}}}{}",
                &text[..obj.open],
                value.render(&indent, unit),
                &text[obj.close + 1..]
            )
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
    fn keys_with_escapes_are_matched_decoded() {
        let text = "{\"mcp\\u0053ervers\": {\"a\": 1}}";
        let out = set_entry(text, &["mcpServers"], "pith", &Node::Str("p")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["mcpServers"]["pith"], "p");
        assert_eq!(v["mcpServers"]["a"], 1);
    }
}
