//! JVM stack traces as reports carry them (`Type: message`, `\tat pkg.Class.method(File.java:12)`,
//! `Caused by: ...`, `... 5 more`), and where their frames are in the workspace: a frame names
//! a class and a base file name, so the file is found by its package path among the project's
//! sources (module-aware: a report's own module wins a tie). Frames of the JDK, JUnit, Surefire
//! and every other dependency have no source in the workspace and stay library frames.
//! JavaScript (`at f (/abs/file.js:3:5)`) and Python (`File "x.py", line 3`) frames are read too,
//! for JUnit reports written by other runners.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pith_model::Frame;

use crate::paths::PathMap;
use crate::text;

/// One frame as the trace printed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawFrame {
    /// The fully qualified class (`demo.CalcTest$Inner`); empty for a path-style frame.
    pub class: String,
    /// A base file name (`CalcTest.java`) for JVM frames, a path for the others.
    pub file: String,
    /// 0 when the trace gives none (`Native Method`, `Unknown Source`).
    pub line: u32,
}

/// One exception of a chain: the top one, then each `Caused by:`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Exception {
    /// Empty when the header is not `Type: message`.
    pub type_name: String,
    /// The whole message, possibly several lines.
    pub message: String,
    /// Innermost first, as printed.
    pub frames: Vec<RawFrame>,
}

/// Reads the exception chain of a stack trace. Never fails: text that is not a trace yields one
/// exception whose message is the text.
pub fn parse(trace: &str) -> Vec<Exception> {
    let mut chain: Vec<Exception> = Vec::new();
    let mut in_header = false;
    let mut suppressed = false;
    for raw in trace.lines() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let top_level = !raw.starts_with(char::is_whitespace);
        if let Some(rest) = line.strip_prefix("Caused by:") {
            if top_level || !suppressed {
                suppressed = false;
                chain.push(header(rest.trim()));
                in_header = true;
                continue;
            }
        }
        if line.starts_with("Suppressed:") {
            suppressed = true;
            in_header = false;
            continue;
        }
        if suppressed {
            continue;
        }
        if let Some(frame) = frame(line) {
            in_header = false;
            if let Some(e) = chain.last_mut() {
                e.frames.push(frame);
            } else {
                chain.push(Exception {
                    frames: vec![frame],
                    ..Exception::default()
                });
            }
            continue;
        }
        if line.starts_with("...") && line.ends_with("more") {
            continue;
        }
        if chain.is_empty() {
            chain.push(header(line));
            in_header = true;
        } else if in_header {
            // A message of several lines continues until the first frame.
            if let Some(e) = chain.last_mut() {
                if e.message.len() < 4096 {
                    e.message.push('\n');
                    e.message.push_str(line);
                }
            }
        }
    }
    chain
}

/// Frames of a cause its detail shows.
const CAUSE_FRAMES: usize = 2;
/// Class prefixes of the JDK and the test frameworks: not where a cause comes from.
const PLATFORM: &[&str] = &[
    "java.",
    "javax.",
    "jdk.",
    "sun.",
    "org.junit.",
    "org.opentest4j.",
    "org.apache.maven.",
    "org.gradle.",
];

/// A chain's whole text for `Failure::detail`: the top exception's `Type: message` (every
/// line), then each `Caused by:` with its message and its innermost frame, as the JVM prints
/// them; the top exception's own frames are the failure's.
pub fn detail_text(chain: &[Exception]) -> String {
    let mut out: Vec<String> = Vec::new();
    for (i, e) in chain.iter().enumerate() {
        let head = match (e.type_name.is_empty(), e.message.is_empty()) {
            (true, _) => e.message.clone(),
            (false, true) => e.type_name.clone(),
            (false, false) => format!("{}: {}", e.type_name, e.message),
        };
        if i == 0 {
            out.push(head);
            continue;
        }
        out.push(format!("Caused by: {head}"));
        // Its innermost frames outside the JDK and the test frameworks, else its innermost.
        let own: Vec<&RawFrame> = e
            .frames
            .iter()
            .filter(|f| !PLATFORM.iter().any(|p| f.class.starts_with(p)))
            .take(CAUSE_FRAMES)
            .collect();
        let shown = if own.is_empty() {
            e.frames.iter().take(1).collect()
        } else {
            own
        };
        for f in shown {
            out.push(if f.class.is_empty() {
                format!("\tat {}:{}", f.file, f.line)
            } else {
                format!("\tat {}({}:{})", f.class, f.file, f.line)
            });
        }
    }
    out.join("\n")
}

