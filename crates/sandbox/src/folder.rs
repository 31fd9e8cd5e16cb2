//! Copy mode's run folders: made on a tmpfs of their own, in namespaces only their
//! runs enter, so a run fills at most its size; removed relative to descriptors,
//! so no depth of folders (past PATH_MAX) and no link the code left stops it.

use std::ffi::CString;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode};
use rustix::io::Errno;

use super::private;
use file_store_base::error::{Error, Result};
use file_store_base::tree::{DIR_FLAGS, MAX_DEPTH};

/// Makes the empty folder `dir` a tmpfs of `bytes` and at most `inodes` files,
/// folders and links (each costs the kernel memory the size does not count),
/// nosuid and nodev, in
/// namespaces only its runs enter (`private`), whoever the app runs as. Returns the
/// path the app reaches the folder's files by, or `None` where the kernel allows
/// no such namespace (user namespaces off, for an app that is not root): the
/// folder is then the plain one on disk. The tmpfs is made by `make` with the
/// mount options it is given (`PrivateTmpfs::mount_with` here, or a process that
/// sends its descriptors back, as the app's supervisor does).
pub fn mount_tmpfs_by(
    dir: &Path,
    bytes: u64,
    inodes: u64,
    make: impl FnOnce(&Path, &str) -> Result<private::PrivateTmpfs>,
) -> Result<Option<PathBuf>> {
    if dir.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(Error::InvalidArgument(format!(
            "{} holds a NUL byte",
            dir.display()
        )));
    }
    let made = make(dir, &private::options(bytes, inodes));
    Ok(made.ok().map(|tmpfs| private::keep(dir, tmpfs)))
}

/// Removes the folder `dir` and everything in it: a tmpfs on it is let go, and
/// the rest is removed one name at a time relative to its folder's descriptor.
/// Nothing behind a link is touched.
pub fn remove(dir: &Path) -> Result<()> {
    private::forget(dir);
    let shown = dir.display().to_string();
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(Error::InvalidArgument(format!(
            "{shown} is not a folder to remove"
        )));
    };
    let parent =
        rustix::fs::open(parent, DIR_FLAGS, Mode::empty()).map_err(|e| Error::io(&shown, e))?;
    remove_at(
        parent.as_fd(),
        &CString::new(name.as_encoded_bytes()).expect("a file name"),
    )
    .map_err(|e| Error::io(&shown, e))
}

/// Levels a removal from within a walk descends before it moves a folder up:
/// the walk already holds a descriptor for each of its own levels.
const WITHIN_WALK_DEPTH: usize = 16;

/// Removes `name` in `parent`, a folder with all below it or anything else.
fn remove_at(parent: BorrowedFd<'_>, name: &CString) -> std::result::Result<(), Errno> {
    remove_within(parent, name, MAX_DEPTH)
}

/// [`remove_at`] for a walk at its deepest, which holds `MAX_DEPTH` descriptors
/// already: at most `WITHIN_WALK_DEPTH` more.
pub(super) fn remove_in_walk(
    parent: BorrowedFd<'_>,
    name: &CString,
) -> std::result::Result<(), Errno> {
    remove_within(parent, name, WITHIN_WALK_DEPTH)
}

/// Removes `name` in `parent`, holding at most `depth` descriptors below it.
fn remove_within(
    parent: BorrowedFd<'_>,
    name: &CString,
    depth: usize,
) -> std::result::Result<(), Errno> {
    let root = match open_dir(parent, name) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(()),
        Err(Errno::NOTDIR | Errno::LOOP) => {
            return rustix::fs::unlinkat(parent, name, AtFlags::empty())
        }
        Err(e) => return Err(e),
    };
    // Folders deeper than MAX_DEPTH are moved up into the root, and the emptying
    // starts again, until nothing was moved.
    let mut moved = 0u64;
    while empty(root.as_fd(), &mut moved, depth)? {}
    rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR)
}

/// Removes everything below the folder open on `dir`, however deep, never
/// through a link; the folder itself stays.
pub(super) fn empty_all(dir: BorrowedFd<'_>) -> std::result::Result<(), Errno> {
    let mut moved = 0u64;
    while empty(dir, &mut moved, MAX_DEPTH)? {}
    Ok(())
}

