//! Mount links in a run folder, made and removed relative to the folder's own
//! descriptor with no symbolic link followed: a link or file the code planted in
//! place of a mount's parent folder stops the link being made, and nothing is ever
//! created outside the folder.

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use file_store_base::error::{Error, Result};

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// How a mount link went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Linked {
    /// Made; the folders created to hold it, outermost first, relative to the root.
    Made(Vec<String>),
    /// Something of the folder's own is at the path (or on the way to it).
    Taken,
}

fn open_root(root: &Path) -> Result<OwnedFd> {
    let shown = root.display().to_string();
    rustix::fs::open(root, DIR_FLAGS, Mode::empty()).map_err(|e| Error::io(&shown, e))
}

/// Links `target` at `path` (a store path, `/`-separated, already checked) inside
/// `root`, creating the missing folders on the way.
pub fn link(root: &Path, path: &str, target: &Path) -> Result<Linked> {
    let mut dir = open_root(root)?;
    let parts: Vec<&str> = path.split('/').collect();
    let (leaf, folders) = parts.split_last().expect("split yields one part at least");
    let mut made = Vec::new();
    for (i, name) in folders.iter().enumerate() {
        let created = match rustix::fs::mkdirat(dir.as_fd(), *name, Mode::from_raw_mode(0o755)) {
            Ok(()) => true,
            Err(Errno::EXIST) => false,
            Err(e) => return Err(Error::io(path, e)),
        };
        dir = match rustix::fs::openat(dir.as_fd(), *name, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => fd,
            // A file or a link where a folder should be: the folder's own.
            Err(Errno::NOTDIR | Errno::LOOP) => return Ok(Linked::Taken),
            Err(e) => return Err(Error::io(path, e)),
        };
        if created {
            made.push(folders[..=i].join("/"));
        }
    }
    match rustix::fs::symlinkat(target, dir.as_fd(), *leaf) {
        Ok(()) => Ok(Linked::Made(made)),
        Err(Errno::EXIST) => Ok(Linked::Taken),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Removes the link at `path` if it still points at `target`, then each of
/// `folders` (innermost first) that is empty. Never follows a link on the way.
pub fn unlink(root: &Path, path: &str, target: &Path, folders: &[String]) -> Result<()> {
    let root_fd = open_root(root)?;
    let (parent, leaf) = path.rsplit_once('/').unwrap_or(("", path));
    if let Some(dir) = open_below(&root_fd, parent) {
        let points_there = rustix::fs::readlinkat(dir.as_fd(), leaf, Vec::new())
            .is_ok_and(|found| found.as_bytes() == target.as_os_str().as_encoded_bytes());
        if points_there {
            let _ = rustix::fs::unlinkat(dir.as_fd(), leaf, AtFlags::empty());
        }
    }
    for folder in folders.iter().rev() {
        let (parent, name) = folder.rsplit_once('/').unwrap_or(("", folder));
        if let Some(dir) = open_below(&root_fd, parent) {
            // Fails on a folder the run filled, which then stays.
            let _ = rustix::fs::unlinkat(dir.as_fd(), name, AtFlags::REMOVEDIR);
        }
    }
    Ok(())
}

/// The folder at `path` below `root`, reached with no link followed.
fn open_below(root: &OwnedFd, path: &str) -> Option<OwnedFd> {
    let mut dir = rustix::fs::openat(root.as_fd(), ".", DIR_FLAGS, Mode::empty()).ok()?;
    for name in path.split('/').filter(|n| !n.is_empty()) {
        dir = rustix::fs::openat(dir.as_fd(), name, DIR_FLAGS, Mode::empty()).ok()?;
    }
    Some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn links_and_removes_with_the_folders_it_made() {
        let root = tempfile::tempdir().unwrap();
        let source = tempfile::tempdir().unwrap();
        let made = link(root.path(), "a/b/skills", source.path()).unwrap();
        assert_eq!(made, Linked::Made(vec!["a".into(), "a/b".into()]));
        assert_eq!(
            fs::read_link(root.path().join("a/b/skills")).unwrap(),
            source.path()
        );
        let Linked::Made(folders) = made else {
            unreachable!()
        };
        unlink(root.path(), "a/b/skills", source.path(), &folders).unwrap();
        assert_eq!(fs::read_dir(root.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_planted_link_in_place_of_a_parent_is_never_followed() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let source = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("a")).unwrap();
        assert_eq!(
            link(root.path(), "a/b/skills", source.path()).unwrap(),
            Linked::Taken
        );
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_link_repointed_by_the_run_stays() {
        let root = tempfile::tempdir().unwrap();
        let source = tempfile::tempdir().unwrap();
        link(root.path(), "skills", source.path()).unwrap();
        fs::remove_file(root.path().join("skills")).unwrap();
        std::os::unix::fs::symlink("/etc", root.path().join("skills")).unwrap();
        unlink(root.path(), "skills", source.path(), &[]).unwrap();
        assert!(root.path().join("skills").is_symlink());
    }
}
