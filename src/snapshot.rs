//! Snapshots of a folder, and what changed between two of them.
//!
//! A code run writes into its folder; comparing a snapshot taken before with one
//! taken after tells which files it created, changed or deleted, without reading
//! any content. A file counts as changed when its size, its modification time or
//! its status-change time (ctime, which no process can set back) differ, so code
//! that restores a file's mtime after writing it does not hide the write. The walk
//! (`crate::tree`) holds only the descriptors of a folder's ancestors, never follows
//! a link, and keeps hidden names apart: the store does not list them, but a run
//! that leaves a file there is held to the same limits.

use std::collections::BTreeMap;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

use rustix::fs::{FileType, Mode};

use crate::error::{Error, Result};
use crate::tree::{self, Descend, Gaps, DIR_FLAGS};

/// What a snapshot keeps of one regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status-change time, in nanoseconds since the epoch.
    pub ctime_ns: i128,
    /// Whether the name, or a folder's on the way, is not UTF-8: the store cannot
    /// hold it, and it is kept under its lossy form only to be reported.
    pub unnamed: bool,
    /// Whether the name, or a folder's on the way, starts with a dot: the store does
    /// not list it, but what a run leaves there still counts against its limits.
    pub hidden: bool,
}

/// Every regular file below a folder, by path relative to it.
pub type Snapshot = BTreeMap<String, Stamp>;

/// What changed from one snapshot to the next, each list sorted by path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Files that were not there before.
    pub created: Vec<String>,
    /// Files whose size, mtime or ctime differ.
    pub changed: Vec<String>,
    /// Files that are gone.
    pub deleted: Vec<String>,
    /// Created or changed files whose names are not UTF-8 (shown with U+FFFD), in
    /// none of the other lists.
    pub unnamed: Vec<String>,
    /// Created or changed files under a hidden name, in none of the other lists.
    pub hidden: Vec<String>,
}

/// Takes the snapshot of `root`: each regular file's size and times, symbolic links
/// left out, hidden names marked.
pub fn take(root: &Path) -> Result<Snapshot> {
    let shown = root.display().to_string();
    let fd = rustix::fs::open(root, DIR_FLAGS, Mode::empty()).map_err(|e| Error::io(&shown, e))?;
    Ok(take_fd(fd.as_fd()).map_err(|e| Error::io(&shown, e))?.0)
}

/// The snapshot of the folder open on `root`, with what the walk could not see (a
/// folder too deep, or one it may not read).
pub fn take_fd(root: BorrowedFd<'_>) -> std::result::Result<(Snapshot, Gaps), rustix::io::Errno> {
    let mut files = Snapshot::new();
    let gaps = tree::walk(
        root,
        |item| {
            let stat = item.stat;
            if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile {
                let ns = |sec: i64, nsec: i64| sec as i128 * 1_000_000_000 + nsec as i128;
                files.insert(
                    item.path.to_string(),
                    Stamp {
                        size: stat.st_size as u64,
                        mtime_ns: ns(stat.st_mtime as i64, stat.st_mtime_nsec as i64),
                        ctime_ns: ns(stat.st_ctime as i64, stat.st_ctime_nsec as i64),
                        unnamed: item.unnamed,
                        hidden: item.path.split('/').any(|name| name.starts_with('.')),
                    },
                );
            }
            Descend::Yes
        },
        |_, _| {},
    )?;
    Ok((files, gaps))
}

/// Removes the regular file a snapshot of `root` listed at `path`, opening each
/// folder on the way relative to the last, never through a link: a name the
/// snapshot shows in its lossy form (U+FFFD) is matched against that form, so a
/// file whose name is not UTF-8 can be removed too. Returns whether one was.
pub fn remove(root: &Path, path: &str) -> Result<bool> {
    let shown = root.display().to_string();
    let fail = |e| Error::io(format!("{shown}/{path}"), e);
    let mut dir = rustix::fs::open(root, DIR_FLAGS, Mode::empty()).map_err(fail)?;
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
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Ok(false);
    }
    match rustix::fs::unlinkat(&dir, &real, rustix::fs::AtFlags::empty()) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::NOENT) => Ok(false),
        Err(e) => Err(fail(e)),
    }
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