/// Opens a folder to empty it, giving its owner access first if a run took it.
fn open_dir(parent: BorrowedFd<'_>, name: &CString) -> std::result::Result<OwnedFd, Errno> {
    let dir = match rustix::fs::openat(parent, name, DIR_FLAGS, Mode::empty()) {
        Err(Errno::ACCESS) => {
            rustix::fs::chmodat(parent, name, Mode::from_raw_mode(0o700), AtFlags::empty())?;
            rustix::fs::openat(parent, name, DIR_FLAGS, Mode::empty())
        }
        other => other,
    }?;
    writable(dir.as_fd())?;
    Ok(dir)
}

/// Gives the owner write and search access to an open folder that lacks them:
/// a run's `chmod 500` folder opens, but nothing in it could be removed, and
/// the removal would stop there on every try.
fn writable(dir: BorrowedFd<'_>) -> std::result::Result<(), Errno> {
    let mode = rustix::fs::fstat(dir)?.st_mode;
    if mode & 0o300 != 0o300 {
        rustix::fs::fchmod(dir, Mode::from_raw_mode((mode & 0o7777) | 0o700))?;
    }
    Ok(())
}

/// Removes everything below `root` down to `max_depth`; returns whether a deeper
/// folder was moved up into `root` instead, to be emptied on the next pass.
fn empty(
    root: BorrowedFd<'_>,
    moved: &mut u64,
    max_depth: usize,
) -> std::result::Result<bool, Errno> {
    let mut again = false;
    // (folder, its name in the folder above, names left in it)
    let first = rustix::fs::openat(root, ".", DIR_FLAGS, Mode::empty())?;
    writable(first.as_fd())?;
    let names = names_in(&first)?;
    let mut stack: Vec<(OwnedFd, Option<CString>, Vec<CString>)> = vec![(first, None, names)];
    while !stack.is_empty() {
        let depth = stack.len();
        let (fd, _, names) = stack.last_mut().expect("the stack is not empty");
        let Some(name) = names.pop() else {
            let (_, own, _) = stack.pop().expect("the loop saw it");
            if let (Some(own), Some((above, _, _))) = (own, stack.last()) {
                rustix::fs::unlinkat(above.as_fd(), &own, AtFlags::REMOVEDIR)?;
            }
            continue;
        };
        let kind = match rustix::fs::statat(fd.as_fd(), &name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => FileType::from_raw_mode(stat.st_mode),
            Err(Errno::NOENT) => continue,
            Err(e) => return Err(e),
        };
        if kind != FileType::Directory {
            rustix::fs::unlinkat(fd.as_fd(), &name, AtFlags::empty())?;
            continue;
        }
        if depth >= max_depth {
            *moved += 1;
            let fresh = CString::new(format!(".ruby_llm_deep_{moved}")).expect("no NUL");
            rustix::fs::renameat(fd.as_fd(), &name, root, &fresh)?;
            again = true;
            continue;
        }
        let child = open_dir(fd.as_fd(), &name)?;
        let below = names_in(&child)?;
        stack.push((child, Some(name), below));
    }
    Ok(again)
}

fn names_in(fd: &OwnedFd) -> std::result::Result<Vec<CString>, Errno> {
    let mut found = Vec::new();
    for item in rustix::fs::Dir::read_from(fd)? {
        let item = item?;
        let name = item.file_name();
        if name.to_bytes() != b"." && name.to_bytes() != b".." {
            found.push(name.to_owned());
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn removes_a_chain_longer_than_path_max_and_leaves_what_links_point_at() {
        let base = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("keep.txt"), "x").unwrap();
        let dir = base.path().join("run");
        fs::create_dir(&dir).unwrap();
        // 3,000 levels of "dd": 9,000 bytes of path, made relative to each folder.
        let mut fd = rustix::fs::open(&dir, DIR_FLAGS, Mode::empty()).unwrap();
        for _ in 0..3000 {
            rustix::fs::mkdirat(&fd, "dd", Mode::from_raw_mode(0o755)).unwrap();
            fd = rustix::fs::openat(&fd, "dd", DIR_FLAGS, Mode::empty()).unwrap();
        }
        rustix::fs::symlinkat(outside.path(), &fd, "out").unwrap();
        rustix::fs::chmodat(&fd, ".", Mode::empty(), AtFlags::empty()).unwrap();
        drop(fd);
        std::os::unix::fs::symlink(outside.path(), dir.join("top-link")).unwrap();
        remove(&dir).unwrap();
        assert!(!dir.exists());
        assert!(outside.path().join("keep.txt").exists());
    }

    #[test]
    fn a_missing_folder_is_removed_already() {
        let base = tempfile::tempdir().unwrap();
        remove(&base.path().join("gone")).unwrap();
    }
}
