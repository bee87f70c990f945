//! A doctest's panic line mapped into its doc comment. rustdoc compiles each block inside a
//! program of its own (rust-lang/rust#73469): a prelude (`#![allow(unused)]`, the block's crate
//! attributes and `extern crate` lines, an injected `extern crate <crate>;`, `fn main() {`) then
//! the block's lines, and a panic names its line in that program under the source file's name
//! (`src/lib.rs:8` for a block whose assert is at line 10). The prelude is rebuilt from the
//! block the way rustdoc (edition ≤ 2021, one program a block) builds it; a line that falls
//! outside the block maps to nothing.

/// The file line of the program line `program` of the doctest whose fence is at file line
/// `fence` in `source`; `crate_name` is the library's name, which rustdoc injects an
/// `extern crate` for when the block mentions it.
pub(super) fn file_line(source: &str, fence: u32, program: u32, crate_name: &str) -> Option<u32> {
    let block = block(source, fence)?;
    let extern_self = |c: &str| c.starts_with("extern crate") && c.contains(crate_name);
    let attrs = block.iter().filter(|(_, c)| c.starts_with("#![")).count();
    let externs = block
        .iter()
        .filter(|(_, c)| c.starts_with("extern crate"))
        .count();
    let injects = !block.iter().any(|(_, c)| extern_self(c))
        && block.iter().any(|(_, c)| c.contains(crate_name));
    let main = !block.iter().any(|(_, c)| c.contains("fn main"));
    let prelude = 1 + attrs + externs + 2 * usize::from(injects) + usize::from(main);
    // `extern crate` lines move to the prelude; crate attributes leave their line behind.
    let body: Vec<u32> = block
        .iter()
        .filter(|(_, c)| !c.starts_with("extern crate"))
        .map(|(i, _)| *i)
        .collect();
    let at = (program as usize).checked_sub(prelude + 1)?;
    body.get(at).map(|i| fence + i)
}

/// The block's lines after the fence at file line `fence` (1-based), until the closing fence:
/// (line within the block, 1-based; its code, doc marker and rustdoc's `# ` hiding removed).
fn block(source: &str, fence: u32) -> Option<Vec<(u32, String)>> {
    let mut lines = source.lines().skip((fence as usize).checked_sub(1)?);
    let is_fence = |l: &str| {
        let t = l.trim_start();
        t.starts_with("```") || t.starts_with("~~~")
    };
    if !is_fence(doc_text(lines.next()?)) {
        return None;
    }
    let mut out = Vec::new();
    for (i, l) in lines.enumerate() {
        let t = doc_text(l);
        if is_fence(t) {
            return Some(out);
        }
        let code = t.trim();
        let code = match code.strip_prefix('#') {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => rest.trim_start(),
            _ => code,
        };
        out.push((i as u32 + 1, code.to_owned()));
    }
    None
}

/// A line's text without its doc marker (`///`, `//!`; a block comment's lines have none).
fn doc_text(line: &str) -> &str {
    let t = line.trim_start();
    let t = t
        .strip_prefix("///")
        .or_else(|| t.strip_prefix("//!"))
        .unwrap_or(t);
    t.strip_prefix(' ').unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks whose panics rustdoc 1.95 (edition 2021) placed at the program lines below; each
    /// expected file line is the block's `assert_eq!`.
    const SOURCE: &str = "\
/// a: no crate name
///
/// ```
/// let x = 1;
/// assert_eq!(x, 2);
/// ```
pub fn a() {}

/// b: crate name
///
/// ```
/// let x = dtx::two();
/// assert_eq!(x, 3);
/// ```
pub fn b() {}

/// c: own main
///
/// ```
/// fn main() {
///     let x = 1;
///     assert_eq!(x, 4);
/// }
/// ```
pub fn c() {}

/// d: hidden use + crate attr
///
/// ```
/// #![allow(dead_code)]
/// # use dtx::two;
/// let x = two();
/// assert_eq!(x, 5);
/// ```
pub fn d() {}

/// e: rust fence, indented doc
///
///   ```rust
///   let x = 1;
///   assert_eq!(x, 6);
///   ```
pub fn e() {}

/// f: extern crate itself
///
/// ```
/// extern crate dtx;
/// let x = dtx::two();
/// assert_eq!(x, 7);
/// ```
pub fn f() {}

/** g: block doc
```
let x = 1;
assert_eq!(x, 8);
```
*/
pub fn g() {}
";

    #[test]
    fn program_lines_map_into_the_doc_comment() {
        // (fence, program line printed by the real panic, the assert's file line)
        let cases = [
            (3, 4, 5),
            (11, 6, 13),
            (19, 4, 22),
            (29, 9, 33),
            (39, 4, 41),
            (47, 5, 50),
            (55, 4, 57),
        ];
        for (fence, program, want) in cases {
            assert_eq!(
                file_line(SOURCE, fence, program, "dtx"),
                Some(want),
                "block at {fence}"
            );
        }
    }

    #[test]
    fn lines_outside_the_block_map_to_nothing() {
        assert_eq!(file_line(SOURCE, 3, 2, "dtx"), None);
        assert_eq!(file_line(SOURCE, 3, 9, "dtx"), None);
        // Not a fence, a file too short, an unclosed block.
        assert_eq!(file_line(SOURCE, 4, 4, "dtx"), None);
        assert_eq!(file_line(SOURCE, 999, 4, "dtx"), None);
        assert_eq!(file_line("/// ```\n/// x\n", 1, 3, "dtx"), None);
        assert_eq!(file_line("", 0, 0, ""), None);
    }
}