/// What changed from `before` to `after`.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Changes {
    let mut changes = Changes::default();
    for (path, stamp) in after {
        if stamp.unnamed || stamp.hidden {
            if before.get(path) != Some(stamp) {
                let list = if stamp.unnamed {
                    &mut changes.unnamed
                } else {
                    &mut changes.hidden
                };
                list.push(path.clone());
            }
            continue;
        }
        match before.get(path) {
            None => changes.created.push(path.clone()),
            Some(old) if old != stamp => changes.changed.push(path.clone()),
            Some(_) => {}
        }
    }
    changes.deleted = before
        .iter()
        .filter(|(path, stamp)| !stamp.unnamed && !stamp.hidden && !after.contains_key(*path))
        .map(|(path, _)| path)
        .cloned()
        .collect();
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::{Duration, SystemTime};

    fn set_mtime(path: &Path, time: SystemTime) {
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    }

    #[test]
    fn lists_regular_files_by_relative_path() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("a/b")).unwrap();
        fs::write(dir.path().join("top.txt"), "12345").unwrap();
        fs::write(dir.path().join("a/b/deep.csv"), "x").unwrap();
        let snap = take(dir.path()).unwrap();
        assert_eq!(
            snap.keys().collect::<Vec<_>>(),
            vec!["a/b/deep.csv", "top.txt"]
        );
        assert_eq!(snap["top.txt"].size, 5);
    }

    #[test]
    fn leaves_out_links_and_hidden_names_and_never_walks_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            dir.path().join("file-link"),
        )
        .unwrap();
        assert!(take(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn hidden_names_are_kept_apart_from_the_lists() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join(".git")).unwrap();
        fs::write(dir.path().join(".git/HEAD"), "ref").unwrap();
        let before = take(dir.path()).unwrap();
        assert!(before[".git/HEAD"].hidden);
        fs::write(dir.path().join(".git/HEAD"), "other").unwrap();
        fs::write(dir.path().join(".big"), "h").unwrap();
        fs::write(dir.path().join("seen.txt"), "s").unwrap();
        let changes = diff(&before, &take(dir.path()).unwrap());
        assert_eq!(changes.created, vec!["seen.txt"]);
        assert!(changes.changed.is_empty(), "{changes:?}");
        assert_eq!(changes.hidden, vec![".big", ".git/HEAD"]);
        let after = take(dir.path()).unwrap();
        fs::remove_file(dir.path().join(".big")).unwrap();
        let gone = diff(&after, &take(dir.path()).unwrap());
        assert!(gone.deleted.is_empty(), "{gone:?}");
    }

    #[test]
    fn diff_finds_created_changed_and_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let old = SystemTime::now() - Duration::from_secs(60);
        for name in ["same.txt", "resized.txt", "touched.txt", "gone.txt"] {
            fs::write(root.join(name), "abc").unwrap();
            set_mtime(&root.join(name), old);
        }
        let before = take(root).unwrap();
        fs::write(root.join("resized.txt"), "abcdef").unwrap();
        set_mtime(&root.join("resized.txt"), old);
        set_mtime(&root.join("touched.txt"), SystemTime::now());
        fs::remove_file(root.join("gone.txt")).unwrap();
        fs::write(root.join("new.png"), [0u8; 10]).unwrap();
        let changes = diff(&before, &take(root).unwrap());
        assert_eq!(changes.created, vec!["new.png"]);
        assert_eq!(changes.changed, vec!["resized.txt", "touched.txt"]);
        assert_eq!(changes.deleted, vec!["gone.txt"]);
    }

    #[test]
    fn a_write_whose_mtime_was_set_back_is_still_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.csv");
        fs::write(&path, "a,b").unwrap();
        let old = fs::metadata(&path).unwrap().modified().unwrap();
        let before = take(dir.path()).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        fs::write(&path, "c,d").unwrap();
        set_mtime(&path, old);
        let after = take(dir.path()).unwrap();
        assert_eq!(before["data.csv"].mtime_ns, after["data.csv"].mtime_ns);
        assert_eq!(diff(&before, &after).changed, vec!["data.csv"]);
    }

    #[test]
    fn a_name_that_is_not_utf8_is_reported_apart() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let before = take(dir.path()).unwrap();
        let latin1 = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
        fs::write(dir.path().join(latin1), "x").unwrap();
        fs::create_dir(dir.path().join(latin1).with_extension("d")).unwrap();
        fs::write(
            dir.path().join(latin1).with_extension("d").join("in.txt"),
            "x",
        )
        .unwrap();
        let changes = diff(&before, &take(dir.path()).unwrap());
        assert!(changes.created.is_empty(), "{changes:?}");
        assert_eq!(
            changes.unnamed,
            vec!["caf\u{fffd}.d/in.txt", "caf\u{fffd}.txt"]
        );
    }

    #[test]
    fn remove_takes_a_file_by_its_listed_path_lossy_names_included_never_through_a_link() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let latin1 = dir.path().join(std::ffi::OsStr::from_bytes(b".caf\xe9"));
        fs::create_dir(&latin1).unwrap();
        fs::write(latin1.join("big"), "x").unwrap();
        fs::write(outside.path().join("keep"), "k").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        assert!(remove(dir.path(), ".caf\u{fffd}/big").unwrap());
        assert!(!latin1.join("big").exists());
        assert!(!remove(dir.path(), "out/keep").unwrap());
        assert!(!remove(dir.path(), "out").unwrap());
        assert!(outside.path().join("keep").exists());
        assert!(!remove(dir.path(), "no/such").unwrap());
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_it() {
        let err = take(Path::new("/no/such/folder")).unwrap_err();
        assert!(err.to_string().contains("/no/such/folder"), "{err}");
    }

    #[test]
    fn a_link_as_the_root_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("me")).unwrap();
        assert!(take(&dir.path().join("me")).is_err());
    }
}
