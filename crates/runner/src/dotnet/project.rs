//! What a .NET workspace is made of, read from its own files without the SDK: the solution or
//! project `dotnet test` is pointed at, the test projects, their test framework, and the test
//! platform `dotnet test` will use (VSTest, or Microsoft.Testing.Platform natively or through
//! the VSTest mode's MSBuild bridge). The platform decides the command line, the report flags
//! and the filter syntax.

use std::path::{Path, PathBuf};

use pith_model::ecosystem::{
    DOTNET_PROJECT_EXTENSIONS as PROJECT_EXTS, DOTNET_SOLUTION_EXTENSIONS as SOLUTION_EXTS,
};
use quick_xml::events::Event;

/// How `dotnet test` runs the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// The classic VSTest mode: `--logger trx`, `--filter`.
    Vstest,
    /// Microsoft.Testing.Platform. `native`: the .NET 10 SDK's MTP mode (global.json selects
    /// it), which takes MTP options directly; otherwise the VSTest mode's bridge
    /// (`TestingPlatformDotnetTestSupport`), which takes them after an extra `--`.
    Mtp { native: bool },
    /// No test project: nothing to run.
    None,
}

impl Platform {
    pub fn name(self) -> &'static str {
        match self {
            Platform::Vstest => "vstest",
            Platform::Mtp { .. } => "mtp",
            Platform::None => "none",
        }
    }
}

/// The test framework of a test project: it decides which filter properties exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framework {
    Xunit,
    XunitV3,
    Nunit,
    Mstest,
    Unknown,
}

/// One project file and what it says about testing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// Relative to the workspace directory.
    pub path: PathBuf,
    pub packages: Vec<String>,
    /// `<Project Sdk="...">` and `<Sdk Name="...">`, version suffixes removed.
    pub sdks: Vec<String>,
    /// MSBuild properties that matter here, with their values (after Directory.Build.props).
    pub props: Vec<(String, String)>,
}

/// Properties read from project files: the ones that pick the test platform, the one that
/// marks a test project, and MSTest.Sdk's switches for the HangDump extension.
const PROPS: &[&str] = &[
    "TestingPlatformDotnetTestSupport",
    "EnableMSTestRunner",
    "EnableNUnitRunner",
    "UseMicrosoftTestingPlatformRunner",
    "IsTestProject",
    "EnableMicrosoftTestingExtensionsHangDump",
    "TestingExtensionsProfile",
];

const HANG_DUMP: &str = "Microsoft.Testing.Extensions.HangDump";

