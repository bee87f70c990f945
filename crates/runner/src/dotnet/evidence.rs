//! What a `dotnet test` run leaves besides its TRX: the files under the scratch directory
//! (blame Sequence files, hang logs and dumps), what they and the console say was running,
//! and which watch (VSTest's blame or MTP's hang dump) named it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::Captured;
use crate::verdict;

use super::parse::test_id;
use super::{blame, project, trx, Platform};

pub(super) const HANG_DUMP_PACKAGE: &str = "Microsoft.Testing.Extensions.HangDump";

/// The files a run left in its results directory that pith reads.
#[derive(Debug, Default)]
pub(super) struct Files {
    pub(super) trx: Vec<PathBuf>,
    /// VSTest's blame `Sequence_<guid>.xml`.
    pub(super) sequences: Vec<PathBuf>,
    /// MTP's hang dump: `<process>_<pid>_hang.log` (the tests it found running) and `.dmp`.
    pub(super) hang_logs: Vec<PathBuf>,
    pub(super) hang_dumps: usize,
}

impl Files {
    /// Every file of interest under `dir`, in a stable order.
    pub(super) fn under(dir: &Path) -> Files {
        let mut out = Files::default();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let name = e.file_name().to_string_lossy().to_ascii_lowercase();
                if name.ends_with(".trx") {
                    out.trx.push(p);
                } else if name.starts_with("sequence") && name.ends_with(".xml") {
                    out.sequences.push(p);
                } else if name.ends_with("_hang.log") {
                    out.hang_logs.push(p);
                } else if name.ends_with("_hang.dmp") {
                    out.hang_dumps += 1;
                }
            }
        }
        out.trx.sort();
        out.sequences.sort();
        out.hang_logs.sort();
        out
    }
}

/// A file pith reads whole to name tests; anything larger is not one the platforms write.
pub(super) const EVIDENCE_LIMIT: u64 = 64 * 1024 * 1024;

pub(super) fn read_small(path: &Path) -> Option<String> {
    let len = std::fs::metadata(path).ok()?.len();
    if len > EVIDENCE_LIMIT {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A test the platform recorded as started and not ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unfinished {
    /// Its pith id.
    pub(super) id: String,
    /// The name the console's blame line uses for it (VSTest's fully qualified name).
    pub(super) name: String,
}

/// What the platforms recorded about tests that never finished, besides the TRX.
#[derive(Debug, Default)]
pub(super) struct Evidence {
    pub(super) unfinished: Vec<Unfinished>,
    /// MTP's hang dump fired (its files are there, or its console message).
    pub(super) mtp_hang: bool,
    /// TRX reports that were not read (over [`super::parse::TRX_LIMIT`]), each said in one line.
    pub(super) unread: Vec<String>,
}

impl Evidence {
    pub(super) fn read(files: &Files, cap: &Captured) -> Evidence {
        let sequences: Vec<String> = files
            .sequences
            .iter()
            .filter_map(|p| read_small(p))
            .collect();
        let logs: Vec<String> = files
            .hang_logs
            .iter()
            .filter_map(|p| read_small(p))
            .collect();
        let output = verdict::stdout_stderr(cap);
        Evidence::from_texts(&sequences, &logs, files.hang_dumps > 0, &output)
    }

    /// From the texts of the Sequence files and hang logs, whether hang dumps exist, and the
    /// console output. An unreadable Sequence file names nothing.
    pub(super) fn from_texts(
        sequences: &[String],
        logs: &[String],
        dumps: bool,
        output: &str,
    ) -> Evidence {
        let mut ev = Evidence::default();
        for text in sequences {
            let Ok(entries) = blame::parse_sequence(text) else {
                continue;
            };
            for e in blame::unfinished(&entries) {
                ev.add(blame::sequence_id(e), e.name.trim().to_owned());
            }
        }
        let mut listed = blame::mtp_console_list(output);
        for text in logs {
            listed.extend(blame::mtp_hang_log(text));
        }
        ev.mtp_hang = dumps || !logs.is_empty() || blame::mtp_hang(output);
        for name in listed {
            ev.add(name.clone(), name);
        }
        ev
    }

    pub(super) fn add(&mut self, id: String, name: String) {
        if !self.unfinished.iter().any(|u| u.id == id) {
            self.unfinished.push(Unfinished { id, name });
        }
    }
}

/// What pith asked of the platform about hangs.
pub(super) struct Watch<'a> {
    pub(super) layout: &'a project::Layout,
    /// The hang timeout given to the platform, if any.
    pub(super) hang: Option<Duration>,
}

impl Watch<'_> {
    pub(super) fn who(&self) -> &'static str {
        match self.layout.platform {
            Platform::Mtp { .. } => "the HangDump extension",
            _ => "vstest's blame-hang",
        }
    }

    /// The failure message of a test the platform's hang timeout stopped.
    pub(super) fn hung(&self) -> String {
        match self.hang {
            Some(t) => format!(
                "timed out: no test finished for {}s (half of what pith's --timeout left), so {} stopped the test host during this test",
                t.as_secs(),
                self.who()
            ),
            None => format!(
                "timed out: {} stopped the test host during this test (no progress for its hang timeout)",
                self.who()
            ),
        }
    }

    /// Why no running test is named when pith's deadline ended the run, and how to have it
    /// named.
    pub(super) fn unnamed_hint(&self) -> Option<String> {
        if let Some(t) = self.hang {
            return Some(format!(
                "no running test named: {} names a test after {}s without progress, and pith's deadline came first; a longer --timeout leaves it the time",
                self.who(),
                t.as_secs()
            ));
        }
        let mtp = matches!(self.layout.platform, Platform::Mtp { .. });
        if !mtp || self.layout.hang_dump() {
            return Some(format!(
                "no running test named: the --timeout left too little time for {} to name a hanging test; a longer one lets it",
                self.who()
            ));
        }
        let missing = self.layout.without_hang_dump();
        if missing.is_empty() {
            return None;
        }
        let mut list: Vec<String> = missing
            .iter()
            .take(3)
            .map(|p| p.display().to_string())
            .collect();
        if missing.len() > 3 {
            list.push(format!("{} more", missing.len() - 3));
        }
        Some(format!(
            "no running test named: Microsoft.Testing.Platform names a hanging test only with the {HANG_DUMP_PACKAGE} package; add it to {}",
            list.join(", ")
        ))
    }
}

