//! What a run may leave on a file besides its bytes and mode: extended attributes
//! and inode flags. The repair after a run removes the `user.*` attributes and the
//! flags a run's user may set, and keeps the store's own attributes
//! (`user.ruby_llm.*`: a content type a write kept, the folder's mark that some
//! file has one) as they were before the run: one the run added goes like any
//! other, one it changed or removed is set back.

use std::collections::HashMap;
use std::ffi::CString;
use std::os::fd::{AsFd, BorrowedFd};

use rustix::fs::{IFlags, Mode, OFlags};
use rustix::path::Arg;

use file_store_base::tree::{self, Descend};

/// The prefix of the store's own extended attributes.
const OWN_PREFIX: &[u8] = b"user.ruby_llm.";

/// `FS_NOCOMP_FL` (`chattr +m`), which rustix does not name.
const NOCOMP: u32 = 0x0000_0400;
/// `FS_DAX_FL` (`chattr +x`).
const DAX: u32 = 0x0200_0000;

/// The inode flags a file's owner may set without a capability, each of which
/// the store never sets: `chattr +S +A +d +D +c +m +s +u +t +T +C +P +x` (and `+j`,
/// which needs one, where a file system lets it through). Immutable and
/// append-only need `CAP_LINUX_IMMUTABLE`, which no run has, and are left as the
/// host's administrator set them.
fn run_flags() -> IFlags {
    IFlags::SYNC
        | IFlags::NOATIME
        | IFlags::NODUMP
        | IFlags::DIRSYNC
        | IFlags::COMPRESSED
        | IFlags::SECURE_REMOVAL
        | IFlags::UNRM
        | IFlags::NOTAIL
        | IFlags::TOPDIR
        | IFlags::NOCOW
        | IFlags::PROJECT_INHERIT
        | IFlags::JOURNALING
        | IFlags::from_bits_retain(NOCOMP | DAX)
}

/// Extended attributes of one file: each name with its value.
type Attributes = Vec<(Vec<u8>, Vec<u8>)>;

/// The store's own attributes of each file and folder, by path below the run
/// folder (`""` for the folder itself), as they were before the run.
#[derive(Debug, Default)]
pub(super) struct Kept(HashMap<String, Attributes>);

impl Kept {
    /// Records the `user.ruby_llm.*` attributes of `root` and of everything below
    /// it, hidden names included, no link followed.
    pub fn record(root: BorrowedFd<'_>) -> Kept {
        let mut kept = HashMap::new();
        let own = fd_path(root);
        if let Some(found) = own_attributes(own.as_str(), Named::ByFd) {
            kept.insert(String::new(), found);
        }
        let _ = tree::walk(
            root,
            |item| {
                // Through the folder's descriptor: the name itself, no link on the way.
                let mut path = fd_path(item.dir).into_bytes();
                path.push(b'/');
                path.extend_from_slice(item.name.to_bytes());
                let Ok(path) = CString::new(path) else {
                    return Descend::Yes;
                };
                if let Some(found) = own_attributes(path.as_c_str(), Named::ByName) {
                    kept.insert(item.path.to_string(), found);
                }
                Descend::Yes
            },
            |_, _| {},
        );
        Kept(kept)
    }

    /// Whether the file at `path` below the run folder had the attribute `name`
    /// with the value `value` before the run.
    fn had(&self, path: &str, name: &[u8], value: &[u8]) -> bool {
        self.0
            .get(path)
            .is_some_and(|found| found.iter().any(|(n, v)| n == name && v == value))
    }
}

/// The `/proc` path of the file open as `fd`, which names it whatever its path.
pub(super) fn fd_path(fd: BorrowedFd<'_>) -> String {
    format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&fd))
}

/// How a path names its file: a `/proc/self/fd/N` path is followed to the file
/// open as N; a `/proc/self/fd/N/name` path names `name` itself, never followed.
#[derive(Clone, Copy)]
enum Named {
    ByFd,
    ByName,
}