/// `pkg.Type: message` or `pkg.Type`; anything else is all message.
fn header(line: &str) -> Exception {
    let (ty, msg) = match line.split_once(": ") {
        Some((t, m)) if is_type_name(t) => (t, m),
        _ if is_type_name(line.trim_end_matches(':')) => (line.trim_end_matches(':'), ""),
        _ => ("", line),
    };
    Exception {
        type_name: ty.to_owned(),
        message: msg.to_owned(),
        frames: Vec::new(),
    }
}

/// A dotted identifier path whose last part looks like a type (`java.lang.Error`, `AssertionError`).
fn is_type_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|p| {
            !p.is_empty()
                && p.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && p.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
        && s.rsplit('.')
            .next()
            .and_then(|l| l.chars().next())
            .is_some_and(char::is_uppercase)
}

/// One frame line (already trimmed), in JVM, JavaScript or Python shape.
pub fn frame(line: &str) -> Option<RawFrame> {
    if let Some(rest) = line.strip_prefix("File \"") {
        // Python: File "tests/t.py", line 3, in test_x
        let (path, after) = rest.split_once('"')?;
        let n = after.trim_start_matches(',').trim().strip_prefix("line ")?;
        let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
        return Some(RawFrame {
            class: String::new(),
            file: path.to_owned(),
            line: digits.parse().ok()?,
        });
    }
    let rest = line.strip_prefix("at ")?.trim();
    let (head, loc) = match rest.strip_suffix(')').and_then(|r| r.rsplit_once('(')) {
        Some((h, l)) => (h.trim(), l),
        // `at /abs/file.js:3:5`
        None => ("", rest),
    };
    if loc.contains('/') || loc.contains('\\') {
        let (path, line) = path_and_line(loc)?;
        return Some(RawFrame {
            class: String::new(),
            file: path.to_owned(),
            line,
        });
    }
    // JVM: [module/]pkg.Class.method(File.java:12)
    let qualified = head.rsplit('/').next().unwrap_or(head);
    let (class, _method) = qualified.rsplit_once('.')?;
    if class.is_empty() || class.contains(' ') {
        return None;
    }
    let (file, line) = match loc.rsplit_once(':') {
        Some((f, n)) => (f, n.parse().unwrap_or(0)),
        None => (loc, 0),
    };
    Some(RawFrame {
        class: class.to_owned(),
        file: file.to_owned(),
        line,
    })
}

/// `path:line` or `path:line:col`.
fn path_and_line(loc: &str) -> Option<(&str, u32)> {
    let (a, b) = loc.rsplit_once(':')?;
    match (a.rsplit_once(':'), b.parse::<u32>()) {
        (Some((path, line)), Ok(_)) if line.parse::<u32>().is_ok() => {
            Some((path, line.parse().ok()?))
        }
        (_, Ok(line)) => Some((a, line)),
        _ => None,
    }
}

/// Exceptions that only wrap the one that matters.
const WRAPPERS: &[&str] = &[
    "ExceptionInInitializerError",
    "InvocationTargetException",
    "ExecutionException",
    "UndeclaredThrowableException",
    "CompletionException",
];

/// Types whose name says nothing the message does not (`expected: <1> but was: <2>`).
fn is_assertion(type_name: &str) -> bool {
    let simple = simple_name(type_name);
    simple.contains("AssertionFailed")
        || simple == "AssertionError"
        || simple == "ComparisonFailure"
        || simple == "AssertionFailedError"
        || simple == "MultipleFailuresError"
}

pub fn simple_name(type_name: &str) -> &str {
    type_name.rsplit('.').next().unwrap_or(type_name)
}

/// What a failure says: its one-line message, its kind (for clustering) and which exception of
/// the chain located it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    pub message: String,
    pub kind: Option<String>,
    /// Index into the chain of the exception whose frames locate the failure.
    pub located_by: usize,
}

