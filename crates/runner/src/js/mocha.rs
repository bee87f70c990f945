//! mocha's own words where pith's reporter has none: a serial run loads every test file before
//! it starts, so a file that does not load stops the run before any reporter exists, and mocha
//! prints `Exception during run: <the error>` and exits 1. That error is read back here into the
//! file that failed to load and a text [`super::parse::suite_failure`] reads (its message first,
//! then where). In parallel mode each file loads in a worker and mocha reports a file that does
//! not load as a failure of its own (`Uncaught error outside test suite`), through the reporter.

/// mocha's line before the error that stopped the run.
const MARKER: &str = "Exception during run: ";

/// The file that did not load (as mocha printed it, absolute) and its error as an error text:
/// `Name: message`, then a frame at the file's line when mocha printed one.
pub(crate) fn load_failure(output: &str) -> Option<(String, String)> {
    let clean = crate::text::strip_ansi(output);
    let at = clean.find(MARKER)?;
    let text = &clean[at + MARKER.len()..];
    let first = text.lines().next().unwrap_or("").trim();
    // node's syntax error in a CommonJS file: `<file>:<line>`, the code and a caret, a blank
    // line, then `SyntaxError: ...`.
    if first.starts_with('/') {
        if let Some((file, line)) = super::stack::location(first) {
            let message = text
                .lines()
                .map(str::trim)
                .find(|l| is_error_line(l))
                .unwrap_or("SyntaxError");
            return Some((file.clone(), format!("{message}\n    at {file}:{line}")));
        }
    }
    // An ES module's syntax error as mocha 10 and later word it: `SyntaxError[ @<file> ]: ...`.
    if let Some((kind, rest)) = first.split_once("[ @") {
        if let Some((file, message)) = rest.split_once(" ]: ") {
            return Some((file.to_owned(), format!("{kind}: {message}")));
        }
    }
    let file = required_by(text)
        .or_else(|| imported_from(first))
        .or_else(|| first_test_frame(text))?;
    // The message, then its frames (node prints the error's own properties after the last
    // one, from ` {` on).
    let mut body = vec![first];
    body.extend(
        text.lines()
            .skip(1)
            .map(|l| l.trim_end().trim_end_matches(" {"))
            .filter(|l| l.trim_start().starts_with("at ")),
    );
    Some((file, body.join("\n")))
}

fn is_error_line(l: &str) -> bool {
    let (kind, _) = super::stack::split_kind(l);
    kind.is_some_and(|k| k.ends_with("Error"))
}

/// The outermost file of a CommonJS `Require stack:` (the test file that started the chain).
fn required_by(text: &str) -> Option<String> {
    let i = text.find("Require stack:\n")?;
    text[i..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        .last()
        .map(|l| l[2..].trim().to_owned())
}

/// An ES module's missing import: `... imported from <file>`.
fn imported_from(first: &str) -> Option<String> {
    let (_, file) = first.rsplit_once(" imported from ")?;
    Some(file.trim().trim_start_matches("file://").to_owned())
}

/// The first frame outside `node_modules` and node's internals.
fn first_test_frame(text: &str) -> Option<String> {
    text.lines()
        .filter_map(super::stack::frame_location)
        .map(|(f, _)| f.trim_start_matches("file://").to_owned())
        .find(|f| f.starts_with('/') && !f.contains("/node_modules/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_that_did_not_load_and_its_error() {
        let missing = "\n Exception during run: Error: Cannot find module '../src/not_there'\nRequire stack:\n- /ws/src/a.js\n- /ws/tests/broken.test.js\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n    at Object.<anonymous> (/ws/src/a.js:2:21)\n    at async singleRun (/ws/node_modules/mocha/lib/cli/run-helpers.js:174:3) {\n  code: 'MODULE_NOT_FOUND',\n}";
        let (file, text) = load_failure(missing).unwrap();
        assert_eq!(file, "/ws/tests/broken.test.js");
        assert!(text.starts_with("Error: Cannot find module '../src/not_there'\n    at Module"));
        assert!(!text.contains("code:"), "{text}");

        let cjs = " Exception during run: /ws/tests/broken.test.js:4\n  const x = ;\n            ^\n\nSyntaxError: Unexpected token ';'\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)";
        assert_eq!(
            load_failure(cjs),
            Some((
                "/ws/tests/broken.test.js".to_owned(),
                "SyntaxError: Unexpected token ';'\n    at /ws/tests/broken.test.js:4".to_owned()
            ))
        );

        let esm = " Exception during run: SyntaxError[ @/ws/tests/broken.test.mjs ]: Unexpected token ';'\n    at compileSourceTextModule (node:internal/modules/esm/utils:346:16)";
        assert_eq!(
            load_failure(esm),
            Some((
                "/ws/tests/broken.test.mjs".to_owned(),
                "SyntaxError: Unexpected token ';'".to_owned()
            ))
        );

        let import = " Exception during run: Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/ws/src/x.js' imported from /ws/tests/b.test.mjs\n    at finalizeResolution (node:internal/modules/esm/resolve:257:11)";
        assert_eq!(load_failure(import).unwrap().0, "/ws/tests/b.test.mjs");

        assert_eq!(load_failure("Error: No test files found: \"test\""), None);
    }
}
