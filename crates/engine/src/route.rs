//! Which project runs which test ids: an id goes to the project whose runner owns it, else
//! claims it, the deepest directory holding it first; a selected test file goes to the deepest
//! project whose runner takes it. One place, so a re-run by id, `--changed` and the suspects'
//! tracing all send a test where the run that reported it ran.

use std::collections::BTreeMap;

use crate::detect::Found;

/// Which projects run, with the ids each is to re-run. With no ids, every project runs
/// everything; with ids, only projects whose adapter claims some of them run. An id that an
/// adapter owns (see [`Adapter::owns`]) goes to its owners only; an id several projects of one
/// runner claim goes to the one whose directory it lies in (`a/tests/t.py::x` to `a/`).
pub(crate) fn route<'a>(found: &'a [Found], tests: &[String]) -> Vec<(&'a Found, Vec<String>)> {
    if tests.is_empty() {
        return found.iter().map(|f| (f, Vec::new())).collect();
    }
    if let [only] = found {
        return vec![(only, tests.to_vec())];
    }
    let takes = |f: &Found, t: &str| {
        let owned = found.iter().any(|o| o.adapter.owns(t));
        let mine = if owned {
            f.adapter.owns(t)
        } else {
            f.adapter.claims(t)
        };
        if !mine {
            return false;
        }
        // Among projects of one runner that all take it, the deepest directory holding it.
        let inside = |o: &Found| o.rel.as_deref().is_none_or(|r| within(t, r));
        let mut rivals = found
            .iter()
            .filter(|o| o.adapter.name() == f.adapter.name() && o.adapter.claims(t));
        let best = rivals
            .clone()
            .filter(|o| inside(o))
            .max_by_key(|o| o.rel.as_ref().map_or(0, String::len))
            .or_else(|| rivals.next());
        best.is_none_or(|b| std::ptr::eq(b, f))
    };
    found
        .iter()
        .filter_map(|f| {
            let mine: Vec<String> = tests.iter().filter(|t| takes(f, t)).cloned().collect();
            (!mine.is_empty()).then_some((f, mine))
        })
        .collect()
}

/// Whether the id `t` names something under the workspace-relative directory `dir`.
fn within(t: &str, dir: &str) -> bool {
    t.strip_prefix(dir)
        .is_some_and(|rest| rest.starts_with('/'))
}

pub(crate) fn unclaimed<'a>(
    found: &'a [Found],
    tests: &'a [String],
) -> impl Iterator<Item = String> + 'a {
    let single = found.len() == 1;
    tests
        .iter()
        .filter(move |t| !single && !found.iter().any(|f| f.adapter.claims(t)))
        .cloned()
}

/// Each selected test file goes to the deepest project holding it whose runner takes it, as
/// that runner's ids; a runner that cannot select by file runs its whole project when one of
/// its source files is selected.
pub(crate) fn route_files(tests: &[String], found: &[Found]) -> Vec<(usize, Vec<String>)> {
    let mut plan: BTreeMap<usize, Option<Vec<String>>> = BTreeMap::new();
    for file in tests {
        let mut holders: Vec<(usize, &Found)> = found
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.rel
                    .as_deref()
                    .is_none_or(|r| file.strip_prefix(r).is_some_and(|x| x.starts_with('/')))
            })
            .collect();
        holders.sort_by_key(|(_, p)| std::cmp::Reverse(p.rel.as_ref().map_or(0, String::len)));
        for (i, p) in holders {
            match p
                .adapter
                .ids_for_files(p.rel.as_deref(), std::slice::from_ref(file))
            {
                Some(ids) if ids.is_empty() => continue,
                Some(ids) => {
                    if let Some(list) = plan.entry(i).or_insert_with(|| Some(Vec::new())) {
                        list.extend(
                            ids.into_iter()
                                .filter(|id| !list.contains(id))
                                .collect::<Vec<_>>(),
                        );
                    }
                }
                None if is_source_of(p, file) => {
                    plan.insert(i, None);
                }
                None => continue,
            }
            break;
        }
    }
    plan.into_iter()
        .map(|(i, ids)| (i, ids.unwrap_or_default()))
        .collect()
}

/// Whether `file` is a source file of the project's ecosystem (any file of a Bazel
/// workspace: its targets are of every language).
pub(crate) fn is_source_of(p: &Found, file: &str) -> bool {
    let ext = file.rsplit_once('.').map_or("", |(_, e)| e);
    crate::detect::runs_every_file(p.adapter.name())
        || pith_model::ecosystem::by_runner(p.adapter.name())
            .is_some_and(|e| e.source_extensions.contains(&ext))
}

