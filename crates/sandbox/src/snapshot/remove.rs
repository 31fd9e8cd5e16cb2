//! Removing what a snapshot listed, by the path it listed it at, relative to
//! descriptors and never through a link.

use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

use rustix::fs::{FileType, Mode};

use file_store_base::error::{Error, Result};
use file_store_base::tree::DIR_FLAGS;

/// Removes the regular file a snapshot of `root` listed at `path`, opening each
/// folder on the way relative to the last, never through a link: a name the
/// snapshot shows in its lossy form (U+FFFD) is matched against that form, so a
/// file whose name is not UTF-8 can be removed too. Returns whether one was.
pub fn remove(root: &Path, path: &str) -> Result<bool> {
    remove_as(root, path, true)
}

/// Removes the entry other than a regular file a snapshot of `root` listed at
/// `path`, as `remove` finds it: a folder only when it is empty, a link, a FIFO or
/// a socket. Returns whether one was.
pub fn remove_entry(root: &Path, path: &str) -> Result<bool> {
    remove_as(root, path, false)
}

fn remove_as(root: &Path, path: &str, file: bool) -> Result<bool> {
    let shown = root.display().to_string();
    let fail = |e| Error::io(format!("{shown}/{path}"), e);
    let top = rustix::fs::open(root, DIR_FLAGS, Mode::empty()).map_err(fail)?;
    let mut dir = rustix::fs::openat(&top, ".", DIR_FLAGS, Mode::empty()).map_err(fail)?;
    let names: Vec<&str> = path.split('/').collect();
    let Some((last, folders)) = names.split_last() else {
        return Ok(false);
    };
    for name in folders {
        let Some(real) = real_name(dir.as_fd(), name).map_err(fail)? else {
            return Ok(false);
        };
        dir = match rustix::fs::openat(&dir, &real, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP) => {
                return Ok(false)
            }
            Err(e) => return Err(fail(e)),
        };
    }
    let Some(real) = real_name(dir.as_fd(), last).map_err(fail)? else {
        return Ok(false);
    };
    let stat = match rustix::fs::statat(&dir, &real, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => stat,
        Err(rustix::io::Errno::NOENT) => return Ok(false),
        Err(e) => return Err(fail(e)),
    };
    let kind = FileType::from_raw_mode(stat.st_mode);
    if (kind == FileType::RegularFile) != file {
        return Ok(false);
    }
    let flags = if kind == FileType::Directory {
        rustix::fs::AtFlags::REMOVEDIR
    } else {
        rustix::fs::AtFlags::empty()
    };
    if kind == FileType::Directory && !empty_folder(dir.as_fd(), &real).map_err(fail)? {
        return Ok(false);
    }
    // Moved aside (a rename), to be removed after the call: `run::removing`.
    let removed = crate::removing::set_aside(top.as_fd(), dir.as_fd(), &real, || {
        rustix::fs::unlinkat(&dir, &real, flags)
    });
    match removed {
        Ok(()) => Ok(true),
        // Something the snapshot did not see is still in the folder: it stays.
        Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTEMPTY | rustix::io::Errno::EXIST) => {
            Ok(false)
        }
        Err(e) => Err(fail(e)),
    }
}

/// Whether the folder `name` in `dir` holds nothing.
fn empty_folder(dir: BorrowedFd<'_>, name: &std::ffi::CStr) -> rustix::io::Result<bool> {
    let fd = match rustix::fs::openat(dir, name, DIR_FLAGS, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => return Ok(false),
        Err(e) => return Err(e),
    };
    for item in rustix::fs::Dir::read_from(&fd)? {
        let name = item?.file_name().to_bytes().to_vec();
        if name != b"." && name != b".." {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The name in `dir` that `shown` stands for: itself, or for a lossy form, the
/// first name read whose lossy form it is.
fn real_name(dir: BorrowedFd<'_>, shown: &str) -> rustix::io::Result<Option<std::ffi::CString>> {
    if !shown.contains('\u{fffd}') {
        return Ok(std::ffi::CString::new(shown).ok());
    }
    let fd = rustix::fs::openat(dir, ".", DIR_FLAGS, Mode::empty())?;
    for item in rustix::fs::Dir::read_from(&fd)? {
        let name = item?.file_name().to_owned();
        if String::from_utf8_lossy(name.to_bytes()) == shown {
            return Ok(Some(name));
        }
    }
    Ok(None)
}
