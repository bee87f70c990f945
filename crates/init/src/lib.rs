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
//! Each host's entry says where its documentation puts these files; where the docs left a
//! choice open, the comment says which was taken.

mod jsonedit;
mod yamledit;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::jsonedit::Node;

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

fn stdio() -> Node {
    Node::Obj(vec![
        ("command", Node::Str("pith")),
        ("args", Node::List(vec!["mcp"])),
    ])
}

/// VS Code starts servers from no particular directory; `${workspaceFolder}` is its own
/// variable for the workspace.
fn vscode() -> Node {
    Node::Obj(vec![
        ("type", Node::Str("stdio")),
        ("command", Node::Str("pith")),
        (
            "args",
            Node::List(vec!["mcp", "--root", "${workspaceFolder}"]),
        ),
    ])
}

/// GitHub Copilot CLI: `type` as the MCP spec names it (its docs: `local` and `stdio` work
/// the same), and `tools`, which its cloud agent requires, set to all.
fn copilot() -> Node {
    Node::Obj(vec![
        ("type", Node::Str("stdio")),
        ("command", Node::Str("pith")),
        ("args", Node::List(vec!["mcp"])),
        ("tools", Node::List(vec!["*"])),
    ])
}

/// Goose's stdio extension: `name` is required beside the key, the command is `cmd`.
fn goose() -> Node {
    Node::Obj(vec![
        ("type", Node::Str("stdio")),
        ("name", Node::Str("pith")),
        ("cmd", Node::Str("pith")),
        ("args", Node::List(vec!["mcp"])),
    ])
}

fn opencode() -> Node {
    Node::Obj(vec![
        ("type", Node::Str("local")),
        ("command", Node::List(vec!["pith", "mcp"])),
    ])
}

