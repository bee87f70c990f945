//! sh's pathname expansion and its `fnmatch`: what a glob pattern of a script's word matches
//! in the file system (`node --test test/*.js` hands node the files), and the same matching
//! the package managers' workspace filters use on names and paths.

use std::path::Path;

/// Most paths one pattern expands to: past it, the word stays as written (a pattern over a
/// tree that large is not a test list).
const MAX_MATCHES: usize = 100_000;

/// sh's pathname expansion of `pattern` (see [`Word::pattern`]) in `cwd`: the matching paths,
/// sorted, written as the pattern was (relative stays relative); `None` when nothing matches,
/// and sh passes the word as written. `*` and `?` never match `/` nor a leading `.`; `**` is
/// `*` (sh has no globstar).
pub(crate) fn expand(pattern: &str, cwd: &Path) -> Option<Vec<String>> {
    let absolute = pattern.starts_with('/');
    let parts: Vec<&str> = pattern.split('/').collect();
    let mut found: Vec<String> = vec![if absolute {
        "/".to_owned()
    } else {
        String::new()
    }];
    let skip = usize::from(absolute);
    for (n, part) in parts.iter().enumerate().skip(skip) {
        let last = n + 1 == parts.len();
        if part.is_empty() {
            // `a//b` or a trailing `/`: kept as written, and only directories match.
            for f in &mut found {
                f.push('/');
            }
            found.retain(|f| cwd.join(f).is_dir());
            continue;
        }
        let mut next: Vec<String> = Vec::new();
        for base in &found {
            let join = |name: &str| {
                if base.is_empty() {
                    name.to_owned()
                } else if base.ends_with('/') {
                    format!("{base}{name}")
                } else {
                    format!("{base}/{name}")
                }
            };
            if !has_live_glob(part) {
                let name = unescape(part);
                let path = join(&name);
                let p = cwd.join(&path);
                if (last && p.symlink_metadata().is_ok()) || p.is_dir() {
                    next.push(path);
                }
                continue;
            }
            let dir = if base.is_empty() {
                cwd.to_path_buf()
            } else {
                cwd.join(base)
            };
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|name| {
                    (!name.starts_with('.') || part.starts_with('.')) && fnmatch(part, name)
                })
                .collect();
            names.sort();
            for name in names {
                let path = join(&name);
                if last || cwd.join(&path).is_dir() {
                    next.push(path);
                }
                if next.len() > MAX_MATCHES {
                    return None;
                }
            }
        }
        found = next;
        if found.is_empty() {
            return None;
        }
    }
    found.sort();
    (!found.is_empty()).then_some(found)
}

/// Whether a pattern component has a glob character that is not escaped.
fn has_live_glob(part: &str) -> bool {
    let mut escaped = false;
    for c in part.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '*' | '?' | '[' => return true,
            _ => {}
        }
    }
    false
}

fn unescape(part: &str) -> String {
    let mut out = String::new();
    let mut chars = part.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `name` matches the glob `pattern` (`*`, `?`, `[...]` with `!` or `^` and ranges,
/// `\` escapes), as sh's `fnmatch` without flags.
pub(crate) fn fnmatch(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches_at(&p, &n)
}

fn matches_at(p: &[char], n: &[char]) -> bool {
    // Iterative with one backtrack point for the last `*`: linear in practice, never
    // exponential.
    let (mut pi, mut ni) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => match class(&p[pi..], n[ni]) {
                Some((len, true)) => Some(len),
                Some((_, false)) => None,
                // An unclosed `[` is a literal `[`.
                None => (n[ni] == '[').then_some(1),
            },
            Some('\\') if pi + 1 < p.len() => (p[pi + 1] == n[ni]).then_some(2),
            Some(&c) => (c == n[ni]).then_some(1),
            None => None,
        };
        match step {
            Some(len) => {
                pi += len;
                ni += 1;
            }
            None => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi.min(p.len())..].iter().all(|&c| c == '*')
}

/// A bracket expression at the start of `p` against `c`: its length and whether `c` is in it;
/// `None` when it is not closed.
fn class(p: &[char], c: char) -> Option<(usize, bool)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    while let Some(&x) = p.get(i) {
        if x == ']' && !first {
            return Some((i + 1, hit != negate));
        }
        first = false;
        let lo = if x == '\\' {
            i += 1;
            *p.get(i)?
        } else {
            x
        };
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&h| h != ']') {
            let hi = p[i + 2];
            if lo <= c && c <= hi {
                hit = true;
            }
            i += 3;
        } else {
            if lo == c {
                hit = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_sh_matches_them() {
        let d = tempfile::tempdir().unwrap();
        for f in [
            "test/a.test.js",
            "test/b.test.js",
            "test/.hidden.test.js",
            "test/sub/c.test.js",
        ] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        assert_eq!(
            expand("test/*.test.js", d.path()).unwrap(),
            ["test/a.test.js", "test/b.test.js"]
        );
        // No globstar: `**` is `*`, one level.
        assert_eq!(
            expand("test/**/*.test.js", d.path()).unwrap(),
            ["test/sub/c.test.js"]
        );
        assert_eq!(expand("test/[ab].test.js", d.path()).unwrap().len(), 2);
        assert_eq!(expand("test/[!a].test.js", d.path()).unwrap().len(), 1);
        assert_eq!(expand("nope/*.js", d.path()), None);
        assert_eq!(expand(r"test/\*.js", d.path()), None);
        assert_eq!(expand("*/", d.path()).unwrap(), ["test/"]);
        assert!(fnmatch("a*b?c", "axxbyc"));
        assert!(!fnmatch("a*b?c", "axxbc"));
        assert!(fnmatch("[a-c]x", "bx"));
        assert!(fnmatch("[x", "[x"));
    }

    proptest::proptest! {
        #[test]
        fn globs_never_panic(p in "[a-z*?\\[\\]!\\\\/^-]{0,12}", n in "[a-z.\\[\\]-]{0,12}") {
            let _ = fnmatch(&p, &n);
        }
    }
}
