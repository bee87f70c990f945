//! `pith test --report PATH...`: existing report files (CI artifacts, runners pith does not
//! drive) read into the same answer without running anything. The format is told from the
//! content, never from the file name. Only regular files are read, up to [`REPORT_LIMIT`]
//! (a FIFO, a device or a directory is refused at once), JUnit XML and TRX as a stream.

use std::path::{Path, PathBuf};

use pith_model::Run;

use crate::{ParseError, PathMap};

/// The report formats pith reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Junit,
    Trx,
    GoJson,
    Jest,
    Vitest,
    Gtest,
}

/// The TRX namespace: a `<TestRun>` root in it is a Visual Studio test results file.
const TRX_NAMESPACE: &str = "microsoft.com/schemas/VisualStudio/TeamTest/";

/// Which format `text` is, from its shape (never its file name): the root element of an XML
/// document, the keys of a JSON document, or `go test -json`'s event lines. A leading BOM,
/// whitespace, XML declarations and comments are skipped. vitest's JSON reporter copies jest's
/// shape; it leaves out the keys only jest writes (`numRuntimeErrorTestSuites`,
/// `wasInterrupted`, `openHandles`), which is what tells the two apart.
pub fn sniff(text: &str) -> Option<Format> {
    let text = text.trim_start_matches(|c: char| c == '\u{feff}' || c.is_whitespace());
    match text.as_bytes().first()? {
        b'<' => sniff_xml(text),
        b'{' | b'[' => sniff_json(text),
        // Build output printed ahead of `go test -json`'s events.
        _ => go_events(text).then_some(Format::GoJson),
    }
}

fn sniff_xml(text: &str) -> Option<Format> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) | Event::Empty(e) => {
                let name = e.local_name();
                return match name.as_ref() {
                    "TestRun" => e
                        .attributes()
                        .flatten()
                        .any(|a| {
                            a.key.as_ref().starts_with("xmlns") && a.value.contains(TRX_NAMESPACE)
                        })
                        .then_some(Format::Trx),
                    "testsuites" | "testsuite" => Some(Format::Junit),
                    _ => None,
                };
            }
            Event::Eof => return None,
            // Declarations, comments, doctypes, processing instructions, blank text.
            _ => {}
        }
    }
}

/// `go test -json`: one event object per line (`Action`, with `Package` or `Time`); build
/// output may come first.
fn go_events(text: &str) -> bool {
    let event = |line: &str| {
        serde_json::from_str::<serde_json::Value>(line).is_ok_and(|v| {
            v.get("Action").is_some_and(serde_json::Value::is_string)
                && (v.get("Package").is_some() || v.get("Time").is_some())
        })
    };
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .take(20)
        .any(event)
}

fn sniff_json(text: &str) -> Option<Format> {
    if go_events(text) {
        return Some(Format::GoJson);
    }
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let root = doc.as_object()?;
    let array = |k: &str| root.get(k).and_then(serde_json::Value::as_array);
    if let Some(suites) = array("testsuites") {
        // GoogleTest: `testsuites` is an array of suites, each holding its tests in `testsuite`.
        let gtest_suites = suites
            .iter()
            .all(|s| s.get("testsuite").is_some_and(serde_json::Value::is_array));
        let gtest_root = root.get("tests").is_some_and(serde_json::Value::is_number)
            || root.get("name").is_some_and(|n| n == "AllTests");
        return (gtest_suites && (gtest_root || !suites.is_empty())).then_some(Format::Gtest);
    }
    let results = array("testResults")?;
    if !root.contains_key("numTotalTests")
        || !results.iter().all(|r| {
            r.get("assertionResults")
                .is_some_and(serde_json::Value::is_array)
        })
    {
        return None;
    }
    let jest_only = ["numRuntimeErrorTestSuites", "wasInterrupted", "openHandles"];
    Some(if jest_only.iter().any(|k| root.contains_key(*k)) {
        Format::Jest
    } else {
        Format::Vitest
    })
}

/// A streaming parser of a report file.
pub type StreamParse = fn(std::io::Take<std::fs::File>, &PathMap) -> Result<Run, ParseError>;

