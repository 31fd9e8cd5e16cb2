//! Folders a run makes for itself on the host (its cgroups, its `/tmp`'s mount
//! point), held open and locked with `flock` for as long as the run may use them,
//! and the sweep of those an app killed mid-run left.
//!
//! A folder's name says which process made it, but not in every PID namespace:
//! two apps that are each PID 1 of a container of their own share the host's
//! cgroups and may share its temporary folder, and a pid named by the other's
//! folder is either absent here or some other process. The lock is what every
//! namespace sees alike: a live run holds it, a dead one's was released when its
//! last descriptor closed.

use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

/// A new folder from `make`, open and locked. A name `make` finds taken, or a
/// folder a sweep removed before the lock was taken, is made again, three times
/// at most; `make`'s other errors end it.
pub(super) fn made(
    mut make: impl FnMut() -> std::io::Result<PathBuf>,
) -> std::io::Result<(PathBuf, OwnedFd)> {
    let mut lost = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
    for _ in 0..3 {
        let path = match make() {
            Ok(path) => path,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                lost = error;
                continue;
            }
            Err(error) => return Err(error),
        };
        // A sweep removes a folder only while it holds the lock, so once this
        // process holds it the folder is either there for good or gone already.
        match lock(&path) {
            Some(held) if still_at(&path, &held) => return Ok((path, held)),
            _ => {
                let _ = std::fs::remove_dir(&path);
                lost = std::io::Error::other("a sweep removed it as it was made");
            }
        }
    }
    Err(lost)
}

/// Removes the empty folders in `base` whose names start with `prefix` and whose
/// lock no one holds, each while this process holds it: nothing a live run uses,
/// in whichever PID namespace its app runs.
pub(super) fn remove_unheld(base: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let ours = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(prefix));
        if ours {
            if let Some(_held) = lock(&entry.path()) {
                let _ = std::fs::remove_dir(entry.path());
            }
        }
    }
}

/// The folder at `path`, open and locked without waiting; None when it is gone
/// or another open file holds its lock.
fn lock(path: &Path) -> Option<OwnedFd> {
    let dir = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    rustix::fs::flock(&dir, rustix::fs::FlockOperation::NonBlockingLockExclusive).ok()?;
    Some(dir)
}

/// Whether `path` is still the folder `held` has open.
fn still_at(path: &Path, held: &OwnedFd) -> bool {
    let (Ok(there), Ok(open)) = (std::fs::symlink_metadata(path), rustix::fs::fstat(held)) else {
        return false;
    };
    there.dev() == open.st_dev && there.ino() == open.st_ino
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_removes_the_folders_no_one_holds_and_keeps_a_held_one() {
        let base = tempfile::tempdir().unwrap();
        let mut n = 0;
        let (held_path, held) = made(|| {
            n += 1;
            let path = base.path().join(format!("ours_{n}"));
            std::fs::create_dir(&path).map(|()| path)
        })
        .unwrap();
        let left = base.path().join("ours_left");
        let other = base.path().join("theirs");
        std::fs::create_dir(&left).unwrap();
        std::fs::create_dir(&other).unwrap();
        remove_unheld(base.path(), "ours_");
        assert!(held_path.exists(), "a held folder was removed");
        assert!(!left.exists(), "a folder no one holds was kept");
        assert!(other.exists(), "a folder of another name was removed");
        drop(held);
        remove_unheld(base.path(), "ours_");
        assert!(!held_path.exists(), "a folder released was kept");
    }

    #[test]
    fn a_name_taken_is_made_again_under_another() {
        let base = tempfile::tempdir().unwrap();
        std::fs::create_dir(base.path().join("run_1")).unwrap();
        let mut n = 0;
        let (path, _held) = made(|| {
            n += 1;
            let path = base.path().join(format!("run_{n}"));
            std::fs::create_dir(&path).map(|()| path)
        })
        .unwrap();
        assert_eq!(path, base.path().join("run_2"));
    }
}
