//! `pith init <host>`: wires pith into one agent host, idempotently. Each host gets its MCP
//! server entry, in the file and format that host reads, and the instructions block telling
//! the agent to call pith instead of raw test and build commands.
//!
//! Existing files are merged, never clobbered: JSON (JSONC too: comments and trailing commas
//! stay), TOML and YAML configs get only the keys pith owns in its own entry (`command`,
//! `args`, and `type` where the host wants one) added or replaced — every other byte kept, the
//! keys a user added to pith's entry (`env`, a timeout, `enabled: false`) included — and
//! instruction files get the delimited block inserted or replaced in place. Running it again
//! changes nothing. A config that cannot be merged is left as it is and reported; the
//! instructions file is written all the same. pith writes inside the workspace; a host whose
//! MCP config exists only in the user's home (Windsurf, Goose) has that file written only with
//! `--user`.
//!
//! The hosts are a table (`hosts`), each host's entry saying where its documentation puts
//! these files; where the docs left a choice open, the comment says which was taken. Merging
//! pith's entry and block into what is there is `merge`'s, on the editors of each format
//! (`jsonedit`, `yamledit`).

mod hosts;
mod jsonedit;
mod merge;
mod yamledit;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::hosts::ALIASES;
use crate::jsonedit::Node;
use crate::merge::{merge_block, merge_config};

pub use hosts::HOSTS;

/// The instructions block: short, byte-stable, the same for every host.
pub const INSTRUCTIONS: &str = "\
<!-- pith:begin -->
## Tests: use pith
This workspace has pith, an MCP server whose tools answer in small JSON records.
- Run tests with pith's `run_tests` tool instead of test or build commands in a shell \
(cargo test, cargo build, pytest, npm test, go test, ...). Without the tool: `pith test`.
- To re-run failures, pass their `test` ids from the answer in `tests`.
- A failure's first frame is its deepest project frame, \"file:line code\": open that.
- `get_failures`: the last run's failures in full; `get_status`: what changed since it.
- `find_symbol` / `find_usages`: where a name is defined / used.
- Details (clusters, flaky, test ids, runners) only when needed: `get_guide`.
<!-- pith:end -->";

const BEGIN: &str = "<!-- pith:begin -->";
const END: &str = "<!-- pith:end -->";

/// Where a file lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Relative to the workspace root.
    Workspace,
    /// Relative to the user's home: written only when asked (`--user`).
    User,
}

/// How pith's server entry is written.
#[derive(Debug, Clone, Copy)]
enum Format {
    /// A JSON object of servers at this key path; the entry is built by the function.
    Json(&'static [&'static str], fn() -> Node),
    /// OpenCode: `mcp.<name>` (its V1 shape, which V2 still reads), or `mcp.servers.<name>`
    /// when the file already uses V2's shape.
    OpenCode,
    /// Codex: a `[mcp_servers.<name>]` table in TOML.
    CodexToml,
    /// Goose: `extensions.<name>` in its YAML config, `enabled` its user's once written.
    GooseYaml,
}