/// One report format: what `--report`'s messages call it, how it is parsed whole, and how as a
/// stream when it can be (XML). Adding a format: a [`Format`] variant, a row here, a rule in
/// [`sniff`], and its label in the ecosystem's descriptor (`pith_model::ecosystem`).
pub struct Spec {
    pub format: Format,
    /// As the descriptors' `reports` and the "not a report" message name it.
    pub label: &'static str,
    pub parse: fn(&str, &PathMap) -> Result<Run, ParseError>,
    pub stream: Option<StreamParse>,
}

/// Every format pith reads, in the order the "not a report" message lists them.
pub const FORMATS: &[Spec] = &[
    Spec {
        format: Format::Junit,
        label: "JUnit XML",
        parse: crate::jvm::parse_report,
        stream: Some(crate::jvm::parse_report_from),
    },
    Spec {
        format: Format::Trx,
        label: "TRX",
        parse: crate::dotnet::parse_trx,
        stream: Some(crate::dotnet::parse_trx_from),
    },
    Spec {
        format: Format::GoJson,
        label: "go test -json",
        parse: crate::go::parse_json,
        stream: None,
    },
    Spec {
        format: Format::Jest,
        label: "jest/vitest JSON",
        parse: crate::js::parse_jest,
        stream: None,
    },
    Spec {
        format: Format::Vitest,
        label: "jest/vitest JSON",
        parse: crate::js::parse_vitest,
        stream: None,
    },
    Spec {
        format: Format::Gtest,
        label: "GoogleTest JSON",
        parse: crate::gtest::parse_json,
        stream: None,
    },
];

fn spec(format: Format) -> &'static Spec {
    FORMATS
        .iter()
        .find(|s| s.format == format)
        .expect("every format has a row in FORMATS")
}

/// The formats' labels, each once, for the "not a report" message.
fn known_formats() -> String {
    let mut labels: Vec<&str> = Vec::new();
    for s in FORMATS {
        if !labels.contains(&s.label) {
            labels.push(s.label);
        }
    }
    labels.join(", ")
}

/// Parses one report of a known format.
pub fn parse(format: Format, text: &str, paths: &PathMap) -> Result<Run, ParseError> {
    (spec(format).parse)(text, paths)
}

/// The largest report file `--report` reads. Reports of whole CI runs reach tens of MB; a
/// larger file is not a report of tests, and reading it would cost its size in memory for the
/// formats that cannot be streamed (JSON).
pub const REPORT_LIMIT: u64 = 256 << 20;

/// Bytes read from the start of a file to tell its format (an XML report's root element comes
/// after at most a declaration, comments and a doctype).
const SNIFF_BYTES: u64 = 1 << 20;

/// Why a report file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A FIFO, a device, a socket or a directory: nothing a runner writes a report as, and
    /// reading one could block forever (a FIFO with no writer) or never end (`/dev/zero`).
    #[error("{path}: not a regular file ({kind}); --report reads report files only")]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{path}: {size} bytes, over the {limit} MB --report reads", limit = REPORT_LIMIT >> 20)]
    TooLarge { path: PathBuf, size: u64 },
    #[error("{path}: not a report pith knows ({known})", known = known_formats())]
    Unknown { path: PathBuf },
    #[error("{path}: {source}")]
    Parse { path: PathBuf, source: ParseError },
}

/// What kind of file `t` is, in words, when it is not a regular file.
fn not_regular(t: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else {
        Some("not a file")
    }
}

/// Opens `path` for reading if it is a regular file within [`REPORT_LIMIT`]. The type is
/// checked before opening (opening a FIFO blocks until a writer comes; opening a socket fails
/// obscurely) and again on the open file, which is opened without blocking, so a path swapped
/// for a FIFO in between cannot block either.
fn open_report(path: &Path) -> Result<(std::fs::File, u64), ReportError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let check = |meta: &std::fs::Metadata| -> Result<u64, ReportError> {
        if let Some(kind) = not_regular(meta.file_type()) {
            return Err(ReportError::NotAFile {
                path: path.to_path_buf(),
                kind,
            });
        }
        if meta.len() > REPORT_LIMIT {
            return Err(ReportError::TooLarge {
                path: path.to_path_buf(),
                size: meta.len(),
            });
        }
        Ok(meta.len())
    };
    check(&std::fs::metadata(path).map_err(io)?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(io)?;
    let len = check(&file.metadata().map_err(io)?)?;
    Ok((file, len))
}

