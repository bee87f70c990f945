//! Which test classes Maven's Surefire runs: its `includes` and `excludes` as the module's
//! `pom.xml` (and the parent poms in the workspace it inherits from) configure them, else
//! Surefire's defaults (`**/Test*`, `**/*Test`, `**/*Tests`, `**/*TestCase`). A file selected
//! by change is passed to Surefire as `-Dtest`, which overrides both lists: a class the pom
//! excludes would run, and fail, where the project's own `mvn test` never runs it; a class
//! its includes add (`**/*Spec`) would never be selected.
//!
//! What the poms say is read, not evaluated: a pattern with a property (`${...}`) or a
//! parent outside the workspace leaves the defaults — and a class no list can be read for is
//! run by its name, as before.

use std::path::{Path, PathBuf};

use quick_xml::events::Event;
use quick_xml::Reader;

/// Surefire's default includes.
const DEFAULT_INCLUDES: [&str; 4] = ["**/Test*", "**/*Test", "**/*Tests", "**/*TestCase"];
/// Parent poms followed at most.
const PARENTS: usize = 8;

/// A module's Surefire lists, as patterns relative to its test source directory without the
/// `.java`/`.class` ending.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct TestSet {
    includes: Vec<String>,
    excludes: Vec<String>,
    /// The module's test sources, relative to it (`src/test/java`).
    test_dir: String,
}

impl TestSet {
    /// The lists in force for the module whose `pom.xml` is in `module`: its own, else its
    /// parents' in the workspace under `root`.
    pub(crate) fn of(root: &Path, module: &Path) -> TestSet {
        let mut set = TestSet {
            test_dir: "src/test/java".into(),
            ..TestSet::default()
        };
        let (mut includes, mut excludes, mut test_dir) = (None, None, None);
        let mut pom = module.join("pom.xml");
        for _ in 0..PARENTS {
            let Ok(text) = std::fs::read_to_string(&pom) else {
                break;
            };
            let read = Pom::read(&text);
            // The nearest pom that sets a list sets it.
            includes = includes.or(read.includes);
            excludes = excludes.or(read.excludes);
            test_dir = test_dir.or(read.test_dir.filter(|_| pom.parent() == Some(module)));
            let Some(parent) = read
                .parent
                .map(|rel| pom.parent().unwrap_or(root).join(rel))
            else {
                break;
            };
            let parent = if parent.extension().is_some_and(|e| e == "xml") {
                parent
            } else {
                parent.join("pom.xml")
            };
            if !parent.starts_with(root) {
                break;
            }
            pom = parent;
        }
        set.includes = includes.unwrap_or_default();
        set.excludes = excludes.unwrap_or_default();
        if let Some(dir) = test_dir {
            set.test_dir = dir
                .trim_start_matches("./")
                .trim_end_matches('/')
                .to_owned();
        }
        set
    }

    /// Whether Surefire runs the class in `file` (relative to the module): `None` when the
    /// file is not under the test sources or a pattern cannot be read — the caller decides
    /// by the class's name, as Surefire's defaults do.
    pub(crate) fn runs(&self, file: &str) -> Option<bool> {
        let rel = file.strip_prefix(&self.test_dir)?.strip_prefix('/')?;
        let rel = strip_ext(rel);
        // A pattern pith cannot read, or one whose matching could take long (a hostile pom's
        // `**/**/**/…`), leaves the decision to the class's name.
        let readable = |p: &String| {
            !p.contains("${")
                && !p.starts_with("%regex[")
                && p.len() <= 256
                && p.matches('*').count() <= 8
        };
        if !self.includes.iter().chain(&self.excludes).all(readable) {
            return None;
        }
        let included = if self.includes.is_empty() {
            DEFAULT_INCLUDES.iter().any(|p| matches(p, rel))
        } else {
            self.includes.iter().any(|p| matches(strip_ext(p), rel))
        };
        Some(included && !self.excludes.iter().any(|p| matches(strip_ext(p), rel)))
    }
}

fn strip_ext(s: &str) -> &str {
    s.strip_suffix(".java")
        .or_else(|| s.strip_suffix(".class"))
        .or_else(|| s.strip_suffix(".kt"))
        .or_else(|| s.strip_suffix(".groovy"))
        .unwrap_or(s)
}

