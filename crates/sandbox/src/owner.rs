//! Who owns the run folder during a run and after it.
//!
//! A sandboxed run never runs as root on the host: when the app is root, the
//! folder is handed to the run's unprivileged uid before the run and taken back
//! after, so that what the code makes is never a root-owned file while it runs.
//! After every run, whoever the app is, each file and folder below loses S_ISUID,
//! S_ISGID and the group's and others' write access, and gets back its owner's access (read and write, and search for a
//! folder), and the folder itself its own mode: no setuid file outlives a run, and
//! no `chmod 0` locks the store out of its own folder. POSIX ACLs are dropped,
//! so none grants another user what the modes do not, and `user.*` extended
//! attributes and inode flags (`marks`), so the run leaves no data or claim about a
//! file where no one looks, while the store's own attributes stay as they were.
//! All of it through the folder's descriptor, hidden names included, no link
//! followed.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use super::marks::{
    clear_flags, clear_flags_of_path, drop_acl, drop_user_attributes, fd_path, Kept,
};
use super::{folder, removing};
use crate::snapshot::Snapshot;
use file_store_base::error::{Error, Result};
use file_store_base::lent;
use file_store_base::tree::{self, Descend, Gaps, DIR_FLAGS};

/// Cleared from every mode after a run: the set-id bits, and write access for the
/// group and for others, so no other user of the host may change or add to what
/// the run left (a `chmod 777` folder, a `chmod 666` file), which belongs to the
/// app once the run is over.
const CLEARED: u32 = 0o6022;

/// The run folder, open, with its owner and mode from before the run.
pub(super) struct Folder {
    /// The folder's descriptor, opened before the run.
    pub fd: OwnedFd,
    mode: u32,
    uid: u32,
    gid: u32,
}

impl Folder {
    /// Opens `dir`, which must be a folder and not a link.
    pub fn open(dir: &Path) -> Result<Folder> {
        let shown = dir.display().to_string();
        let fd = rustix::fs::open(dir, DIR_FLAGS, Mode::empty()).map_err(|e| match e {
            rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP => {
                Error::InvalidArgument(format!("{shown} is not a folder to run in"))
            }
            e => Error::io(&shown, e),
        })?;
        Self::of(fd, &shown)
    }

    /// The folder `fd` is open on (a private tmpfs's root), for the run folder `dir`.
    pub fn from_fd(fd: BorrowedFd<'_>, dir: &Path) -> Result<Folder> {
        let shown = dir.display().to_string();
        let fd = rustix::fs::openat(fd, ".", DIR_FLAGS, Mode::empty())
            .map_err(|e| Error::io(&shown, e))?;
        Self::of(fd, &shown)
    }

    fn of(fd: OwnedFd, shown: &str) -> Result<Folder> {
        // A run whose app was killed left the folder lent: given back first.
        lent::reclaim(fd.as_fd());
        let stat = rustix::fs::fstat(&fd).map_err(|e| Error::io(shown, e))?;
        Ok(Folder {
            fd,
            mode: stat.st_mode & 0o7777,
            uid: stat.st_uid,
            gid: stat.st_gid,
        })
    }

