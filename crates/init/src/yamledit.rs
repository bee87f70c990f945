//! Minimal-diff edits of a user's YAML config (Goose's `config.yaml`): set a member of a block
//! mapping found by a key path, leaving every other byte as it was (comments, key order,
//! quoting, blank lines, the user's other extensions and settings).
//!
//! A real YAML parser (saphyr) reads the file first, so one that does not parse is refused,
//! and it reads the values the merge compares. The edits themselves are made on lines, by
//! indentation, in the block style Goose writes and people write by hand; what that cannot
//! place without guessing (a flow mapping such as `{a: 1}` on the path, an anchor, several
//! documents) is refused. Every edit is then checked by parsing its result: the document must
//! equal the old one with only that member set, or the edit is refused and nothing is written.

use serde_json::Value;

use crate::jsonedit::{wrap, Node};

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum EditError {
    #[error("{0}")]
    Invalid(String),
    #[error("`{0}` is not a mapping")]
    NotAMapping(String),
    #[error("`{0}` is written as {1}, which pith does not edit")]
    Unsupported(String, &'static str),
    #[error("the edited file did not read back as expected")]
    Unverified,
}

/// `text` as JSON: its one document (null when it has none).
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    use saphyr::{LoadableYamlNode, YamlOwned};
    let docs = YamlOwned::load_from_str(text).map_err(|e| e.to_string())?;
    match docs.as_slice() {
        [] => Ok(Value::Null),
        [doc] => Ok(to_json(doc)),
        more => Err(format!("{} documents in one file", more.len())),
    }
}

