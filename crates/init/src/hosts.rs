//! The agent hosts pith wires itself into, one row each: where each reads its MCP config and
//! instructions, in which format, and pith's entry as that host wants it. Kept as data beside
//! the sources it was read from, so checking a host against its docs is reading one row.

use crate::jsonedit::Node;
use crate::{Format, Host, Scope, Timeout};

pub(crate) fn stdio() -> Node {
    Node::Obj(vec![
        ("command", Node::Str("pith")),
        ("args", Node::List(vec!["mcp"])),
    ])
}

/// VS Code starts servers from no particular directory; `${workspaceFolder}` is its own
/// variable for the workspace.
pub(crate) fn vscode() -> Node {
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
pub(crate) fn goose() -> Node {
    Node::Obj(vec![
        ("type", Node::Str("stdio")),
        ("name", Node::Str("pith")),
        ("cmd", Node::Str("pith")),
        ("args", Node::List(vec!["mcp"])),
    ])
}

pub(crate) fn opencode() -> Node {
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
pub(crate) const ALIASES: &[(&str, &str)] = &[("agy", "antigravity")];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_sorted() {
        let names: Vec<_> = HOSTS.iter().map(|h| h.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }
}
