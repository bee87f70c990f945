//! Which lines of a change can alter what a program does: two versions of a file compared as
//! syntax, not text, so an edited comment, a docstring, re-indentation or a reflowed call is
//! no suspect. Each version becomes its syntax tree written out in order — every leaf's text
//! and every named node's opening and closing — without comments and docstrings; equal
//! sequences are equal trees, and the lines where the sequences differ are the change that
//! counts. Text that a test reads is kept as code: a Python docstring holding a doctest
//! (`>>>`), a Rust doc comment inside a fenced example, the comments of a Go `Example`
//! function (its `// Output:` is checked).

use tree_sitter::{Node, Tree};

use crate::lang::Lang;

/// Past this a rewritten file's diff is coarser (still every change, in fewer, longer
/// hunks) rather than slower: a red answer waits for it.
const DEADLINE: std::time::Duration = std::time::Duration::from_millis(100);

/// Files larger than this keep their line hunks: parsing costs ~0.15 ms a KiB, and a red
/// answer waits for it.
const LARGEST: usize = 512 << 10;

/// One element of a file's written-out syntax: a leaf (`text` its source) or a named node's
/// opening or closing, with the lines it spans.
#[derive(Debug, Clone, Copy)]
struct Token<'s> {
    kind: u16,
    mark: Mark,
    text: &'s str,
    first: u32,
    last: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Mark {
    Leaf,
    Open,
    Close,
}

impl<'s> Token<'s> {
    /// What two tokens must share to be the same syntax; lines aside.
    fn key(&self) -> (u16, Mark, &'s str) {
        (self.kind, self.mark, self.text)
    }
}

/// The lines of `new` (1-based, inclusive ranges, sorted and joined) whose syntax differs
/// from `old`'s, comments and docstrings aside: empty when the two do the same. `None` when
/// pith has no grammar for the file's language or either version does not parse cleanly —
/// then only a line diff can say what changed.
pub fn behaviour_changes(path: &str, old: &str, new: &str) -> Option<Vec<(u32, u32)>> {
    let lang = Lang::of_path(path)?;
    if old.len().max(new.len()) > LARGEST {
        return None;
    }
    let mut parser = lang.parser()?;
    let old_tree = parser.parse(old, None)?;
    // The new version parsed as an edit of the old: only the changed stretch is parsed again.
    let mut edited = old_tree.clone();
    edited.edit(&edit_between(old, new));
    let new_tree = parser.parse(new, Some(&edited))?;
    if old_tree.root_node().has_error() || new_tree.root_node().has_error() {
        return None;
    }
    let a = tokens(lang, &old_tree, old);
    let b = tokens(lang, &new_tree, new);
    let mut ranges = Vec::new();
    let line_of = |i: usize| b.get(i).or_else(|| b.last()).map(|t| t.first);
    let (ka, kb): (Vec<_>, Vec<_>) = (
        a.iter().map(Token::key).collect(),
        b.iter().map(Token::key).collect(),
    );
    for op in similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        &ka,
        &kb,
        Some(std::time::Instant::now() + DEADLINE),
    ) {
        match op {
            similar::DiffOp::Equal { .. } => {}
            // Where tokens went: the line of the token that now follows them.
            similar::DiffOp::Delete { new_index, .. } => {
                if let Some(line) = line_of(new_index) {
                    ranges.push((line, line));
                }
            }
            similar::DiffOp::Insert {
                new_index, new_len, ..
            }
            | similar::DiffOp::Replace {
                new_index, new_len, ..
            } => {
                for t in &b[new_index..new_index + new_len] {
                    ranges.push((t.first, t.last));
                }
            }
        }
    }
    Some(joined(ranges))
}