/// An Ant-style pattern (`**` any directories, `*` and `?` within a name) against a
/// `/`-separated path.
fn matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segments(&pattern, &path)
}

fn segments(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|i| segments(rest, &path[i..])),
        Some((p, rest)) => match path.split_first() {
            Some((name, tail)) => {
                crate::wildcard::fnmatch(p.as_bytes(), name.as_bytes()) && segments(rest, tail)
            }
            None => false,
        },
    }
}

/// What one pom says of Surefire.
#[derive(Debug, Default)]
struct Pom {
    includes: Option<Vec<String>>,
    excludes: Option<Vec<String>>,
    test_dir: Option<String>,
    /// The parent's path when the pom names a parent (`relativePath`, default `../pom.xml`).
    parent: Option<PathBuf>,
}

impl Pom {
    /// Surefire's `configuration` in `build/plugins` or `build/pluginManagement/plugins`
    /// (a plugin's own configuration wins over its managed one), `build/testSourceDirectory`
    /// and the parent. Profiles are not read: they are not the default build.
    fn read(text: &str) -> Pom {
        let mut pom = Pom::default();
        let mut reader = Reader::from_str(text);
        let mut path: Vec<String> = Vec::new();
        let mut plugin = Plugin::default();
        let mut own = Plugin::default();
        let mut managed = Plugin::default();
        let mut has_parent = false;
        let mut relative: Option<String> = None;
        let mut text_buf = String::new();
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) => {
                    path.push(
                        String::from_utf8_lossy(e.local_name().as_ref().as_bytes()).into_owned(),
                    );
                    text_buf.clear();
                    if path_is(&path, &["project", "parent"]) {
                        has_parent = true;
                    }
                    if is_plugin(&path) {
                        plugin.start();
                    }
                }
                Ok(Event::Empty(e)) => {
                    let name =
                        String::from_utf8_lossy(e.local_name().as_ref().as_bytes()).into_owned();
                    if path_is(&path, &["project"]) && name == "parent" {
                        has_parent = true;
                    }
                    if path_is(&path, &["project", "parent"]) && name == "relativePath" {
                        relative = Some(String::new());
                    }
                }
                Ok(Event::Text(t)) => {
                    text_buf.push_str(&t.xml10_content());
                }
                Ok(Event::GeneralRef(r)) => {
                    text_buf.push_str(&crate::xml::entity_text(&r));
                }
                Ok(Event::End(_)) => {
                    let value = text_buf.trim().to_owned();
                    let at: Vec<&str> = path.iter().map(String::as_str).collect();
                    match at.as_slice() {
                        ["project", "parent", "relativePath"] => relative = Some(value.clone()),
                        ["project", "build", "testSourceDirectory"] => {
                            pom.test_dir = Some(value.clone());
                        }
                        _ => {}
                    }
                    if let Some(i) = plugin_at(&at) {
                        plugin.field(&at[i + 1..], &value);
                    }
                    if is_plugin(&path) {
                        let done = std::mem::take(&mut plugin);
                        if done.surefire {
                            if at.contains(&"pluginManagement") {
                                managed.merge(done);
                            } else {
                                own.merge(done);
                            }
                        }
                    }
                    path.pop();
                    text_buf.clear();
                }
                Ok(Event::Eof) | Err(_) => break,
                _ => {}
            }
        }
        pom.includes = own.includes.or(managed.includes);
        pom.excludes = own.excludes.or(managed.excludes);
        if has_parent {
            let rel = match relative {
                // An empty `relativePath` looks the parent up in repositories only.
                Some(r) if r.is_empty() => None,
                Some(r) => Some(r),
                None => Some("../pom.xml".to_owned()),
            };
            pom.parent = rel.map(PathBuf::from);
        }
        pom
    }
}

/// One `<plugin>` element as read.
#[derive(Debug, Clone, Default)]
struct Plugin {
    surefire: bool,
    includes: Option<Vec<String>>,
    excludes: Option<Vec<String>>,
}

impl Plugin {
    fn start(&mut self) {
        *self = Plugin::default();
    }

