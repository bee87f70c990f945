//! Shell-style wildcards as runners' own configurations write them — pytest's
//! `python_files`, each name in a Surefire pattern: shared by the adapters that read them.

/// `fnmatch` on a file's name: `*`, `?`, `[...]` (`[!...]` negated). Linear in practice (a
/// `*` is retried from the last one only), so a pattern with many stars costs no more than a
/// few.
pub(crate) fn fnmatch(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if p.get(pi) == Some(&b'*') {
            star = Some((pi, si));
            pi += 1;
            continue;
        }
        if let Some(next) = one(p, pi, s[si]) {
            pi = next;
            si += 1;
            continue;
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    while p.get(pi) == Some(&b'*') {
        pi += 1;
    }
    pi == p.len()
}

/// Whether the pattern element at `pi` matches `c`; where the next element starts if so.
fn one(p: &[u8], pi: usize, c: u8) -> Option<usize> {
    match p.get(pi)? {
        b'?' => Some(pi + 1),
        b'[' => {
            let Some(end) = p[pi + 1..]
                .iter()
                .position(|&x| x == b']')
                .map(|e| pi + 1 + e)
            else {
                return (c == b'[').then_some(pi + 1);
            };
            let set = &p[pi + 1..end];
            let (negate, set) = match set.split_first() {
                Some((b'!', rest)) => (true, rest),
                _ => (false, set),
            };
            (set.contains(&c) != negate).then_some(end + 1)
        }
        x => (*x == c).then_some(pi + 1),
    }
}