fn to_json(y: &saphyr::YamlOwned) -> Value {
    use saphyr::{ScalarOwned, YamlOwned};
    match y {
        YamlOwned::Value(ScalarOwned::Null) | YamlOwned::Alias(_) | YamlOwned::BadValue => {
            Value::Null
        }
        YamlOwned::Value(ScalarOwned::Boolean(b)) => Value::Bool(*b),
        YamlOwned::Value(ScalarOwned::Integer(n)) => Value::from(*n),
        YamlOwned::Value(ScalarOwned::FloatingPoint(f)) => serde_json::Number::from_f64(f.0)
            .map_or_else(|| Value::String(f.0.to_string()), Value::Number),
        YamlOwned::Value(ScalarOwned::String(s)) | YamlOwned::Representation(s, ..) => {
            Value::String(s.clone())
        }
        YamlOwned::Sequence(items) => items.iter().map(to_json).collect(),
        YamlOwned::Mapping(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let key = match to_json(k) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
        YamlOwned::Tagged(_, inner) => to_json(inner),
    }
}

/// The value at `path` in `text`, if there is one.
pub(crate) fn get(text: &str, path: &[&str]) -> Result<Option<Value>, String> {
    let value = parse(text)?;
    Ok(path.iter().try_fold(&value, |v, k| v.get(*k)).cloned())
}

/// A whole new file holding `value` under `path`.
pub(crate) fn new_document(path: &[&'static str], key: &'static str, value: &Node) -> String {
    match wrap(path, key, value) {
        Node::Obj(fields) => fields
            .iter()
            .map(|(k, v)| render_member(0, 2, &key_text(k), v))
            .collect(),
        _ => String::new(),
    }
}

/// `text` with `path.key` set to `value`: the existing value replaced in place (a scalar on
/// its own line keeps the line's comment), or the key added as the mapping's last member
/// (mappings on the path created as needed). Checked by reading the result back.
pub(crate) fn set_entry(
    text: &str,
    path: &[&'static str],
    key: &'static str,
    value: &Node,
) -> Result<String, EditError> {
    let mut expected = parse(text).map_err(EditError::Invalid)?;
    if !(expected.is_object() || expected.is_null()) {
        return Err(EditError::NotAMapping("the document".into()));
    }
    let edited = edit(text, path, key, value)?;
    set_path(&mut expected, path, key, value.to_value());
    match parse(&edited) {
        Ok(got) if got == expected => Ok(edited),
        _ => Err(EditError::Unverified),
    }
}

fn set_path(doc: &mut Value, path: &[&str], key: &str, value: Value) {
    let mut at = doc;
    for seg in path.iter().chain([&key]) {
        if !at.is_object() {
            *at = Value::Object(serde_json::Map::new());
        }
        let Value::Object(map) = at else { return };
        at = map.entry(seg.to_string()).or_insert(Value::Null);
    }
    *at = value;
}

/// One line of the file: its byte range (with its newline) and its text (without).
struct Line<'a> {
    start: usize,
    end: usize,
    body: &'a str,
    indent: usize,
}

impl Line<'_> {
    /// Not blank and not only a comment.
    fn is_content(&self) -> bool {
        let rest = &self.body[self.indent..];
        !rest.trim().is_empty() && !rest.starts_with('#')
    }
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for raw in text.split_inclusive('\n') {
        let body = raw.trim_end_matches('\n').trim_end_matches('\r');
        let indent = body.len() - body.trim_start_matches(' ').len();
        out.push(Line {
            start,
            end: start + raw.len(),
            body,
            indent,
        });
        start += raw.len();
    }
    out
}

/// A mapping member: its key, its line, where its `:` is, the byte range of the value written
/// on the key's line (comment excluded), and its last line with content.
struct Member {
    key: String,
    line: usize,
    colon: usize,
    value: (usize, usize),
    last: usize,
}

/// The members of the block mapping at `indent` in lines `from..to`.
fn members(
    lines: &[Line],
    from: usize,
    to: usize,
    indent: usize,
    at: &str,
) -> Result<Vec<Member>, EditError> {
    let mut out: Vec<Member> = Vec::new();
    for (i, line) in lines.iter().enumerate().take(to).skip(from) {
        if !line.is_content() {
            continue;
        }
        if line.indent > indent {
            match out.last_mut() {
                Some(m) => m.last = i,
                None => return Err(EditError::Unsupported(at.into(), "an indented block")),
            }
            continue;
        }
        if line.indent < indent {
            break;
        }
        if let Some((key, colon)) = key_at(line.body, indent) {
            let value = inline_value(line.body, colon + 1);
            out.push(Member {
                key,
                line: i,
                colon,
                value,
                last: i,
            });
            continue;
        }
        // A sequence at the key's own indentation (`args:` then `- mcp`, as Goose writes it)
        // belongs to the member above.
        let rest = &line.body[indent..];
        match out.last_mut() {
            Some(m) if rest == "-" || rest.starts_with("- ") => m.last = i,
            _ => return Err(EditError::NotAMapping(at.into())),
        }
    }
    Ok(out)
}

/// The key at column `indent` of a `key: value` line and the byte index of its `:`.
fn key_at(body: &str, indent: usize) -> Option<(String, usize)> {
    let rest = &body[indent..];
    let (key, after) = match rest.as_bytes().first()? {
        b'"' => {
            let b = rest.as_bytes();
            let mut j = 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let key: String = serde_json::from_str(rest.get(..=j)?).ok()?;
            (key, j + 1)
        }
        b'\'' => {
            let b = rest.as_bytes();
            let mut j = 1;
            loop {
                match b.get(j)? {
                    b'\'' if b.get(j + 1) == Some(&b'\'') => j += 2,
                    b'\'' => break,
                    _ => j += 1,
                }
            }
            (rest[1..j].replace("''", "'"), j + 1)
        }
        b'-' | b'?' | b'[' | b'{' | b'&' | b'*' | b'!' | b'|' | b'>' | b'#' | b'%' | b'@'
        | b'`' | b':' => return None,
        _ => {
            let b = rest.as_bytes();
            let colon = (0..b.len())
                .find(|&j| b[j] == b':' && matches!(b.get(j + 1), None | Some(b' ' | b'\t')))?;
            return Some((rest[..colon].trim_end().to_owned(), indent + colon));
        }
    };
    let gap = rest[after..].len() - rest[after..].trim_start_matches([' ', '\t']).len();
    let colon = after + gap;
    let b = rest.as_bytes();
    (b.get(colon) == Some(&b':') && matches!(b.get(colon + 1), None | Some(b' ' | b'\t')))
        .then_some((key, indent + colon))
}

/// The byte range of the value that follows byte `from` on a line: blanks and a trailing
/// `# comment` excluded, quotes respected.
fn inline_value(body: &str, from: usize) -> (usize, usize) {
    let b = body.as_bytes();
    let mut start = from;
    while start < b.len() && matches!(b[start], b' ' | b'\t') {
        start += 1;
    }
    let mut end = start;
    let mut j = start;
    let (mut single, mut double) = (false, false);
    while j < b.len() {
        let c = b[j];
        match c {
            b'#' if !single && !double && (j == start || matches!(b[j - 1], b' ' | b'\t')) => break,
            b'"' if !single => double = !double,
            b'\'' if !double => single = !single,
            _ => {}
        }
        // An escaped character inside double quotes is part of the value, whatever it is.
        let width = if c == b'\\' && double { 2 } else { 1 };
        if !matches!(c, b' ' | b'\t') {
            end = j + width;
        }
        j += width;
    }
    (start, end.min(b.len()))
}

/// The file's own indentation step: that of its first nested mapping, else two spaces.
fn indent_unit(lines: &[Line]) -> usize {
    let content: Vec<&Line> = lines.iter().filter(|l| l.is_content()).collect();
    content
        .windows(2)
        .find_map(|w| {
            let (parent, child) = (w[0], w[1]);
            let (_, colon) = key_at(parent.body, parent.indent)?;
            let (start, end) = inline_value(parent.body, colon + 1);
            (start == end && child.indent > parent.indent).then(|| child.indent - parent.indent)
        })
        .unwrap_or(2)
}

/// What a member's value is, for walking into it.
enum Child {
    /// A block mapping: its lines and indentation.
    Mapping(usize, usize, usize),
    /// Nothing at all (`key:`): children go on the next lines.
    Empty,
    /// An empty value written on the key's line (`{}`, `~`, `null`), to be removed first.
    EmptyInline,
    Other,
    Unsupported(&'static str),
}

fn child(lines: &[Line], m: &Member, indent: usize) -> Child {
    let body = lines[m.line].body;
    let v = &body[m.value.0..m.value.1];
    if v.is_empty() {
        return match (m.line + 1..=m.last).find(|&j| lines[j].is_content()) {
            None => Child::Empty,
            Some(c)
                if lines[c].indent > indent && key_at(lines[c].body, lines[c].indent).is_some() =>
            {
                Child::Mapping(c, m.last + 1, lines[c].indent)
            }
            Some(_) => Child::Other,
        };
    }
    match v {
        "{}" | "~" | "null" | "Null" | "NULL" if m.last == m.line => Child::EmptyInline,
        _ if v.starts_with(['&', '*', '!']) => Child::Unsupported("an anchor, alias or tag"),
        _ if v.starts_with('{') => Child::Unsupported("a flow mapping"),
        _ => Child::Other,
    }
}

fn edit(
    text: &str,
    path: &[&'static str],
    key: &'static str,
    value: &Node,
) -> Result<String, EditError> {
    let lines = lines(text);
    let unit = indent_unit(&lines);
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let from = document_start(&lines)?;
    let mut range = (from, lines.len());
    let mut indent = lines[from..]
        .iter()
        .find(|l| l.is_content())
        .map_or(0, |l| l.indent);
    let mut walked = String::new();
    for (i, seg) in path.iter().enumerate() {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(seg);
        let found = members(&lines, range.0, range.1, indent, &walked)?;
        let Some(m) = found.iter().find(|m| m.key == *seg) else {
            let rest = wrap(&path[i + 1..], key, value);
            let block = render_member(indent, unit, &key_text(seg), &rest);
            return Ok(insert(
                text,
                &lines,
                found.last().map(|m| m.last),
                &block,
                nl,
            ));
        };
        let children = || match wrap(&path[i + 1..], key, value) {
            Node::Obj(fields) => fields
                .iter()
                .map(|(k, v)| render_member(indent + unit, unit, &key_text(k), v))
                .collect::<String>(),
            _ => String::new(),
        };
        match child(&lines, m, indent) {
            Child::Mapping(start, end, inner) => {
                range = (start, end);
                indent = inner;
            }
            Child::Empty => return Ok(insert(text, &lines, Some(m.line), &children(), nl)),
            Child::EmptyInline => return Ok(open_inline(text, &lines[m.line], m, &children(), nl)),
            Child::Other => return Err(EditError::NotAMapping(walked)),
            Child::Unsupported(what) => return Err(EditError::Unsupported(walked, what)),
        }
    }
    let at = if walked.is_empty() {
        "the document"
    } else {
        &walked
    };
    let found = members(&lines, range.0, range.1, indent, at)?;
    let Some(m) = found.iter().find(|m| m.key == key) else {
        let block = render_member(indent, unit, &key_text(key), value);
        return Ok(insert(
            text,
            &lines,
            found.last().map(|m| m.last),
            &block,
            nl,
        ));
    };
    Ok(replace_member(text, &lines, m, indent, unit, value, nl))
}

/// Where the one document starts: after an opening `---`, if any; any other document marker
/// or directive is refused.
fn document_start(lines: &[Line]) -> Result<usize, EditError> {
    let mut from = 0;
    let mut seen = false;
    for (i, line) in lines.iter().enumerate() {
        let marker = line.indent == 0
            && (line.body.starts_with("---")
                || line.body.starts_with("...")
                || line.body.starts_with('%'));
        let first = !seen;
        seen |= line.is_content();
        if marker && first && line.body.trim_end() == "---" {
            from = i + 1;
        } else if marker {
            return Err(EditError::Unsupported(
                "the document".into(),
                "document markers or directives",
            ));
        }
    }
    Ok(from)
}

/// `text` with member `m` (on `line`), whose value is an empty one written inline, opened as a
/// block: `key: {} # c` becomes `key: # c`, its members (`children`) on the lines below.
fn open_inline(text: &str, line: &Line, m: &Member, children: &str, nl: &str) -> String {
    let kept = format!("{}{}", &line.body[..=m.colon], &line.body[m.value.1..]);
    let ending = match &text[line.start + line.body.len()..line.end] {
        "" => nl,
        ending => ending,
    };
    let block = children.replace('\n', nl);
    format!(
        "{}{kept}{ending}{block}{}",
        &text[..line.start],
        &text[line.end..]
    )
}

/// `text` with the existing member `m` of the mapping at `indent` (`unit`: the file's step)
/// set to `value`: a scalar on its own line is replaced in place, keeping the line's comment.
fn replace_member(
    text: &str,
    lines: &[Line],
    m: &Member,
    indent: usize,
    unit: usize,
    value: &Node,
    nl: &str,
) -> String {
    let line = &lines[m.line];
    let written = &line.body[m.value.0..m.value.1];
    let scalar_like = !matches!(value, Node::Obj(f) if !f.is_empty());
    if scalar_like
        && m.last == m.line
        && !written.is_empty()
        && !written.starts_with(['|', '>', '&', '*', '!'])
    {
        let (a, b) = (line.start + m.value.0, line.start + m.value.1);
        return format!("{}{}{}", &text[..a], scalar(value), &text[b..]);
    }
    // Anything else is rewritten whole, under the key as the user wrote it.
    let block = render_member(indent, unit, &line.body[indent..m.colon], value).replace('\n', nl);
    format!(
        "{}{block}{}",
        &text[..line.start],
        &text[lines[m.last].end..]
    )
}

/// `text` with `block` inserted after line `after` (at the end when there is none).
fn insert(text: &str, lines: &[Line], after: Option<usize>, block: &str, nl: &str) -> String {
    let block = block.replace('\n', nl);
    let at = after.map_or(text.len(), |i| lines[i].end);
    let sep = if at == 0 || text[..at].ends_with('\n') {
        ""
    } else {
        nl
    };
    format!("{}{sep}{block}{}", &text[..at], &text[at..])
}

/// `key: value` at `indent`, nested mappings in block style one `unit` deeper, every line
/// ending in a newline.
fn render_member(indent: usize, unit: usize, key: &str, value: &Node) -> String {
    let pad = " ".repeat(indent);
    match value {
        Node::Obj(fields) if !fields.is_empty() => {
            let mut out = format!("{pad}{key}:\n");
            for (k, v) in fields {
                out.push_str(&render_member(indent + unit, unit, &key_text(k), v));
            }
            out
        }
        other => format!("{pad}{key}: {}\n", scalar(other)),
    }
}

/// A value on one line: plain when that reads back as the same string, else double-quoted
/// (JSON's escapes are YAML's); lists in flow style.
fn scalar(value: &Node) -> String {
    match value {
        Node::Str(s) => key_text(s),
        Node::Num(n) => n.to_string(),
        Node::Bool(b) => b.to_string(),
        Node::List(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|s| key_text(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Node::Obj(_) => value.to_value().to_string(),
    }
}

fn key_text(s: &str) -> String {
    let plain = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '/')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "nan" | "inf"
        );
    if plain {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pith() -> Node {
        Node::Obj(vec![
            ("type", Node::Str("stdio")),
            ("cmd", Node::Str("pith")),
            ("args", Node::List(vec!["mcp"])),
        ])
    }

    #[test]
    fn new_document_is_block_style() {
        let doc = new_document(&["extensions"], "pith", &pith());
        assert_eq!(
            doc,
            "extensions:\n  pith:\n    type: stdio\n    cmd: pith\n    args: [mcp]\n"
        );
        assert_eq!(
            get(&doc, &["extensions", "pith"]).unwrap(),
            Some(pith().to_value())
        );
    }

    #[test]
    fn adds_after_the_last_extension_keeping_every_other_byte() {
        let text = "# goose\nGOOSE_MODE: auto # mine\nextensions:\n    developer:\n        enabled: true\n        args:\n        - a\n    # memory: off\n\nGOOSE_MODEL: x\n";
        let out = set_entry(text, &["extensions"], "pith", &pith()).unwrap();
        assert_eq!(
            out,
            "# goose\nGOOSE_MODE: auto # mine\nextensions:\n    developer:\n        enabled: true\n        args:\n        - a\n    pith:\n        type: stdio\n        cmd: pith\n        args: [mcp]\n    # memory: off\n\nGOOSE_MODEL: x\n"
        );
    }

    #[test]
    fn creates_the_mapping_where_it_is_missing_empty_or_null() {
        for (text, want) in [
            ("a: 1", "a: 1\nextensions:\n  pith: 2\n"),
            ("extensions:\nb: 1\n", "extensions:\n  pith: 2\nb: 1\n"),
            ("extensions: {} # none\n", "extensions: # none\n  pith: 2\n"),
            ("extensions: ~\n", "extensions:\n  pith: 2\n"),
            ("", "extensions:\n  pith: 2\n"),
            (
                "# only a comment\n",
                "# only a comment\nextensions:\n  pith: 2\n",
            ),
            ("---\na: 1\n", "---\na: 1\nextensions:\n  pith: 2\n"),
        ] {
            let out = set_entry(text, &["extensions"], "pith", &Node::Num(2));
            assert_eq!(out.as_deref(), Ok(want), "{text:?}");
        }
    }

    #[test]
    fn replaces_scalars_in_place_and_blocks_whole() {
        let text = "x:\n  cmd: old # mine\n  'args':\n    - mcp\n    - --slim\n  env: {A: '1'}\n";
        let out = set_entry(text, &["x"], "cmd", &Node::Str("pith")).unwrap();
        assert_eq!(out, text.replace("old", "pith"));
        let out = set_entry(&out, &["x"], "args", &Node::List(vec!["mcp"])).unwrap();
        assert_eq!(
            out,
            "x:\n  cmd: pith # mine\n  'args': [mcp]\n  env: {A: '1'}\n"
        );
        let quoted = set_entry("x: 1\n", &[], "k", &Node::Str("a: b")).unwrap();
        assert_eq!(quoted, "x: 1\nk: \"a: b\"\n");
        assert_eq!(get(&quoted, &["k"]).unwrap(), Some(Value::from("a: b")));
    }

    #[test]
    fn refuses_what_it_cannot_place() {
        let e = |t: &str| set_entry(t, &["extensions"], "pith", &Node::Num(1)).unwrap_err();
        assert_eq!(
            e("extensions: {a: 1}\n"),
            EditError::Unsupported("extensions".into(), "a flow mapping")
        );
        assert_eq!(
            e("extensions: [1]\n"),
            EditError::NotAMapping("extensions".into())
        );
        assert_eq!(e("- 1\n"), EditError::NotAMapping("the document".into()));
        assert!(matches!(e("a: [\n"), EditError::Invalid(_)));
        assert!(matches!(e("a: 1\n---\nb: 2\n"), EditError::Invalid(_)));
    }

    #[test]
    fn keeps_crlf() {
        let out = set_entry(
            "a: 1\r\nextensions:\r\n  x: 1\r\n",
            &["extensions"],
            "pith",
            &Node::Num(2),
        )
        .unwrap();
        assert_eq!(out, "a: 1\r\nextensions:\r\n  x: 1\r\n  pith: 2\r\n");
    }
}