impl Project {
    fn prop(&self, name: &str) -> Option<&str> {
        self.props
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn flag(&self, name: &str) -> bool {
        self.prop(name)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    fn has_package(&self, pred: impl Fn(&str) -> bool) -> bool {
        self.packages.iter().any(|p| pred(&p.to_ascii_lowercase()))
    }

    fn mstest_sdk(&self) -> bool {
        self.sdks
            .iter()
            .any(|s| s.eq_ignore_ascii_case("MSTest.Sdk"))
    }

    pub fn framework(&self) -> Framework {
        if self.has_package(|p| p == "xunit.v3" || p.starts_with("xunit.v3.")) {
            Framework::XunitV3
        } else if self.has_package(|p| p == "xunit" || p == "xunit.core") {
            Framework::Xunit
        } else if self.has_package(|p| p == "nunit") {
            Framework::Nunit
        } else if self.mstest_sdk()
            || self.has_package(|p| p == "mstest" || p == "mstest.testframework")
        {
            Framework::Mstest
        } else {
            Framework::Unknown
        }
    }

    /// Has MTP's HangDump extension (`--hangdump`): the package, or MSTest.Sdk switching it on
    /// by itself or through the profile with every Microsoft extension. `shared`: packages
    /// Directory.Build.props adds to every project.
    pub fn has_hang_dump(&self, shared: &[String]) -> bool {
        self.packages
            .iter()
            .chain(shared)
            .any(|p| p.eq_ignore_ascii_case(HANG_DUMP))
            || (self.mstest_sdk()
                && (self.flag("EnableMicrosoftTestingExtensionsHangDump")
                    || self
                        .prop("TestingExtensionsProfile")
                        .is_some_and(|v| v.trim().eq_ignore_ascii_case("AllMicrosoft"))))
    }

    fn references_test_sdk(&self) -> bool {
        self.has_package(|p| p == "microsoft.net.test.sdk")
    }

    pub fn is_test_project(&self) -> bool {
        self.flag("IsTestProject")
            || self.references_test_sdk()
            || self.mstest_sdk()
            || self.framework() != Framework::Unknown
    }

    /// Runs on Microsoft.Testing.Platform when `dotnet test` is in its VSTest mode: the bridge
    /// is switched on, or the project can only run on MTP (an MTP runner without the VSTest
    /// SDK). With `Microsoft.NET.Test.Sdk` referenced and no bridge, the VSTest mode runs
    /// such projects on VSTest (the runner flags alone do not change that).
    fn mtp_in_vstest_mode(&self) -> bool {
        if self.flag("TestingPlatformDotnetTestSupport") || self.mstest_sdk() {
            return true;
        }
        let mtp_runner = self.flag("EnableMSTestRunner")
            || self.flag("EnableNUnitRunner")
            || self.flag("UseMicrosoftTestingPlatformRunner")
            || self.framework() == Framework::XunitV3;
        mtp_runner && !self.references_test_sdk()
    }
}

/// What `dotnet test` will be run on, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The solution or project file given to `dotnet test` (relative), when the directory
    /// holds one; `None` lets `dotnet test` pick the only one.
    pub target: Option<PathBuf>,
    pub target_is_solution: bool,
    pub test_projects: Vec<Project>,
    pub platform: Platform,
    /// The SDK version global.json pins, for the install hint.
    pub sdk_version: Option<String>,
    /// Packages Directory.Build.props references for every project. Kept apart: such a file
    /// may add test packages under a condition pith does not evaluate, so they do not make a
    /// project a test project; they only count for the extensions a test project has.
    pub shared_packages: Vec<String>,
}

impl Layout {
    /// The test frameworks in use, without duplicates.
    pub fn frameworks(&self) -> Vec<Framework> {
        let mut out: Vec<Framework> = Vec::new();
        for p in &self.test_projects {
            let f = p.framework();
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// Every test project has MTP's HangDump extension, so `--hangdump` is an option for all
    /// of them (for one without it, an unknown option that fails the run).
    pub fn hang_dump(&self) -> bool {
        !self.test_projects.is_empty()
            && self
                .test_projects
                .iter()
                .all(|p| p.has_hang_dump(&self.shared_packages))
    }

    /// The test projects without MTP's HangDump extension.
    pub fn without_hang_dump(&self) -> Vec<&Path> {
        self.test_projects
            .iter()
            .filter(|p| !p.has_hang_dump(&self.shared_packages))
            .map(|p| p.path.as_path())
            .collect()
    }
}

/// Directories never searched for projects: build output, tools, VCS.
const SKIPPED_DIRS: &[&str] = &[
    "bin",
    "obj",
    "node_modules",
    "TestResults",
    "artifacts",
    "packages",
];
const MAX_DEPTH: usize = 6;

fn ext_in(p: &Path, exts: &[&str]) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// The .NET workspace in `dir`: a solution or project file in `dir` itself. `None` when there
/// is none.
pub fn read(dir: &Path) -> Option<Layout> {
    let mut top: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && (ext_in(p, SOLUTION_EXTS) || ext_in(p, PROJECT_EXTS)))
        .collect();
    if top.is_empty() {
        return None;
    }
    top.sort();
    // `dotnet test` refuses a directory with several candidates: name one, a solution first.
    let solutions: Vec<&PathBuf> = top.iter().filter(|p| ext_in(p, SOLUTION_EXTS)).collect();
    let (target, target_is_solution) = match (solutions.first(), top.len()) {
        (_, 1) => (None, !solutions.is_empty()),
        (Some(s), _) => (Some(rel(dir, s)), true),
        (None, _) => (Some(rel(dir, &top[0])), false),
    };
    let shared = read_props_file(&dir.join("Directory.Build.props"));
    let dir_props = shared.props;
    let mut files = Vec::new();
    walk(dir, 0, &mut files);
    files.sort();
    let test_projects: Vec<Project> = files
        .iter()
        .filter_map(|f| {
            let mut p = read_project(f)?;
            p.path = rel(dir, f);
            // Directory.Build.props is imported first: the project's own values win.
            let mut props = dir_props.clone();
            props.append(&mut p.props);
            p.props = props;
            Some(p)
        })
        .filter(Project::is_test_project)
        .collect();
    let global = global_json(dir);
    let platform = if test_projects.is_empty() {
        Platform::None
    } else if global.mtp {
        Platform::Mtp { native: true }
    } else if test_projects.iter().any(Project::mtp_in_vstest_mode) {
        Platform::Mtp { native: false }
    } else {
        Platform::Vstest
    };
    Some(Layout {
        target,
        target_is_solution,
        test_projects,
        platform,
        sdk_version: global.sdk_version,
        shared_packages: shared.packages,
    })
}

fn rel(dir: &Path, p: &Path) -> PathBuf {
    p.strip_prefix(dir).unwrap_or(p).to_path_buf()
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if depth < MAX_DEPTH && !name.starts_with('.') && !SKIPPED_DIRS.contains(&&*name) {
                walk(&path, depth + 1, out);
            }
        } else if kind.is_file() && ext_in(&path, PROJECT_EXTS) {
            out.push(path);
        }
    }
}