    /// Gives the folder and everything in it to `uid`:`gid`, for a run as that
    /// user, until the returned guard takes it back. Its owner and mode are
    /// recorded on it first, so that the next open or run gives it back should
    /// the app die before the guard does.
    pub fn lend(&self, uid: u32, gid: u32) -> Lent<'_> {
        let owner = lent::Owner {
            uid: self.uid,
            gid: self.gid,
            mode: self.mode,
        };
        lent::record(self.fd.as_fd(), owner);
        Lent {
            folder: self,
            gaps: lent::chown_all(self.fd.as_fd(), uid, gid),
            taken: false,
        }
    }

    /// Gives everything back to the folder's owner from before the run, and
    /// ends the record of the lending.
    fn take_back(&self) -> Gaps {
        let gaps = lent::chown_all(self.fd.as_fd(), self.uid, self.gid);
        lent::clear(self.fd.as_fd());
        gaps
    }

    /// Clears S_ISUID, S_ISGID and others' write access everywhere below, drops
    /// POSIX ACLs, `user.*` attributes but the store's own that `kept` holds and
    /// the inode flags a run may set, gives owners back their access, and sets the
    /// folder's own mode back to what it was.
    ///
    /// A folder `MAX_DEPTH` levels down, into which no walk looks, or whose path
    /// leaves no room for a name of the store's below it (`MAX_PATH_BYTES`), is
    /// removed with all in it: what lies there would otherwise be outside every
    /// ceiling of a run (its size, its count, its modes), or cost the app the
    /// length of its path in every list; its path is in the returned list.
    ///
    /// Past `new_names` names that `before` does not hold, the rest are removed,
    /// in the order the folders list them; how many is in `Repaired::over`.
    #[cfg(test)]
    pub fn repair(&self, kept: &Kept, before: &Snapshot, new_names: u64) -> Repaired {
        self.repair_within(kept, before, new_names, u64::MAX)
    }

    /// `repair`, which also removes the new names met once their paths add up
    /// to more than `new_path_bytes`: each costs the app its path in every list.
    pub fn repair_within(
        &self,
        kept: &Kept,
        before: &Snapshot,
        new_names: u64,
        new_path_bytes: u64,
    ) -> Repaired {
        let mut removed = Vec::new();
        let mut new = 0u64;
        let mut new_bytes = 0u64;
        let mut over = 0u64;
        let _ = rustix::fs::fchmod(&self.fd, Mode::from_raw_mode(self.mode));
        // The folder's own default ACL would reach every file the app writes there.
        for acl in ["system.posix_acl_default", "system.posix_acl_access"] {
            if rustix::fs::fgetxattr(&self.fd, acl, &mut []).is_ok() {
                let _ = rustix::fs::fremovexattr(&self.fd, acl);
            }
        }
        drop_user_attributes(&fd_path(self.fd.as_fd()), "", kept);
        clear_flags(self.fd.as_fd());
        let walked = tree::walk(
            self.fd.as_fd(),
            |item| {
                if removing::is_the_gems(item) {
                    return Descend::No;
                }
                let is_dir = FileType::from_raw_mode(item.stat.st_mode) == FileType::Directory;
                let set_aside = || {
                    removing::set_aside(self.fd.as_fd(), item.dir, item.name, || {
                        if is_dir {
                            folder::remove_in_walk(item.dir, item.name)
                        } else {
                            rustix::fs::unlinkat(item.dir, item.name, AtFlags::empty())
                        }
                    })
                };
                if !before.contains_key(item.path) {
                    new += 1;
                    new_bytes += item.path.len() as u64;
                    if new > new_names || new_bytes > new_path_bytes {
                        over += u64::from(set_aside().is_ok());
                        return Descend::No;
                    }
                }
                let mode = item.stat.st_mode & 0o7777;
                let wanted = match FileType::from_raw_mode(item.stat.st_mode) {
                    FileType::Directory => (mode & !CLEARED) | 0o700,
                    FileType::RegularFile => (mode & !CLEARED) | 0o600,
                    FileType::Symlink => return Descend::Yes,
                    _ => mode & !CLEARED,
                };
                let mode = (wanted != mode).then_some(wanted);
                fix_at(item.dir, item.name, item.path, mode, kept);
                // Past the depth no walk looks into, or where no name inside
                // could be a path of the store's (each costs the app its path's
                // length, in every list it takes part in).
                let beyond = item.depth >= tree::MAX_DEPTH
                    || item.path.len() + 2 > file_store_base::path::MAX_PATH_BYTES;
                if is_dir && beyond {
                    if set_aside().is_ok() {
                        removed.push(item.path.to_string());
                    }
                    return Descend::No;
                }
                Descend::Yes
            },
            |_, _| {},
        );
        Repaired {
            gaps: walked.unwrap_or_default(),
            too_deep: removed,
            over,
        }
    }
}

/// What the repair after a run could not reach, and what it removed.
pub(super) struct Repaired {
    /// What its walk could not reach.
    pub gaps: Gaps,
    /// The folders it removed as too deep or too long.
    pub too_deep: Vec<String>,
    /// How many new names past the count it removed.
    pub over: u64,
}

/// Sets the mode of `name` in `dir` to `mode` (when given) and drops its POSIX
/// ACLs, through a descriptor opened without following a link: the C library's
/// chmod would follow one put there since the walk's stat. An ACL the run set
/// would outlive it: a named entry for the run's uid (65534 for a root app, which
/// other services of the host run as) on a file, or a default one on a folder,
/// which every file the app writes there later inherits, would let that user
/// write what the app owns.
fn fix_at(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &std::ffi::CString,
    path: &str,
    mode: Option<u32>,
    kept: &Kept,
) {
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let Ok(fd) = rustix::fs::openat(dir, name, flags, Mode::empty()) else {
        return;
    };
    let Ok(stat) = rustix::fs::fstat(&fd) else {
        return;
    };
    let kind = FileType::from_raw_mode(stat.st_mode);
    if kind == FileType::Symlink {
        return;
    }
    // An O_PATH descriptor takes no fchmod nor fremovexattr; its /proc link names
    // the same file.
    let proc_path = fd_path(fd.as_fd());
    if let Some(mode) = mode {
        let _ = rustix::fs::chmod(proc_path.as_str(), Mode::from_raw_mode(mode));
    }
    drop_acl(&proc_path, "system.posix_acl_access");
    if kind == FileType::Directory {
        drop_acl(&proc_path, "system.posix_acl_default");
    }
    drop_user_attributes(&proc_path, path, kept);
    if matches!(kind, FileType::Directory | FileType::RegularFile) {
        clear_flags_of_path(fd.as_fd());
    }
}

/// The run folder lent to the run's user; given back on `take_back` or drop.
pub(super) struct Lent<'a> {
    folder: &'a Folder,
    /// What the lending walk could not reach.
    pub gaps: Gaps,
    taken: bool,
}

impl Lent<'_> {
    /// Gives everything back to the folder's owner now.
    pub fn take_back(mut self) -> Gaps {
        self.taken = true;
        self.folder.take_back()
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if !self.taken {
            self.folder.take_back();
        }
    }
}

#[cfg(test)]
mod tests;
