//! Which Go the go on PATH is, and whether pith observes it (Go 1.21 and newer, docs/runners.md): a go
//! below the range is answered `RunnerMissing`, naming the version found and the range, before
//! anything runs. Checked on every run, so it costs no process where it can be helped: the
//! version is the first line of the `VERSION` file of the binary's GOROOT (the directory above
//! its `bin/`, links followed: Debian's `/usr/bin/go` is `/usr/lib/go-1.xx/bin/go`), which every
//! Go distribution and every toolchain go downloads carries; only a go with none (a build from
//! source, a version manager's shim) is asked, `go version`.
//!
//! The go on PATH is the one to check: it is the go pith starts, and the only way another go
//! runs is through its own toolchain switch (`GOTOOLCHAIN`, go.mod's `go` and `toolchain`
//! lines), which only a go 1.21 or newer makes — and it switches to a toolchain at least as new
//! as the module asks, which go fetches only from 1.21 on (the `golang.org/toolchain` module).
//! An older one runs only when the caller names it in `GOTOOLCHAIN` and has it on PATH as
//! `go1.20.x`: the caller's explicit choice, not checked.
//! <https://go.dev/doc/toolchain>

use std::path::Path;
use std::time::{Duration, Instant};

use crate::process;
use crate::Context;

/// The oldest Go pith observes: 1.21, the first with go.mod's `go` line a requirement and
/// toolchain switching (what the scenario rows at the range's oldest end run).
const OLDEST: (u32, u32) = (1, 21);

/// The range as docs/runners.md and the answers say it.
const RANGE: &str = "Go 1.21 and newer";

/// At most this long to ask a go without a `VERSION` file its version.
const ASK_LIMIT: Duration = Duration::from_secs(20);

/// Why the go at `go` is not one pith observes, as the hint of a `RunnerMissing` answer;
/// `None` when it is, or when its version cannot be told (taken for a current one, as go
/// itself then says what it cannot do).
pub(super) fn out_of_range(go: &Path, dir: &Path, ctx: &Context<'_>) -> Option<String> {
    let version = installed(go).or_else(|| asked(go, dir, ctx))?;
    match supported(&version)? {
        true => None,
        // No path: an answer names none outside the workspace.
        false => Some(format!(
            "{version} is installed; pith supports {RANGE}: put a newer go first on PATH (https://go.dev/dl/)"
        )),
    }
}

/// The version in the `VERSION` file of `go`'s GOROOT: the directory above the `bin/` the
/// binary is in (links followed), taken for a GOROOT as go takes it, when it has `pkg/tool`.
/// `None` without one, or when its first line is no go version.
fn installed(go: &Path) -> Option<String> {
    let real = go.canonicalize().ok()?;
    let bin = real.parent()?;
    if bin.file_name()? != "bin" {
        return None;
    }
    let root = bin.parent()?;
    if !root.join("pkg").join("tool").is_dir() {
        return None;
    }
    let text = std::fs::read_to_string(root.join("VERSION")).ok()?;
    let first = text.lines().next()?.trim();
    supported(first).is_some().then(|| first.to_owned())
}

/// `go version` in `dir` of a go with no `VERSION` file (`go version go1.20.14 linux/amd64`; `go env
/// GOVERSION` would do from 1.16 only), under `GOTOOLCHAIN=local`: the go on PATH itself,
/// never a toolchain fetched to answer.
fn asked(go: &Path, dir: &Path, ctx: &Context<'_>) -> Option<String> {
    let mut cmd = crate::base_command(go, dir);
    cmd.arg("version").env("GOTOOLCHAIN", "local");
    let deadline = ctx.deadline.min(Instant::now() + ASK_LIMIT);
    let out = process::run(cmd, deadline, ctx.cancel).ok()?;
    if !out.success() {
        return None;
    }
    from_go_version(&out.stdout_str())
}

/// The version in `go version`'s line: between `go version ` and the platform.
fn from_go_version(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("go version ")?;
    let (version, _platform) = rest.rsplit_once(' ')?;
    supported(version).is_some().then(|| version.to_owned())
}