fn read_project(path: &Path) -> Option<Project> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(parse_project(&text))
}

/// Directory.Build.props: its properties and packages (nothing when there is none).
fn read_props_file(path: &Path) -> Project {
    std::fs::read_to_string(path)
        .map(|t| parse_project(&t))
        .unwrap_or_else(|_| parse_project(""))
}

/// Package references, SDKs and the interesting properties of an MSBuild file. Conditions are
/// not evaluated: a property set under any condition counts. Malformed XML yields what was
/// read before the error.
pub fn parse_project(text: &str) -> Project {
    let mut project = Project {
        path: PathBuf::new(),
        packages: Vec::new(),
        sdks: Vec::new(),
        props: Vec::new(),
    };
    let mut reader = quick_xml::Reader::from_str(text);
    let mut open_prop: Option<String> = None;
    let mut value = String::new();
    while let Ok(ev) = reader.read_event() {
        match ev {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let name = e.local_name().as_ref().to_owned();
                let attr = |k: &str| {
                    e.try_get_attribute(k)
                        .ok()
                        .flatten()
                        .map(|a| a.value.trim().to_owned())
                };
                match name.as_str() {
                    "Project" => {
                        if let Some(sdk) = attr("Sdk") {
                            project.sdks.extend(sdk.split(';').map(sdk_name));
                        }
                    }
                    "Sdk" => project.sdks.extend(attr("Name").map(|s| sdk_name(&s))),
                    "PackageReference" => {
                        if let Some(p) = attr("Include").or_else(|| attr("Update")) {
                            project.packages.push(p);
                        }
                    }
                    n if PROPS.iter().any(|p| p.eq_ignore_ascii_case(n)) => {
                        open_prop = Some(n.to_owned());
                        value.clear();
                    }
                    _ => {}
                }
            }
            Event::Text(t) if open_prop.is_some() => {
                value.push_str(&t.xml10_content());
            }
            Event::End(e) => {
                if let Some(p) = open_prop.take() {
                    if e.local_name().as_ref() == p {
                        project.props.push((p, value.trim().to_owned()));
                    }
                }
            }
            _ => {}
        }
    }
    project
}

/// `MSTest.Sdk/3.6.1` → `MSTest.Sdk`.
fn sdk_name(s: &str) -> String {
    s.trim().split('/').next().unwrap_or("").to_owned()
}

#[derive(Debug, Default)]
struct GlobalJson {
    mtp: bool,
    sdk_version: Option<String>,
}

/// The nearest global.json at or above `dir` (where the SDK looks for it).
fn global_json(dir: &Path) -> GlobalJson {
    let Some(text) = dir
        .ancestors()
        .find_map(|d| std::fs::read_to_string(d.join("global.json")).ok())
    else {
        return GlobalJson::default();
    };
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&strip_json_comments(&text)) else {
        return GlobalJson::default();
    };
    GlobalJson {
        mtp: doc
            .pointer("/test/runner")
            .and_then(|r| r.as_str())
            .is_some_and(|r| r.eq_ignore_ascii_case("Microsoft.Testing.Platform")),
        sdk_version: doc
            .pointer("/sdk/version")
            .and_then(|v| v.as_str())
            .map(str::to_owned),
    }
}