/// The names of the extended attributes of the file at `path`, or none.
fn names<P: Arg + Copy>(path: P, named: Named) -> Vec<Vec<u8>> {
    let list = |buf: &mut [u8]| match named {
        Named::ByFd => rustix::fs::listxattr(path, buf),
        Named::ByName => rustix::fs::llistxattr(path, buf),
    };
    let Ok(len) = list(&mut []) else {
        return Vec::new();
    };
    if len == 0 {
        return Vec::new();
    }
    let mut names = vec![0u8; len];
    let Ok(len) = list(&mut names) else {
        return Vec::new();
    };
    names[..len]
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// The value of the attribute `name` of the file at `path`, up to 4 KiB.
fn value<P: Arg + Copy>(path: P, named: Named, name: &[u8]) -> Option<Vec<u8>> {
    let name = CString::new(name).ok()?;
    let mut value = vec![0u8; 4096];
    let len = match named {
        Named::ByFd => rustix::fs::getxattr(path, name.as_c_str(), &mut value),
        Named::ByName => rustix::fs::lgetxattr(path, name.as_c_str(), &mut value),
    }
    .ok()?;
    value.truncate(len);
    Some(value)
}

/// The store's own attributes of the file at `path`, with their values, if any.
fn own_attributes<P: Arg + Copy>(path: P, named: Named) -> Option<Attributes> {
    let found: Vec<_> = names(path, named)
        .into_iter()
        .filter(|name| name.starts_with(OWN_PREFIX))
        .filter_map(|name| value(path, named, &name).map(|value| (name, value)))
        .collect();
    (!found.is_empty()).then_some(found)
}

/// Removes every `user.*` extended attribute of the file at `proc_path` (its
/// `/proc` path), the ones it has only (like an absent ACL, removing an absent one
/// would set the ctime), but the store's own that `kept` holds for `path` with the
/// same value, which it sets back where the run changed or removed it. What a
/// run stores there (a `user.mime_type` another tool trusts,
/// a content type the store would, kilobytes of data the store never lists)
/// would outlive it unseen.
pub(super) fn drop_user_attributes(proc_path: &str, path: &str, kept: &Kept) {
    let at = Named::ByFd;
    for name in names(proc_path, at) {
        if !name.starts_with(b"user.") {
            continue;
        }
        if name.starts_with(OWN_PREFIX)
            && value(proc_path, at, &name).is_some_and(|value| kept.had(path, &name, &value))
        {
            continue;
        }
        if let Ok(name) = CString::new(name) {
            let _ = rustix::fs::removexattr(proc_path, name.as_c_str());
        }
    }
    // One the run removed or changed is the store's record of the path, not the
    // run's: it is set back as it was.
    for (name, was) in kept.0.get(path).into_iter().flatten() {
        if value(proc_path, at, name).as_ref() != Some(was) {
            if let Ok(name) = CString::new(name.as_slice()) {
                let flags = rustix::fs::XattrFlags::empty();
                let _ = rustix::fs::setxattr(proc_path, name.as_c_str(), was, flags);
            }
        }
    }
}

/// Removes the ACL `name` of the file at `path` when it has one. Only then: removing
/// an ACL that is not there still sets the file's ctime on some file systems
/// (tmpfs), and the run's snapshot would count every file as changed.
pub(super) fn drop_acl(path: &str, name: &str) {
    if rustix::fs::getxattr(path, name, &mut []).is_ok() {
        let _ = rustix::fs::removexattr(path, name);
    }
}

/// Clears the inode flags a run may have set (`run_flags`) on the file or folder
/// open as `fd`, where it has any: a file with none is left alone, its ctime too.
pub(super) fn clear_flags(fd: BorrowedFd<'_>) {
    if let Ok(flags) = rustix::fs::ioctl_getflags(fd) {
        if flags.intersects(run_flags()) {
            let _ = rustix::fs::ioctl_setflags(fd, flags.difference(run_flags()));
        }
    }
}

/// Clears the run's inode flags of the file or folder that the `O_PATH`
/// descriptor `fd` names, which takes no ioctl: reopened for reading through its
/// `/proc` path, which names the same file.
pub(super) fn clear_flags_of_path(fd: BorrowedFd<'_>) {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    if let Ok(open) = rustix::fs::open(fd_path(fd.as_fd()).as_str(), flags, Mode::empty()) {
        clear_flags(open.as_fd());
    }
}
