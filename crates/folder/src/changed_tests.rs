//! What the store tells of a file once another program changed it: the stamp of
//! a version, and a kept content type.

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
    assert_eq!(
        stamp,
        Some(file_store_base::version::stamp(&file, &stat).unwrap())
    );
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

#[test]
fn a_kept_type_is_dropped_once_another_program_rewrites_the_file() {
    let (tmp, root) = store();
    root.write_typed("data", b"{\"a\": 1}", Some("application/json".to_string()))
        .unwrap();
    assert_eq!(
        root.stat("data").unwrap().unwrap().content_type,
        "application/json"
    );
    // The extended attribute stays with the inode a program rewrites in place.
    rewrite_in_place(&tmp.path().join("store/data"), b"%PDF-1.4 not json", false);
    assert_eq!(
        root.stat("data").unwrap().unwrap().content_type,
        "application/pdf"
    );
    assert_eq!(root.list(None).unwrap()[0].content_type, "application/pdf");
    assert_eq!(
        root.open_typed("data", root.types_kept()).unwrap().1,
        "application/pdf"
    );
}

#[test]
fn a_kept_type_stays_while_the_bytes_are_those_it_was_given_for() {
    let (_tmp, root) = store();
    root.write_typed("data", b"{\"a\": 1}", Some("application/json".to_string()))
        .unwrap();
    root.write_typed("other", b"x", None).unwrap();
    assert_eq!(root.list(None).unwrap()[0].content_type, "application/json");
    assert_eq!(
        root.open_typed("data", root.types_kept()).unwrap().1,
        "application/json"
    );
}

#[test]
fn a_kept_type_names_the_size_and_mtime_it_was_given_for() {
    use entry::{kept_for, type_record};
    let record = type_record("text/csv", 12, (1_700_000_000, 5));
    assert_eq!(record, "text/csv\n12 1700000000.000000005");
    let kept = |size, mtime| kept_for(record.as_bytes(), size, mtime);
    assert_eq!(kept(12, (1_700_000_000, 5)), Some("text/csv".to_string()));
    assert_eq!(kept(13, (1_700_000_000, 5)), None);
    assert_eq!(kept(12, (1_700_000_000, 6)), None);
    // A type kept before types named their bytes is taken as it is.
    assert_eq!(
        kept_for(b"text/csv", 1, (0, 0)),
        Some("text/csv".to_string())
    );
    assert_eq!(kept_for(b"text/csv\ngarbage", 1, (0, 0)), None);
}