/// A host's per-server timeout on tool calls, where it has one: pith's entry gets it (set to
/// the longest a pith call can take) unless the user set it.
#[derive(Debug, Clone, Copy)]
enum Timeout {
    /// This key, in seconds (Codex: `tool_timeout_sec`, 60 s unless set).
    Seconds(&'static str),
    /// This key, in milliseconds (Gemini CLI: `timeout`).
    Millis(&'static str),
}

impl Timeout {
    fn entry(self, call: Duration) -> (&'static str, Node) {
        match self {
            Timeout::Seconds(key) => (key, Node::Num(call.as_secs())),
            Timeout::Millis(key) => (key, Node::Num(call.as_millis() as u64)),
        }
    }
}

/// One agent host.
pub struct Host {
    /// The name `pith init` takes.
    pub name: &'static str,
    pub title: &'static str,
    mcp_path: &'static str,
    /// Another name the host reads its config under (OpenCode's `opencode.jsonc`), used
    /// instead of `mcp_path` when that file is there.
    mcp_alternative: Option<&'static str>,
    mcp_scope: Scope,
    format: Format,
    /// Its per-server tool timeout, if it has one.
    timeout: Option<Timeout>,
    /// The instructions file, relative to the workspace.
    instructions_path: &'static str,
    /// The instruction files the host reads, in its order, where it reads only the first it
    /// finds (Zed) or several alike: the first that exists gets the block instead of
    /// `instructions_path`, so the block lands where the host looks and is not written twice.
    instructions_read: &'static [&'static str],
    /// What a new instructions file starts with (front matter of a rules file).
    instructions_head: &'static str,
}

/// The host called `name` (or by one of its aliases).
pub fn host(name: &str) -> Option<&'static Host> {
    let name = ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, host)| host);
    HOSTS.iter().find(|h| h.name == name)
}

/// The names `pith init` takes, comma-separated.
pub fn host_names() -> String {
    HOSTS.iter().map(|h| h.name).collect::<Vec<_>>().join(", ")
}

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is not valid {format} ({detail}); it was left unchanged. Add pith by hand: {entry}"
    )]
    Unparsable {
        path: PathBuf,
        format: &'static str,
        detail: String,
        /// pith's entry, as one line to paste.
        entry: String,
    },
    #[error("no home directory (HOME is not set) for {0}")]
    NoHome(&'static str),
}

/// One file `init` would write.
#[derive(Debug)]
pub struct Planned {
    /// The path as shown to the user: workspace-relative, or `~/...` for a user file.
    pub shown: String,
    pub path: PathBuf,
    pub scope: Scope,
    /// The file's content now, if it exists.
    pub old: Option<String>,
    /// Its content after `init`.
    pub new: String,
}

impl Planned {
    pub fn changes(&self) -> bool {
        self.old.as_deref() != Some(self.new.as_str())
    }
}

/// What `init` would write for `host` in the workspace `root` (and, for a user-scoped config,
/// under `home`), reading what is there now: the MCP config, then the instructions file, each
/// planned or the reason it cannot be (a config that does not parse). Writes nothing.
///
/// `call` is the longest a pith tool call can take: a host with a per-server tool timeout
/// gets it in pith's entry, unless the user set one there.
pub fn plan(
    host: &Host,
    root: &Path,
    home: Option<&Path>,
    call: Duration,
) -> Vec<Result<Planned, InitError>> {
    vec![
        plan_config(host, root, home, call),
        plan_instructions(host, root),
    ]
}

fn plan_config(
    host: &Host,
    root: &Path,
    home: Option<&Path>,
    call: Duration,
) -> Result<Planned, InitError> {
    let base = match host.mcp_scope {
        Scope::Workspace => root.to_path_buf(),
        Scope::User => home.ok_or(InitError::NoHome(host.title))?.to_path_buf(),
    };
    let rel = config_name(host, &base);
    let mcp_path = base.join(rel);
    let shown = match host.mcp_scope {
        Scope::Workspace => rel.to_owned(),
        Scope::User => format!("~/{rel}"),
    };
    let old = read(&mcp_path)?;
    let defaults: Vec<(&'static str, Node)> =
        host.timeout.map(|t| t.entry(call)).into_iter().collect();
    let new = merge_config(host.format, old.as_deref(), &mcp_path, &defaults)?;
    Ok(Planned {
        shown,
        path: mcp_path,
        scope: host.mcp_scope,
        old,
        new,
    })
}

/// Which of the host's config names to use in `base`: the one that already names pith, else
/// the alternative when it exists (`opencode.jsonc`: the host reads it, and a second file
/// beside it would be a surprise), else the usual one.
fn config_name(host: &Host, base: &Path) -> &'static str {
    let Some(alt) = host.mcp_alternative else {
        return host.mcp_path;
    };
    let names_pith =
        |rel: &str| std::fs::read_to_string(base.join(rel)).is_ok_and(|t| t.contains("\"pith\""));
    if names_pith(host.mcp_path) {
        host.mcp_path
    } else if names_pith(alt) || base.join(alt).is_file() {
        alt
    } else {
        host.mcp_path
    }
}

