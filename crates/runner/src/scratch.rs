//! A run's scratch directory, made the first time something looks at it: most runners write
//! their reports there, but `cargo test` writes nothing, and on a small crate's green run
//! making and removing a directory pith never used is a measurable part of what pith adds.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tempfile::TempDir;

/// A private, empty directory for one run's files; one the engine made is removed, with what
/// is in it, when dropped.
pub struct Scratch(Kind);

enum Kind {
    /// Made under `parent` on first use. When it cannot be made, the path it would have had:
    /// whatever is written there fails, naming it.
    Lazy {
        parent: PathBuf,
        prefix: &'static str,
        dir: OnceLock<Result<TempDir, PathBuf>>,
    },
    /// A directory that exists already and is not this value's to remove.
    Given(PathBuf),
}

impl Scratch {
    /// A fresh directory named `<prefix><random>` under `parent`, made when first looked at.
    pub fn lazy(parent: &Path, prefix: &'static str) -> Scratch {
        Scratch(Kind::Lazy {
            parent: parent.to_path_buf(),
            prefix,
            dir: OnceLock::new(),
        })
    }

    /// An existing directory (one below a run's own, for a second segment; a test's).
    pub fn given(dir: impl Into<PathBuf>) -> Scratch {
        Scratch(Kind::Given(dir.into()))
    }

    /// The directory, made now if it was not yet.
    pub fn path(&self) -> &Path {
        match &self.0 {
            Kind::Given(dir) => dir,
            Kind::Lazy {
                parent,
                prefix,
                dir,
            } => {
                let made = dir.get_or_init(|| {
                    tempfile::Builder::new()
                        .prefix(*prefix)
                        .tempdir_in(parent)
                        .map_err(|_| parent.join(format!("{prefix}unmade")))
                });
                match made {
                    Ok(d) => d.path(),
                    Err(unmade) => unmade,
                }
            }
        }
    }
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lazy_directory_is_made_on_first_look_and_removed_when_dropped() {
        let parent = tempfile::tempdir().unwrap();
        let made = || std::fs::read_dir(parent.path()).unwrap().count();
        let scratch = Scratch::lazy(parent.path(), "run-");
        assert_eq!(made(), 0);
        let dir = scratch.join("report.json");
        std::fs::write(&dir, "{}").unwrap();
        assert_eq!(made(), 1);
        assert!(scratch.path().starts_with(parent.path()));
        assert!(scratch
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("run-"));
        assert_eq!(
            scratch.path(),
            dir.parent().unwrap(),
            "one directory, made once"
        );
        drop(scratch);
        assert_eq!(made(), 0);
    }

    #[test]
    fn an_unused_directory_is_never_made() {
        let parent = tempfile::tempdir().unwrap();
        drop(Scratch::lazy(parent.path(), "run-"));
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_directory_that_cannot_be_made_fails_what_is_written_there() {
        let parent = tempfile::tempdir().unwrap();
        let file = parent.path().join("not-a-dir");
        std::fs::write(&file, "").unwrap();
        let scratch = Scratch::lazy(&file, "run-");
        assert!(std::fs::write(scratch.join("x"), "").is_err());
        assert!(scratch.path().starts_with(&file));
    }

    #[test]
    fn a_given_directory_is_left_in_place() {
        let parent = tempfile::tempdir().unwrap();
        drop(Scratch::given(parent.path()));
        assert!(parent.path().is_dir());
    }
}
