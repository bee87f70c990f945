//! The Gradle command: `./gradlew test` when the project has the wrapper, else `gradle test`,
//! as the developer's own runs: no `--continue` (a failing `test` task stops the build, and the
//! tasks after it do not run, under pith as in the shell), the project's own retry plugin and
//! `ignoreFailures`. pith adds observation only: a plain console, `--tests` filters for a
//! selection, and an init script written to the scratch directory that puts pith's listener on
//! every `Test` task's classpath (the project's build files are not touched). Reports are
//! Gradle's own `build/test-results/<task>/TEST-*.xml`.
//!
//! Gradle normally runs the build in a daemon that outlives the client: at pith's deadline the
//! client's process group is killed, and the daemon, seeing its client gone, cancels the build
//! and stops the test JVM.

use std::path::Path;
use std::process::Command;

use super::{Invocation, TestId};

const INIT_SCRIPT: &str = "pith-init.gradle";

pub(super) fn command(inv: &Invocation<'_>) -> std::io::Result<Command> {
    let init = match inv.listener {
        Some(dir) => {
            let path = inv.scratch.join(INIT_SCRIPT);
            std::fs::write(&path, init_script(dir, inv.events))?;
            Some(path)
        }
        None => None,
    };
    let mut cmd = crate::base_command(inv.program, inv.dir);
    cmd.args(args(init.as_deref(), inv.selection));
    // The one variable pith adds (also set on each `Test` task by the init script): it names
    // the file pith's listener writes its events to. A test could read it; nothing but the
    // listener has a reason to. Everything else is the caller's environment, unchanged.
    cmd.env(super::listener::EVENTS_ENV, inv.events);
    Ok(cmd)
}

pub(super) fn args(init: Option<&Path>, selection: &[TestId]) -> Vec<String> {
    let mut a: Vec<String> = ["test", "--console=plain"].map(String::from).to_vec();
    if let Some(init) = init {
        a.push("--init-script".to_owned());
        a.push(init.display().to_string());
    }
    for f in filters(selection) {
        a.push("--tests".to_owned());
        a.push(f);
    }
    a
}

/// Gradle's `--tests` patterns: `Class.method`, or `Class` for a whole class and for names no
/// method pattern can express (the answer keeps only what was asked for).
fn filters(ids: &[TestId]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in ids {
        let f = match id.method_base() {
            Some(m) => format!("{}.{m}", id.class),
            None => id.class.clone(),
        };
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// Groovy single-quoted string.
fn groovy_str(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The listener is added once the task graph is ready, after every build script and plugin
/// configured the `Test` tasks: an action registered on the tasks themselves runs before the
/// `java` plugin's, when Gradle 4 still has no classpath (null) and a classpath set then would
/// replace the plugin's instead of adding to it. `whenReady` is in every Gradle version and
/// touches only the tasks about to run. A failure to attach it costs the events, never the run.
/// Projects on JUnit 4 or TestNG get the listener too: nothing there loads it.
///
/// The `Test` tasks are also never up to date nor taken from the build cache: Gradle skips a
/// task whose inputs did not change and writes no reports, and the answer is about tests that
/// ran now (without this, a second `pith test` on an unchanged project finds no tests).
fn init_script(listener: &Path, events: &Path) -> String {
    format!(
        "// Written by pith for one run: its JUnit Platform listener on every test classpath.\n\
         gradle.taskGraph.whenReady {{ graph ->\n    \
             graph.allTasks.findAll {{ it instanceof Test }}.each {{ task ->\n        \
                 task.outputs.upToDateWhen {{ false }}\n        \
                 task.outputs.cacheIf {{ false }}\n        \
                 try {{\n            \
                     task.classpath += task.project.files({})\n            \
                     task.environment('PITH_JUNIT_EVENTS', {})\n        \
                 }} catch (Exception e) {{\n            \
                     task.logger.info('pith: no test listener for ' + task.path + ': ' + e)\n        \
                 }}\n    \
             }}\n\
         }}\n",
        groovy_str(&listener.display().to_string()),
        groovy_str(&events.display().to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_with_filters_and_init_script() {
        let sel: Vec<TestId> = [
            "demo.A#adds()",
            "demo.A#x(int)[2]",
            "demo.B#[1] 1",
            "src/test/java/demo/C.java",
        ]
        .iter()
        .map(|s| TestId::parse(s).unwrap())
        .collect();
        assert_eq!(
            args(Some(Path::new("/s/pith-init.gradle")), &sel),
            [
                "test",
                "--console=plain",
                "--init-script",
                "/s/pith-init.gradle",
                "--tests",
                "demo.A.adds",
                "--tests",
                "demo.A.x",
                "--tests",
                "demo.B",
                "--tests",
                "demo.C",
            ]
        );
        assert_eq!(args(None, &[]), ["test", "--console=plain"]);
    }

    #[test]
    fn wrapper_is_preferred_and_the_init_script_quotes_paths() {
        let d = tempfile::tempdir().unwrap();
        let s = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("settings.gradle"), "").unwrap();
        let wrapper = d.path().join("gradlew");
        std::fs::write(&wrapper, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let first = super::super::launch::launches(d.path(), super::super::Tool::Gradle, &|_| None)
            .remove(0);
        assert_eq!(first.program.as_deref(), Some(wrapper.as_path()));

        let events = s.path().join("it's.txt");
        let inv = Invocation {
            program: &wrapper,
            dir: d.path(),
            scratch: s.path(),
            listener: Some(Path::new("/c/jvm/l")),
            events: &events,
            selection: &[],
        };
        let cmd = command(&inv).unwrap();
        assert_eq!(cmd.get_program(), wrapper.as_os_str());
        let script = std::fs::read_to_string(s.path().join(INIT_SCRIPT)).unwrap();
        assert!(
            script.contains("classpath += task.project.files('/c/jvm/l')"),
            "{script}"
        );
        assert!(script.contains("it\\'s.txt'"), "{script}");
        assert!(script.contains("gradle.taskGraph.whenReady"), "{script}");
        assert!(script.contains("upToDateWhen { false }"), "{script}");
    }
}
