//! pith's JUnit Platform listener (`listener/PithListener.java`, embedded in the binary) and the
//! events it writes. Surefire writes a class's report only when the class ends, so a run killed
//! at its deadline or a test that calls `System.exit` leaves no trace of the test that was
//! running; the listener appends `S\tclass\tname` when a test starts and
//! `F\tclass\tname\tSTATUS[\tthrowable]` when it ends, flushed at once, to the file named by
//! `PITH_JUNIT_EVENTS`. The project is not edited: the listener is compiled once with the JDK's
//! `javac` into pith's cache (against stand-ins of the few JUnit types it uses, so no JUnit jar is
//! needed) and put on the test classpath from there, where the JUnit Platform launcher finds it
//! through `META-INF/services`. Without `javac`, or with a provider that is not the JUnit
//! Platform (JUnit 4, TestNG), there are no events and answers name only what the reports and
//! the console tell.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::process::{self, End};

/// The environment variable naming the events file.
pub const EVENTS_ENV: &str = "PITH_JUNIT_EVENTS";

/// The environment variable naming the directory the listener writes each test's JaCoCo data
/// to, when pith traces (see `trace`).
pub const JACOCO_ENV: &str = "PITH_JACOCO_DIR";

const SOURCES: &[(&str, &str)] = &[
    (
        "PithListener.java",
        include_str!("listener/PithListener.java"),
    ),
    (
        "TestExecutionListener.java",
        include_str!("listener/TestExecutionListener.java"),
    ),
    (
        "TestIdentifier.java",
        include_str!("listener/TestIdentifier.java"),
    ),
    ("TestSource.java", include_str!("listener/TestSource.java")),
    (
        "TestExecutionResult.java",
        include_str!("listener/TestExecutionResult.java"),
    ),
    (
        "MethodSource.java",
        include_str!("listener/MethodSource.java"),
    ),
];

const SERVICE: &str = "META-INF/services/org.junit.platform.launcher.TestExecutionListener";
const CLASS: &str = "dev/pith/PithListener.class";

/// FNV-1a over every source: the cache directory changes when the listener does.
fn hash() -> u64 {
    crate::fnv1a(SOURCES.iter().flat_map(|(n, s)| n.bytes().chain(s.bytes())))
}

