//! Snapshots of a folder, and what changed between two of them.
//!
//! A code run writes into its folder; comparing a snapshot taken before with one
//! taken after tells which files it created, changed or deleted. The size, the
//! modification time and the status-change time (ctime, which no process can set
//! back) tell which files the run touched; for those the content tells whether
//! they changed (`content`): a digest taken before the run, within a byte budget,
//! against one taken after, so neither a restored mtime hides a write nor a
//! `touch` or a `chmod` counts as one. A file past the budget counts as changed
//! when its size or a time differs. Folders, links and other entries are kept
//! too, without content, so what a run made of them can be counted. The walk
//! (`file_store_base::tree`) holds only the descriptors of a folder's ancestors, never follows
//! a link, and keeps apart the names the store does not list (`path::seen`, the
//! rule the store's own walks apply): hidden ones, and those no store path holds.
//! A run that leaves a file there is held to the same limits.

use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

use rustix::fs::{FileType, Mode};

use file_store_base::error::{Error, Result};
use file_store_base::path::{self, Seen};
use file_store_base::tree::{self, Descend, Gaps, DIR_FLAGS};

mod content;
mod remove;
mod stamp;

pub use content::Digests;
pub use remove::{remove, remove_entry};
pub use stamp::{Snapshot, Stamp};

/// What changed from one snapshot to the next, each list sorted by path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Files that were not there before.
    pub created: Vec<String>,
    /// Files the run touched (a size or a time differs) whose content differs,
    /// or whose content was not digested.
    pub changed: Vec<String>,
    /// Files that are gone.
    pub deleted: Vec<String>,
    /// Created or changed files under a name no store path holds (`path::seen`):
    /// not UTF-8 (shown with U+FFFD), refused, too long or too deep; in none of the
    /// other lists.
    pub unnamed: Vec<String>,
    /// Created or changed files under a hidden name, in none of the other lists.
    pub hidden: Vec<String>,
    /// Entries other than regular files (folders, links, FIFOs, sockets) that were
    /// not there before, hidden and unnamed ones included.
    pub entries: Vec<String>,
}

/// The regular file at `path` in `snapshot`.
fn file_at<'a>(snapshot: &'a Snapshot, path: &str) -> Option<&'a Stamp> {
    snapshot.get(path).filter(|stamp| stamp.file)
}

/// Takes the snapshot of `root`: each entry's kind and each regular file's size
/// and times, links never followed, hidden names marked, no content read.
pub fn take(root: &Path) -> Result<Snapshot> {
    let shown = root.display().to_string();
    let fd = rustix::fs::open(root, DIR_FLAGS, Mode::empty()).map_err(|e| Error::io(&shown, e))?;
    Ok(take_fd(fd.as_fd(), Digests::None)
        .map_err(|e| Error::io(&shown, e))?
        .0)
}

/// The bytes of paths a snapshot holds at most, whatever its count of names:
/// with the paths of at most 4,096 bytes the store takes, 16,384 of them.
pub const MAX_PATH_BYTES_HELD: u64 = 64 << 20;

/// The snapshot of the folder open on `root`, with the content digests `digests`
/// asks for and what the walk could not see (a folder too deep, or one it may not
/// read).
pub fn take_fd(
    root: BorrowedFd<'_>,
    digests: Digests<'_>,
) -> std::result::Result<(Snapshot, Gaps), rustix::io::Errno> {
    take_within(root, digests, u64::MAX, u64::MAX).map(|taken| taken.expect("no ceiling"))
}

/// The snapshot `take_fd` takes, or `None` as soon as the folder holds more
/// than `names` names (files, folders, links, hidden ones included) or their
/// paths more than `path_bytes` bytes: the walk then keeps nothing more, so
/// what it held stays within them.
pub fn take_within(
    root: BorrowedFd<'_>,
    digests: Digests<'_>,
    names: u64,
    path_bytes: u64,
) -> std::result::Result<Option<(Snapshot, Gaps)>, rustix::io::Errno> {
    let mut entries = Snapshot::new();
    let gaps = stream_within(root, digests, names, path_bytes, |path, stamp| {
        entries.insert(path.to_string(), *stamp);
        true
    })?;
    Ok(gaps.map(|gaps| (entries, gaps)))
}