/// The message of a failure from the report's `type`/`message` attributes and the parsed chain.
/// Assertion failures are their message alone; other exceptions are `SimpleType: message`. A
/// wrapper without a message of its own (`ExceptionInInitializerError`) names its root cause.
pub fn describe(
    type_attr: Option<&str>,
    message_attr: Option<&str>,
    chain: &[Exception],
) -> Described {
    let top_type = type_attr
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| {
            chain
                .first()
                .map(|e| e.type_name.clone())
                .filter(|t| !t.is_empty())
        });
    let top_message = message_attr
        .filter(|m| !m.trim().is_empty())
        .map(|m| {
            // Gradle's message attribute repeats the type: `pkg.Type: message`.
            match top_type.as_deref() {
                Some(t) => m
                    .strip_prefix(t)
                    .and_then(|r| r.strip_prefix(": "))
                    .unwrap_or(m),
                None => m,
            }
            .to_owned()
        })
        .filter(|m| !m.trim().is_empty())
        .or_else(|| {
            chain
                .first()
                .map(|e| e.message.clone())
                .filter(|m| !m.trim().is_empty())
        });
    let wrapper = top_type
        .as_deref()
        .is_some_and(|t| WRAPPERS.contains(&simple_name(t)));
    if chain.len() > 1 && (top_message.is_none() || wrapper) {
        let root = chain.len() - 1;
        let cause = &chain[root];
        let cause_text = one_line(&cause.message);
        let cause_type = simple_name(&cause.type_name);
        let mut message = match top_type.as_deref() {
            Some(t) => format!("{} caused by ", simple_name(t)),
            None => String::new(),
        };
        message.push_str(&match (cause_type.is_empty(), cause_text.is_empty()) {
            (false, false) => format!("{cause_type}: {cause_text}"),
            (false, true) => cause_type.to_owned(),
            (true, _) => cause_text,
        });
        return Described {
            message: text::cut_chars(&message, text::MESSAGE_CHARS).into_owned(),
            kind: Some(cause.type_name.clone())
                .filter(|t| !t.is_empty())
                .or(top_type),
            located_by: root,
        };
    }
    let text_line = top_message.as_deref().map(one_line).unwrap_or_default();
    let message = match top_type.as_deref() {
        Some(t) if is_assertion(t) || !looks_jvm(t) => {
            if text_line.is_empty() {
                simple_name(t).to_owned()
            } else {
                text_line
            }
        }
        Some(t) if text_line.is_empty() => simple_name(t).to_owned(),
        Some(t) => format!("{}: {text_line}", simple_name(t)),
        None => text_line,
    };
    Described {
        message: text::cut_chars(&message, text::MESSAGE_CHARS).into_owned(),
        kind: top_type,
        located_by: 0,
    }
}

/// A JVM class name (`java.lang.IllegalStateException`), as opposed to a free-form `type` such
/// as nextest's `test failure` or pytest's `pytest.skip`.
fn looks_jvm(t: &str) -> bool {
    t.contains('.') && is_type_name(t)
}

/// The first line of a message, with the next ones folded in while it is useless alone:
/// `expecting:` / `  <4>`, or AssertJ's `expected: 5` / ` but was: 4`.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let Some(first) = lines.first() else {
        return String::new();
    };
    let mut out = (*first).to_owned();
    for next in lines.iter().skip(1).take(3) {
        let dangling = out.ends_with(':');
        let continues = next.starts_with("but ") || next.starts_with("to be ");
        if !(dangling || continues) {
            break;
        }
        out.push(' ');
        out.push_str(next);
    }
    text::first_line(&out)
}

/// Class prefixes that are never the project's: no lookup needed.
const LIBRARY_PREFIXES: &[&str] = &[
    "java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "scala.",
];

/// Directories never searched for sources: build output, tools' state, other people's code.
const SKIP_DIRS: &[&str] = &["target", "build", "out", "bin", "node_modules"];

/// Extensions of JVM source files.
const SOURCE_EXTS: &[&str] = &["java", "kt", "kts", "groovy", "scala"];

/// Bound on the files indexed, so a huge tree cannot stall a run.
const MAX_FILES: usize = 200_000;