/// The project whose declared command produced `run` when it is not named after it (a
/// second runner of a JavaScript test script, a workspace package): the deepest project
/// holding the run's directory that claims its failing tests.
pub(crate) fn owner_of(adapters: &[Found], run: &pith_model::Run) -> Option<usize> {
    let test = &run.failures.first()?.test;
    adapters
        .iter()
        .enumerate()
        .filter(|(_, p)| match (&p.rel, &run.dir) {
            (None, _) => true,
            (Some(r), Some(d)) => d == r || d.starts_with(&format!("{r}/")),
            (Some(_), None) => false,
        })
        .filter(|(_, p)| p.adapter.claims(test))
        .max_by_key(|(_, p)| p.rel.as_ref().map_or(0, String::len))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use pith_runner::{Adapter, Context, RunnerError};

    use super::*;
    /// An adapter that claims ids with a prefix and owns those with another.
    struct Fake {
        name: &'static str,
        claims: &'static str,
        owns: Option<&'static str>,
    }

    impl Adapter for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn claims(&self, id: &str) -> bool {
            id.contains(self.claims)
        }
        fn owns(&self, id: &str) -> bool {
            self.owns.is_some_and(|o| id.starts_with(o))
        }
        fn run(&self, _: &Context<'_>, _: &[String]) -> Result<pith_model::Run, RunnerError> {
            unreachable!("routing runs nothing")
        }
    }

    fn routed(found: &[Found], ids: &[&str]) -> Vec<(&'static str, Vec<String>)> {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        route(found, &ids)
            .into_iter()
            .map(|(f, t)| (f.adapter.name(), t))
            .collect()
    }

    fn at(rel: Option<&str>, adapter: Fake) -> Found {
        Found {
            dir: PathBuf::from("/ws").join(rel.unwrap_or("")),
            rel: rel.map(str::to_owned),
            adapter: Box::new(adapter),
        }
    }

    #[test]
    fn an_id_goes_to_the_project_whose_directory_holds_it() {
        let py = || Fake {
            name: "pytest",
            claims: ".py",
            owns: None,
        };
        let found = vec![at(Some("a"), py()), at(Some("b"), py())];
        let r = route(
            &found,
            &[
                "b/t.py::x".to_owned(),
                "a/t.py::y".to_owned(),
                "c.py::z".to_owned(),
            ],
        );
        let dirs: Vec<(Option<&str>, Vec<String>)> = r
            .iter()
            .map(|(f, t)| (f.rel.as_deref(), t.clone()))
            .collect();
        assert_eq!(
            dirs,
            [
                (
                    Some("a"),
                    vec!["a/t.py::y".to_owned(), "c.py::z".to_owned()]
                ),
                (Some("b"), vec!["b/t.py::x".to_owned()]),
            ]
        );
    }

    #[test]
    fn an_id_two_runners_claim_goes_to_the_one_that_owns_it() {
        // A Go module `calc` beside a GoogleTest suite: `calc.TestAdd` has both shapes.
        let adapters = vec![
            at(
                None,
                Fake {
                    name: "go",
                    claims: ".Test",
                    owns: Some("calc."),
                },
            ),
            at(
                None,
                Fake {
                    name: "ctest",
                    claims: ".",
                    owns: None,
                },
            ),
        ];
        assert_eq!(
            routed(&adapters, &["calc.TestAdd", "Sum.Ok"]),
            [
                ("go", vec!["calc.TestAdd".to_owned()]),
                ("ctest", vec!["Sum.Ok".to_owned()])
            ]
        );
        // Claimed by both and owned by neither: both run it, and each reports what it found.
        assert_eq!(
            routed(&adapters, &["other.TestX"]),
            [
                ("go", vec!["other.TestX".to_owned()]),
                ("ctest", vec!["other.TestX".to_owned()])
            ]
        );
        assert_eq!(routed(&adapters, &[]), [("go", vec![]), ("ctest", vec![])]);
    }

    /// An adapter that selects by file when its name says so, like pytest does.
    struct ByFile {
        name: &'static str,
        by_file: bool,
    }

    impl pith_runner::Adapter for ByFile {
        fn name(&self) -> &'static str {
            self.name
        }
        fn claims(&self, _: &str) -> bool {
            true
        }
        fn run(
            &self,
            _: &pith_runner::Context<'_>,
            _: &[String],
        ) -> Result<pith_model::Run, pith_runner::RunnerError> {
            unreachable!("planning runs nothing")
        }
        fn ids_for_files(&self, _: Option<&str>, files: &[String]) -> Option<Vec<String>> {
            self.by_file.then(|| {
                files
                    .iter()
                    .filter(|f| f.ends_with(".py"))
                    .cloned()
                    .collect()
            })
        }
    }

    #[test]
    fn each_test_file_goes_to_its_project_and_a_runner_without_file_selection_runs_whole() {
        let project = |rel: Option<&str>, name, by_file| Found {
            dir: PathBuf::from("/ws").join(rel.unwrap_or("")),
            rel: rel.map(Into::into),
            adapter: Box::new(ByFile { name, by_file }),
        };
        let found = [
            project(None, "pytest", true),
            project(Some("rs"), "cargo", false),
            project(Some("other"), "cargo", false),
        ];
        let tests: Vec<String> = ["tests/test_a.py", "rs/tests/api.rs", "tests/test_b.py"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            route_files(&tests, &found),
            [
                (
                    0,
                    vec!["tests/test_a.py".to_owned(), "tests/test_b.py".to_owned()]
                ),
                (1, Vec::new()),
            ]
        );
    }

    #[test]
    fn a_bazel_workspace_that_cannot_say_which_targets_runs_whole_for_any_language() {
        // Bazel builds tests of every language: a C++ test file it cannot map to a target
        // (no Bazel to ask, a BUILD file that does not load) runs the workspace, never
        // nothing.
        let root_project = |name| Found {
            dir: PathBuf::from("/ws"),
            rel: None,
            adapter: Box::new(ByFile {
                name,
                by_file: false,
            }),
        };
        let tests = vec!["tests/calc_test.cc".to_owned()];
        assert_eq!(
            route_files(&tests, &[root_project("bazel")]),
            [(0, Vec::new())]
        );
        // A runner of one language still leaves what is not its own.
        assert!(route_files(&tests, &[root_project("cargo")]).is_empty());
    }
}