/// The walk of `take_within`, handing each entry's path and stamp to `keep`
/// rather than keeping them: `None` once the folder holds more than `names`
/// names or `path_bytes` bytes of their paths, or once `keep` says to stop.
pub fn stream_within(
    root: BorrowedFd<'_>,
    digests: Digests<'_>,
    names: u64,
    path_bytes: u64,
    mut keep: impl FnMut(&str, &Stamp) -> bool,
) -> std::result::Result<Option<Gaps>, rustix::io::Errno> {
    let mut digester = content::Digester::new(digests);
    let mut held = 0u64;
    let mut count = 0u64;
    let mut over = false;
    let gaps = tree::walk(
        root,
        |item| {
            if crate::removing::is_the_gems(item) {
                return Descend::No;
            }
            held += item.path.len() as u64;
            if over || count >= names || held > path_bytes {
                over = true;
                return Descend::No;
            }
            let stat = item.stat;
            let file = FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile;
            let ns = |sec: i64, nsec: i64| sec as i128 * 1_000_000_000 + nsec as i128;
            let seen = path::seen_path(item.path, item.unnamed);
            let mut stamp = Stamp {
                file,
                size: if file { stat.st_size as u64 } else { 0 },
                mtime_ns: ns(stat.st_mtime as i64, stat.st_mtime_nsec as i64),
                ctime_ns: ns(stat.st_ctime as i64, stat.st_ctime_nsec as i64),
                unnamed: seen == Seen::Unnamed,
                hidden: seen == Seen::Hidden,
                digest: None,
            };
            if file {
                stamp.digest = digester.digest(item.dir, item.name, item.path, &stamp);
            }
            count += 1;
            if !keep(item.path, &stamp) {
                over = true;
                return Descend::No;
            }
            Descend::Yes
        },
        |_, _| {},
    )?;
    Ok((!over).then_some(gaps))
}

/// What changed from `before` to `after`.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Changes {
    let mut changes = Changes::default();
    for (path, stamp) in after {
        if !stamp.file {
            if before.get(path).is_none_or(|old| old.file) {
                changes.entries.push(path.clone());
            }
            continue;
        }
        let old = file_at(before, path);
        if stamp.unnamed || stamp.hidden {
            if !old.is_some_and(|old| old.same(stamp)) {
                let list = if stamp.unnamed {
                    &mut changes.unnamed
                } else {
                    &mut changes.hidden
                };
                list.push(path.clone());
            }
            continue;
        }
        match old {
            None => changes.created.push(path.clone()),
            Some(old) if !old.same(stamp) => changes.changed.push(path.clone()),
            Some(_) => {}
        }
    }
    changes.deleted = deleted(before, after).cloned().collect();
    changes
}

