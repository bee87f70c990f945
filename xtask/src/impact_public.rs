//! `cargo xtask impact --public DIR`: the impact bench on public projects, as published, none
//! trimmed to suit pith (`tests/fixtures/impact_public.json`): each project at a pinned
//! commit, cloned from its checkout (or mirror) under `DIR`, set up by its own commands (a
//! virtualenv with the project installed, `npm install`), then measured as a fixture is —
//! the bug beside harmless edits in other files, after an earlier bug made, run red and
//! undone — in git only (a public project is published in git). The checkouts come from
//! wherever the person running the bench got them: the bench machines reach package
//! registries, not the projects' hosts.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{ensure, Context, Result};

use crate::impact::{commit_all, project_of, read_list, str_of, Project};

/// The public projects, relative to the repository root.
pub const PUBLIC: &str = "tests/fixtures/impact_public.json";

/// Where a public project comes from and how it is made ready to test.
pub struct Public {
    /// The git repository to clone: `DIR/<owner>+<name>/repo` (a mirror),
    /// `DIR/<owner>+<name>` or `DIR/<name>` (a checkout).
    source: PathBuf,
    commit: String,
    /// Commands (argv, run in the copy) that set it up as its README says.
    setup: Vec<Vec<String>>,
}

/// Reads the public projects, each found under `dir`.
pub fn load(root: &Path, dir: &Path) -> Result<Vec<Project>> {
    let doc = read_list(root, PUBLIC)?;
    let mut out = Vec::new();
    for p in doc["projects"]
        .as_array()
        .context("no \"projects\" array")?
    {
        let repo = str_of(PUBLIC, p, "repo")?;
        let (owner, name) = repo
            .split_once('/')
            .with_context(|| format!("{PUBLIC}: {repo:?} is not owner/name"))?;
        let flat = format!("{owner}+{name}");
        let source = [
            dir.join(&flat).join("repo"),
            dir.join(&flat),
            dir.join(name),
        ]
        .into_iter()
        .find(|d| d.exists())
        .with_context(|| format!("no checkout of {repo} under {}", dir.display()))?;
        let setup = p["setup"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|argv| {
                argv.as_array()
                    .context("a setup command is an argv array")
                    .map(|a| {
                        a.iter()
                            .filter_map(|w| w.as_str().map(str::to_owned))
                            .collect::<Vec<_>>()
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut project = project_of(PUBLIC, p)?;
        project.fixture = repo.clone();
        project.public = Some(Public {
            source,
            commit: str_of(PUBLIC, p, "commit")?,
            setup,
        });
        out.push(project);
    }
    Ok(out)
}

impl Public {
    /// Clones the project into `ws` at its commit, runs its setup there (with `env`) and
    /// commits what the setup wrote that git tracks (a lockfile `npm install` writes is the
    /// baseline, not a change), leaving out the virtualenv and `node_modules`.
    pub fn prepare(&self, ws: &Path, env: &[(&str, &Path)]) -> Result<()> {
        let source = self.source.to_string_lossy().into_owned();
        let ws_arg = ws.to_string_lossy().into_owned();
        git(None, &["clone", "-q", "--no-checkout", &source, &ws_arg])?;
        git(Some(ws), &["checkout", "-q", "--detach", &self.commit])?;
        let exclude = ws.join(".git/info/exclude");
        std::fs::create_dir_all(
            exclude
                .parent()
                .context("an exclude file has a directory")?,
        )?;
        std::fs::write(&exclude, ".venv/\nnode_modules/\n")?;
        for argv in &self.setup {
            let (program, args) = argv.split_first().context("an empty setup command")?;
            let mut cmd = Command::new(program);
            cmd.args(args)
                .current_dir(ws)
                .stdin(Stdio::null())
                .stdout(Stdio::null());
            for (k, v) in env {
                cmd.env(k, v);
            }
            let status = cmd
                .status()
                .with_context(|| format!("running {argv:?} in {}", ws.display()))?;
            ensure!(status.success(), "{argv:?} failed in {}", ws.display());
        }
        commit_all(ws)
    }
}

fn git(dir: Option<&Path>, args: &[&str]) -> Result<()> {
    let mut cmd = Command::new("git");
    cmd.args(["-c", "advice.detachedHead=false"])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let status = cmd.status().context("running git")?;
    ensure!(status.success(), "git {args:?} failed");
    Ok(())
}
