//! The graph as bytes, so a caller that knows the workspace has not changed (the store's
//! generation) can keep it instead of reading every source again: `pith status` asks for the
//! graph on every call while edits are pending, and building it reads the whole workspace.
//!
//! Reading checks everything a query relies on (sorted paths, offsets in bounds and rising,
//! ids in range): bytes that are damaged, truncated or of another format are `None`, never a
//! graph that could panic or answer wrongly.

use super::Graph;

/// The format's tag; a change to the layout (or to what the resolvers find) takes a new one.
const MAGIC: &[u8; 8] = b"PITHGR01";

impl Graph {
    /// The graph as bytes for [`Graph::from_bytes`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(64 + self.paths.iter().map(|p| p.len() + 8).sum::<usize>());
        out.extend_from_slice(MAGIC);
        put(&mut out, self.paths.len());
        for p in &self.paths {
            put(&mut out, p.len());
            out.extend_from_slice(p.as_bytes());
        }
        for i in 0..self.paths.len() {
            out.push(
                u8::from(self.placed[i])
                    | u8::from(self.test[i]) << 1
                    | u8::from(self.dynamic[i]) << 2,
            );
        }
        for list in [&self.fwd_at, &self.fwd, &self.rev_at, &self.rev] {
            put(&mut out, list.len());
            for v in list {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// The graph [`Graph::to_bytes`] wrote; `None` for anything else.
    pub fn from_bytes(bytes: &[u8]) -> Option<Graph> {
        let mut r = Reader(bytes.strip_prefix(MAGIC)?);
        let n = r.len()?;
        let mut paths = Vec::with_capacity(n.min(bytes.len()));
        for _ in 0..n {
            let len = r.len()?;
            paths.push(std::str::from_utf8(r.take(len)?).ok()?.to_owned());
        }
        if paths.windows(2).any(|w| w[0] >= w[1]) {
            return None;
        }
        let flags = r.take(n)?;
        let mut lists: Vec<Vec<u32>> = Vec::with_capacity(4);
        for _ in 0..4 {
            let len = r.len()?;
            let raw = r.take(len.checked_mul(4)?)?;
            lists.push(
                raw.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            );
        }
        if !r.0.is_empty() {
            return None;
        }
        let rev = lists.pop()?;
        let rev_at = lists.pop()?;
        let fwd = lists.pop()?;
        let fwd_at = lists.pop()?;
        if !adjacency_ok(n, &fwd_at, &fwd) || !adjacency_ok(n, &rev_at, &rev) {
            return None;
        }
        let fwd_names = fwd.iter().map(|&t| paths[t as usize].clone()).collect();
        Some(Graph {
            placed: flags.iter().map(|f| f & 1 != 0).collect(),
            test: flags.iter().map(|f| f & 2 != 0).collect(),
            dynamic: flags.iter().map(|f| f & 4 != 0).collect(),
            paths,
            fwd_at,
            fwd,
            fwd_names,
            rev_at,
            rev,
            observed: Vec::new(),
        })
    }
}

/// Offsets `at` (n + 1 of them, from 0, rising, ending at the list's end) into `ids` (each
/// below n): what the queries index without checking.
fn adjacency_ok(n: usize, at: &[u32], ids: &[u32]) -> bool {
    at.len() == n + 1
        && at.first() == Some(&0)
        && at.last().is_some_and(|&e| e as usize == ids.len())
        && at.windows(2).all(|w| w[0] <= w[1])
        && ids.iter().all(|&i| (i as usize) < n)
}

fn put(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u64).to_le_bytes());
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        if len > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(head)
    }

    fn len(&mut self) -> Option<usize> {
        let raw = self.take(8)?;
        usize::try_from(u64::from_le_bytes(raw.try_into().ok()?)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (tempfile::TempDir, Graph) {
        let ws = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("pkg/__init__.py", ""),
            ("pkg/money.py", "def cents(x):\n    return x\n"),
            ("pkg/cart.py", "from pkg.money import cents\n"),
            ("tests/test_cart.py", "from pkg import cart\n"),
            (
                "tests/test_dyn.py",
                "import importlib\nimportlib.import_module(n)\n",
            ),
            ("data/x.json", "{}"),
        ] {
            let p = ws.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let g = Graph::build(ws.path()).unwrap();
        (ws, g)
    }

    #[test]
    fn a_graph_read_back_answers_as_the_one_built() {
        let (_ws, g) = sample();
        let back = Graph::from_bytes(&g.to_bytes()).expect("reads back");
        assert_eq!(back.paths, g.paths);
        for f in &g.paths {
            assert_eq!(back.tests_of(f), g.tests_of(f), "{f}");
            assert_eq!(back.dependencies(f), g.dependencies(f), "{f}");
            assert_eq!(back.imports(f), g.imports(f), "{f}");
            assert_eq!(back.places(f), g.places(f), "{f}");
            assert_eq!(back.is_dynamic(f), g.is_dynamic(f), "{f}");
            assert_eq!(back.is_test(f), g.is_test(f), "{f}");
        }
        assert_eq!(
            back.tests_of("pkg/money.py"),
            [("tests/test_cart.py".to_owned(), 2)]
        );
        assert!(back.is_dynamic("tests/test_dyn.py"));
        let empty = Graph::default();
        assert!(
            Graph::from_bytes(&empty.to_bytes()).is_none(),
            "no offsets at all"
        );
    }

    #[test]
    fn damaged_bytes_are_no_graph_and_never_panic() {
        let (_ws, g) = sample();
        let bytes = g.to_bytes();
        assert!(Graph::from_bytes(b"").is_none());
        assert!(Graph::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Graph::from_bytes(&longer).is_none());
        let mut other = bytes.clone();
        other[7] = b'9';
        assert!(Graph::from_bytes(&other).is_none());
        // Every single-byte change and every cut either reads as a consistent graph or as none.
        for i in 8..bytes.len() {
            for delta in [1u8, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] = b[i].wrapping_add(delta);
                if let Some(g) = Graph::from_bytes(&b) {
                    for f in &g.paths {
                        let _ = (g.tests_of(f), g.dependents(f), g.imports(f));
                    }
                }
            }
            let _ = Graph::from_bytes(&bytes[..i]);
        }
    }
}