/// global.json may carry `//` and `/* */` comments, which serde_json rejects.
fn strip_json_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_files_are_read_without_msbuild() {
        let p = parse_project(
            r#"<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net8.0</TargetFramework>
    <EnableMSTestRunner Condition="'$(X)' == ''">true</EnableMSTestRunner>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Microsoft.NET.Test.Sdk" Version="17.11.1" />
    <PackageReference Include="MSTest" Version="3.6.1" />
  </ItemGroup>
</Project>"#,
        );
        assert_eq!(p.packages, ["Microsoft.NET.Test.Sdk", "MSTest"]);
        assert_eq!(p.sdks, ["Microsoft.NET.Sdk"]);
        assert!(p.flag("EnableMSTestRunner"));
        assert_eq!(p.framework(), Framework::Mstest);
        assert!(p.is_test_project());
        // The VSTest SDK is referenced and the bridge is off: VSTest runs it.
        assert!(!p.mtp_in_vstest_mode());

        let sdk = parse_project(r#"<Project Sdk="MSTest.Sdk/3.6.1"></Project>"#);
        assert_eq!(sdk.sdks, ["MSTest.Sdk"]);
        assert!(sdk.is_test_project() && sdk.mtp_in_vstest_mode());

        let v3 = parse_project(
            r#"<Project><ItemGroup><PackageReference Include="xunit.v3" Version="2.0.0"/></ItemGroup></Project>"#,
        );
        assert_eq!(v3.framework(), Framework::XunitV3);
        assert!(v3.mtp_in_vstest_mode());

        let lib = parse_project(
            r#"<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageReference Include="Newtonsoft.Json"/></ItemGroup></Project>"#,
        );
        assert!(!lib.is_test_project());
        // Truncated XML: what was read so far.
        let cut = parse_project(r#"<Project><ItemGroup><PackageReference Include="NUnit"/><Packa"#);
        assert_eq!(cut.framework(), Framework::Nunit);
    }

    #[test]
    fn hang_dump_extension() {
        let pkg = parse_project(
            r#"<Project><ItemGroup><PackageReference Include="xunit.v3"/><PackageReference Include="microsoft.testing.extensions.hangdump"/></ItemGroup></Project>"#,
        );
        assert!(pkg.has_hang_dump(&[]));
        let bare = parse_project(
            r#"<Project><ItemGroup><PackageReference Include="xunit.v3"/></ItemGroup></Project>"#,
        );
        assert!(!bare.has_hang_dump(&[]));
        assert!(bare.has_hang_dump(&["Microsoft.Testing.Extensions.HangDump".to_owned()]));
        let sdk = |body: &str| {
            parse_project(&format!(
                r#"<Project Sdk="MSTest.Sdk/3.6.1"><PropertyGroup>{body}</PropertyGroup></Project>"#
            ))
        };
        assert!(!sdk("").has_hang_dump(&[]));
        assert!(sdk("<EnableMicrosoftTestingExtensionsHangDump>true</EnableMicrosoftTestingExtensionsHangDump>").has_hang_dump(&[]));
        assert!(
            sdk("<TestingExtensionsProfile>AllMicrosoft</TestingExtensionsProfile>")
                .has_hang_dump(&[])
        );
        // The switch means nothing outside MSTest.Sdk.
        let not_sdk = parse_project(
            r#"<Project><PropertyGroup><EnableMicrosoftTestingExtensionsHangDump>true</EnableMicrosoftTestingExtensionsHangDump></PropertyGroup></Project>"#,
        );
        assert!(!not_sdk.has_hang_dump(&[]));
    }

    #[test]
    fn global_json_comments_are_tolerated() {
        assert_eq!(
            strip_json_comments("{ // c\n \"a\": \"//x\", /* b */ \"c\": 1 }"),
            "{ \n \"a\": \"//x\",  \"c\": 1 }"
        );
    }

    proptest::proptest! {
        #[test]
        fn project_reader_never_panics(s in "(?s).{0,400}") {
            let _ = parse_project(&s);
            let _ = parse_project(&format!("<Project><PropertyGroup><IsTestProject>{s}"));
            let _ = strip_json_comments(&s);
        }
    }
}
