//! What the store tells of a file once another program changed it: the stamp of
//! a version.

use std::os::unix::fs::FileExt;

use super::*;

fn store() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(&dir.path().join("store")).unwrap();
    (dir, root)
}

/// Rewrites the start of the file at `path` in place, as another program would,
/// and sets its mtime back when `keep_mtime` says so.
fn rewrite_in_place(path: &Path, bytes: &[u8], keep_mtime: bool) {
    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(0).unwrap();
    file.write_all_at(bytes, 0).unwrap();
    if keep_mtime {
        file.set_modified(mtime).unwrap();
    }
}

#[test]
fn a_written_entry_has_the_stamp_a_later_read_takes() {
    let (_tmp, root) = store();
    let written = root.write("big", &[b'x'; 100_000]).unwrap();
    let stamp = root.stamp_of(&written).unwrap();
    assert!(stamp.is_some());
    let file = root.open_file("big").unwrap();
    let stat = file.metadata().unwrap();
    assert_eq!(stamp, Some(crate::version::stamp(&file, &stat).unwrap()));
    assert_eq!(
        root.stamp_of(&root.stat("big").unwrap().unwrap()).unwrap(),
        stamp
    );
}

#[test]
fn no_stamp_for_an_entry_whose_file_changed_since() {
    let (tmp, root) = store();
    let written = root.write("big", &[b'x'; 100_000]).unwrap();
    rewrite_in_place(&tmp.path().join("store/big"), &[b'y'; 100_000], true);
    assert_eq!(root.stamp_of(&written).unwrap(), None);
    root.delete("big").unwrap();
    assert_eq!(root.stamp_of(&written).unwrap(), None);
}
