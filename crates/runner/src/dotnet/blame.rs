//! What the test platforms leave behind about tests that never finished, read without the SDK:
//! VSTest's blame Sequence file and hang message, and the test list of Microsoft.Testing.Platform's
//! hang dump.
//!
//! - VSTest's blame collector (`--blame`, `--blame-hang`) writes `Sequence_<guid>.xml` when its
//!   test host ended with tests started and not ended (a crash, or the hang timeout killing it):
//!   `<TestSequence><Test Name="Ns.C.M" DisplayName="..." Source="/p/X.dll" Completed="False"/>`,
//!   in the order the tests started. `Name` is the fully qualified name, `DisplayName` what the
//!   framework shows, `Completed` .NET's `True`/`False` (the first collectors wrote none).
//!   The collector prints `Data collector 'Blame' message: The specified inactivity time of
//!   2 minutes has elapsed. ...` when its hang timeout fired.
//! - MTP's HangDump extension prints `Hang dump timeout of '00:04:45' expired`, then `The
//!   following tests were still running when dump was taken (format:
//!   [<time-elapsed-since-start>] <name>):` and one `[00:04:46] <display name>` line per test,
//!   the same lines it writes to `<process>_<pid>_hang.log` next to the dump.
//!
//! Parsers here return an error or nothing on malformed input, never a guess and never a panic.

use quick_xml::events::{BytesStart, Event};

use super::command;

/// One `<Test>` of a Sequence file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    /// `Name`: the fully qualified name (`Ns.Class.Method`, NUnit's with its arguments).
    pub name: String,
    /// `DisplayName`: xUnit's `Ns.Class.Method(i: 3)`, MSTest's `Method (1,2)`, NUnit's
    /// `Method(False)`, or a name the author chose.
    pub display: String,
    /// `Source`: the test assembly.
    pub source: String,
    /// `Completed`; `None` in files written before the attribute existed.
    pub completed: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SequenceError {
    #[error("not a blame Sequence file (no <TestSequence> root)")]
    NotASequence,
    #[error("malformed Sequence file: {0}")]
    Malformed(String),
    /// The file ends inside `<TestSequence>`: the entries it would have listed last, the ones
    /// running at the end, may be missing, so none is trusted.
    #[error("Sequence file ends early (after {0} tests)")]
    Truncated(usize),
}

/// Reads a blame Sequence file.
pub fn parse_sequence(xml: &str) -> Result<Vec<Entry>, SequenceError> {
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut entries = Vec::new();
    // Elements open inside the root, the root included; a `<Test>` counts only directly in it.
    let mut depth = 0usize;
    let mut rooted = false;
    loop {
        let ev = reader
            .read_event()
            .map_err(|e| SequenceError::Malformed(e.to_string()))?;
        match ev {
            Event::Eof => {
                return match (rooted, depth) {
                    (false, _) => Err(SequenceError::NotASequence),
                    (true, 0) => Ok(entries),
                    (true, _) => Err(SequenceError::Truncated(entries.len())),
                };
            }
            Event::Start(e) if !rooted => {
                if e.local_name().as_ref() != "TestSequence" {
                    return Err(SequenceError::NotASequence);
                }
                rooted = true;
                depth = 1;
            }
            Event::Empty(e) if !rooted => {
                if e.local_name().as_ref() != "TestSequence" {
                    return Err(SequenceError::NotASequence);
                }
                rooted = true;
            }
            Event::Start(e) => {
                if depth == 0 {
                    // A second root: not what the collector writes.
                    return Err(SequenceError::Malformed(
                        "content after </TestSequence>".into(),
                    ));
                }
                if depth == 1 && e.local_name().as_ref() == "Test" {
                    entries.extend(entry(&e)?);
                }
                depth += 1;
            }
            Event::Empty(e) => {
                if depth == 0 {
                    return Err(SequenceError::Malformed(
                        "content after </TestSequence>".into(),
                    ));
                }
                if depth == 1 && e.local_name().as_ref() == "Test" {
                    entries.extend(entry(&e)?);
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            // Only whitespace may surround the root.
            Event::Text(t)
                if (!rooted || depth == 0) && !t.as_ref().chars().all(char::is_whitespace) =>
            {
                return Err(SequenceError::Malformed(
                    "text outside <TestSequence>".into(),
                ));
            }
            _ => {}
        }
    }
}

fn entry(e: &BytesStart<'_>) -> Result<Option<Entry>, SequenceError> {
    let attr = |key: &str| -> Result<Option<String>, SequenceError> {
        match e.try_get_attribute(key) {
            Ok(Some(a)) => a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| Some(v.into_owned()))
                .map_err(|err| SequenceError::Malformed(err.to_string())),
            Ok(None) => Ok(None),
            Err(err) => Err(SequenceError::Malformed(err.to_string())),
        }
    };
    let name = attr("Name")?.unwrap_or_default();
    let display = attr("DisplayName")?.unwrap_or_default();
    if name.trim().is_empty() && display.trim().is_empty() {
        return Ok(None);
    }
    let completed = match attr("Completed")? {
        None => None,
        Some(v) if v.trim().eq_ignore_ascii_case("true") => Some(true),
        Some(v) if v.trim().eq_ignore_ascii_case("false") => Some(false),
        Some(v) => return Err(SequenceError::Malformed(format!("Completed=\"{v}\""))),
    };
    Ok(Some(Entry {
        name,
        display,
        source: attr("Source")?.unwrap_or_default(),
        completed,
    }))
}

/// The entries that started and never ended. A file without `Completed` attributes (from the
/// first collectors) lists tests up to the one that was running: its last entry.
pub fn unfinished(entries: &[Entry]) -> Vec<&Entry> {
    if entries.iter().any(|e| e.completed.is_some()) {
        entries
            .iter()
            .filter(|e| e.completed == Some(false))
            .collect()
    } else {
        entries.last().into_iter().collect()
    }
}

/// The pith id of a Sequence entry, the way the TRX reader names the same test: the display
/// name when it is already qualified (xUnit), the class joined to it when it starts with the
/// method (NUnit, MSTest data rows), the fully qualified name when there is no display name,
/// and a display name its author chose as it is.
pub fn sequence_id(e: &Entry) -> String {
    let name = e.name.trim();
    let display = e.display.trim();
    if display.is_empty() {
        return name.to_owned();
    }
    let fq = command::base(name);
    let Some((class, method)) = fq.rsplit_once('.') else {
        return display.to_owned();
    };
    if display.starts_with(&format!("{class}.")) {
        return display.to_owned();
    }
    if !method.is_empty() && display.starts_with(method) {
        return format!("{class}.{display}");
    }
    display.to_owned()
}

/// Whether VSTest's blame collector says its hang timeout fired: its message as the console
/// prints it (a line of its own, so a test name quoting the words does not count), or as a
/// TRX run info.
pub fn vstest_hang<'a>(output: &str, run_infos: impl IntoIterator<Item = &'a str>) -> bool {
    const MESSAGE: &str = "The specified inactivity time of";
    // The collector's line starts its line; a test's output the console shows is indented.
    output.lines().any(|l| {
        l.strip_prefix("Data collector 'Blame' message: ")
            .is_some_and(|m| m.starts_with(MESSAGE))
    }) || run_infos.into_iter().any(|t| t.contains(MESSAGE))
}