/// The classpath directory holding the compiled listener, compiling it on first use. `None`
/// when there is no `javac` or it failed: runs go on without events.
pub fn install(cache: &Path, scratch: &Path, deadline: Instant) -> Option<PathBuf> {
    let base = cache.join("jvm");
    let dir = base.join(format!("listener-{:016x}", hash()));
    if dir.join(CLASS).is_file() && dir.join(SERVICE).is_file() {
        return Some(dir);
    }
    let javac = jdk_tool("javac")?;
    let src = scratch.join("pith-listener-src");
    std::fs::create_dir_all(&src).ok()?;
    for (name, text) in SOURCES {
        std::fs::write(src.join(name), text).ok()?;
    }
    std::fs::create_dir_all(&base).ok()?;
    let tmp = base.join(format!(
        ".listener-{}-{:x}",
        std::process::id(),
        rand_suffix()
    ));
    let out = tmp.join("classes");
    std::fs::create_dir_all(&out).ok()?;
    let files: Vec<PathBuf> = SOURCES.iter().map(|(n, _)| src.join(n)).collect();
    // Java 8 bytecode runs on every JVM a project may test with.
    let compiled = [
        &["--release", "8"][..],
        &["-source", "8", "-target", "8"][..],
    ]
    .iter()
    .any(|flags| {
        let mut cmd = crate::base_command(&javac, scratch);
        cmd.args(*flags)
            .args(["-nowarn", "-Xlint:-options", "-encoding", "UTF-8", "-d"])
            .arg(&out)
            .args(&files);
        matches!(
            process::run(cmd, deadline, None).map(|c| c.end),
            Ok(End::Exited(0))
        )
    });
    let result = (|| {
        if !compiled {
            return None;
        }
        let stage = tmp.join("stage");
        std::fs::create_dir_all(stage.join("dev/pith")).ok()?;
        std::fs::create_dir_all(stage.join("META-INF/services")).ok()?;
        std::fs::copy(out.join(CLASS), stage.join(CLASS)).ok()?;
        std::fs::write(stage.join(SERVICE), "dev.pith.PithListener\n").ok()?;
        // Another run may have won the race: its copy is as good as ours.
        if std::fs::rename(&stage, &dir).is_err() && !dir.join(CLASS).is_file() {
            return None;
        }
        Some(dir.clone())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// A JDK tool (`javac`, `java`): `$JAVA_HOME/bin/<name>`, else `<name>` on PATH, as the build
/// tools find it.
pub(super) fn jdk_tool(name: &str) -> Option<PathBuf> {
    std::env::var_os("JAVA_HOME")
        .map(|h| PathBuf::from(h).join("bin").join(name))
        .filter(|p| crate::is_executable(p))
        .or_else(|| crate::on_path(name))
}

/// One test the listener saw start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub class: String,
    /// JUnit's legacy reporting name (`adds()`, `addsZero(int)[2]`).
    pub name: String,
    /// `SUCCESSFUL`, `FAILED` or `ABORTED` with the throwable's first line, once it ended.
    pub finished: Option<(String, String)>,
}

/// Bytes of the events file read at most (about two million tests' starts and ends); the rest
/// is not read.
const EVENTS_LIMIT: u64 = 256 << 20;
/// Bytes of one line read at most; the listener writes at most three 500-character fields.
const LINE_LIMIT: usize = 8 * 1024;

/// The events in start order. Unknown or torn lines are skipped.
pub fn parse(text: &str) -> Vec<Event> {
    read_from(text.as_bytes(), &|_| true)
}

/// The events of the file at `path` whose class `keep` accepts, in start order: read as a
/// stream within [`EVENTS_LIMIT`], so what is held is the events kept (the classes no report
/// accounts for), not the file. Nothing when there is no file.
pub fn read(path: &Path, keep: &dyn Fn(&str) -> bool) -> Vec<Event> {
    match std::fs::File::open(path) {
        Ok(f) => read_from(f, keep),
        Err(_) => Vec::new(),
    }
}

fn read_from(input: impl std::io::Read, keep: &dyn Fn(&str) -> bool) -> Vec<Event> {
    use std::io::{BufRead, Read};
    let mut r = std::io::BufReader::new(input.take(EVENTS_LIMIT));
    let mut events: Vec<Event> = Vec::new();
    let mut line: Vec<u8> = Vec::new();
    loop {
        line.clear();
        let n = match r
            .by_ref()
            .take(LINE_LIMIT as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(n) => n,
            Err(_) => break,
        };
        if n == 0 {
            break;
        }
        if line.last() != Some(&b'\n') && line.len() >= LINE_LIMIT {
            // A longer line than the listener writes: skip the rest of it.
            if r.skip_until(b'\n').is_err() {
                break;
            }
        }
        let text = String::from_utf8_lossy(&line);
        add(&mut events, text.trim_end_matches(['\n', '\r']), keep);
    }
    events
}

fn add(events: &mut Vec<Event>, line: &str, keep: &dyn Fn(&str) -> bool) {
    let mut parts = line.split('\t');
    let (Some(what), Some(class), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
        return;
    };
    if !keep(class) {
        return;
    }
    match what {
        "S" => events.push(Event {
            class: class.to_owned(),
            name: name.to_owned(),
            finished: None,
        }),
        "F" => {
            let status = parts.next().unwrap_or("").to_owned();
            let message = parts.next().unwrap_or("").to_owned();
            if let Some(e) = events
                .iter_mut()
                .rev()
                .find(|e| e.finished.is_none() && e.class == class && e.name == name)
            {
                e.finished = Some((status, message));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_starts_and_finishes() {
        let text = "S\tdemo.A\tadds()\nF\tdemo.A\tadds()\tSUCCESSFUL\nS\tdemo.A\tbad()\nF\tdemo.A\tbad()\tFAILED\tjava.lang.AssertionError: no\nS\tdemo.H\tsleeps()\nF\tdemo.H";
        let ev = parse(text);
        assert_eq!(ev.len(), 3);
        assert_eq!(ev[0].finished.as_ref().unwrap().0, "SUCCESSFUL");
        assert_eq!(
            ev[1].finished,
            Some(("FAILED".into(), "java.lang.AssertionError: no".into()))
        );
        assert_eq!(ev[2].finished, None);
        // Only the classes asked for are kept.
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("events.txt");
        std::fs::write(&f, text).unwrap();
        let only = read(&f, &|c| c == "demo.H");
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].name, "sleeps()");
        assert!(read(&d.path().join("none.txt"), &|_| true).is_empty());
    }

    #[test]
    fn a_line_longer_than_the_listener_writes_is_cut_not_held() {
        let long = format!("S\tdemo.A\t{}\nS\tdemo.B\tb()\n", "x".repeat(100_000));
        let ev = parse(&long);
        assert_eq!(ev.len(), 2);
        assert!(ev[0].name.len() < LINE_LIMIT);
        assert_eq!(ev[1].class, "demo.B");
    }

    #[test]
    fn compiles_once_into_the_cache() {
        let cache = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let deadline = Instant::now() + std::time::Duration::from_secs(120);
        let dir = install(cache.path(), scratch.path(), deadline).expect("javac is installed");
        assert!(dir.join(CLASS).is_file());
        assert_eq!(
            std::fs::read_to_string(dir.join(SERVICE)).unwrap(),
            "dev.pith.PithListener\n"
        );
        // Only the listener is kept, never the stand-ins of JUnit's types.
        assert!(!dir.join("org").exists());
        let again = install(cache.path(), scratch.path(), Instant::now()).unwrap();
        assert_eq!(again, dir);
        assert_eq!(
            std::fs::read_dir(cache.path().join("jvm")).unwrap().count(),
            1
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,400}") {
            let _ = parse(&s);
        }
    }
}
