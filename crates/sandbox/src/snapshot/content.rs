//! Digests of file content for a snapshot, so a change is told by the bytes and
//! not by the times alone: a run that rewrites a file and sets its mtime back is
//! still seen, and one that only touched it (`touch`, `chmod`, or the post-run
//! repair dropping an attribute, all of which set the ctime) is not reported.
//!
//! Before a run every regular file is digested as the walk meets it, while its
//! size fits in what is left of a byte budget; after the run only the files whose
//! times moved and whose size did not are digested again, which the first budget
//! bounds too. A file past the budget is compared by its size and times only.

use std::ffi::CStr;
use std::os::fd::BorrowedFd;

use rustix::fs::{Mode, OFlags};
use sha2::{Digest as _, Sha256};

use super::stamp::{Snapshot, Stamp};

/// Which files of a snapshot get their content digested.
#[derive(Debug, Clone, Copy)]
pub enum Digests<'a> {
    /// None: sizes and times only.
    None,
    /// Each file met while its size fits in what is left of this many bytes.
    Budget(u64),
    /// The files this earlier snapshot digested whose size is the same now but
    /// whose mtime or ctime moved.
    Touched(&'a Snapshot),
}

/// What a walk asks of a `Digests` as it goes.
pub(super) struct Digester<'a> {
    digests: Digests<'a>,
    left: u64,
}

impl<'a> Digester<'a> {
    pub fn new(digests: Digests<'a>) -> Digester<'a> {
        let left = match digests {
            Digests::Budget(bytes) => bytes,
            _ => 0,
        };
        Digester { digests, left }
    }

    /// The digest of `name` in `dir`, whose stamp (taken without it) is `stamp`
    /// and whose path is `path`, when this snapshot digests it.
    pub fn digest(
        &mut self,
        dir: BorrowedFd<'_>,
        name: &CStr,
        path: &str,
        stamp: &Stamp,
    ) -> Option<[u8; 32]> {
        match self.digests {
            Digests::None => None,
            Digests::Budget(_) => {
                if stamp.size > self.left {
                    return None;
                }
                self.left -= stamp.size;
                read(dir, name, stamp.size)
            }
            Digests::Touched(before) => {
                let old = before.get(path)?;
                old.digest?;
                let moved = old.mtime_ns != stamp.mtime_ns || old.ctime_ns != stamp.ctime_ns;
                if old.size != stamp.size || !moved {
                    return None;
                }
                read(dir, name, stamp.size)
            }
        }
    }
}

/// The SHA-256 of `name` in `dir`, read without following a link and without
/// blocking on a FIFO swapped in, if it holds exactly `size` bytes: more or fewer
/// (a file that changed while read) gives none.
fn read(dir: BorrowedFd<'_>, name: &CStr, size: u64) -> Option<[u8; 32]> {
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, name, flags, Mode::empty()).ok()?;
    let stat = rustix::fs::fstat(&fd).ok()?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
        return None;
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 << 10];
    let mut total = 0u64;
    loop {
        let n = match rustix::io::read(&fd, &mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
        };
        total += n as u64;
        if total > size {
            return None;
        }
        hasher.update(&buf[..n]);
    }
    (total == size).then(|| hasher.finalize().into())
}