/// Whether a go version (`go1.21.3`, `go1.21rc2`, `go1.9`, `go1.22.0 X:boringcrypto`, `devel
/// go1.27-abcdef …`) is in pith's range; `None` when it is no go version. A development build
/// is in range: it is newer than every release it follows.
pub(super) fn supported(version: &str) -> Option<bool> {
    let version = version.trim();
    if version.starts_with("devel") {
        return Some(true);
    }
    let rest = version.strip_prefix("go")?;
    let (major, rest) = number(rest)?;
    let minor = match rest.strip_prefix('.') {
        Some(rest) => number(rest)?.0,
        // `go1`, Go 1.0's name; a name that goes on otherwise is no version.
        None if rest.is_empty() || rest.starts_with(char::is_whitespace) => 0,
        None => return None,
    };
    Some((major, minor) >= OLDEST)
}

/// The decimal number `s` starts with, and what follows it.
fn number(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    Some((s[..end].parse().ok()?, &s[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_versions_are_read_as_go_names_them() {
        for v in [
            "go1.21",
            "go1.21.0",
            "go1.21rc2",
            "go1.26.8",
            "go1.27.3",
            "go1.22.0 X:boringcrypto",
            "devel go1.27-a1b2c3d4e5 Tue Dec 1 10:00:00 2026 +0000",
            "go2.0",
        ] {
            assert_eq!(supported(v), Some(true), "{v}");
        }
        for v in [
            "go1.20.14",
            "go1.20",
            "go1.9",
            "go1.9.7",
            "go1.20rc1",
            "go1",
        ] {
            assert_eq!(supported(v), Some(false), "{v}");
        }
        for v in ["", "1.21", "go", "gox.21", "go1.x", "go1beta", "gccgo"] {
            assert_eq!(supported(v), None, "{v:?}");
        }
    }

    #[test]
    fn go_version_lines_give_the_version() {
        let read = |l: &str| from_go_version(l);
        assert_eq!(
            read("go version go1.20.14 linux/amd64\n").as_deref(),
            Some("go1.20.14")
        );
        assert_eq!(
            read("go version devel go1.27-abcdef Tue Dec 1 10:00:00 2026 +0000 linux/amd64")
                .as_deref(),
            Some("devel go1.27-abcdef Tue Dec 1 10:00:00 2026 +0000")
        );
        assert_eq!(read("go: unknown command"), None);
    }

    /// A GOROOT as go recognises one: `bin/go`, `pkg/tool/`, `VERSION`.
    fn goroot(dir: &Path, version: Option<&str>) -> std::path::PathBuf {
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("pkg/tool")).unwrap();
        std::fs::write(dir.join("bin/go"), "").unwrap();
        if let Some(v) = version {
            std::fs::write(dir.join("VERSION"), v).unwrap();
        }
        dir.join("bin/go")
    }

    #[test]
    fn the_version_file_is_the_binarys_goroots_through_links() {
        let d = tempfile::tempdir().unwrap();
        let go = goroot(
            &d.path().join("lib/go-1.20"),
            Some("go1.20.14\ntime 2024-02-01T00:00:00Z\n"),
        );
        assert_eq!(installed(&go).as_deref(), Some("go1.20.14"));
        // Debian's /usr/bin/go → ../lib/go-1.20/bin/go: the link's target's GOROOT.
        std::fs::create_dir_all(d.path().join("usr-bin")).unwrap();
        let link = d.path().join("usr-bin/go");
        std::os::unix::fs::symlink("../lib/go-1.20/bin/go", &link).unwrap();
        assert_eq!(installed(&link).as_deref(), Some("go1.20.14"));
        // Go 1.20 and older wrote the version alone, with no newline.
        std::fs::write(d.path().join("lib/go-1.20/VERSION"), "go1.20.14").unwrap();
        assert_eq!(installed(&link).as_deref(), Some("go1.20.14"));
        // No VERSION (a build from source), no GOROOT around the binary, a VERSION that is no
        // go version: not told here.
        let source = goroot(&d.path().join("src-build"), None);
        assert_eq!(installed(&source), None);
        let alone = d.path().join("tools/bin/go");
        std::fs::create_dir_all(alone.parent().unwrap()).unwrap();
        std::fs::write(&alone, "").unwrap();
        std::fs::write(d.path().join("tools/VERSION"), "go1.20.14").unwrap();
        assert_eq!(installed(&alone), None, "no pkg/tool: no GOROOT");
        let other = goroot(&d.path().join("other"), Some("3.2.1\n"));
        assert_eq!(installed(&other), None);
    }
}