/// Reads one report file: regular files only, at most [`REPORT_LIMIT`] bytes. JUnit XML and
/// TRX are parsed as a stream (what is held is what is kept of them: each text cut to its head
/// and tail); the JSON formats are read whole.
pub fn read(path: &Path, paths: &PathMap) -> Result<Run, ReportError> {
    use std::io::{Read, Seek};
    let io = |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (mut file, _) = open_report(path)?;
    let mut head = Vec::new();
    (&mut file)
        .take(SNIFF_BYTES)
        .read_to_end(&mut head)
        .map_err(io)?;
    let head_text = String::from_utf8_lossy(&head);
    let xml = head_text
        .trim_start_matches(|c: char| c == '\u{feff}' || c.is_whitespace())
        .starts_with('<');
    let parse_err = |source| ReportError::Parse {
        path: path.to_path_buf(),
        source,
    };
    if xml {
        let format = sniff_xml(&head_text).ok_or_else(|| ReportError::Unknown {
            path: path.to_path_buf(),
        })?;
        file.rewind().map_err(io)?;
        let input = file.take(REPORT_LIMIT);
        return match spec(format).stream {
            Some(stream) => stream(input, paths).map_err(parse_err),
            None => Err(ReportError::Unknown {
                path: path.to_path_buf(),
            }),
        };
    }
    let mut bytes = head;
    file.take(REPORT_LIMIT.saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let text = String::from_utf8_lossy(&bytes);
    let format = sniff(&text).ok_or_else(|| ReportError::Unknown {
        path: path.to_path_buf(),
    })?;
    parse(format, &text, paths).map_err(parse_err)
}

#[cfg(test)]
mod read_tests {
    use super::*;

    fn paths() -> PathMap {
        PathMap::new(Path::new("/ws"))
    }

    #[test]
    fn only_regular_files_are_read() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo.xml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // A FIFO with no writer: an error at once, not a read that never returns.
        let e = read(&fifo, &paths()).unwrap_err();
        assert!(
            matches!(e, ReportError::NotAFile { kind: "a FIFO", .. }),
            "{e}"
        );
        assert!(e.to_string().contains("not a regular file (a FIFO)"), "{e}");
        let e = read(Path::new("/dev/zero"), &paths()).unwrap_err();
        assert!(
            matches!(
                e,
                ReportError::NotAFile {
                    kind: "a character device",
                    ..
                }
            ),
            "{e}"
        );
        let e = read(d.path(), &paths()).unwrap_err();
        assert!(
            matches!(
                e,
                ReportError::NotAFile {
                    kind: "a directory",
                    ..
                }
            ),
            "{e}"
        );
        let sock = d.path().join("s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let e = read(&sock, &paths()).unwrap_err();
        assert!(
            matches!(
                e,
                ReportError::NotAFile {
                    kind: "a socket",
                    ..
                }
            ),
            "{e}"
        );
        // A symlink to a FIFO is a FIFO.
        let link = d.path().join("link.xml");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert!(matches!(
            read(&link, &paths()),
            Err(ReportError::NotAFile { .. })
        ));
        let e = read(&d.path().join("absent.xml"), &paths()).unwrap_err();
        assert!(matches!(e, ReportError::Io { .. }), "{e}");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_before_it_is_read() {
        let d = tempfile::tempdir().unwrap();
        let big = d.path().join("big.xml");
        let f = std::fs::File::create(&big).unwrap();
        // Sparse: no disk is used, and none of it is read.
        f.set_len(REPORT_LIMIT + 1).unwrap();
        let e = read(&big, &paths()).unwrap_err();
        assert!(matches!(e, ReportError::TooLarge { .. }), "{e}");
        assert!(
            e.to_string().contains("over the 256 MB --report reads"),
            "{e}"
        );
    }

    #[test]
    fn xml_reports_stream_and_json_reads_whole() {
        let d = tempfile::tempdir().unwrap();
        let junit = d.path().join("r.xml");
        std::fs::write(
            &junit,
            "\u{feff}<?xml version=\"1.0\"?>\n<testsuite name=\"a.B\" tests=\"1\"><testcase classname=\"a.B\" name=\"c\"/></testsuite>",
        )
        .unwrap();
        let run = read(&junit, &paths()).unwrap();
        assert_eq!((run.runner.as_str(), run.passed), ("junit", 1));
        let trx = d.path().join("r.trx");
        std::fs::write(&trx, "<TestRun xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\"><Results><UnitTestResult testId=\"a\" testName=\"A.B.C\" outcome=\"Passed\"/></Results></TestRun>").unwrap();
        assert_eq!(read(&trx, &paths()).unwrap().passed, 1);
        let other = d.path().join("r.html");
        std::fs::write(&other, "<html/>").unwrap();
        assert!(matches!(
            read(&other, &paths()),
            Err(ReportError::Unknown { .. })
        ));
        let go = d.path().join("go.json");
        std::fs::write(
            &go,
            "{\"Action\":\"pass\",\"Package\":\"x\",\"Test\":\"TestA\",\"Elapsed\":0.1}\n",
        )
        .unwrap();
        assert_eq!(read(&go, &paths()).unwrap().runner, "go");
    }

    #[test]
    fn the_unknown_message_lists_every_format_once() {
        let e = ReportError::Unknown {
            path: PathBuf::from("x"),
        };
        assert_eq!(
            e.to_string(),
            "x: not a report pith knows (JUnit XML, TRX, go test -json, jest/vitest JSON, \
             GoogleTest JSON)"
        );
    }

    #[test]
    fn every_format_belongs_to_one_ecosystem_and_every_claim_to_a_format() {
        use pith_model::ecosystem::ECOSYSTEMS;
        for s in FORMATS {
            let owners = ECOSYSTEMS
                .iter()
                .filter(|e| e.reports.contains(&s.label))
                .count();
            assert_eq!(owners, 1, "{}", s.label);
        }
        for e in ECOSYSTEMS {
            for r in e.reports {
                assert!(FORMATS.iter().any(|s| s.label == *r), "{}: {r}", e.id);
            }
        }
    }
}

#[cfg(test)]
mod sniff_tests {
    use super::*;

    // Where the external corpus of real reports is, if anywhere.
    #[allow(dead_code)]
    mod samples {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/reports/samples.rs"
        ));
    }

    /// One of our own reports (tests/fixtures/reports), sniffed.
    fn sniff_ours(rel: &str) -> Option<Format> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/reports")
            .join(rel);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        sniff(&String::from_utf8_lossy(&bytes))
    }

    #[test]
    fn our_reports_are_told_apart() {
        // A BOM, comments before the root, MTP's and mstest.exe's TRX, empty runs.
        for trx in [
            "xunit-vstest.trx",
            "xunit-v3-mtp.trx",
            "xunit-v2-integration.trx",
            "nunit-vstest.trx",
            "mstest-legacy.trx",
            "empty.trx",
            "empty-definitions.trx",
        ] {
            assert_eq!(
                sniff_ours(&format!("trx/{trx}")),
                Some(Format::Trx),
                "{trx}"
            );
        }
        for xml in [
            "plain-junit4.xml",
            "TEST-org.acme.ledger.RetryingClientTest.xml",
            "gradle-6.xml",
            "gradle-7.xml",
            "gradle-8.xml",
            "gradle-9.xml",
        ] {
            assert_eq!(
                sniff_ours(&format!("junit/{xml}")),
                Some(Format::Junit),
                "{xml}"
            );
        }
        // A multi-suite report as Python's junit writers start it: single-quoted declaration.
        assert_eq!(
            sniff("<?xml version='1.0' encoding='utf-8'?>\n<testsuites tests=\"1\" failures=\"0\"><testsuite name=\"a.B\" tests=\"1\"><testcase name=\"c\" classname=\"a.B\" /></testsuite></testsuites>"),
            Some(Format::Junit)
        );
        // A shell trace line and build-output events ahead of the test events.
        assert_eq!(sniff_ours("go/saved-stream.json"), Some(Format::GoJson));
    }

    /// The same over the external corpus, where it is.
    #[test]
    fn real_samples_are_told_apart() {
        if samples::dir().is_none() {
            return;
        }
        let sniff_sample = |rel: &str| sniff(&samples::read(rel).unwrap());
        for trx in [
            "xunit-dotnet.trx",
            "xunit-v3-mtp.trx",
            "empty.trx",
            "empty-test-definitions.trx",
            "mstest-pickles.trx",
            "nunit-netcoreapp3.1.trx",
            "xunit-netcoreapp3.1.trx",
        ] {
            assert_eq!(
                sniff_sample(&format!("trx/{trx}")),
                Some(Format::Trx),
                "{trx}"
            );
        }
        for xml in [
            "java-junit4-complete.xml",
            "java-surefire-pulsar-single.xml",
            "java-pulsar-report.xml",
        ] {
            assert_eq!(
                sniff_sample(&format!("junit/{xml}")),
                Some(Format::Junit),
                "{xml}"
            );
        }
        assert_eq!(sniff_sample("go/go-test.json"), Some(Format::GoJson));
    }

    #[test]
    fn xml_roots_behind_bom_declarations_and_comments() {
        let trx = "\u{feff}  <?xml version=\"1.0\"?>\n<!-- made by hand -->\n<TestRun id=\"1\" xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\"><Results/></TestRun>";
        assert_eq!(sniff(trx), Some(Format::Trx));
        // A TestRun outside the TRX namespace is some other format.
        assert_eq!(sniff("<TestRun><Results/></TestRun>"), None);
        assert_eq!(
            sniff("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites><testsuite name=\"a\"/></testsuites>"),
            Some(Format::Junit)
        );
        assert_eq!(
            sniff("\n\n<testsuite name=\"a\" tests=\"0\"/>"),
            Some(Format::Junit)
        );
        assert_eq!(sniff("<html><body>testsuite</body></html>"), None);
    }

    #[test]
    fn json_reports_by_their_keys() {
        let go = "# example.com/x\nbuild noise\n{\"Time\":\"2024-01-01T00:00:00Z\",\"Action\":\"start\",\"Package\":\"example.com/x\"}\n{\"Action\":\"run\",\"Package\":\"example.com/x\",\"Test\":\"TestA\"}\n";
        assert_eq!(sniff(go), Some(Format::GoJson));
        let jest = r#"{"numFailedTestSuites":0,"numFailedTests":0,"numPassedTestSuites":1,"numPassedTests":1,"numPendingTestSuites":0,"numPendingTests":0,"numRuntimeErrorTestSuites":0,"numTodoTests":0,"numTotalTestSuites":1,"numTotalTests":1,"openHandles":[],"startTime":1,"success":true,"testResults":[{"assertionResults":[{"ancestorTitles":[],"fullName":"adds","status":"passed","title":"adds","failureMessages":[],"numPassingAsserts":1}],"endTime":2,"message":"","name":"/w/a.test.js","startTime":1,"status":"passed","summary":""}],"wasInterrupted":false}"#;
        assert_eq!(sniff(jest), Some(Format::Jest));
        let vitest = r#"{
  "numTotalTestSuites": 1, "numPassedTestSuites": 1, "numFailedTestSuites": 0, "numPendingTestSuites": 0,
  "numTotalTests": 1, "numPassedTests": 1, "numFailedTests": 0, "numPendingTests": 0, "numTodoTests": 0,
  "snapshot": {}, "startTime": 1, "success": true,
  "testResults": [{"assertionResults": [{"ancestorTitles": [], "fullName": "adds", "status": "passed", "title": "adds", "duration": 1, "failureMessages": [], "meta": {}}],
    "startTime": 1, "endTime": 2, "status": "passed", "message": "", "name": "/w/a.test.ts"}]
}"#;
        assert_eq!(sniff(vitest), Some(Format::Vitest));
        let gtest = r#"{
  "tests": 1, "failures": 0, "disabled": 0, "errors": 0, "time": "0s", "name": "AllTests",
  "testsuites": [{"name": "Sum", "tests": 1, "testsuite": [{"name": "Ok", "file": "t.cc", "line": 3, "status": "RUN", "result": "COMPLETED", "classname": "Sum"}]}]
}"#;
        assert_eq!(sniff(gtest), Some(Format::Gtest));
        // JSON that is none of them.
        assert_eq!(sniff(r#"{"testsuites": 3}"#), None);
        assert_eq!(sniff(r#"{"numTotalTests": 1}"#), None);
        assert_eq!(sniff(r#"[1, 2]"#), None);
        assert_eq!(sniff("{ truncated"), None);
        assert_eq!(sniff(""), None);
        assert_eq!(sniff("plain text"), None);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,300}") {
            let _ = sniff(&s);
            let _ = sniff(&format!("<{s}"));
            let _ = sniff(&format!("{{{s}"));
        }
    }
}