pub(super) fn aborted(doc: &trx::Trx) -> bool {
    doc.summary_outcome
        .as_deref()
        .is_some_and(|o| o.eq_ignore_ascii_case("Aborted"))
        || doc.run_infos.iter().any(|(_, t)| {
            let t = t.to_ascii_lowercase();
            t.contains("test host process crashed") || t.contains("test run was aborted")
        })
}

/// The tests that started and never ended: those the platform recorded (blame Sequence
/// files, the hang dump's list), those VSTest's blame line names ("The test running when the
/// crash occurred:" followed by names, the Sequence file's fully qualified names, so only
/// the ones no file already gave), and results a report left in progress.
pub(super) fn running_tests(output: &str, docs: &[trx::Trx], evidence: &Evidence) -> Vec<String> {
    let mut out: Vec<String> = evidence.unfinished.iter().map(|u| u.id.clone()).collect();
    for name in blame_line_names(output, docs) {
        let known = evidence
            .unfinished
            .iter()
            .any(|u| u.name == name || u.id == name);
        if !known && !out.contains(&name) {
            out.push(name);
        }
    }
    for d in docs {
        for r in &d.results {
            let o = r.outcome.to_ascii_lowercase();
            if matches!(o.as_str(), "inprogress" | "aborted") {
                let id = test_id(r, d);
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
    }
    out
}

/// The names after VSTest's blame line, in the console or a report's run infos.
pub(super) fn blame_line_names(output: &str, docs: &[trx::Trx]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let texts = std::iter::once(output).chain(
        docs.iter()
            .flat_map(|d| d.run_infos.iter().map(|(_, t)| t.as_str())),
    );
    for text in texts {
        let mut lines = text.lines();
        while let Some(l) = lines.next() {
            // VSTest's line starts its line; a test's output the console shows is indented.
            if !l.starts_with(char::is_whitespace)
                && l.contains("The test running when the crash occurred")
            {
                for name in lines.by_ref() {
                    let name = name.trim();
                    if name.is_empty() || name.contains(' ') && !name.contains('(') {
                        break;
                    }
                    if !out.iter().any(|o| o == name) {
                        out.push(name.to_owned());
                    }
                }
            }
        }
    }
    out
}