/// Finds the workspace file of a JVM frame. Built lazily: the tree is walked once, on the first
/// frame that needs it.
pub struct Sources<'a> {
    paths: &'a PathMap,
    /// Base name → workspace-relative paths.
    by_name: Option<HashMap<String, Vec<String>>>,
}

impl<'a> Sources<'a> {
    pub fn new(paths: &'a PathMap) -> Self {
        Sources {
            paths,
            by_name: None,
        }
    }

    /// The frame for `raw`: a project frame when its source is in the workspace. `module` is
    /// the directory of the module whose report named it, preferred when a class exists twice.
    pub fn frame(&mut self, raw: &RawFrame, module: Option<&Path>) -> Frame {
        if raw.class.is_empty() {
            return self.paths.frame(&raw.file, raw.line, None);
        }
        let library = Frame {
            file: library_file(raw),
            line: raw.line,
            code: None,
            project: false,
        };
        if raw.line == 0 || LIBRARY_PREFIXES.iter().any(|p| raw.class.starts_with(p)) {
            return library;
        }
        match self.find(&raw.class, &raw.file, module) {
            Some(rel) => Frame {
                file: rel,
                line: raw.line,
                code: None,
                project: true,
            },
            None => library,
        }
    }

    /// The workspace-relative source of `class` (whose file's base name is `file`).
    pub fn find(&mut self, class: &str, file: &str, module: Option<&Path>) -> Option<String> {
        let index = self.by_name.get_or_insert_with(|| index(self.paths.root()));
        let candidates = index.get(file)?;
        let package = class
            .rsplit_once('.')
            .map(|(p, _)| p.replace('.', "/"))
            .unwrap_or_default();
        let suffix = if package.is_empty() {
            file.to_owned()
        } else {
            format!("{package}/{file}")
        };
        let matching: Vec<&String> = candidates
            .iter()
            .filter(|c| *c == &suffix || c.ends_with(&format!("/{suffix}")))
            .collect();
        let pool: Vec<&String> = if matching.is_empty() {
            // Kotlin does not require the package directory: a unique base name will do.
            if candidates.len() == 1 {
                candidates.iter().collect()
            } else {
                return None;
            }
        } else {
            matching
        };
        let module_rel = module.and_then(|m| self.paths.relativize(&m.to_string_lossy(), None));
        let in_module = module_rel.as_deref().and_then(|m| {
            pool.iter()
                .find(|c| c.starts_with(&format!("{m}/")))
                .map(|c| (*c).clone())
        });
        in_module.or_else(|| pool.first().map(|c| (*c).clone()))
    }
}

/// `java.util.ArrayList` in `ArrayList.java` → `java/util/ArrayList.java`: where the source
/// would be in its own tree.
fn library_file(raw: &RawFrame) -> String {
    match raw.class.rsplit_once('.') {
        Some((pkg, _)) if !raw.file.is_empty() => format!("{}/{}", pkg.replace('.', "/"), raw.file),
        _ if !raw.file.is_empty() => raw.file.clone(),
        _ => raw.class.clone(),
    }
}

fn index(root: &Path) -> HashMap<String, Vec<String>> {
    let mut map: HashMap<String, Vec<String>> = HashMap::new();
    let mut stack: Vec<(PathBuf, String)> = vec![(root.to_path_buf(), String::new())];
    let mut seen = 0usize;
    while let Some((dir, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            seen += 1;
            if seen > MAX_FILES {
                return map;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let child_rel = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if !name.starts_with('.') && !SKIP_DIRS.contains(&name.as_str()) {
                    stack.push((e.path(), child_rel));
                }
            } else if ft.is_file()
                && Path::new(&name)
                    .extension()
                    .is_some_and(|x| SOURCE_EXTS.iter().any(|s| x == *s))
                && PathMap::is_project(&child_rel)
            {
                map.entry(name).or_default().push(child_rel);
            }
        }
    }
    for v in map.values_mut() {
        v.sort();
    }
    map
}