/// Whether MTP's hang dump says its timeout fired, in the console.
pub fn mtp_hang(output: &str) -> bool {
    output.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("Hang dump timeout") && l.contains("expired")
    })
}

const RUNNING_HEADER: &str = "The following tests were still running when dump was taken";

/// The tests the hang dump listed in the console, in its order.
pub fn mtp_console_list(output: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = output.lines();
    while let Some(l) = lines.next() {
        if !l.contains(RUNNING_HEADER) {
            continue;
        }
        for l in lines.by_ref() {
            match hang_line(l) {
                Some(name) => push_new(&mut out, name),
                None => break,
            }
        }
    }
    out
}

/// The tests of a `*_hang.log` file, in its order; lines that are not entries are skipped.
pub fn mtp_hang_log(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for l in text.lines() {
        if let Some(name) = hang_line(l) {
            push_new(&mut out, name);
        }
    }
    out
}

/// `[00:04:46] Ns.C.M` (a .NET `TimeSpan`, `1.02:03:04` past a day) → `Ns.C.M`.
fn hang_line(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix('[')?;
    let (span, name) = rest.split_once(']')?;
    let span_ok = span.contains(':')
        && span
            .chars()
            .all(|c| c.is_ascii_digit() || c == ':' || c == '.');
    let name = name.trim();
    (span_ok && !name.is_empty()).then(|| name.to_owned())
}

