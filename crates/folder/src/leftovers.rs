//! Temporary files a crashed write left behind (`.name.PID-NANOS-N.tmp`), and the
//! sweep that removes them: only what a writer of this store left and no writer
//! holds.
//!
//! A writer marks its temporary file as the store's (the extended attribute
//! `MARK`) and holds an exclusive `flock` on it from its creation until it is
//! renamed or removed. The lock goes with the writer's open file, so it ends when
//! the writer's process does, however it ends, and it is seen by every process
//! sharing the folder, one in another PID namespace (a container) included. The
//! sweep removes a file only when its name is a temporary file's, it carries the
//! mark, it has not changed for the grace period, and the sweep can take its lock:
//! a look-alike a user made, a file on a file system without extended attributes,
//! and a live writer's file, however long idle, all stay. Folders are entered only
//! by their own name, never through a link, and hidden folders not at all.

use std::collections::HashSet;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::{AtFlags, Dir, FileType, FlockOperation, Mode, OFlags, XattrFlags};

/// How long a temporary file no writer holds is left alone before it is removed.
pub const GRACE: Duration = Duration::from_secs(15 * 60);
/// How deep folders are searched.
const MAX_DEPTH: usize = 64;
/// The extended attribute that marks a temporary file as one a writer of this
/// store made.
pub(super) const MARK: &str = "user.ruby_llm.temporary";
const MARK_VALUE: &[u8] = b"ruby_llm-file_store";

/// Whether `name` is shaped like a temporary file's: `.name.PID-NANOS-N.tmp`.
fn temporary_name(name: &str) -> bool {
    let Some(stem) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    let Some((_, tail)) = stem.rsplit_once('.') else {
        return false;
    };
    let parts: Vec<&str> = tail.split('-').collect();
    matches!(parts.as_slice(), [pid, nanos, count]
        if pid.parse::<u32>().is_ok()
            && u32::from_str_radix(nanos, 16).is_ok()
            && count.parse::<u64>().is_ok())
}

/// Claims the new temporary file `fd` for its writer: locks it for the writer's
/// whole write, then marks it. In that order, so a sweep never finds the file
/// marked and unlocked while its writer lives. Where the file system has no
/// extended attributes the file stays unmarked, and no sweep ever removes it.
pub(super) fn claim(fd: BorrowedFd<'_>) -> rustix::io::Result<()> {
    rustix::fs::flock(fd, FlockOperation::LockExclusive)?;
    let _ = rustix::fs::fsetxattr(fd, MARK, MARK_VALUE, XattrFlags::empty());
    Ok(())
}

/// Takes the mark off a committed file, which is no temporary file any more.
pub(super) fn unmark(fd: BorrowedFd<'_>) {
    let _ = rustix::fs::fremovexattr(fd, MARK);
}

fn marked(fd: BorrowedFd<'_>) -> bool {
    let mut value = [0u8; 32];
    matches!(rustix::fs::fgetxattr(fd, MARK, &mut value), Ok(len) if &value[..len] == MARK_VALUE)
}

/// Removes the leftovers under `dir` unchanged for `grace`; returns how many.
pub fn sweep(dir: BorrowedFd<'_>, grace: Duration) -> usize {
    sweep_in(dir, grace, 0)
}

fn sweep_in(dir: BorrowedFd<'_>, grace: Duration, depth: usize) -> usize {
    let Ok(own) = rustix::io::fcntl_dupfd_cloexec(dir, 0) else {
        return 0;
    };
    let Ok(entries) = Dir::read_from(&own) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if name == "." || name == ".." {
            continue;
        }
        match entry.file_type() {
            // A link to a folder has its own type, so it is never entered; the
            // open refuses a link swapped in since the listing.
            FileType::Directory if depth < MAX_DEPTH && !name.starts_with('.') => {
                if let Ok(child) = open_folder(dir, &name) {
                    removed += sweep_in(child.as_fd(), grace, depth + 1);
                }
            }
            FileType::RegularFile | FileType::Unknown if temporary_name(&name) => {
                removed += usize::from(remove_if_abandoned(dir, &name, grace));
            }
            _ => {}
        }
    }
    removed
}

/// Removes the temporary file `name` in `dir` if it is marked as a writer's, has
/// not changed for `grace`, and no writer holds it.
fn remove_if_abandoned(dir: BorrowedFd<'_>, name: &str, grace: Duration) -> bool {
    // Non-blocking, so a FIFO under a temporary file's name cannot hang the sweep.
    let Ok(fd) = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return false;
    };
    let Ok(stat) = rustix::fs::fstat(&fd) else {
        return false;
    };
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile || !idle(&stat, grace) {
        return false;
    }
    // Held by a live writer: skipped, however long it has been idle.
    if rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_err()
        || !marked(fd.as_fd())
    {
        return false;
    }
    // The name still names the file locked: a writer that committed meanwhile
    // renamed it away, and a file moved in under the name is not this one.
    let same = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|now| now.st_dev == stat.st_dev && now.st_ino == stat.st_ino);
    same && rustix::fs::unlinkat(dir, name, AtFlags::empty()).is_ok()
}

fn idle(stat: &rustix::fs::Stat, grace: Duration) -> bool {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    // `st_mtime` is signed on some targets and unsigned on others.
    #[allow(clippy::unnecessary_cast, clippy::unnecessary_min_or_max)]
    let mtime = (stat.st_mtime as i64).max(0) as u64;
    now.saturating_sub(Duration::from_secs(mtime)) >= grace
}

fn open_folder(dir: BorrowedFd<'_>, name: &str) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// Sweeps the folder of `fd` on a thread of its own, once per folder per process,
/// so opening a store costs no walk of it.
pub fn sweep_once_in_background(fd: OwnedFd) {
    static SWEPT: Mutex<Option<HashSet<(u64, u64)>>> = Mutex::new(None);
    let Ok(stat) = rustix::fs::fstat(&fd) else {
        return;
    };
    let key = (stat.st_dev, stat.st_ino);
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
        if !swept.get_or_insert_with(HashSet::new).insert(key) {
            return;
        }
    }
    let _ = std::thread::Builder::new()
        .name("file_store_sweep".into())
        .spawn(move || sweep(fd.as_fd(), GRACE));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_names_of_temporary_files() {
        assert!(temporary_name(".report.pdf.4242-1a2b-7.tmp"));
        assert!(temporary_name(".a.1-0-0.tmp"));
        for other in [
            "report.tmp",
            ".x.tmp",
            ".a.b-c-d.tmp",
            ".a.1-zz-0.tmp",
            "a.1-0-0.tmp",
            ".a.1-0-0-0.tmp",
        ] {
            assert!(!temporary_name(other), "{other}");
        }
    }
}