/// The one edit that turns `old` into `new`: what lies between their common start and their
/// common end.
fn edit_between(old: &str, new: &str) -> tree_sitter::InputEdit {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[start..]
        .iter()
        .rev()
        .zip(b[start..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let point = |text: &[u8], at: usize| {
        let before = &text[..at];
        let row = before.iter().filter(|&&c| c == b'\n').count();
        let column = at
            - before
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |p| p + 1);
        tree_sitter::Point { row, column }
    };
    tree_sitter::InputEdit {
        start_byte: start,
        old_end_byte: a.len() - tail,
        new_end_byte: b.len() - tail,
        start_position: point(a, start),
        old_end_position: point(a, a.len() - tail),
        new_end_position: point(b, b.len() - tail),
    }
}

/// Ranges sorted, with overlapping and adjacent ones joined.
fn joined(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (first, last) in ranges {
        match out.last_mut() {
            Some(prev) if first <= prev.1.saturating_add(1) => prev.1 = prev.1.max(last),
            _ => out.push((first, last)),
        }
    }
    out
}

/// The file's syntax written out in order, without what cannot change behaviour. One cursor
/// walks the tree without recursion: a tree as deep as its input is hostile costs memory,
/// never the stack.
fn tokens<'s>(lang: Lang, tree: &Tree, src: &'s str) -> Vec<Token<'s>> {
    let language = tree.language();
    let comments: Vec<bool> = (0..language.node_kind_count() as u16)
        .map(|id| {
            language
                .node_kind_for_id(id)
                .is_some_and(|k| k.contains("comment"))
        })
        .collect();
    let mut walk = Walk {
        lang,
        src,
        out: Vec::new(),
        fence: false,
        comments,
    };
    let mut cursor = tree.walk();
    // Whether comments are kept, for each node the cursor is inside of.
    let mut kept: Vec<bool> = Vec::new();
    let mut keep = false;
    'nodes: loop {
        let node = cursor.node();
        if let Some(inner) = walk.enter(node, keep) {
            if cursor.goto_first_child() {
                kept.push(keep);
                keep = inner;
                continue;
            }
            walk.close(node);
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'nodes;
            }
            if !cursor.goto_parent() {
                break 'nodes;
            }
            keep = kept.pop().unwrap_or(false);
            walk.close(cursor.node());
        }
    }
    walk.out
}

struct Walk<'s> {
    lang: Lang,
    src: &'s str,
    out: Vec<Token<'s>>,
    /// Inside a fenced example of consecutive Rust doc comments.
    fence: bool,
    /// By kind id: whether the kind is a comment.
    comments: Vec<bool>,
}

impl<'s> Walk<'s> {
    /// Writes `node`'s leaf or opening out; `Some` when its children are to be walked, with
    /// whether their comments are kept (inside a Go `Example` function).
    fn enter(&mut self, node: Node, keep_comments: bool) -> Option<bool> {
        let text = self.src.get(node.byte_range()).unwrap_or("");
        let comment = self
            .comments
            .get(usize::from(node.kind_id()))
            .copied()
            .unwrap_or(false);
        if node.is_extra() || comment {
            if keep_comments || self.is_example_doc(text) {
                self.push(node, Mark::Leaf, text);
            }
            return None;
        }
        if node.child_count() == 0 {
            self.fence = false;
            self.push(node, Mark::Leaf, text);
            return None;
        }
        if self.is_docstring(node, text) {
            return None;
        }
        if node.is_named() {
            self.push(node, Mark::Open, "");
        }
        Some(keep_comments || self.is_go_example(node))
    }

    /// After `node`'s children: its closing.
    fn close(&mut self, node: Node) {
        if node.is_named() {
            self.push(node, Mark::Close, "");
        }
    }

    fn push(&mut self, node: Node, mark: Mark, text: &'s str) {
        let (start, end) = (node.start_position(), node.end_position());
        let first = start.row as u32 + 1;
        // An end at a line's first column ends on the line before it.
        let last = if end.column == 0 && end.row > start.row {
            end.row as u32
        } else {
            end.row as u32 + 1
        };
        let (first, last) = match mark {
            Mark::Leaf => (first, last),
            Mark::Open => (first, first),
            Mark::Close => (last, last),
        };
        self.out.push(Token {
            kind: node.kind_id(),
            mark,
            text,
            first,
            last,
        });
    }

