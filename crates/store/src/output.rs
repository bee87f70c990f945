//! The last run's raw output (`model::output::RunOutput`), one file per workspace beside the
//! database (`output`), replaced whole by each run that ran: a plain file, not a table, since
//! it is read and written whole, is bounded by the engine (a few hundred KiB), and no query
//! looks inside it. Written to a temporary name and renamed over the old one, so a reader sees
//! one run's output or the next's, never a mix, and a link in its place is replaced, not
//! written through; read without following a link.

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use pith_model::output::{Cut, RunOutput, TestOutput};

use crate::StoreError;

/// The file's name in the state directory.
const FILE: &str = "output";
/// The first line: the format and its version; any other file reads as no output kept.
const MAGIC: &str = "pith-output 1";
/// The most read back: a file past it is not one pith wrote.
const MOST: u64 = 8 << 20;

pub(crate) fn save(dir: &Path, out: &RunOutput) -> Result<(), StoreError> {
    let mut b = Vec::with_capacity(out.lines.iter().map(|l| l.len() + 1).sum::<usize>() + 256);
    b.extend_from_slice(MAGIC.as_bytes());
    b.push(b'\n');
    if let Some(g) = out.generation {
        b.extend_from_slice(format!("generation {g}\n").as_bytes());
    }
    if let Some(c) = out.cut {
        b.extend_from_slice(format!("cut {} {} {}\n", c.line, c.lines, c.bytes).as_bytes());
    }
    let text = out.lines.join("\n");
    b.extend_from_slice(format!("lines {} {}\n", out.lines.len(), text.len()).as_bytes());
    b.extend_from_slice(text.as_bytes());
    b.push(b'\n');
    for t in &out.tests {
        b.extend_from_slice(format!("test {} {}\n", t.test.len(), t.text.len()).as_bytes());
        b.extend_from_slice(t.test.as_bytes());
        b.extend_from_slice(t.text.as_bytes());
        b.push(b'\n');
    }
    let tmp = dir.join(format!("{FILE}.{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)?;
        f.write_all(&b)?;
        replace(&tmp, &dir.join(FILE))
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        StoreError::io("keeping the run's output", e)
    })
}

/// Puts `new` in `target`'s place in one step, so a reader sees one file or the other.
/// Where the system can, the two are exchanged and the old one, now at `new`'s name, removed:
/// renamed over, ext4 writes the new file's data out at once (its guard for programs that
/// replace a file without `fsync`), about a quarter of a millisecond of every run's wait on
/// this machine, where the output would otherwise stay in memory until the next run replaces
/// it.
fn replace(new: &Path, target: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes());
        let (from, to) = (c(new)?, c(target)?);
        // SAFETY: two NUL-terminated paths that outlive the call.
        let done = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if done == 0 {
            // The old file, whatever it was (a link is removed, never followed).
            return std::fs::remove_file(new).or_else(|_| std::fs::remove_dir_all(new));
        }
        // No old file to exchange with (the first run), or a file system without exchange:
        // a plain rename.
        let e = std::io::Error::last_os_error();
        if !matches!(
            e.raw_os_error(),
            Some(libc::ENOENT | libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
        ) {
            return Err(e);
        }
    }
    std::fs::rename(new, target)
}

/// The kept output; `None` when no run kept one (or the file is not pith's).
pub(crate) fn load(dir: &Path) -> Result<Option<RunOutput>, StoreError> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(dir.join(FILE));
    let mut bytes = Vec::new();
    match f {
        Ok(f) => f.take(MOST).read_to_end(&mut bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        // A link in its place (ELOOP) is no output of pith's.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(None),
        Err(e) => return Err(StoreError::io("reading the run's output", e)),
    }
    .map_err(|e| StoreError::io("reading the run's output", e))?;
    Ok(parse(&bytes))
}

fn parse(b: &[u8]) -> Option<RunOutput> {
    let mut r = Cursor { b, at: 0 };
    if r.line()? != MAGIC.as_bytes() {
        return None;
    }
    let mut out = RunOutput::default();
    while r.at < b.len() {
        let head = std::str::from_utf8(r.line()?).ok()?.to_owned();
        let mut words = head.split(' ');
        let mut num = || words.next()?.parse::<u64>().ok();
        match head.split(' ').next()? {
            "generation" => {
                num();
                out.generation = Some(num()?);
            }
            "cut" => {
                num();
                out.cut = Some(Cut {
                    line: u32::try_from(num()?).ok()?,
                    lines: num()?,
                    bytes: num()?,
                });
            }
            "lines" => {
                num();
                let (count, len) = (num()?, num()?);
                let text = r.text(len)?;
                if count > 0 {
                    out.lines = text.split('\n').map(str::to_owned).collect();
                }
            }
            "test" => {
                num();
                let (id, len) = (num()?, num()?);
                let test = r.take(id)?;
                out.tests.push(TestOutput {
                    test,
                    text: r.text(len)?,
                });
            }
            _ => return None,
        }
    }
    Some(out)
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn line(&mut self) -> Option<&'a [u8]> {
        let rest = self.b.get(self.at..)?;
        let n = rest.iter().position(|&c| c == b'\n')?;
        self.at += n + 1;
        Some(&rest[..n])
    }

    fn take(&mut self, len: u64) -> Option<String> {
        let end = self.at.checked_add(usize::try_from(len).ok()?)?;
        let s = std::str::from_utf8(self.b.get(self.at..end)?).ok()?;
        self.at = end;
        Some(s.to_owned())
    }

    /// `len` bytes of text and the newline that ends them.
    fn text(&mut self, len: u64) -> Option<String> {
        let s = self.take(len)?;
        (self.b.get(self.at) == Some(&b'\n')).then(|| self.at += 1)?;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RunOutput {
        RunOutput {
            generation: Some(7),
            lines: vec!["running 2 tests".into(), String::new(), "x é".into()],
            cut: Some(Cut {
                line: 2,
                lines: 10,
                bytes: 300,
            }),
            tests: vec![
                TestOutput {
                    test: "a b::c".into(),
                    text: "line 1\nline 2\n".into(),
                },
                TestOutput {
                    test: "t".into(),
                    text: String::new(),
                },
            ],
        }
    }

    #[test]
    fn what_is_saved_reads_back_the_same_and_replaces_the_last() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), None);
        save(dir.path(), &sample()).unwrap();
        assert_eq!(load(dir.path()).unwrap(), Some(sample()));
        let empty = RunOutput::default();
        save(dir.path(), &empty).unwrap();
        assert_eq!(load(dir.path()).unwrap(), Some(empty));
        // Only the file itself is left: the temporary name was renamed.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_file_that_is_not_piths_or_is_cut_short_reads_as_none() {
        let dir = tempfile::tempdir().unwrap();
        save(dir.path(), &sample()).unwrap();
        let whole = std::fs::read(dir.path().join(FILE)).unwrap();
        for n in [0, 5, whole.len() / 2, whole.len() - 2] {
            assert_eq!(parse(&whole[..n]), None, "{n}");
        }
        assert_eq!(parse(b"something else\n"), None);
    }

    #[test]
    fn a_link_in_its_place_is_replaced_and_never_read_through() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "theirs").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join(FILE)).unwrap();
        assert_eq!(load(dir.path()).unwrap(), None);
        save(dir.path(), &sample()).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
        assert_eq!(load(dir.path()).unwrap(), Some(sample()));
    }

    #[test]
    fn a_directory_in_its_place_is_replaced_and_nothing_is_left_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(FILE).join("inner")).unwrap();
        save(dir.path(), &sample()).unwrap();
        assert_eq!(load(dir.path()).unwrap(), Some(sample()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