/// The frames of a failure, outermost first: the chosen exception's frames from the innermost
/// out to the outermost project frame (the test runner's machinery beyond it is noise), or its
/// four innermost when none is the project's.
pub fn frames(
    chain: &[Exception],
    located_by: usize,
    sources: &mut Sources<'_>,
    module: Option<&Path>,
    paths: &PathMap,
) -> Vec<Frame> {
    let resolve = |e: &Exception, sources: &mut Sources<'_>| -> Vec<Frame> {
        e.frames.iter().map(|f| sources.frame(f, module)).collect()
    };
    if chain.is_empty() {
        return Vec::new();
    }
    let located_by = located_by.min(chain.len() - 1);
    let mut order: Vec<usize> = vec![located_by];
    order.extend((0..chain.len()).filter(|&i| i != located_by));
    let mut chosen: Option<Vec<Frame>> = None;
    for i in order {
        let frames = resolve(&chain[i], sources);
        if frames.iter().any(|f| f.project) {
            chosen = Some(frames);
            break;
        }
        if chosen.is_none() && i == located_by {
            chosen = Some(frames);
        }
    }
    let mut frames = chosen.unwrap_or_default();
    let keep = match frames.iter().rposition(|f| f.project) {
        Some(last) => last + 1,
        None => frames.len().min(4),
    };
    frames.truncate(keep);
    frames.reverse();
    paths.fill_code(&mut frames);
    frames
}

