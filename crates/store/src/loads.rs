//! What the tests loaded by a computed name (`importlib.import_module(name)`), as runs saw it:
//! the edges the import graph cannot see. Kept per test file with that file's content hash at
//! the time; a test file edited since has no observation until a run sees it whole again.

use std::collections::BTreeMap;

use pith_model::impact::Loads;
use rusqlite::{params, Connection};

use crate::{Store, StoreError};

/// Modules kept per test file at most: past it, the rest of the observation is dropped and
/// the file's observation no longer counts as whole (see [`record`]).
const MAX_MODULES: usize = 256;

/// Keeps one run's observations, in the run's write transaction. A whole observation (every
/// test of the file ran and passed) replaces the file's; a partial one only adds to a valid
/// one (same content hash), never starts one: a test that failed before its load, or was not
/// run, would otherwise hide an edge.
pub(crate) fn record(c: &Connection, loads: &[&Loads]) -> Result<(), StoreError> {
    if loads.is_empty() {
        return Ok(());
    }
    let mut hash_of = c.prepare_cached("SELECT hash FROM files WHERE path = ?1 AND deleted = 0")?;
    let mut kept_hash = c.prepare_cached("SELECT hash FROM loads WHERE test = ?1 LIMIT 1")?;
    let mut clear = c.prepare_cached("DELETE FROM loads WHERE test = ?1")?;
    let mut add =
        c.prepare_cached("INSERT OR IGNORE INTO loads (test, module, hash) VALUES (?1, ?2, ?3)")?;
    for l in loads {
        use rusqlite::OptionalExtension;
        let Some(hash) = hash_of
            .query_row([&l.test], |r| r.get::<_, Option<i64>>(0))
            .optional()?
            .flatten()
        else {
            continue;
        };
        let kept: Option<i64> = kept_hash.query_row([&l.test], |r| r.get(0)).optional()?;
        let whole = l.whole && l.modules.len() <= MAX_MODULES;
        if whole {
            clear.execute([&l.test])?;
        } else if kept != Some(hash) {
            continue;
        }
        for m in l.modules.iter().take(MAX_MODULES) {
            add.execute(params![l.test, m, hash])?;
        }
    }
    Ok(())
}

impl Store {
    /// The modules each test file loaded by a computed name, from observations of its current
    /// content only, test files sorted.
    pub fn observed_loads(&self) -> Result<BTreeMap<String, Vec<String>>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT l.test, l.module FROM loads l
             JOIN files f ON f.path = l.test AND f.hash = l.hash AND f.deleted = 0
             ORDER BY l.test, l.module",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for row in rows {
            let (test, module) = row?;
            out.entry(test).or_default().push(module);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use pith_model::impact::Loads;
    use pith_model::{Report, Run};

    fn run_with(loads: &[(&str, &[&str], bool)]) -> Report {
        let mut run = Run::new("pytest");
        run.passed = 1;
        run.loads = loads
            .iter()
            .map(|(test, modules, whole)| Loads {
                test: (*test).to_owned(),
                modules: modules.iter().map(|m| (*m).to_owned()).collect(),
                whole: *whole,
            })
            .collect();
        Report {
            runs: vec![run],
            ..Report::default()
        }
    }

    fn observed(s: &crate::Store) -> Vec<(String, Vec<String>)> {
        s.observed_loads().unwrap().into_iter().collect()
    }

    fn pair(test: &str, modules: &[&str]) -> (String, Vec<String>) {
        (
            test.to_owned(),
            modules.iter().map(|m| (*m).to_owned()).collect(),
        )
    }

    #[test]
    fn a_whole_observation_replaces_a_partial_one_adds_and_an_edit_voids_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::write(root.join("tests/test_p.py"), "import importlib\n").unwrap();
        std::fs::write(root.join("tests/test_q.py"), "x = 1\n").unwrap();
        let mut s = super::super::tests::open(&root);
        let g = s.scan().unwrap();

        // A partial observation never starts one: a failing test may not have reached its load.
        s.record(
            g,
            "",
            0,
            &mut run_with(&[("tests/test_p.py", &["src/a.py"], false)]),
        )
        .unwrap();
        assert!(observed(&s).is_empty());

        let whole = [("tests/test_p.py", &["src/a.py", "src/b.py"][..], true)];
        s.record(g, "", 0, &mut run_with(&whole)).unwrap();
        assert_eq!(
            observed(&s),
            [pair("tests/test_p.py", &["src/a.py", "src/b.py"])]
        );

        // A partial one adds to a valid one; a whole one replaces it.
        s.record(
            g,
            "",
            0,
            &mut run_with(&[("tests/test_p.py", &["src/c.py"], false)]),
        )
        .unwrap();
        assert_eq!(
            observed(&s),
            [pair(
                "tests/test_p.py",
                &["src/a.py", "src/b.py", "src/c.py"]
            )]
        );
        s.record(
            g,
            "",
            0,
            &mut run_with(&[("tests/test_p.py", &["src/d.py"], true)]),
        )
        .unwrap();
        assert_eq!(observed(&s), [pair("tests/test_p.py", &["src/d.py"])]);

        // A test file pith has not seen (or that is gone) keeps nothing.
        s.record(
            g,
            "",
            0,
            &mut run_with(&[("tests/test_gone.py", &["src/a.py"], true)]),
        )
        .unwrap();
        assert_eq!(observed(&s).len(), 1);

        // Edited since: the observation no longer counts, and a partial one cannot revive it.
        std::fs::write(root.join("tests/test_p.py"), "import importlib  # now\n").unwrap();
        let g = s.scan().unwrap();
        assert!(observed(&s).is_empty());
        s.record(
            g,
            "",
            0,
            &mut run_with(&[("tests/test_p.py", &["src/a.py"], false)]),
        )
        .unwrap();
        assert!(observed(&s).is_empty());
        s.record(
            g,
            "",
            0,
            &mut run_with(&[("tests/test_p.py", &["src/e.py"], true)]),
        )
        .unwrap();
        assert_eq!(observed(&s), [pair("tests/test_p.py", &["src/e.py"])]);
    }
}
