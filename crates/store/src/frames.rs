//! Frames as one text column: a line per frame, `<p>\t<line>\t<file>\t<code>`, where `p` is
//! `1` for a project frame, with tabs, newlines and backslashes escaped. Decoding never fails:
//! a malformed line is skipped.

use pith_model::Frame;

pub(crate) fn encode(frames: &[Frame]) -> Option<String> {
    if frames.is_empty() {
        return None;
    }
    let mut out = String::new();
    for (i, f) in frames.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push(if f.project { '1' } else { '0' });
        out.push('\t');
        out.push_str(&f.line.to_string());
        out.push('\t');
        escape(&f.file, &mut out);
        if let Some(code) = &f.code {
            out.push('\t');
            escape(code, &mut out);
        }
    }
    Some(out)
}

pub(crate) fn decode(text: &str) -> Vec<Frame> {
    text.split('\n')
        .filter_map(|line| {
            let mut parts = line.splitn(4, '\t');
            let project = match parts.next()? {
                "1" => true,
                "0" => false,
                _ => return None,
            };
            let line = parts.next()?.parse().ok()?;
            let file = unescape(parts.next()?);
            let code = parts.next().map(unescape);
            Some(Frame {
                file,
                line,
                code,
                project,
            })
        })
        .collect()
}

fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_survive_the_round_trip_whatever_their_text() {
        let frames = vec![
            Frame {
                file: "/usr/lib/python3/unittest/case.py".into(),
                line: 12,
                code: None,
                project: false,
            },
            Frame {
                file: "src/we\\ird\tname.py".into(),
                line: 3,
                code: Some("x = '\\t'\n".into()),
                project: true,
            },
        ];
        let text = encode(&frames).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert_eq!(decode(&text), frames);
        assert_eq!(encode(&[]), None);
        assert!(decode("garbage\n2\tx\n").is_empty());
    }
}