    /// A value at `at`, the path below `<plugin>`.
    fn field(&mut self, at: &[&str], value: &str) {
        match at {
            ["artifactId"] => self.surefire = value == "maven-surefire-plugin",
            ["configuration", "includes", "include"] => {
                self.includes
                    .get_or_insert_with(Vec::new)
                    .push(value.to_owned());
            }
            ["configuration", "excludes", "exclude"] => {
                self.excludes
                    .get_or_insert_with(Vec::new)
                    .push(value.to_owned());
            }
            _ => {}
        }
    }

    fn merge(&mut self, other: Plugin) {
        self.surefire = true;
        self.includes = other.includes.or(self.includes.take());
        self.excludes = other.excludes.or(self.excludes.take());
    }
}

fn path_is(path: &[String], want: &[&str]) -> bool {
    path.len() == want.len() && path.iter().zip(want).all(|(a, b)| a == b)
}

/// `project/build/plugins/plugin` or `project/build/pluginManagement/plugins/plugin`.
fn is_plugin(path: &[String]) -> bool {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    matches!(
        p.as_slice(),
        ["project", "build", "plugins", "plugin"]
            | ["project", "build", "pluginManagement", "plugins", "plugin"]
    )
}

/// Where in `at` the plugin element is, when `at` is inside one.
fn plugin_at(at: &[&str]) -> Option<usize> {
    let i = at.iter().position(|s| *s == "plugin")?;
    let head = &at[..=i];
    matches!(
        head,
        ["project", "build", "plugins", "plugin"]
            | ["project", "build", "pluginManagement", "plugins", "plugin"]
    )
    .then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, path: &str, text: &str) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn surefire(config: &str) -> String {
        format!(
            "<project><build><plugins><plugin><groupId>org.apache.maven.plugins</groupId>\
             <artifactId>maven-surefire-plugin</artifactId><configuration>{config}\
             </configuration></plugin></plugins></build></project>"
        )
    }

    #[test]
    fn ant_patterns_match_as_surefire_reads_them() {
        assert!(matches("**/*Test", "shop/CartTest"));
        assert!(matches("**/*Test", "CartTest"));
        assert!(matches("**/Test*", "a/b/TestCart"));
        assert!(!matches("**/*Test", "shop/CartTests"));
        assert!(matches("shop/**/It?", "shop/x/y/It1"));
        assert!(!matches("shop/*", "shop/x/Y"));
    }

    #[test]
    fn defaults_without_a_configuration() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "pom.xml",
            "<project><artifactId>a</artifactId></project>",
        );
        let set = TestSet::of(d.path(), d.path());
        assert_eq!(set.runs("src/test/java/shop/CartTest.java"), Some(true));
        assert_eq!(set.runs("src/test/java/shop/CartHelper.java"), Some(false));
        assert_eq!(set.runs("src/main/java/shop/Cart.java"), None);
    }

    #[test]
    fn the_poms_includes_and_excludes_decide() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "pom.xml",
            &surefire(
                "<includes><include>**/*Spec.java</include><include>**/*Test.java</include>\
                 </includes><excludes><exclude>**/Slow*Test.java</exclude></excludes>",
            ),
        );
        let set = TestSet::of(d.path(), d.path());
        assert_eq!(set.runs("src/test/java/shop/CartSpec.java"), Some(true));
        assert_eq!(set.runs("src/test/java/shop/CartTest.java"), Some(true));
        assert_eq!(
            set.runs("src/test/java/shop/SlowCartTest.java"),
            Some(false)
        );
        assert_eq!(set.runs("src/test/java/shop/TestCart.java"), Some(false));
    }

    #[test]
    fn a_parent_in_the_workspace_and_managed_plugins_count_and_the_nearest_list_wins() {
        let d = tempfile::tempdir().unwrap();
        let managed = "<project><build><pluginManagement><plugins><plugin>\
             <artifactId>maven-surefire-plugin</artifactId><configuration><excludes>\
             <exclude>**/*IT.java</exclude><exclude>**/Jmh*</exclude></excludes></configuration>\
             </plugin></plugins></pluginManagement></build></project>";
        write(d.path(), "pom.xml", managed);
        write(
            d.path(),
            "core/pom.xml",
            "<project><parent><artifactId>p</artifactId></parent></project>",
        );
        let core = TestSet::of(d.path(), &d.path().join("core"));
        assert_eq!(core.runs("src/test/java/CartIT.java"), Some(false));
        assert_eq!(core.runs("src/test/java/x/JmhTest.java"), Some(false));
        assert_eq!(core.runs("src/test/java/CartTest.java"), Some(true));
        // The module's own list replaces the parent's.
        write(
            d.path(),
            "api/pom.xml",
            &surefire("<excludes><exclude>**/Old*</exclude></excludes>").replace(
                "<project>",
                "<project><parent><relativePath>../pom.xml</relativePath></parent>",
            ),
        );
        let api = TestSet::of(d.path(), &d.path().join("api"));
        assert_eq!(
            api.runs("src/test/java/CartIT.java"),
            Some(false),
            "not a default include"
        );
        assert_eq!(api.runs("src/test/java/OldTest.java"), Some(false));
        assert_eq!(api.runs("src/test/java/JmhTest.java"), Some(true));
        // A parent outside the workspace (or only in a repository) is not read.
        write(
            d.path(),
            "lone/pom.xml",
            "<project><parent><relativePath/></parent></project>",
        );
        let lone = TestSet::of(d.path(), &d.path().join("lone"));
        assert_eq!(lone.runs("src/test/java/CartIT.java"), Some(false));
        assert_eq!(lone.runs("src/test/java/JmhTest.java"), Some(true));
    }

    #[test]
    fn what_cannot_be_read_is_left_to_the_caller() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "pom.xml",
            &surefire("<excludes><exclude>${skipped.tests}</exclude></excludes>"),
        );
        assert_eq!(
            TestSet::of(d.path(), d.path()).runs("src/test/java/ATest.java"),
            None
        );
        write(
            d.path(),
            "pom.xml",
            &surefire("<includes><include>%regex[.*Spec.*]</include></includes>"),
        );
        assert_eq!(
            TestSet::of(d.path(), d.path()).runs("src/test/java/ASpec.java"),
            None
        );
        // A test source directory of the module's own.
        write(
            d.path(),
            "pom.xml",
            "<project><build><testSourceDirectory>test</testSourceDirectory></build></project>",
        );
        assert_eq!(
            TestSet::of(d.path(), d.path()).runs("test/shop/CartTest.java"),
            Some(true)
        );
        // Not XML at all: the defaults.
        write(d.path(), "pom.xml", "<<<");
        assert_eq!(
            TestSet::of(d.path(), d.path()).runs("src/test/java/CartTest.java"),
            Some(true)
        );
    }

    #[test]
    fn a_selected_class_the_pom_excludes_is_not_run_by_name() {
        use crate::Adapter;
        let d = tempfile::tempdir().unwrap();
        let svc = d.path().join("svc");
        write(
            &svc,
            "pom.xml",
            &surefire("<excludes><exclude>**/Slow*</exclude></excludes>"),
        );
        let jvm = super::super::Jvm::new(super::super::Tool::Maven, &svc);
        let files: Vec<String> = [
            "svc/src/test/java/shop/CartTest.java",
            "svc/src/test/java/shop/SlowCartTest.java",
            "svc/src/test/java/shop/CartHelper.java",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            jvm.ids_for_files(Some("svc"), &files),
            Some(vec!["svc/src/test/java/shop/CartTest.java".to_owned()])
        );
        let many_stars = surefire(&format!(
            "<excludes><exclude>{}</exclude></excludes>",
            "**/".repeat(40)
        ));
        write(&svc, "pom.xml", &many_stars);
        assert_eq!(
            TestSet::of(d.path(), &svc).runs("src/test/java/ATest.java"),
            None
        );
    }

    proptest::proptest! {
        /// Any pom text, any path: no panic.
        #[test]
        fn never_panics(
            pom in "(<project>|</project>|<build>|</build>|<plugins>|</plugins>|<plugin>|</plugin>|<artifactId>maven-surefire-plugin</artifactId>|<configuration>|</configuration>|<excludes>|</excludes>|<exclude>|</exclude>|<include>|</include>|<parent>|</parent>|<relativePath>|</relativePath>|\\*\\*/|\\*|x|&amp;|&#1;|/)*",
            path in "(src/test/java/|a/|\\*|Test|x|\\.java)*",
        ) {
            let d = tempfile::tempdir().unwrap();
            std::fs::write(d.path().join("pom.xml"), &pom).unwrap();
            let _ = TestSet::of(d.path(), d.path()).runs(&path);
        }
    }
}
