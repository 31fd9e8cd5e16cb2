//! The record a root app keeps on a folder it lends to a run's unprivileged uid:
//! the folder's owner, group and mode from before, in the `trusted.` extended
//! attribute `LENT_ATTRIBUTE`, which only a process with `CAP_SYS_ADMIN` may read,
//! set or remove, so the run, whose uid owns the folder meanwhile, can neither
//! forge nor drop it. It is set before the folder changes hands and removed once
//! the folder is given back; an app killed in between leaves it, and the next
//! open of the store (when no run holds the store's lock) or the next run in the
//! folder gives everything back before anything else.

use std::os::fd::BorrowedFd;

use rustix::fs::{AtFlags, FlockOperation, Gid, Mode, OFlags, Uid, XattrFlags};

use crate::tree::{self, Descend, Gaps};

/// The attribute holding `"<uid> <gid> <mode>"` of a lent folder.
pub const LENT_ATTRIBUTE: &str = "trusted.ruby_llm.lent";

/// Who owned a folder and its mode, before it was lent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    /// The owner's uid.
    pub uid: u32,
    /// The group's gid.
    pub gid: u32,
    /// The folder's permission bits.
    pub mode: u32,
}

/// Records `owner` on the folder `fd` before it is lent; false where the file
/// system or the process cannot keep the record.
pub fn record(fd: BorrowedFd<'_>, owner: Owner) -> bool {
    let value = format!("{} {} {:o}", owner.uid, owner.gid, owner.mode);
    rustix::fs::fsetxattr(fd, LENT_ATTRIBUTE, value.as_bytes(), XattrFlags::empty()).is_ok()
}

/// The owner recorded on the folder `fd`, if a lending was not ended.
pub fn recorded(fd: BorrowedFd<'_>) -> Option<Owner> {
    let mut value = [0u8; 64];
    let len = rustix::fs::fgetxattr(fd, LENT_ATTRIBUTE, &mut value).ok()?;
    let text = std::str::from_utf8(&value[..len]).ok()?;
    let mut parts = text.split(' ');
    let owner = Owner {
        uid: parts.next()?.parse().ok()?,
        gid: parts.next()?.parse().ok()?,
        mode: u32::from_str_radix(parts.next()?, 8).ok()? & 0o7777,
    };
    parts.next().is_none().then_some(owner)
}

/// Ends the record on the folder `fd`, once it is given back.
pub fn clear(fd: BorrowedFd<'_>) {
    let _ = rustix::fs::fremovexattr(fd, LENT_ATTRIBUTE);
}

/// Gives the folder `fd` and everything below it to `uid`:`gid`, never
/// following a link; returns what the walk could not reach.
pub fn chown_all(fd: BorrowedFd<'_>, uid: u32, gid: u32) -> Gaps {
    let _ = rustix::fs::fchown(fd, Some(as_uid(uid)), Some(as_gid(gid)));
    let walked = tree::walk(
        fd,
        |item| {
            if crate::removing::is_the_gems(item) {
                return Descend::No;
            }
            if item.stat.st_uid != uid || item.stat.st_gid != gid {
                let _ = rustix::fs::chownat(
                    item.dir,
                    item.name,
                    Some(as_uid(uid)),
                    Some(as_gid(gid)),
                    AtFlags::SYMLINK_NOFOLLOW,
                );
            }
            Descend::Yes
        },
        |_, _| {},
    );
    walked.unwrap_or_default()
}

/// Where the folder `fd` holds the record of a lending its app did not end (it
/// was killed mid-run), gives the folder and everything below it back to the
/// recorded owner, sets its mode back and ends the record; returns the owner
/// given back to, if any. Only a process that may read `trusted.` attributes
/// (root) finds one.
pub fn reclaim(fd: BorrowedFd<'_>) -> Option<Owner> {
    let owner = recorded(fd)?;
    chown_all(fd, owner.uid, owner.gid);
    let _ = rustix::fs::fchmod(fd, Mode::from_raw_mode(owner.mode));
    clear(fd);
    Some(owner)
}

/// [`reclaim`] for an open of the store, which may find the folder lent by a run
/// that is going on in another process: only when no one holds the store's lock
/// (`flock` on the folder, which a workspace run holds for its length and a
/// killed app's death lets go).
pub fn reclaim_unless_held(fd: BorrowedFd<'_>) -> Option<Owner> {
    recorded(fd)?;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let own = rustix::fs::openat(fd, ".", flags, Mode::empty()).ok()?;
    rustix::fs::flock(&own, FlockOperation::NonBlockingLockExclusive).ok()?;
    // The lock goes with `own`.
    reclaim(fd)
}

fn as_uid(uid: u32) -> Uid {
    // SAFETY: any number names a uid; the kernel checks the call.
    unsafe { Uid::from_raw(uid) }
}

fn as_gid(gid: u32) -> Gid {
    // SAFETY: as for the uid.
    unsafe { Gid::from_raw(gid) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn a_lending_left_open_is_given_back_and_its_record_ended() {
        if !rustix::process::geteuid().is_root() {
            eprintln!("only root lends a folder: nothing to check");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("d/f"), "x").unwrap();
        let fd = rustix::fs::open(dir.path(), tree::DIR_FLAGS, Mode::empty()).unwrap();
        let owner = Owner {
            uid: 0,
            gid: 0,
            mode: 0o750,
        };
        assert!(record(fd.as_fd(), owner));
        chown_all(fd.as_fd(), 65534, 65534);
        assert_eq!(
            std::fs::metadata(dir.path().join("d/f")).unwrap().uid(),
            65534
        );
        assert_eq!(reclaim(fd.as_fd()), Some(owner));
        for path in ["", "d", "d/f"] {
            let meta = std::fs::symlink_metadata(dir.path().join(path)).unwrap();
            assert_eq!((meta.uid(), meta.gid()), (0, 0), "{path:?}");
        }
        assert_eq!(
            std::fs::metadata(dir.path()).unwrap().mode() & 0o7777,
            0o750
        );
        assert_eq!(recorded(fd.as_fd()), None);
        assert_eq!(reclaim(fd.as_fd()), None);
    }

    #[test]
    fn an_open_leaves_a_folder_lent_by_a_run_that_holds_the_lock() {
        if !rustix::process::geteuid().is_root() {
            eprintln!("only root lends a folder: nothing to check");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let fd = rustix::fs::open(dir.path(), tree::DIR_FLAGS, Mode::empty()).unwrap();
        let owner = Owner {
            uid: 0,
            gid: 0,
            mode: 0o700,
        };
        assert!(record(fd.as_fd(), owner));
        chown_all(fd.as_fd(), 65534, 65534);
        let held = rustix::fs::open(dir.path(), tree::DIR_FLAGS, Mode::empty()).unwrap();
        rustix::fs::flock(&held, FlockOperation::LockExclusive).unwrap();
        assert_eq!(reclaim_unless_held(fd.as_fd()), None);
        assert_eq!(std::fs::metadata(dir.path()).unwrap().uid(), 65534);
        drop(held);
        assert_eq!(reclaim_unless_held(fd.as_fd()), Some(owner));
        assert_eq!(std::fs::metadata(dir.path()).unwrap().uid(), 0);
    }
}