    /// A Rust doc comment that is part of a fenced example (a doctest), fences included.
    fn is_example_doc(&mut self, text: &str) -> bool {
        if self.lang != Lang::Rust {
            return false;
        }
        let body = match text.get(..3) {
            Some("///" | "//!") => text[3..].trim(),
            _ if text.starts_with("/**") || text.starts_with("/*!") => {
                return text.contains("```");
            }
            _ => return false,
        };
        if body.starts_with("```") {
            self.fence = !self.fence;
            return true;
        }
        self.fence
    }

    /// A Python string that is a statement of its own, first in its module or body: a
    /// docstring, unless it holds a doctest. Never an f-string (it may call something).
    fn is_docstring(&self, node: Node, text: &str) -> bool {
        if self.lang != Lang::Python || node.kind() != "expression_statement" {
            return false;
        }
        let Some(string) = node
            .named_child(0)
            .filter(|_| node.named_child_count() == 1)
        else {
            return false;
        };
        let first_in_body = node.parent().is_some_and(|p| {
            matches!(p.kind(), "module" | "block")
                && p.named_child(0).is_some_and(|f| f.id() == node.id())
        });
        let mut cursor = string.walk();
        let interpolated = string
            .children(&mut cursor)
            .any(|c| c.kind() == "interpolation");
        string.kind() == "string" && first_in_body && !interpolated && !text.contains(">>>")
    }

    /// A Go function whose comments its test checks: `func ExampleX()`, whose `// Output:`
    /// is compared with what it prints.
    fn is_go_example(&self, node: Node) -> bool {
        self.lang == Lang::Go
            && node.kind() == "function_declaration"
            && node
                .child_by_field_name("name")
                .and_then(|n| self.src.get(n.byte_range()))
                .is_some_and(|name| name.starts_with("Example"))
    }
}

#[cfg(test)]
mod tests {
    use super::behaviour_changes as changes;

    #[test]
    fn comments_docstrings_and_whitespace_change_nothing() {
        let old = "def f(x):\n    \"\"\"Doubles.\"\"\"\n    return x * 2  # twice\n";
        let new = "def f(x):\n    \"\"\"Doubles x.\n\n    More prose.\n    \"\"\"\n    return x*2  # two times\n\n";
        assert_eq!(changes("m.py", old, new), Some(vec![]));
        let old = "fn f(x: u32) -> u32 {\n    // twice\n    x * 2\n}\n";
        let new = "/// Doubles.\nfn f(x: u32)\n    -> u32\n{\n    x  *  2 // two times\n}\n";
        assert_eq!(changes("lib.rs", old, new), Some(vec![]));
        let old = "function f(x) {\n  return x * 2; /* twice */\n}\n";
        let new = "// Doubles.\nfunction f(x) { return x * 2; }\n";
        assert_eq!(changes("a.js", old, new), Some(vec![]));
    }

    #[test]
    fn a_changed_operand_is_its_own_line_beside_an_edited_comment() {
        let old = "def f(x):\n    # twice\n    y = x * 2\n    return y\n";
        let new = "def f(x):\n    # two times\n    y = x * 3\n    return y\n";
        assert_eq!(changes("m.py", old, new), Some(vec![(3, 3)]));
        let old = "fn f(x: u32) -> u32 {\n    let y = x * 2; // twice\n    y\n}\n";
        let new = "fn f(x: u32) -> u32 {\n    let y = x * 2; // two times\n    y + 1\n}\n";
        assert_eq!(changes("lib.rs", old, new), Some(vec![(3, 3)]));
    }

    #[test]
    fn python_indentation_is_structure() {
        let old = "def f(x):\n    if x:\n        a()\n    b()\n";
        let new = "def f(x):\n    if x:\n        a()\n        b()\n";
        let got = changes("m.py", old, new).expect("parses");
        assert!(got.iter().any(|&(a, b)| a <= 4 && 4 <= b), "{got:?}");
    }