/// The listable files of `before` that `after` lacks as files: the deleted ones.
pub fn deleted<'a>(before: &'a Snapshot, after: &'a Snapshot) -> impl Iterator<Item = &'a String> {
    before
        .iter()
        .filter(|(path, stamp)| {
            stamp.file && !stamp.unnamed && !stamp.hidden && file_at(after, path).is_none()
        })
        .map(|(path, _)| path)
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

    fn files(snap: &Snapshot) -> Vec<&str> {
        snap.iter()
            .filter(|(_, stamp)| stamp.file)
            .map(|(path, _)| path.as_str())
            .collect()
    }

    fn digested(root: &Path, budget: u64) -> Snapshot {
        let fd = rustix::fs::open(root, DIR_FLAGS, Mode::empty()).unwrap();
        take_fd(fd.as_fd(), Digests::Budget(budget)).unwrap().0
    }

    fn touched(root: &Path, before: &Snapshot) -> Snapshot {
        let fd = rustix::fs::open(root, DIR_FLAGS, Mode::empty()).unwrap();
        take_fd(fd.as_fd(), Digests::Touched(before)).unwrap().0
    }

    #[test]
    fn with_digests_a_touch_or_a_chmod_is_no_change_and_same_size_new_bytes_are() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in ["touched", "chmodded", "rewritten", "same-bytes"] {
            fs::write(root.join(name), "a,b").unwrap();
        }
        let old = fs::metadata(root.join("rewritten"))
            .unwrap()
            .modified()
            .unwrap();
        let before = digested(root, 1 << 20);
        assert!(before.values().all(|stamp| stamp.digest.is_some()));
        std::thread::sleep(Duration::from_millis(20));
        set_mtime(&root.join("touched"), SystemTime::now());
        fs::set_permissions(root.join("chmodded"), fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(root.join("rewritten"), "c,d").unwrap();
        set_mtime(&root.join("rewritten"), old);
        fs::write(root.join("same-bytes"), "a,b").unwrap();
        set_mtime(&root.join("same-bytes"), old);
        let after = touched(root, &before);
        assert_eq!(diff(&before, &after).changed, vec!["rewritten"]);
    }

    #[test]
    fn a_file_past_the_digest_budget_is_told_by_its_times() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("big"), "0123456789").unwrap();
        fs::write(root.join("small"), "01").unwrap();
        let before = digested(root, 5);
        assert!(before["big"].digest.is_none());
        assert!(before["small"].digest.is_some());
        std::thread::sleep(Duration::from_millis(20));
        set_mtime(&root.join("big"), SystemTime::now());
        set_mtime(&root.join("small"), SystemTime::now());
        let after = touched(root, &before);
        assert_eq!(diff(&before, &after).changed, vec!["big"]);
    }

    #[test]
    fn new_folders_and_links_are_entries_and_a_file_turned_folder_is_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("was-file"), "x").unwrap();
        let before = take(root).unwrap();
        fs::remove_file(root.join("was-file")).unwrap();
        fs::create_dir_all(root.join("was-file/.inner")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("link")).unwrap();
        let changes = diff(&before, &take(root).unwrap());
        assert_eq!(changes.entries, vec!["link", "was-file", "was-file/.inner"]);
        assert_eq!(changes.deleted, vec!["was-file"]);
        assert!(changes.created.is_empty(), "{changes:?}");
    }

    #[test]
    fn lists_regular_files_by_relative_path() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("a/b")).unwrap();
        fs::write(dir.path().join("top.txt"), "12345").unwrap();
        fs::write(dir.path().join("a/b/deep.csv"), "x").unwrap();
        let snap = take(dir.path()).unwrap();
        assert_eq!(files(&snap), vec!["a/b/deep.csv", "top.txt"]);
        assert_eq!(snap["top.txt"].size, 5);
        assert!(!snap["a/b"].file);
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
        let snap = take(dir.path()).unwrap();
        assert!(files(&snap).is_empty(), "{snap:?}");
        assert_eq!(snap.keys().collect::<Vec<_>>(), vec!["file-link", "linked"]);
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
    fn remove_entry_takes_empty_folders_and_links_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/empty")).unwrap();
        fs::create_dir(root.join("full")).unwrap();
        fs::write(root.join("full/f"), "x").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("a/link")).unwrap();
        assert!(remove_entry(root, "a/empty").unwrap());
        assert!(remove_entry(root, "a/link").unwrap());
        assert!(remove_entry(root, "a").unwrap());
        assert!(!remove_entry(root, "full").unwrap());
        assert!(!remove_entry(root, "full/f").unwrap());
        assert!(root.join("full/f").exists());
        assert!(Path::new("/etc").exists());
    }

    #[test]
    fn take_within_stops_past_its_names_or_bytes() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join(".h")).unwrap();
        (0..5).for_each(|i| fs::write(dir.path().join(format!(".h/{i}")), "x").unwrap());
        let fd = rustix::fs::open(dir.path(), DIR_FLAGS, Mode::empty()).unwrap();
        let within = |names, bytes| take_within(fd.as_fd(), Digests::None, names, bytes).unwrap();
        assert_eq!(within(6, 100).map(|(snap, _)| snap.len()), Some(6));
        assert!(within(5, 100).is_none());
        assert!(within(6, 10).is_none());
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
