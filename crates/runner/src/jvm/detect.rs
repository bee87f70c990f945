//! Whether a directory is a Maven or Gradle project, and which tool (the wrapper first) runs it.

use std::path::Path;

use crate::Adapter;

use super::{Jvm, Tool};

use pith_model::ecosystem::{GRADLE_BUILD_FILES, MAVEN_BUILD_FILES};

/// A Maven or Gradle project in `dir`. When both build files are there, the one with a wrapper
/// script wins, Maven otherwise: running the same tests twice would say nothing new.
pub fn detect(dir: &Path) -> Vec<Box<dyn Adapter>> {
    match tool_of(dir) {
        Some(tool) => vec![Box::new(Jvm::new(tool, dir))],
        None => Vec::new(),
    }
}

/// Whether `dir` holds one of `tool`'s build files (the ecosystem descriptor's lists).
pub(super) fn has_build_file(dir: &Path, tool: Tool) -> bool {
    let files = match tool {
        Tool::Maven => MAVEN_BUILD_FILES,
        Tool::Gradle => GRADLE_BUILD_FILES,
    };
    files.iter().any(|f| dir.join(f).is_file())
}

pub(super) fn tool_of(dir: &Path) -> Option<Tool> {
    let maven = has_build_file(dir, Tool::Maven);
    let gradle = has_build_file(dir, Tool::Gradle);
    match (maven, gradle) {
        (true, true) if dir.join("gradlew").is_file() && !dir.join("mvnw").is_file() => {
            Some(Tool::Gradle)
        }
        (true, _) => Some(Tool::Maven),
        (false, true) => Some(Tool::Gradle),
        (false, false) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_prefers_the_wrapped_tool() {
        let d = tempfile::tempdir().unwrap();
        assert!(tool_of(d.path()).is_none());
        std::fs::write(d.path().join("pom.xml"), "<project/>").unwrap();
        assert_eq!(tool_of(d.path()), Some(Tool::Maven));
        std::fs::write(d.path().join("build.gradle"), "").unwrap();
        assert_eq!(tool_of(d.path()), Some(Tool::Maven));
        std::fs::write(d.path().join("gradlew"), "").unwrap();
        assert_eq!(tool_of(d.path()), Some(Tool::Gradle));
        std::fs::remove_file(d.path().join("pom.xml")).unwrap();
        std::fs::remove_file(d.path().join("build.gradle")).unwrap();
        std::fs::write(d.path().join("settings.gradle.kts"), "").unwrap();
        assert_eq!(tool_of(d.path()), Some(Tool::Gradle));
        assert_eq!(detect(d.path())[0].name(), "gradle");
    }
}