    #[test]
    fn a_line_break_that_ends_a_statement_is_structure() {
        // `return` then `x` on its own line returns nothing in JavaScript.
        let old = "function f(x) {\n  return x;\n}\n";
        let new = "function f(x) {\n  return\n  x;\n}\n";
        assert_ne!(changes("a.js", old, new), Some(vec![]));
    }

    #[test]
    fn a_deleted_statement_is_the_line_that_follows_it() {
        let old = "def f(x):\n    x = g(x)\n    return x\n";
        let new = "def f(x):\n    return x\n";
        assert_eq!(changes("m.py", old, new), Some(vec![(2, 2)]));
    }

    #[test]
    fn text_a_test_reads_is_code() {
        // A doctest in a docstring.
        let old = "def f(x):\n    \"\"\"\n    >>> f(1)\n    2\n    \"\"\"\n    return x * 2\n";
        let new = old.replace("    2\n", "    3\n");
        assert_eq!(changes("m.py", old, &new), Some(vec![(2, 5)]));
        // A Rust doc example, and not the prose around it.
        let old = "/// Doubles.\n///\n/// ```\n/// assert_eq!(f(1), 2);\n/// ```\npub fn f(x: u32) -> u32 { x * 2 }\n";
        let new = old.replace("f(1), 2", "f(1), 3");
        assert_eq!(changes("lib.rs", old, &new), Some(vec![(4, 4)]));
        let prose = old.replace("Doubles.", "Doubles its argument.");
        assert_eq!(changes("lib.rs", old, &prose), Some(vec![]));
        // A Go example's output.
        let old = "package p\n\nfunc ExampleF() {\n\tprintln(F(1))\n\t// Output: 2\n}\n";
        let new = old.replace("Output: 2", "Output: 3");
        assert_eq!(changes("p_test.go", old, &new), Some(vec![(5, 5)]));
        let plain = "package p\n\n// F doubles.\nfunc F(x int) int { return x * 2 }\n";
        let edited = plain.replace("doubles", "twice");
        assert_eq!(changes("p.go", plain, &edited), Some(vec![]));
    }

    #[test]
    fn an_f_string_statement_is_code() {
        let old = "def f(x):\n    f\"{g(x)}\"\n    return x\n";
        let new = "def f(x):\n    f\"{h(x)}\"\n    return x\n";
        assert_eq!(changes("m.py", old, new), Some(vec![(2, 2)]));
    }

    #[test]
    fn what_does_not_parse_or_has_no_grammar_is_left_to_the_line_diff() {
        assert_eq!(changes("m.py", "def f(:\n", "def f(x):\n    pass\n"), None);
        assert_eq!(changes("a.c", "int x;\n", "int y;\n"), None);
        assert_eq!(changes("README.md", "a\n", "b\n"), None);
    }

    proptest::proptest! {
        /// Any two texts, in any of the languages: no panic, and every line named is one of
        /// the new text's; a text compared with itself has no change.
        #[test]
        fn any_text_compares_within_the_new_lines(
            old in "(def |fn |func |class |\\{|\\}|\\(|\\)|#|//|/\\*|\\*/|\"\"\"|'|\\n|  |x|=|1|>>>|```|;)*",
            new in "(def |fn |func |class |\\{|\\}|\\(|\\)|#|//|/\\*|\\*/|\"\"\"|'|\\n|  |x|=|1|>>>|```|;)*",
            ext in proptest::sample::select(vec!["py", "rs", "go", "js", "ts", "tsx", "java", "cs"]),
        ) {
            let path = format!("f.{ext}");
            if let Some(lines) = changes(&path, &old, &new) {
                let count = new.lines().count().max(1) as u32;
                for (first, last) in lines {
                    proptest::prop_assert!(1 <= first && first <= last && last <= count + 1,
                        "{first}-{last} of {count}");
                }
            }
            proptest::prop_assert!(changes(&path, &new, &new).is_none_or(|v| v.is_empty()));
        }
    }
}