fn plan_instructions(host: &Host, root: &Path) -> Result<Planned, InitError> {
    let rel = host
        .instructions_read
        .iter()
        .find(|rel| root.join(rel).is_file())
        .copied()
        .unwrap_or(host.instructions_path);
    let instructions_path = root.join(rel);
    let old = read(&instructions_path)?;
    let new = merge_block(old.as_deref(), host.instructions_head);
    Ok(Planned {
        shown: rel.to_owned(),
        path: instructions_path,
        scope: Scope::Workspace,
        old,
        new,
    })
}

/// Writes a planned file (creating its directory), replacing it in one step.
pub fn write(p: &Planned) -> Result<(), InitError> {
    let err = |source| InitError::Write {
        path: p.path.clone(),
        source,
    };
    if let Some(dir) = p.path.parent() {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let name = p
        .path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = p.path.with_file_name(format!(".{name}.pith-tmp"));
    std::fs::write(&tmp, &p.new).map_err(err)?;
    std::fs::rename(&tmp, &p.path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(e)
    })
}

fn read(path: &Path) -> Result<Option<String>, InitError> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InitError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_are_small() {
        assert!(INSTRUCTIONS.len() <= 1024, "{} bytes", INSTRUCTIONS.len());
        assert!(INSTRUCTIONS.starts_with(BEGIN) && INSTRUCTIONS.ends_with(END));
    }

    #[test]
    fn an_existing_opencode_jsonc_is_the_config() {
        let dir = std::env::temp_dir().join(format!("pith-init-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let opencode = host("opencode").unwrap();
        assert_eq!(config_name(opencode, &dir), "opencode.json");
        std::fs::write(dir.join("opencode.jsonc"), "{}").unwrap();
        assert_eq!(config_name(opencode, &dir), "opencode.jsonc");
        // A project whose opencode.json already has pith keeps it there.
        std::fs::write(dir.join("opencode.json"), "{\"mcp\": {\"pith\": {}}}").unwrap();
        assert_eq!(config_name(opencode, &dir), "opencode.json");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_block_goes_into_the_instructions_file_the_host_reads_first() {
        let dir = std::env::temp_dir().join(format!("pith-init-read-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".junie")).unwrap();
        let shown = |name| plan_instructions(host(name).unwrap(), &dir).unwrap().shown;
        assert_eq!(shown("zed"), "AGENTS.md");
        assert_eq!(shown("junie"), ".junie/AGENTS.md");
        assert_eq!(shown("antigravity"), "AGENTS.md");
        std::fs::write(dir.join("CLAUDE.md"), "x").unwrap();
        assert_eq!(shown("zed"), "CLAUDE.md");
        assert_eq!(shown("amp"), "CLAUDE.md");
        std::fs::write(dir.join("GEMINI.md"), "x").unwrap();
        assert_eq!(shown("antigravity"), "GEMINI.md");
        std::fs::write(dir.join(".rules"), "x").unwrap();
        assert_eq!(shown("zed"), ".rules");
        std::fs::write(dir.join(".junie/guidelines.md"), "x").unwrap();
        assert_eq!(shown("junie"), ".junie/guidelines.md");
        std::fs::write(dir.join("AGENTS.md"), "x").unwrap();
        assert_eq!(shown("amp"), "AGENTS.md");
        assert_eq!(shown("antigravity"), "AGENTS.md");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn agy_is_antigravity() {
        assert_eq!(host("agy").unwrap().name, "antigravity");
        assert!(host("gemini-cli").is_none());
    }
}
