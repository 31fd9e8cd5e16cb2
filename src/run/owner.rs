//! Who owns the run folder during a run and after it.
//!
//! A sandboxed run never runs as root on the host: when the app is root, the
//! folder is handed to the run's unprivileged uid before the run and taken back
//! after, so that what the code makes is never a root-owned file while it runs.
//! After every run, whoever the app is, each file and folder below loses S_ISUID
//! and S_ISGID and gets back its owner's access (read and write, and search for a
//! folder), and the folder itself its own mode: no setuid file outlives a run, and
//! no `chmod 0` locks the store out of its own folder. All of it through the
//! folder's descriptor, hidden names included, no link followed.

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Gid, Mode, OFlags, Uid};

use crate::error::{Error, Result};
use crate::tree::{self, Descend, Gaps, DIR_FLAGS};

const SETID: u32 = 0o6000;

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
        let stat = rustix::fs::fstat(&fd).map_err(|e| Error::io(&shown, e))?;
        Ok(Folder {
            fd,
            mode: stat.st_mode & 0o7777,
            uid: stat.st_uid,
            gid: stat.st_gid,
        })
    }

    /// Gives the folder and everything in it to `uid`:`gid`, for a run as that
    /// user, until the returned guard takes it back.
    pub fn lend(&self, uid: u32, gid: u32) -> Lent<'_> {
        let _ = rustix::fs::fchown(&self.fd, owner(uid), group(gid));
        Lent {
            folder: self,
            gaps: self.chown_all(uid, gid),
            taken: false,
        }
    }

    /// Gives everything back to the folder's owner from before the run.
    fn take_back(&self) -> Gaps {
        let _ = rustix::fs::fchown(&self.fd, owner(self.uid), group(self.gid));
        self.chown_all(self.uid, self.gid)
    }

    fn chown_all(&self, uid: u32, gid: u32) -> Gaps {
        let walked = tree::walk(
            self.fd.as_fd(),
            |item| {
                if item.stat.st_uid != uid || item.stat.st_gid != gid {
                    let _ = rustix::fs::chownat(
                        item.dir,
                        item.name,
                        owner(uid),
                        group(gid),
                        AtFlags::SYMLINK_NOFOLLOW,
                    );
                }
                Descend::Yes
            },
            |_, _| {},
        );
        walked.unwrap_or_default()
    }

    /// Clears S_ISUID and S_ISGID everywhere below, gives owners back their access,
    /// and sets the folder's own mode back to what it was.
    pub fn repair(&self) -> Gaps {
        let _ = rustix::fs::fchmod(&self.fd, Mode::from_raw_mode(self.mode));
        let walked = tree::walk(
            self.fd.as_fd(),
            |item| {
                let mode = item.stat.st_mode & 0o7777;
                let wanted = match FileType::from_raw_mode(item.stat.st_mode) {
                    FileType::Directory => (mode & !SETID) | 0o700,
                    FileType::RegularFile => (mode & !SETID) | 0o600,
                    FileType::Symlink => return Descend::Yes,
                    _ => mode & !SETID,
                };
                if wanted != mode {
                    chmod_at(item.dir, item.name, wanted);
                }
                Descend::Yes
            },
            |_, _| {},
        );
        walked.unwrap_or_default()
    }
}

/// Sets the mode of `name` in `dir`, through a descriptor opened without following
/// a link: the C library's chmod would follow one put there since the walk's stat.
fn chmod_at(dir: std::os::fd::BorrowedFd<'_>, name: &std::ffi::CString, mode: u32) {
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let Ok(fd) = rustix::fs::openat(dir, name, flags, Mode::empty()) else {
        return;
    };
    let Ok(stat) = rustix::fs::fstat(&fd) else {
        return;
    };
    if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink {
        return;
    }
    // An O_PATH descriptor takes no fchmod; its /proc link names the same file.
    let path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&fd));
    let _ = rustix::fs::chmod(path.as_str(), Mode::from_raw_mode(mode));
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

fn owner(uid: u32) -> Option<Uid> {
    // SAFETY: any number names a uid; the kernel checks the call.
    Some(unsafe { Uid::from_raw(uid) })
}

fn group(gid: u32) -> Option<Gid> {
    // SAFETY: as for the uid.
    Some(unsafe { Gid::from_raw(gid) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn repair_clears_setid_bits_hidden_names_included_and_restores_access() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".cache/locked")).unwrap();
        fs::write(root.join(".cache/.t"), "x").unwrap();
        fs::write(root.join("shell"), "x").unwrap();
        fs::set_permissions(root.join(".cache/.t"), fs::Permissions::from_mode(0o6755)).unwrap();
        fs::set_permissions(root.join("shell"), fs::Permissions::from_mode(0o4000)).unwrap();
        fs::set_permissions(root.join(".cache/locked"), fs::Permissions::from_mode(0o0)).unwrap();
        let folder = Folder::open(root).unwrap();
        fs::set_permissions(root, fs::Permissions::from_mode(0o0)).unwrap();
        let gaps = folder.repair();
        assert!(gaps.is_empty(), "{gaps:?}");
        let mode = |p: &str| fs::symlink_metadata(root.join(p)).unwrap().mode() & 0o7777;
        assert_eq!(mode(".cache/.t"), 0o755);
        assert_eq!(mode("shell"), 0o600);
        assert_eq!(mode(".cache/locked"), 0o700);
        assert_eq!(mode(""), folder.mode);
    }

    #[test]
    fn repair_never_follows_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("target"), "x").unwrap();
        fs::set_permissions(
            outside.path().join("target"),
            fs::Permissions::from_mode(0o4755),
        )
        .unwrap();
        std::os::unix::fs::symlink(outside.path().join("target"), dir.path().join("link")).unwrap();
        Folder::open(dir.path()).unwrap().repair();
        let mode = fs::metadata(outside.path().join("target")).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o4755);
    }
}