/// Every host, sorted by name.
pub const HOSTS: &[Host] = &[
    // Amp: `amp.mcpServers` (one key, dot included) in `.amp/settings.json` (JSONC; or
    // `.amp/settings.jsonc` when the project has that) for the workspace,
    // `~/.config/amp/settings.json` for the user; stdio servers are `command`, `args`, `env`.
    // Amp asks each person once before it starts a server from a workspace file
    // (`amp mcp approve pith`). It reads AGENTS.md, else AGENT.md or CLAUDE.md in its place. No
    // per-server tool timeout is documented.
    // https://ampcode.com/manual (MCP, AGENTS.md);
    // https://docs.anchorbrowser.io/integrations/coding-agents/amp (workspace file, approval)
    Host {
        name: "amp",
        title: "Amp",
        mcp_path: ".amp/settings.json",
        mcp_alternative: Some(".amp/settings.jsonc"),
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["amp.mcpServers"], stdio),
        timeout: None,
        instructions_path: "AGENTS.md",
        instructions_read: &["AGENTS.md", "AGENT.md", "CLAUDE.md"],
        instructions_head: "",
    },
    // Antigravity CLI (`agy`), Gemini CLI's successor: servers live in `mcp_config.json`, not
    // in settings — `.agents/mcp_config.json` for the workspace,
    // `~/.gemini/antigravity-cli/mcp_config.json` for the user — under `mcpServers`, stdio
    // entries as Gemini CLI's (`command`, `args`, `env`). Strict JSON: a comment or trailing
    // comma makes `agy` exit. It reads GEMINI.md and AGENTS.md. No per-server timeout is
    // documented (a tool call is cut at about 180 s).
    // https://github.com/google-gemini/gemini-cli/blob/main/docs/resources/migrating-to-antigravity-cli.md
    // https://github.com/stbenjam/skillsaw/blob/main/docs/rules/antigravity-mcp-valid.md
    // https://github.com/google-antigravity/antigravity-cli/issues/780
    Host {
        name: "antigravity",
        title: "Antigravity CLI",
        mcp_path: ".agents/mcp_config.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["mcpServers"], stdio),
        timeout: None,
        instructions_path: "AGENTS.md",
        instructions_read: &["AGENTS.md", "GEMINI.md"],
        instructions_head: "",
    },
    Host {
        name: "claude",
        title: "Claude Code",
        mcp_path: ".mcp.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["mcpServers"], stdio),
        timeout: None,
        instructions_path: "CLAUDE.md",
        instructions_read: &[],
        instructions_head: "",
    },
    Host {
        name: "codex",
        title: "Codex CLI",
        mcp_path: ".codex/config.toml",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::CodexToml,
        timeout: Some(Timeout::Seconds("tool_timeout_sec")),
        instructions_path: "AGENTS.md",
        instructions_read: &[],
        instructions_head: "",
    },
    // GitHub Copilot CLI: `~/.copilot/mcp-config.json` for the user; per repository
    // `.mcp.json` (Claude Code's file) or `.github/mcp.json`, "shared configuration committed
    // to the repository" — that one, so pith's entry for Copilot does not change Claude's.
    // `mcpServers`; a local server is `type` (`local`/`stdio`), `command`, `args`, `env`,
    // `tools`. Loaded only once the folder is trusted. Per-server `timeout` in ms (180 s
    // unless set). Instructions: `.github/copilot-instructions.md`.
    // https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers
    // https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions
    // https://github.com/github/copilot-sdk/blob/main/docs/mcp/overview.md (`timeout`, ms)
    // https://github.com/github/copilot-cli/issues/1378 (180 s default)
    Host {
        name: "copilot",
        title: "GitHub Copilot CLI",
        mcp_path: ".github/mcp.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["mcpServers"], copilot),
        timeout: Some(Timeout::Millis("timeout")),
        instructions_path: ".github/copilot-instructions.md",
        instructions_read: &[],
        instructions_head: "",
    },
    Host {
        name: "cursor",
        title: "Cursor",
        mcp_path: ".cursor/mcp.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["mcpServers"], stdio),
        timeout: None,
        instructions_path: ".cursor/rules/pith.mdc",
        instructions_read: &[],
        instructions_head: "---\ndescription: Run tests through pith\nalwaysApply: true\n---\n",
    },
    Host {
        name: "gemini",
        title: "Gemini CLI",
        mcp_path: ".gemini/settings.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["mcpServers"], stdio),
        timeout: Some(Timeout::Millis("timeout")),
        instructions_path: "GEMINI.md",
        instructions_read: &[],
        instructions_head: "",
    },
    // Goose: extensions are in its YAML config, `~/.config/goose/config.yaml` (user only; the
    // project-scoped "open plugins" route is not in its configuration docs yet), under
    // `extensions.<key>`: `type: stdio`, `name`, `cmd`, `args`, `enabled`, `envs`, and
    // `timeout` in seconds (300 in its examples). It reads AGENTS.md and `.goosehints`.
    // https://github.com/aaif-goose/goose/blob/main/documentation/docs/guides/config-files.md
    // https://github.com/aaif-goose/goose/blob/main/documentation/docs/guides/context-engineering/using-goosehints.md
    Host {
        name: "goose",
        title: "Goose",
        mcp_path: ".config/goose/config.yaml",
        mcp_alternative: None,
        mcp_scope: Scope::User,
        format: Format::GooseYaml,
        timeout: Some(Timeout::Seconds("timeout")),
        instructions_path: "AGENTS.md",
        instructions_read: &[],
        instructions_head: "",
    },
    // JetBrains Junie (IDE plugin and CLI share the files): `.junie/mcp/mcp.json` for the
    // project, `~/.junie/mcp/mcp.json` for the user, `mcpServers` with `command`, `args`,
    // `env`; stdio only, strict JSON; no per-server timeout documented. Guidelines: the docs
    // name `.junie/guidelines.md` (older) and `.junie/AGENTS.md` or AGENTS.md (newer); pith
    // uses the first of these that exists, else `.junie/AGENTS.md`.
    // https://www.jetbrains.com/help/junie/model-context-protocol-mcp.html
    // https://www.jetbrains.com/help/junie/customize-guidelines.html
    // https://github.com/JetBrains/junie-guidelines (`.junie/AGENTS.md` or `AGENTS.md`)
    Host {
        name: "junie",
        title: "JetBrains Junie",
        mcp_path: ".junie/mcp/mcp.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["mcpServers"], stdio),
        timeout: None,
        instructions_path: ".junie/AGENTS.md",
        instructions_read: &[".junie/AGENTS.md", ".junie/guidelines.md", "AGENTS.md"],
        instructions_head: "",
    },
    Host {
        name: "kiro",
        title: "Kiro",
        mcp_path: ".kiro/settings/mcp.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["mcpServers"], stdio),
        timeout: None,
        instructions_path: ".kiro/steering/pith.md",
        instructions_read: &[],
        instructions_head: "---\ninclusion: always\n---\n",
    },
    Host {
        name: "opencode",
        title: "OpenCode",
        mcp_path: "opencode.json",
        mcp_alternative: Some("opencode.jsonc"),
        mcp_scope: Scope::Workspace,
        format: Format::OpenCode,
        timeout: None,
        instructions_path: "AGENTS.md",
        instructions_read: &[],
        instructions_head: "",
    },
    Host {
        name: "vscode",
        title: "VS Code (Copilot)",
        mcp_path: ".vscode/mcp.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["servers"], vscode),
        timeout: None,
        instructions_path: ".github/copilot-instructions.md",
        instructions_read: &[],
        instructions_head: "",
    },
    Host {
        name: "windsurf",
        title: "Windsurf",
        mcp_path: ".codeium/windsurf/mcp_config.json",
        mcp_alternative: None,
        mcp_scope: Scope::User,
        format: Format::Json(&["mcpServers"], stdio),
        timeout: None,
        instructions_path: ".windsurf/rules/pith.md",
        instructions_read: &[],
        instructions_head: "---\ntrigger: always_on\n---\n",
    },
    // Zed: `context_servers` in its settings, JSONC; a project's `.zed/settings.json` holds
    // them as the user's does. A custom stdio server is `command`, `args` (required), `env`,
    // and `timeout` in seconds for its tool calls (else `context_server_timeout`, 60 s).
    // `source: "custom"` from older docs is no longer needed. Zed reads only the first rules
    // file it finds, in this order: .rules, .cursorrules, .windsurfrules, .clinerules,
    // .github/copilot-instructions.md, AGENT.md, AGENTS.md, CLAUDE.md, GEMINI.md.
    // https://zed.dev/docs/ai/mcp
    // https://zed.dev/docs/ai/rules
    // https://github.com/zed-industries/zed/blob/main/crates/settings_content/src/project.rs
    Host {
        name: "zed",
        title: "Zed",
        mcp_path: ".zed/settings.json",
        mcp_alternative: None,
        mcp_scope: Scope::Workspace,
        format: Format::Json(&["context_servers"], stdio),
        timeout: Some(Timeout::Seconds("timeout")),
        instructions_path: "AGENTS.md",
        instructions_read: &[
            ".rules",
            ".cursorrules",
            ".windsurfrules",
            ".clinerules",
            ".github/copilot-instructions.md",
            "AGENT.md",
            "AGENTS.md",
            "CLAUDE.md",
            "GEMINI.md",
        ],
        instructions_head: "",
    },
];

