//! One runner command of a `test` script (`jest ...`, `vitest run ...`, `node --test ...`,
//! `node [options] node_modules/.bin/jest ...`): which runner, and what each of its words is to
//! pith. The script as a whole is read by `plan`; this module classifies a command it found to
//! run a runner.
//!
//! The command is honoured: every option is kept, in the order written, the script's own
//! `--ci`, `-u`/`--updateSnapshot`, `--update` and `--test-update-snapshots` included (the
//! runner writes snapshots as the script says), except the few pith sets itself (its reports,
//! watch mode: pith runs once), and options that make the runner run no test (`--listTests`,
//! `--showConfig`) are named so the answer says so instead of dropping them. Options that
//! select tests (name patterns, path filters, `--onlyChanged`, shards) and coverage options
//! apply to full runs only: a re-run of named tests is selected by its ids, and a global
//! coverage threshold cannot judge a subset.
//!
//! Here the runner and the script's words as pith keeps them; `classify` reads a command's
//! words into them, with each runner's options from `options`; `config` reads the project's
//! runner configuration where a word alone cannot tell (its reporters, its coverage).

pub(crate) mod classify;
mod config;
mod options;

pub(crate) use classify::runner_command;
pub use config::{
    config_file, config_has_reporters, config_mentions, vitest_config_mentions,
    vitest_config_reporters,
};

/// A JavaScript test runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Runner {
    Jest,
    Vitest,
    Node,
    Mocha,
}

impl Runner {
    pub(crate) const ALL: [Runner; 4] = [Runner::Jest, Runner::Vitest, Runner::Node, Runner::Mocha];

    pub const fn name(self) -> &'static str {
        match self {
            Runner::Jest => "jest",
            Runner::Vitest => "vitest",
            Runner::Node => "node",
            Runner::Mocha => "mocha",
        }
    }
}

/// What the `test` script says beyond the runner's name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script {
    /// `VAR=value` assignments before the command (also through `cross-env`).
    pub env: Vec<(String, String)>,
    /// node options written before the runner's own script (`node --expose-gc
    /// node_modules/.bin/jest`): pith runs `node <these> <the runner's script>` likewise.
    pub node: Vec<String>,
    /// The runner's words after its name (for `node --test`, every node option and file), in
    /// the order written, each with what it is to pith.
    pub words: Vec<Word>,
}

/// One word of the script after the runner's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub role: Role,
}

/// What an option (with its value) or a positional argument of the script is to pith.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Passed on in every run.
    Keep,
    /// Selects tests (a name pattern, `--onlyChanged`, a shard): full runs only.
    Select,
    /// A positional argument (a file, a glob, a path filter): full runs only.
    Path,
    /// Coverage and its thresholds: full runs only.
    Coverage,
    /// pith sets its own (reports, the CI switch) or runs once (watch mode): dropped.
    Managed,
    /// Cannot be honoured (it would write into the project, or run no test): the run is not
    /// green and the answer names it.
    Unhonoured,
}

impl Script {
    /// The words passed on: all kept ones, and in a full run also those that select tests or
    /// configure coverage.
    pub fn args(&self, full: bool) -> Vec<String> {
        self.words
            .iter()
            .filter(|w| match w.role {
                Role::Keep => true,
                Role::Select | Role::Path | Role::Coverage => full,
                Role::Managed | Role::Unhonoured => false,
            })
            .map(|w| w.text.clone())
            .collect()
    }

    /// [`Script::args`] without the positional arguments (node's options, which must come
    /// before its files).
    pub fn options(&self, full: bool) -> Vec<String> {
        self.words
            .iter()
            .filter(|w| match w.role {
                Role::Keep => true,
                Role::Select | Role::Coverage => full,
                Role::Path | Role::Managed | Role::Unhonoured => false,
            })
            .map(|w| w.text.clone())
            .collect()
    }

    /// Options pith could not honour, as written (with their values).
    pub fn unhonoured(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while let Some(w) = self.words.get(i) {
            if w.role == Role::Unhonoured {
                let mut text = w.text.clone();
                while let Some(v) = self
                    .words
                    .get(i + 1)
                    .filter(|v| v.role == Role::Unhonoured && !v.text.starts_with('-'))
                {
                    text.push(' ');
                    text.push_str(&v.text);
                    i += 1;
                }
                out.push(text);
            }
            i += 1;
        }
        out
    }

    /// Whether an option the script passes on is `name` (any of its spellings).
    fn has(&self, names: &[&str]) -> bool {
        self.words
            .iter()
            .filter(|w| w.role != Role::Managed && w.role != Role::Unhonoured)
            .any(|w| names.contains(&option_name(&w.text)))
    }

    /// Whether the script says anything of coverage (`--coverage`, `--collectCoverageFrom`,
    /// thresholds...): then pith leaves its coverage alone.
    pub fn mentions_coverage(&self) -> bool {
        self.words
            .iter()
            .any(|w| w.role == Role::Coverage || w.text.to_ascii_lowercase().contains("coverage"))
    }

    /// Whether the script names reporters of its own (jest `--reporters`, vitest
    /// `--reporter`): pith adds its own to them.
    pub fn has_reporters(&self) -> bool {
        self.has(&["reporters", "reporter"])
    }

    /// The exit code jest uses for failed tests when the script sets one
    /// (`--testFailureExitCode`).
    pub fn failure_exit_code(&self) -> Option<i32> {
        let i = self
            .words
            .iter()
            .position(|w| option_name(&w.text) == "testFailureExitCode")?;
        let w = &self.words[i].text;
        let value = match w.split_once('=') {
            Some((_, v)) => v,
            None => self.words.get(i + 1)?.text.as_str(),
        };
        value.trim().parse().ok()
    }

    /// node: how many `--test-reporter` and `--test-reporter-destination` options the script
    /// passes on.
    pub fn node_reporters(&self) -> (usize, usize) {
        let kept = self.options(true);
        let count = |name: &str| {
            kept.iter()
                .filter(|w| w.starts_with('-') && option_name(w) == name)
                .count()
        };
        (count("test-reporter"), count("test-reporter-destination"))
    }

    /// mocha: the reporter the script names (`--reporter spec`, `-R dot`), which pith's
    /// reporter runs inside itself (mocha takes one).
    pub fn mocha_reporter(&self) -> Option<String> {
        let i = self
            .words
            .iter()
            .rposition(|w| matches!(option_name(&w.text), "reporter" | "R"))?;
        match self.words[i].text.split_once('=') {
            Some((_, v)) => Some(v.to_owned()),
            None => self.words.get(i + 1).map(|w| w.text.clone()),
        }
    }

    /// The positional arguments (node's files and globs).
    pub fn paths(&self) -> Vec<String> {
        self.words
            .iter()
            .filter(|w| w.role == Role::Path)
            .map(|w| w.text.clone())
            .collect()
    }
}

/// An option's name without dashes, `no-` and value: `--no-coverage=x` → `coverage`.
pub(crate) fn option_name(word: &str) -> &str {
    if !word.starts_with('-') {
        return "";
    }
    let name = word.trim_start_matches('-');
    let name = name.split('=').next().unwrap_or(name);
    name.strip_prefix("no-").unwrap_or(name)
}
