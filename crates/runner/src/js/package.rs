//! `package.json`: which test runner a JavaScript project uses, and what its `test` script adds
//! to the runner's command (environment assignments like `NODE_OPTIONS=...`, a `--config`, the
//! files `node --test` is given). pith runs the runner itself, never the script through a shell.

use std::path::Path;

use serde_json::Value;

/// A JavaScript test runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Runner {
    Jest,
    Vitest,
    Node,
}

impl Runner {
    pub const fn name(self) -> &'static str {
        match self {
            Runner::Jest => "jest",
            Runner::Vitest => "vitest",
            Runner::Node => "node",
        }
    }
}

/// What the `test` script says beyond the runner's name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// `VAR=value` assignments before the command (also through `cross-env`).
    pub env: Vec<(String, String)>,
    /// Options pith passes on (jest/vitest: the config file and project selection; node: every
    /// node option but the test runner's reporters and watch mode).
    pub args: Vec<String>,
    /// Positional arguments: the files or globs `node --test` runs, vitest's file filters.
    pub paths: Vec<String>,
}

/// The project's runner and its script, from `dir/package.json`. The `test` script decides when
/// it names a runner; else vitest, then jest, as a dependency.
pub fn read(dir: &Path) -> Option<(Runner, Script)> {
    let bytes = std::fs::read(dir.join("package.json")).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    let scripts = v.get("scripts");
    let script_text = |name: &str| {
        scripts
            .and_then(|s| s.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if let Some(test) = script_text("test") {
        if let Some(found) = from_script(&test) {
            return Some(found);
        }
        // `npm run test:unit`, `yarn test:unit`: one level down.
        for seg in segments(&test) {
            let words = tokens(seg);
            let target = match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["npm" | "pnpm" | "bun", "run", t, ..] | ["yarn" | "pnpm", t, ..] => Some(t),
                _ => None,
            };
            if let Some(found) = target.and_then(&script_text).and_then(|s| from_script(&s)) {
                return Some(found);
            }
        }
    }
    let has = |dep: &str| {
        ["devDependencies", "dependencies"]
            .iter()
            .any(|k| v.get(k).and_then(|d| d.get(dep)).is_some())
    };
    if has("vitest") {
        Some((Runner::Vitest, Script::default()))
    } else if has("jest") {
        Some((Runner::Jest, Script::default()))
    } else {
        None
    }
}

/// The runner a script runs, with what it adds: the first command segment that runs one.
pub fn from_script(script: &str) -> Option<(Runner, Script)> {
    segments(script)
        .into_iter()
        .find_map(|seg| command(&tokens(seg)))
}

/// Command segments of a shell line, split at `&&`, `||`, `;` and `|`, quotes respected.
fn segments(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quote) = (0, None::<char>);
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == ';' || c == '|' || (c == '&' && bytes.get(i + 1) == Some(&b'&')) => {
                out.push(&s[start..i]);
                if bytes.get(i + 1) == Some(&bytes[i]) {
                    i += 1;
                }
                start = i + 1;
            }
            None => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

/// Shell-like words: whitespace-separated, quotes removed.
fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Which runner a program word is: `jest`, `node_modules/.bin/vitest`, `node`.
fn runner_word(w: &str) -> Option<Runner> {
    let base = w.rsplit('/').next().unwrap_or(w);
    match base {
        "jest" | "jest.js" => Some(Runner::Jest),
        "vitest" | "vitest.mjs" => Some(Runner::Vitest),
        "node" => Some(Runner::Node),
        _ => None,
    }
}

/// node options whose value is the next word.
const NODE_VALUE_OPTIONS: &[&str] = &[
    "--import",
    "--require",
    "-r",
    "--loader",
    "--experimental-loader",
    "--test-concurrency",
    "--test-timeout",
    "--test-name-pattern",
    "--test-skip-pattern",
    "--test-reporter",
    "--test-reporter-destination",
    "--test-shard",
    "--env-file",
    "--conditions",
    "-C",
    "--input-type",
];

/// jest and vitest options pith passes on, and whether each takes the next word.
const RUNNER_OPTIONS: &[&str] = &[
    "--config",
    "-c",
    "--selectProjects",
    "--project",
    "--rootDir",
    "--root",
    "-r",
    "--dir",
    "--environment",
    "--env",
];

fn command(words: &[String]) -> Option<(Runner, Script)> {
    let mut script = Script::default();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.split_once('=') {
            Some((var, value))
                if !var.is_empty()
                    && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !var.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                script.env.push((var.to_owned(), value.to_owned()));
                i += 1;
            }
            _ if matches!(w.as_str(), "cross-env" | "npx" | "env" | "exec" | "--") => i += 1,
            _ if matches!(w.as_str(), "yarn" | "pnpm" | "bun")
                && words.get(i + 1).is_some_and(|n| runner_word(n).is_some()) =>
            {
                i += 1
            }
            _ => break,
        }
    }
    let mut runner = runner_word(words.get(i)?)?;
    i += 1;
    let rest = &words[i..];
    if runner == Runner::Node {
        // `node [opts] node_modules/.bin/jest ...` runs jest under node options.
        let mut node_opts: Vec<String> = Vec::new();
        let mut j = 0;
        let mut testing = false;
        while let Some(w) = rest.get(j) {
            if w == "--test" {
                testing = true;
            } else if w.starts_with('-') {
                node_opts.push(w.clone());
                if NODE_VALUE_OPTIONS.contains(&w.as_str()) {
                    if let Some(v) = rest.get(j + 1) {
                        node_opts.push(v.clone());
                        j += 1;
                    }
                }
            } else if let Some(r) = runner_word(w).filter(|r| *r != Runner::Node) {
                runner = r;
                let opts = node_opts.join(" ");
                if !opts.is_empty() {
                    script.env.push(("NODE_OPTIONS".into(), opts));
                }
                runner_args(&rest[j + 1..], &mut script);
                return Some((runner, script));
            } else if testing {
                script.paths.push(w.clone());
            } else {
                // `node script.js`: not a test runner.
                return None;
            }
            j += 1;
        }
        if !testing {
            return None;
        }
        script.args = strip_node_options(&node_opts);
        return Some((runner, script));
    }
    runner_args(rest, &mut script);
    Some((runner, script))
}

