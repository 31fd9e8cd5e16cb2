//! The first files of a listing: the same files, in the same order, as the whole
//! listing's first ones, and the same count, whatever the limit and the tree.

use std::os::unix::fs::symlink;

use file_store_folder::{Entry, Root};

fn store() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(&dir.path().join("store")).unwrap();
    (dir, root)
}

fn paths(entries: &[Entry]) -> Vec<String> {
    entries.iter().map(|e| e.path.clone()).collect()
}

/// A tree whose walk order is not its sorted order: folders and files at several
/// depths, names that sort before and after their folders, hidden names and links.
fn tree(root: &Root, outside: &std::path::Path) {
    for i in (0..150).rev() {
        root.write(&format!("z{i:03}.txt"), b"z").unwrap();
        root.write(&format!("a/{i}/deep.md"), b"deep").unwrap();
    }
    for path in ["a.txt", "a/b", "a-b/c", "m/n/o/p.txt", "M.txt", "é/ü.txt"] {
        root.write(path, b"x").unwrap();
    }
    std::fs::write(outside.join("store/.hidden"), b"h").unwrap();
    std::fs::create_dir_all(outside.join("store/.git")).unwrap();
    std::fs::write(outside.join("store/.git/config"), b"c").unwrap();
    symlink("/etc/passwd", outside.join("store/link.txt")).unwrap();
}

#[test]
fn the_first_files_and_the_count_are_the_whole_listings() {
    let (tmp, root) = store();
    tree(&root, tmp.path());
    let all = root.list(None).unwrap();
    for limit in [0, 1, 2, 7, 150, 299, 300, 301, 306, 10_000] {
        let first = root.list_first(None, limit).unwrap();
        assert_eq!(first.total, all.len() as u64, "limit {limit}");
        let expected: Vec<String> = paths(&all).into_iter().take(limit).collect();
        assert_eq!(paths(&first.entries), expected, "limit {limit}");
    }
    let shown = root.list_first(None, 3).unwrap();
    assert_eq!(shown.entries[0].size, all[0].size);
    assert_eq!(shown.entries[0].content_type, all[0].content_type);
}

#[test]
fn a_folder_lists_its_own_files_and_a_missing_one_none() {
    let (tmp, root) = store();
    tree(&root, tmp.path());
    let folder = root.list(Some("a")).unwrap();
    let first = root.list_first(Some("a"), 10).unwrap();
    assert_eq!(first.total, folder.len() as u64);
    assert_eq!(
        paths(&first.entries),
        paths(&folder).into_iter().take(10).collect::<Vec<_>>()
    );
    for missing in ["missing", "a.txt", ".git", "link.txt"] {
        let none = root.list_first(Some(missing), 10).unwrap();
        assert_eq!((none.entries.len(), none.total), (0, 0), "{missing}");
    }
    assert!(root.list_first(Some("../x"), 10).is_err());
}
