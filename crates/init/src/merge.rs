//! Merging pith's text into the files a host already has, with minimal diffs: the instructions
//! block replaced in place or appended, and pith's server entry set in a JSON (JSONC), YAML or
//! TOML config, the keys pith owns and nothing else. Each format has its own way in, but one
//! rule of what is pith's; it lives here so every host shares it.

use std::path::Path;

use crate::hosts::{goose, opencode};
use crate::jsonedit::{self, Node};
use crate::yamledit;
use crate::{Format, InitError, BEGIN, END, INSTRUCTIONS};

/// The instructions file with pith's block: replaced in place when there, else appended
/// after a blank line; a new file starts with `head`.
pub(crate) fn merge_block(old: Option<&str>, head: &str) -> String {
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
pub(crate) fn merge_config(
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
    use std::time::Duration;

    use super::*;
    use crate::hosts::{stdio, vscode};
    use crate::{host, Timeout};

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
}