/// The chain's headers with only its project frames (`\tat pkg.C.m(C.java:8)`): what a tail
/// needs to explain a class that failed to load, without the JDK's and JUnit's frames.
pub fn compact(chain: &[Exception], sources: &mut Sources<'_>, module: Option<&Path>) -> String {
    let mut out = String::new();
    for (i, e) in chain.iter().enumerate() {
        if i > 0 {
            out.push_str("Caused by: ");
        }
        match (e.type_name.is_empty(), e.message.is_empty()) {
            (false, false) => out.push_str(&format!("{}: {}", e.type_name, e.message)),
            (false, true) => out.push_str(&e.type_name),
            (true, _) => out.push_str(&e.message),
        }
        out.push('\n');
        for f in &e.frames {
            let fr = sources.frame(f, module);
            if fr.project {
                out.push_str(&format!("\tat {} ({}:{})\n", f.class, fr.file, f.line));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "org.opentest4j.AssertionFailedError: expected: <-4> but was: <-5>
\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
\tat org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:531)
\tat demo.CalcTest.checkSum(CalcTest.java:34)
\tat demo.CalcTest.addsNegatives(CalcTest.java:18)
\tat java.base/java.lang.reflect.Method.invoke(Method.java:569)
\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1511)
";

    #[test]
    fn parses_frames_and_chain() {
        let chain = parse(TRACE);
        assert_eq!(chain.len(), 1);
        assert_eq!(chain[0].type_name, "org.opentest4j.AssertionFailedError");
        assert_eq!(chain[0].message, "expected: <-4> but was: <-5>");
        assert_eq!(chain[0].frames.len(), 6);
        assert_eq!(
            chain[0].frames[2],
            RawFrame {
                class: "demo.CalcTest".into(),
                file: "CalcTest.java".into(),
                line: 34
            }
        );
        assert_eq!(chain[0].frames[4].class, "java.lang.reflect.Method");

        let wrapped = "java.lang.ExceptionInInitializerError
\tat java.base/java.lang.reflect.Constructor.newInstance(Constructor.java:481)
Caused by: java.lang.NumberFormatException: For input string: \"x\"
\tat java.base/java.lang.Integer.parseInt(Integer.java:668)
\tat demo.BadTest.<clinit>(BadTest.java:7)
\t... 5 more
";
        let chain = parse(wrapped);
        assert_eq!(chain.len(), 2);
        assert_eq!(chain[1].type_name, "java.lang.NumberFormatException");
        assert_eq!(chain[1].frames[1].line, 7);
        let d = describe(Some("java.lang.ExceptionInInitializerError"), None, &chain);
        assert_eq!(
            d.message,
            "ExceptionInInitializerError caused by NumberFormatException: For input string: \"x\""
        );
        assert_eq!(d.kind.as_deref(), Some("java.lang.NumberFormatException"));
        assert_eq!(d.located_by, 1);
        assert_eq!(
            detail_text(&chain),
            "java.lang.ExceptionInInitializerError\nCaused by: java.lang.NumberFormatException: For input string: \"x\"\n\tat demo.BadTest(BadTest.java:7)"
        );
        let assertj = parse(
            "java.lang.AssertionError: \nexpected: 5\n but was: 4\n\tat demo.T.t(T.java:3)\n",
        );
        assert_eq!(
            detail_text(&assertj),
            "java.lang.AssertionError: \nexpected: 5\nbut was: 4"
        );
    }

    #[test]
    fn messages_name_the_type_unless_it_is_an_assertion() {
        let chain = parse(TRACE);
        let d = describe(
            Some("org.opentest4j.AssertionFailedError"),
            Some("expected: <-4> but was: <-5>"),
            &chain,
        );
        assert_eq!(d.message, "expected: <-4> but was: <-5>");
        let npe = describe(
            Some("java.lang.NullPointerException"),
            Some("Cannot invoke \"String.length()\" because \"s\" is null"),
            &[],
        );
        assert_eq!(
            npe.message,
            "NullPointerException: Cannot invoke \"String.length()\" because \"s\" is null"
        );
        let bare = describe(Some("java.lang.IllegalStateException"), None, &[]);
        assert_eq!(bare.message, "IllegalStateException");
        let assertj = describe(
            Some("java.lang.AssertionError"),
            Some("\nexpected: 5\n but was: 4"),
            &[],
        );
        assert_eq!(assertj.message, "expected: 5 but was: 4");
        let free = describe(Some("test failure"), Some("boom"), &[]);
        assert_eq!(free.message, "boom");
    }

    #[test]
    fn frames_of_other_languages() {
        assert_eq!(
            frame("at Object.<anonymous> (/ws/src/a.test.js:3:5)"),
            Some(RawFrame {
                class: String::new(),
                file: "/ws/src/a.test.js".into(),
                line: 3
            })
        );
        assert_eq!(frame("at /ws/a.js:9:1").unwrap().line, 9);
        assert_eq!(
            frame("File \"tests/t.py\", line 12, in test_x")
                .unwrap()
                .file,
            "tests/t.py"
        );
        assert_eq!(frame("at app//demo.X.m(X.java:3)").unwrap().class, "demo.X");
        assert_eq!(frame("at demo.X.m(Native Method)").unwrap().line, 0);
        assert_eq!(frame("at nothing"), None);
    }

    #[test]
    fn sources_are_found_by_package_and_module() {
        let d = tempfile::tempdir().unwrap();
        for f in [
            "a/src/main/java/demo/Calc.java",
            "b/src/main/java/demo/Calc.java",
            "a/src/test/java/demo/CalcTest.java",
            "a/target/classes/demo/Gen.java",
            "k/src/main/kotlin/Util.kt",
        ] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x\n").unwrap();
        }
        let paths = PathMap::new(d.path());
        let mut s = Sources::new(&paths);
        assert_eq!(
            s.find("demo.Calc", "Calc.java", Some(&d.path().join("b")))
                .as_deref(),
            Some("b/src/main/java/demo/Calc.java")
        );
        assert_eq!(
            s.find("demo.Calc", "Calc.java", None).as_deref(),
            Some("a/src/main/java/demo/Calc.java")
        );
        assert_eq!(
            s.find("demo.CalcTest$Inner", "CalcTest.java", None)
                .as_deref(),
            Some("a/src/test/java/demo/CalcTest.java")
        );
        assert_eq!(s.find("demo.Gen", "Gen.java", None), None);
        assert_eq!(
            s.find("pkg.UtilKt", "Util.kt", None).as_deref(),
            Some("k/src/main/kotlin/Util.kt")
        );
        let lib = s.frame(
            &RawFrame {
                class: "java.util.ArrayList".into(),
                file: "ArrayList.java".into(),
                line: 3,
            },
            None,
        );
        assert!(!lib.project);
        assert_eq!(lib.file, "java/util/ArrayList.java");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,600}") {
            let chain = parse(&s);
            let _ = describe(Some("x.Y"), Some(&s), &chain);
            let _ = describe(None, None, &chain);
            let paths = PathMap::new(Path::new("/ws"));
            let mut sources = Sources::new(&paths);
            let _ = frames(&chain, 0, &mut sources, None, &paths);
            let _ = frames(&[], 3, &mut sources, None, &paths);
            let _ = compact(&chain, &mut sources, None);
            for l in s.lines() {
                let _ = frame(l.trim());
            }
        }
    }
}