/// The node options pith keeps: not the reporters (pith sets its own), not watch mode.
fn strip_node_options(opts: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(o) = opts.get(i) {
        let name = o.split('=').next().unwrap_or(o);
        let drop = matches!(
            name,
            "--test-reporter" | "--test-reporter-destination" | "--watch" | "--test-only"
        ) || name.starts_with("--watch");
        let takes_value = !o.contains('=') && NODE_VALUE_OPTIONS.contains(&name);
        if !drop {
            out.push(o.clone());
            if takes_value {
                if let Some(v) = opts.get(i + 1) {
                    out.push(v.clone());
                }
            }
        }
        i += 1 + usize::from(takes_value);
    }
    out
}

fn runner_args(rest: &[String], script: &mut Script) {
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        let name = w.split('=').next().unwrap_or(w);
        if RUNNER_OPTIONS.contains(&name) {
            script.args.push(w.clone());
            if !w.contains('=') {
                if let Some(v) = rest.get(i + 1) {
                    script.args.push(v.clone());
                    i += 1;
                }
            }
        } else if !w.starts_with('-') && w != "run" && w != "test" {
            script.paths.push(w.clone());
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn scripts_name_their_runner() {
        let (r, sc) =
            from_script("NODE_OPTIONS=--experimental-vm-modules jest --config jest.unit.js")
                .unwrap();
        assert_eq!(r, Runner::Jest);
        assert_eq!(
            sc.env,
            [(
                "NODE_OPTIONS".to_owned(),
                "--experimental-vm-modules".to_owned()
            )]
        );
        assert_eq!(sc.args, s(&["--config", "jest.unit.js"]));
        let (r, sc) = from_script("tsc --noEmit && vitest run --project unit src/").unwrap();
        assert_eq!(r, Runner::Vitest);
        assert_eq!(sc.args, s(&["--project", "unit"]));
        assert_eq!(sc.paths, s(&["src/"]));
        let (r, sc) =
            from_script("node --import tsx --test --test-reporter=spec 'test/**/*.test.ts'")
                .unwrap();
        assert_eq!(r, Runner::Node);
        assert_eq!(sc.args, s(&["--import", "tsx"]));
        assert_eq!(sc.paths, s(&["test/**/*.test.ts"]));
        let (r, sc) = from_script(
            "cross-env TZ=UTC node --experimental-vm-modules node_modules/jest/bin/jest.js",
        )
        .unwrap();
        assert_eq!(r, Runner::Jest);
        assert_eq!(
            sc.env,
            [
                ("TZ".to_owned(), "UTC".to_owned()),
                (
                    "NODE_OPTIONS".to_owned(),
                    "--experimental-vm-modules".to_owned()
                )
            ]
        );
        assert_eq!(from_script("node server.js"), None);
        assert_eq!(
            from_script("echo \"Error: no test specified\" && exit 1"),
            None
        );
        assert_eq!(from_script("npx jest").map(|x| x.0), Some(Runner::Jest));
    }

    #[test]
    fn package_json_decides() {
        let d = tempfile::tempdir().unwrap();
        assert!(read(d.path()).is_none());
        let write = |body: &str| std::fs::write(d.path().join("package.json"), body).unwrap();
        write(r#"{"devDependencies":{"jest":"^29"}}"#);
        assert_eq!(read(d.path()).map(|x| x.0), Some(Runner::Jest));
        write(r#"{"devDependencies":{"jest":"^29","vitest":"^3"}}"#);
        assert_eq!(read(d.path()).map(|x| x.0), Some(Runner::Vitest));
        write(
            r#"{"scripts":{"test":"npm run unit","unit":"node --test"},"devDependencies":{"vitest":"^3"}}"#,
        );
        assert_eq!(read(d.path()).map(|x| x.0), Some(Runner::Node));
        write(r#"{"scripts":{"test":"echo no tests"}}"#);
        assert!(read(d.path()).is_none());
        write("{not json");
        assert!(read(d.path()).is_none());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(?s).{0,200}") {
            let _ = from_script(&s);
        }
    }
}