/// Other names `pith init` takes for a host: the command people type.
const ALIASES: &[(&str, &str)] = &[("agy", "antigravity")];

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

/// The instructions file with pith's block: replaced in place when there, else appended
/// after a blank line; a new file starts with `head`.
fn merge_block(old: Option<&str>, head: &str) -> String {
    let Some(old) = old else {
        return format!("{head}{INSTRUCTIONS}\n");
    };
    if let Some(begin) = old.find(BEGIN) {
        if let Some(end) = old[begin..].find(END) {
            let end = begin + end + END.len();
            return format!("{}{INSTRUCTIONS}{}", &old[..begin], &old[end..]);
        }
    }
    let sep = match old {
        "" => "",
        s if s.ends_with("\n\n") => "",
        s if s.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    format!("{old}{sep}{INSTRUCTIONS}\n")
}

/// `old` with pith's entry merged in: the keys pith owns set, `defaults` (a timeout) added
/// where the entry lacks them.
fn merge_config(
    format: Format,
    old: Option<&str>,
    path: &Path,
    defaults: &[(&'static str, Node)],
) -> Result<String, InitError> {
    match format {
        Format::Json(keys, entry) => merge_json(old, path, keys, &entry(), defaults),
        Format::GooseYaml => {
            let defaults: Vec<(&'static str, Node)> = [("enabled", Node::Bool(true))]
                .into_iter()
                .chain(defaults.iter().cloned())
                .collect();
            merge_doc(Doc::Yaml, old, path, &["extensions"], &goose(), &defaults)
        }
        Format::OpenCode => {
            let v2 = old
                .and_then(|s| jsonedit::get(s, &["mcp", "servers"]).ok().flatten())
                .is_some_and(|servers| {
                    servers.as_object().is_some_and(|s| !s.contains_key("type"))
                });
            let keys: &[&str] = if v2 { &["mcp", "servers"] } else { &["mcp"] };
            merge_json(old, path, keys, &opencode(), defaults)
        }
        Format::CodexToml => merge_codex(old, path, defaults),
    }
}

/// A structured config format pith edits with minimal diffs.
#[derive(Debug, Clone, Copy)]
enum Doc {
    Json,
    Yaml,
}

impl Doc {
    fn name(self) -> &'static str {
        match self {
            Doc::Json => "JSON",
            Doc::Yaml => "YAML",
        }
    }

    fn new_document(self, keys: &[&'static str], value: &Node) -> String {
        match self {
            Doc::Json => jsonedit::new_document(keys, "pith", value),
            Doc::Yaml => yamledit::new_document(keys, "pith", value),
        }
    }

    fn get(self, text: &str, path: &[&str]) -> Result<Option<serde_json::Value>, String> {
        match self {
            Doc::Json => jsonedit::get(text, path),
            Doc::Yaml => yamledit::get(text, path),
        }
    }

    fn set_entry(
        self,
        text: &str,
        path: &[&'static str],
        key: &'static str,
        value: &Node,
    ) -> Result<String, String> {
        match self {
            Doc::Json => jsonedit::set_entry(text, path, key, value).map_err(|e| e.to_string()),
            Doc::Yaml => yamledit::set_entry(text, path, key, value).map_err(|e| e.to_string()),
        }
    }
}

fn merge_json(
    old: Option<&str>,
    path: &Path,
    keys: &[&'static str],
    entry: &Node,
    defaults: &[(&'static str, Node)],
) -> Result<String, InitError> {
    merge_doc(Doc::Json, old, path, keys, entry, defaults)
}

/// `old` with pith's entry under `keys`: the members pith owns (those of `entry`) set where
/// they differ, `defaults` added where missing, every other member of the entry kept; the
/// whole entry written when there is none (or it is not an object).
fn merge_doc(
    doc: Doc,
    old: Option<&str>,
    path: &Path,
    keys: &[&'static str],
    entry: &Node,
    defaults: &[(&'static str, Node)],
) -> Result<String, InitError> {
    let whole = match entry {
        Node::Obj(fields) => Node::Obj(fields.iter().chain(defaults).cloned().collect()),
        other => other.clone(),
    };
    let Some(old) = old.filter(|s| !s.trim().is_empty()) else {
        return Ok(doc.new_document(keys, &whole));
    };
    let unparsable = |detail: String| InitError::Unparsable {
        path: path.to_path_buf(),
        format: doc.name(),
        detail,
        entry: format!("\"pith\": {} in `{}`", whole.to_value(), keys.join(".")),
    };
    let at: Vec<&'static str> = keys.iter().copied().chain(["pith"]).collect();
    let current = doc.get(old, &at).map_err(&unparsable)?;
    let (Some(serde_json::Value::Object(current)), Node::Obj(owned)) = (current, entry) else {
        return doc.set_entry(old, keys, "pith", &whole).map_err(unparsable);
    };
    let mut text = old.to_owned();
    for (key, value) in owned {
        if current.get(*key) != Some(&value.to_value()) {
            text = doc.set_entry(&text, &at, key, value).map_err(&unparsable)?;
        }
    }
    for (key, value) in defaults {
        if !current.contains_key(*key) {
            text = doc.set_entry(&text, &at, key, value).map_err(&unparsable)?;
        }
    }
    Ok(text)
}

/// `old` with a `[mcp_servers.pith]` table whose `command` and `args` are pith's, `defaults`
/// added where missing; any other key of the table (the user's own `tool_timeout_sec`,
/// `env`, `enabled`) kept.
fn merge_codex(
    old: Option<&str>,
    path: &Path,
    defaults: &[(&'static str, Node)],
) -> Result<String, InitError> {
    use toml_edit::{value, Array, DocumentMut, Item, Table};
    let unparsable = |detail: String| InitError::Unparsable {
        path: path.to_path_buf(),
        format: "TOML",
        detail,
        entry: format!(
            "[mcp_servers.pith] command = \"pith\" args = [\"mcp\"]{}",
            defaults
                .iter()
                .map(|(k, v)| format!(" {k} = {}", v.to_value()))
                .collect::<String>()
        ),
    };
    let mut doc: DocumentMut = old
        .unwrap_or_default()
        .parse()
        .map_err(|e: toml_edit::TomlError| unparsable(e.to_string().trim().replace('\n', " ")))?;
    let wanted_args = ["mcp"];
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        })
        .as_table_like_mut()
        .ok_or_else(|| unparsable("`mcp_servers` is not a table".into()))?;
    if servers.get("pith").and_then(Item::as_table_like).is_none() {
        servers.insert("pith", Item::Table(Table::new()));
    }
    let pith = servers
        .get_mut("pith")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| unparsable("`mcp_servers.pith` is not a table".into()))?;
    let mut changed = false;
    if pith.get("command").and_then(Item::as_str) != Some("pith") {
        pith.insert("command", value("pith"));
        changed = true;
    }
    let args_ok = pith.get("args").and_then(Item::as_array).is_some_and(|a| {
        a.iter()
            .map(|v| v.as_str())
            .eq(wanted_args.iter().map(|s| Some(*s)))
    });
    if !args_ok {
        pith.insert("args", value(Array::from_iter(wanted_args)));
        changed = true;
    }
    for (key, default) in defaults {
        if let (None, Node::Num(n)) = (pith.get(key), default) {
            pith.insert(key, value(i64::try_from(*n).unwrap_or(i64::MAX)));
            changed = true;
        }
    }
    if !changed {
        return Ok(old.unwrap_or_default().to_owned());
    }
    Ok(doc.to_string())
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
    fn hosts_are_sorted() {
        let names: Vec<_> = HOSTS.iter().map(|h| h.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }

    #[test]
    fn block_is_appended_once_and_replaced_in_place() {
        let user = "# My project\n\nBe nice.\n";
        let once = merge_block(Some(user), "");
        assert_eq!(once, format!("{user}\n{INSTRUCTIONS}\n"));
        assert_eq!(merge_block(Some(&once), ""), once);
        let stale = once.replace("Tests: use pith", "old text") + "after\n";
        assert_eq!(merge_block(Some(&stale), ""), format!("{once}after\n"));
        assert_eq!(
            merge_block(None, "---\nx\n---\n"),
            format!("---\nx\n---\n{INSTRUCTIONS}\n")
        );
    }

    #[test]
    fn codex_table_is_added_and_kept_idempotent() {
        let user = "# mine\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let p = Path::new("config.toml");
        let once = merge_codex(Some(user), p, &[]).unwrap();
        assert_eq!(
            once,
            format!("{user}\n[mcp_servers.pith]\ncommand = \"pith\"\nargs = [\"mcp\"]\n")
        );
        assert_eq!(merge_codex(Some(&once), p, &[]).unwrap(), once);
        let fresh = merge_codex(None, p, &[]).unwrap();
        assert_eq!(
            fresh,
            "[mcp_servers.pith]\ncommand = \"pith\"\nargs = [\"mcp\"]\n"
        );
        assert!(merge_codex(Some("not = = toml"), p, &[]).is_err());
    }

    #[test]
    fn opencode_follows_the_files_shape() {
        let p = Path::new("opencode.json");
        let v1 = merge_config(Format::OpenCode, None, p, &[]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&v1).unwrap();
        assert_eq!(v["mcp"]["pith"]["command"][1], "mcp");
        let v2 = "{\"mcp\": {\"servers\": {\"x\": {\"type\": \"local\", \"command\": [\"x\"]}}}}";
        let out = merge_config(Format::OpenCode, Some(v2), p, &[]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["mcp"]["servers"]["pith"]["type"], "local");
    }

    #[test]
    fn invalid_json_is_left_alone() {
        let p = Path::new(".mcp.json");
        let e = merge_json(Some("{ \"a\": }"), p, &["mcpServers"], &stdio(), &[]).unwrap_err();
        assert!(e.to_string().contains("left unchanged"), "{e}");
        assert!(
            e.to_string()
                .ends_with("Add pith by hand: \"pith\": {\"args\":[\"mcp\"],\"command\":\"pith\"} in `mcpServers`"),
            "{e}"
        );
    }

    #[test]
    fn the_users_keys_in_piths_entry_stay() {
        let p = Path::new("settings.json");
        let user = "{\n  \"mcpServers\": {\n    \"pith\": {\n      \"command\": \"old-pith\",\n      \"timeout\": 900000,\n      \"trust\": true,\n      \"env\": {\"A\": \"1\"}\n    }\n  }\n}\n";
        let out = merge_json(Some(user), p, &["mcpServers"], &stdio(), &[]).unwrap();
        assert_eq!(
            out,
            "{\n  \"mcpServers\": {\n    \"pith\": {\n      \"command\": \"pith\",\n      \"timeout\": 900000,\n      \"trust\": true,\n      \"env\": {\"A\": \"1\"},\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n"
        );
        assert_eq!(
            merge_json(Some(&out), p, &["mcpServers"], &stdio(), &[]).unwrap(),
            out
        );

        // OpenCode's `enabled: false` is the user's to lift, not pith's.
        let oc = "{\"mcp\": {\"pith\": {\"type\": \"local\", \"command\": [\"pith\", \"mcp\"], \"enabled\": false}}}";
        assert_eq!(
            merge_config(Format::OpenCode, Some(oc), p, &[]).unwrap(),
            oc
        );

        let codex = "[mcp_servers.pith]\ncommand = \"pith\"\nargs = [\"mcp\", \"--slim\"]\ntool_timeout_sec = 900 # mine\n\n[mcp_servers.pith.env]\nA = \"1\"\n";
        let out = merge_codex(Some(codex), p, &[]).unwrap();
        assert_eq!(
            out,
            "[mcp_servers.pith]\ncommand = \"pith\"\nargs = [\"mcp\"]\ntool_timeout_sec = 900 # mine\n\n[mcp_servers.pith.env]\nA = \"1\"\n"
        );
        assert_eq!(merge_codex(Some(&out), p, &[]).unwrap(), out);
    }

    #[test]
    fn jsonc_is_merged_with_its_comments_and_trailing_commas() {
        let p = Path::new("mcp.json");
        let user = "// VS Code's MCP servers\n{\n  \"servers\": {\n    /* mine */\n    \"other\": {\"command\": \"x\"}, // keep\n  },\n}\n";
        let out = merge_json(Some(user), p, &["servers"], &vscode(), &[]).unwrap();
        assert_eq!(
            out,
            "// VS Code's MCP servers\n{\n  \"servers\": {\n    /* mine */\n    \"other\": {\"command\": \"x\"},\n    \"pith\": {\n      \"type\": \"stdio\",\n      \"command\": \"pith\",\n      \"args\": [\"mcp\", \"--root\", \"${workspaceFolder}\"]\n    }, // keep\n  },\n}\n"
        );
        assert_eq!(
            merge_json(Some(&out), p, &["servers"], &vscode(), &[]).unwrap(),
            out
        );

        // Comments alone in an object stay beside the new member.
        let out = merge_json(
            Some("{ // a comment\n}\n"),
            p,
            &["mcpServers"],
            &stdio(),
            &[],
        )
        .unwrap();
        assert!(out.starts_with("{\n  \"mcpServers\": {"), "{out}");
        assert!(out.contains("} // a comment\n}\n"), "{out}");
        let v = jsonedit::get(&out, &["mcpServers", "pith", "command"]).unwrap();
        assert_eq!(v, Some(serde_json::json!("pith")));
    }

    #[test]
    fn hosts_with_a_tool_timeout_get_the_longest_call_unless_the_user_set_one() {
        let call = Duration::from_secs(720);
        let p = Path::new("x");
        let gemini = [host("gemini").unwrap().timeout.unwrap().entry(call)];
        let fresh = merge_json(None, p, &["mcpServers"], &stdio(), &gemini).unwrap();
        assert_eq!(
            jsonedit::get(&fresh, &["mcpServers", "pith", "timeout"]).unwrap(),
            Some(serde_json::json!(720_000))
        );
        let mine = fresh.replace("720000", "90000");
        let again = merge_json(Some(&mine), p, &["mcpServers"], &stdio(), &gemini);
        assert_eq!(again.unwrap(), mine, "the user's timeout stays");
        // An entry from before pith wrote one gets it.
        let old = "{\"mcpServers\": {\"pith\": {\"command\": \"pith\", \"args\": [\"mcp\"]}}}";
        let out = merge_json(Some(old), p, &["mcpServers"], &stdio(), &gemini).unwrap();
        assert_eq!(
            jsonedit::get(&out, &["mcpServers", "pith", "timeout"]).unwrap(),
            Some(serde_json::json!(720_000))
        );

        let codex = [host("codex").unwrap().timeout.unwrap().entry(call)];
        let fresh = merge_codex(None, p, &codex).unwrap();
        assert_eq!(
            fresh,
            "[mcp_servers.pith]\ncommand = \"pith\"\nargs = [\"mcp\"]\ntool_timeout_sec = 720\n"
        );
        let mine = fresh.replace("720", "1800");
        assert_eq!(merge_codex(Some(&mine), p, &codex).unwrap(), mine);
        let seconds = |name| {
            matches!(
                host(name).unwrap().timeout,
                Some(Timeout::Seconds("timeout"))
            )
        };
        assert!(seconds("zed") && seconds("goose"));
        assert!(matches!(
            host("copilot").unwrap().timeout,
            Some(Timeout::Millis("timeout"))
        ));
        for other in [
            "amp",
            "antigravity",
            "claude",
            "cursor",
            "junie",
            "kiro",
            "opencode",
            "vscode",
            "windsurf",
        ] {
            assert!(host(other).unwrap().timeout.is_none(), "{other}");
        }
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
    fn goose_yaml_keeps_the_users_extensions_comments_and_choices() {
        let p = Path::new("config.yaml");
        let call = Duration::from_secs(720);
        let defaults = [host("goose").unwrap().timeout.unwrap().entry(call)];
        let user = "# goose settings\nGOOSE_PROVIDER: anthropic # mine\nextensions:\n  developer:\n    bundled: true\n    enabled: true\n    name: developer\n    timeout: 300\n    type: builtin\n";
        let once = merge_config(Format::GooseYaml, Some(user), p, &defaults).unwrap();
        assert_eq!(
            once,
            format!("{user}  pith:\n    type: stdio\n    name: pith\n    cmd: pith\n    args: [mcp]\n    enabled: true\n    timeout: 720\n")
        );
        assert_eq!(
            merge_config(Format::GooseYaml, Some(&once), p, &defaults).unwrap(),
            once
        );
        // Switched off and given a longer timeout by the user: both stay.
        let mine = once
            .replace(
                "    enabled: true\n    timeout: 720",
                "    enabled: false\n    timeout: 3600 # slow suite",
            )
            .replace("cmd: pith", "cmd: old-pith");
        let out = merge_config(Format::GooseYaml, Some(&mine), p, &defaults).unwrap();
        assert_eq!(out, mine.replace("cmd: old-pith", "cmd: pith"));
        let fresh = merge_config(Format::GooseYaml, None, p, &defaults).unwrap();
        assert!(
            fresh.starts_with("extensions:\n  pith:\n    type: stdio\n"),
            "{fresh}"
        );
        let e = merge_config(Format::GooseYaml, Some("extensions: {a: 1}\n"), p, &[]).unwrap_err();
        assert!(e.to_string().contains("is not valid YAML"), "{e}");
        assert!(e.to_string().contains("flow mapping"), "{e}");
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