fn push_new(out: &mut Vec<String>, s: String) {
    if !out.contains(&s) {
        out.push(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As `XmlDocument.Save` writes it: BOM, declaration, two-space indent, `/>` with a space.
    const SEQUENCE: &str = "\u{feff}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<TestSequence>\r\n  <Test Name=\"Calc.Tests.CalculatorTests.Adds\" DisplayName=\"Calc.Tests.CalculatorTests.Adds\" Source=\"/w/tests/Calc.Tests/bin/Debug/net8.0/Calc.Tests.dll\" Completed=\"True\" />\r\n  <Test Name=\"Calc.Tests.CalculatorTests.AddsPairs\" DisplayName=\"Calc.Tests.CalculatorTests.AddsPairs(a: 2, b: 2, want: 4)\" Source=\"/w/tests/Calc.Tests/bin/Debug/net8.0/Calc.Tests.dll\" Completed=\"False\" />\r\n</TestSequence>";

    #[test]
    fn reads_the_collectors_format() {
        let entries = parse_sequence(SEQUENCE).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].completed, Some(true));
        assert_eq!(
            entries[1].source,
            "/w/tests/Calc.Tests/bin/Debug/net8.0/Calc.Tests.dll"
        );
        let open: Vec<String> = unfinished(&entries).into_iter().map(sequence_id).collect();
        assert_eq!(
            open,
            ["Calc.Tests.CalculatorTests.AddsPairs(a: 2, b: 2, want: 4)"]
        );
    }

    #[test]
    fn ids_match_the_trx_reader() {
        let e = |name: &str, display: &str| Entry {
            name: name.into(),
            display: display.into(),
            ..Entry::default()
        };
        // NUnit: the display name is the method with its arguments.
        assert_eq!(
            sequence_id(&e("Ns.C.M(False)", "M(False)")),
            "Ns.C.M(False)"
        );
        // MSTest data row.
        assert_eq!(sequence_id(&e("Ns.C.Add", "Add (1,2)")), "Ns.C.Add (1,2)");
        // xUnit, a name the author chose.
        assert_eq!(
            sequence_id(&e("Ns.C.IsEven", "Should be even(i: 3)")),
            "Should be even(i: 3)"
        );
        assert_eq!(sequence_id(&e("Ns.C.M", "")), "Ns.C.M");
        assert_eq!(sequence_id(&e("", "Ns.C.M")), "Ns.C.M");
    }

    #[test]
    fn files_without_completed_name_their_last_test() {
        let old = "<TestSequence><Test Name=\"A.B.One\" Source=\"x.dll\" /><Test Name=\"A.B.Two\" Source=\"x.dll\" /></TestSequence>";
        let entries = parse_sequence(old).unwrap();
        let open: Vec<&str> = unfinished(&entries)
            .into_iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(open, ["A.B.Two"]);
        assert!(unfinished(&parse_sequence("<TestSequence/>").unwrap()).is_empty());
    }

    #[test]
    fn malformed_and_truncated_files_are_errors() {
        let cut = &SEQUENCE[..SEQUENCE.len() - 20];
        assert!(matches!(
            parse_sequence(cut),
            Err(SequenceError::Truncated(_)) | Err(SequenceError::Malformed(_))
        ));
        assert_eq!(
            parse_sequence("<TestSequence><Test Name=\"A.B.C\" Completed=\"False\" />"),
            Err(SequenceError::Truncated(1))
        );
        assert!(matches!(
            parse_sequence("<TestSequence><Test Name=\"unterminated"),
            Err(SequenceError::Malformed(_)) | Err(SequenceError::Truncated(_))
        ));
        assert_eq!(parse_sequence(""), Err(SequenceError::NotASequence));
        assert_eq!(
            parse_sequence("<TestRun/>"),
            Err(SequenceError::NotASequence)
        );
        assert!(parse_sequence(
            "<TestSequence><Test Name=\"A\" Completed=\"maybe\"/></TestSequence>"
        )
        .is_err());
        assert!(parse_sequence("<TestSequence></Other>").is_err());
        assert!(parse_sequence("garbage<TestSequence/>").is_err());
    }

    #[test]
    fn hang_messages_and_lists() {
        let vstest = "  Passed A.B.C [3 ms]\nData collector 'Blame' message: The specified inactivity time of 27 seconds has elapsed. Collecting hang dumps from testhost and its child processes.\n";
        assert!(vstest_hang(vstest, []));
        assert!(!vstest_hang(
            "  Passed Detector(line: \"Data collector 'Blame' message: The specified inactivity time of 2 minutes\") [1 ms]",
            []
        ));
        assert!(vstest_hang(
            "",
            ["Data collector 'Blame' message: The specified inactivity time of 2 minutes has elapsed."]
        ));

        let mtp = "Hang dump timeout of '00:00:27' expired\nThe following tests were still running when dump was taken (format: [<time-elapsed-since-start>] <name>):\n[00:00:28] Calc.Tests.HangTests.Waits\n[1.00:00:03] Calc.Tests.HangTests.Spins(n: 2)\nCreating dump file '/r/Calc.Tests_42_hang.dmp'\n";
        assert!(mtp_hang(mtp));
        assert_eq!(
            mtp_console_list(mtp),
            [
                "Calc.Tests.HangTests.Waits",
                "Calc.Tests.HangTests.Spins(n: 2)"
            ]
        );
        assert_eq!(
            mtp_hang_log("[00:00:28] Calc.Tests.HangTests.Waits\r\n\r\nnoise\n[x] no\n[00:01] \n"),
            ["Calc.Tests.HangTests.Waits"]
        );
        assert!(!mtp_hang("Passed!"));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}") {
            let _ = parse_sequence(&s);
            let _ = parse_sequence(&format!("<TestSequence><Test Name=\"{s}\" Completed=\"False\"/>{s}</TestSequence>"));
            let _ = mtp_hang_log(&s);
            let _ = mtp_console_list(&format!("{RUNNING_HEADER}\n{s}"));
            let _ = vstest_hang(&s, [s.as_str()]);
        }

        #[test]
        fn truncations_are_errors_not_guesses(cut in 0usize..2000) {
            let mut at = cut.min(SEQUENCE.len());
            while !SEQUENCE.is_char_boundary(at) {
                at -= 1;
            }
            if at < SEQUENCE.len() {
                proptest::prop_assert!(parse_sequence(&SEQUENCE[..at]).is_err());
            }
        }
    }
}
