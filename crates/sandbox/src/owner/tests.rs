use super::*;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

/// A folder on a tmpfs where there is one, as copy-mode run folders are: there
/// even removing an attribute that is not there sets the ctime.
fn tmpfs_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

#[test]
fn repair_leaves_a_file_it_has_nothing_to_mend_untouched() {
    // On a tmpfs, as copy-mode run folders are, even removing an ACL that is not
    // there sets the ctime.
    let dir = tmpfs_dir();
    let root = dir.path();
    fs::create_dir(root.join("data")).unwrap();
    fs::write(root.join("data/revenue.csv"), "x").unwrap();
    fs::set_permissions(
        root.join("data/revenue.csv"),
        fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let ctime = |p: &str| {
        let meta = fs::symlink_metadata(root.join(p)).unwrap();
        (meta.ctime(), meta.ctime_nsec())
    };
    let before = (ctime("data"), ctime("data/revenue.csv"));
    std::thread::sleep(std::time::Duration::from_millis(20));
    let gaps = Folder::open(root)
        .unwrap()
        .repair(&Kept::default(), &Snapshot::new(), u64::MAX)
        .gaps;
    assert!(gaps.is_empty(), "{gaps:?}");
    // A changed ctime would make the run's snapshot report the file as changed.
    assert_eq!((ctime("data"), ctime("data/revenue.csv")), before);
}

#[test]
fn repair_clears_setid_bits_hidden_names_included_and_restores_access() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join(".cache/locked")).unwrap();
    fs::write(root.join(".cache/.t"), "x").unwrap();
    fs::write(root.join("shell"), "x").unwrap();
    fs::set_permissions(root.join(".cache/.t"), fs::Permissions::from_mode(0o6755)).unwrap();
    fs::set_permissions(root.join("shell"), fs::Permissions::from_mode(0o4000)).unwrap();
    fs::set_permissions(root.join(".cache/locked"), fs::Permissions::from_mode(0o0)).unwrap();
    fs::create_dir(root.join("open")).unwrap();
    fs::write(root.join("open/w.txt"), "x").unwrap();
    fs::set_permissions(root.join("open/w.txt"), fs::Permissions::from_mode(0o666)).unwrap();
    fs::set_permissions(root.join("open"), fs::Permissions::from_mode(0o1777)).unwrap();
    let folder = Folder::open(root).unwrap();
    fs::set_permissions(root, fs::Permissions::from_mode(0o0)).unwrap();
    let gaps = folder
        .repair(&Kept::default(), &Snapshot::new(), u64::MAX)
        .gaps;
    assert!(gaps.is_empty(), "{gaps:?}");
    let mode = |p: &str| fs::symlink_metadata(root.join(p)).unwrap().mode() & 0o7777;
    assert_eq!(mode(".cache/.t"), 0o755);
    assert_eq!(mode("open"), 0o1755);
    assert_eq!(mode("open/w.txt"), 0o644);
    assert_eq!(mode("shell"), 0o600);
    assert_eq!(mode(".cache/locked"), 0o700);
    assert_eq!(mode(""), folder.mode);
}

#[test]
fn repair_drops_acls_a_default_one_on_a_folder_included() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("shared")).unwrap();
    fs::write(root.join("file"), "x").unwrap();
    // user::rwx, user:65534:rwx, group::r-x, mask::rwx, other::r-x
    let mut acl = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in [
        (1u16, 7u16, u32::MAX),
        (2, 7, 65534),
        (4, 5, u32::MAX),
        (0x10, 7, u32::MAX),
        (0x20, 5, u32::MAX),
    ] {
        acl.extend(tag.to_le_bytes());
        acl.extend(perm.to_le_bytes());
        acl.extend(id.to_le_bytes());
    }
    let set = |path: &Path, name: &str| {
        rustix::fs::setxattr(path, name, &acl, rustix::fs::XattrFlags::empty())
    };
    if set(&root.join("shared"), "system.posix_acl_default").is_err() {
        eprintln!("no POSIX ACLs on this file system: nothing to check");
        return;
    }
    set(&root.join("file"), "system.posix_acl_access").unwrap();
    Folder::open(root)
        .unwrap()
        .repair(&Kept::default(), &Snapshot::new(), u64::MAX);
    let mut buf = [0u8; 256];
    for (path, name) in [
        ("shared", "system.posix_acl_default"),
        ("file", "system.posix_acl_access"),
    ] {
        let got = rustix::fs::getxattr(root.join(path).as_path(), name, &mut buf);
        assert_eq!(got, Err(rustix::io::Errno::NODATA), "{path}");
    }
}

#[test]
fn repair_drops_user_attributes_only_where_there_are_some() {
    let dir = tmpfs_dir();
    let root = dir.path();
    fs::create_dir(root.join(".d")).unwrap();
    fs::write(root.join("tagged"), "x").unwrap();
    fs::write(root.join("plain"), "x").unwrap();
    let set = |path: &Path, name: &str| {
        rustix::fs::setxattr(path, name, b"v", rustix::fs::XattrFlags::empty())
    };
    if set(&root.join("tagged"), "user.mime_type").is_err() {
        eprintln!("no user attributes on this file system: nothing to check");
        return;
    }
    set(&root.join(".d"), "user.a").unwrap();
    set(root, "user.b").unwrap();
    let ctime = |p: &str| {
        let meta = fs::symlink_metadata(root.join(p)).unwrap();
        (meta.ctime(), meta.ctime_nsec())
    };
    let plain = ctime("plain");
    std::thread::sleep(std::time::Duration::from_millis(20));
    Folder::open(root)
        .unwrap()
        .repair(&Kept::default(), &Snapshot::new(), u64::MAX);
    for path in ["tagged", ".d", ""] {
        let listed = rustix::fs::listxattr(root.join(path).as_path(), &mut []).unwrap();
        assert_eq!(listed, 0, "{path:?}");
    }
    assert_eq!(ctime("plain"), plain);
}

#[test]
fn repair_keeps_the_stores_own_attributes_as_they_were_before_the_run() {
    let dir = tmpfs_dir();
    let root = dir.path();
    for name in ["kept.md", "changed.csv", "forged.txt"] {
        fs::write(root.join(name), "x").unwrap();
    }
    let set = |path: &Path, value: &[u8]| {
        let name = "user.ruby_llm.content_type";
        rustix::fs::setxattr(path, name, value, rustix::fs::XattrFlags::empty())
    };
    if set(&root.join("kept.md"), b"text/x-custom").is_err() {
        eprintln!("no user attributes on this file system: nothing to check");
        return;
    }
    set(&root.join("changed.csv"), b"text/csv").unwrap();
    let folder = Folder::open(root).unwrap();
    let kept = Kept::record(folder.fd.as_fd());
    // What the run does: a type changed, one forged.
    set(&root.join("changed.csv"), b"text/html").unwrap();
    set(&root.join("forged.txt"), b"text/html").unwrap();
    folder.repair(&kept, &Snapshot::new(), u64::MAX);
    let get = |name: &str| {
        let mut value = [0u8; 64];
        let path = root.join(name);
        let name = "user.ruby_llm.content_type";
        let len = rustix::fs::getxattr(path.as_path(), name, &mut value);
        len.ok().map(|len| value[..len].to_vec())
    };
    assert_eq!(get("kept.md"), Some(b"text/x-custom".to_vec()));
    assert_eq!(get("changed.csv"), Some(b"text/csv".to_vec()));
    assert_eq!(get("forged.txt"), None);
}

#[test]
fn repair_removes_folders_past_the_walks_depth_or_the_longest_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut fd = rustix::fs::open(dir.path(), DIR_FLAGS, Mode::empty()).unwrap();
    for _ in 0..140 {
        rustix::fs::mkdirat(&fd, "d", Mode::from_raw_mode(0o755)).unwrap();
        fd = rustix::fs::openat(&fd, "d", DIR_FLAGS, Mode::empty()).unwrap();
    }
    let long = "x".repeat(250);
    let mut fd = rustix::fs::open(dir.path(), DIR_FLAGS, Mode::empty()).unwrap();
    for _ in 0..20 {
        rustix::fs::mkdirat(&fd, long.as_str(), Mode::from_raw_mode(0o755)).unwrap();
        fd = rustix::fs::openat(&fd, long.as_str(), DIR_FLAGS, Mode::empty()).unwrap();
    }
    let repaired =
        Folder::open(dir.path())
            .unwrap()
            .repair(&Kept::default(), &Snapshot::new(), u64::MAX);
    let (gaps, removed) = (repaired.gaps, repaired.too_deep);
    assert!(gaps.is_empty(), "{gaps:?}");
    let mut depths = Vec::new();
    let walked = tree::walk(
        Folder::open(dir.path()).unwrap().fd.as_fd(),
        |item| {
            depths.push((item.depth, item.path.len()));
            Descend::Yes
        },
        |_, _| {},
    );
    assert!(walked.unwrap().is_empty());
    assert_eq!(removed.len(), 2, "{removed:?}");
    assert_eq!(
        depths.iter().map(|(d, _)| *d).max(),
        Some(tree::MAX_DEPTH - 1)
    );
    let longest = depths.iter().map(|(_, len)| *len).max().unwrap();
    assert!(
        longest + 2 <= file_store_base::path::MAX_PATH_BYTES,
        "{longest}"
    );
}

#[test]
fn repair_removes_new_names_past_the_count_and_keeps_the_old_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("old.txt"), "x").unwrap();
    let before = crate::snapshot::take(root).unwrap();
    fs::create_dir(root.join("new")).unwrap();
    for i in 0..30 {
        fs::write(root.join(format!("new/{i}")), "x").unwrap();
        fs::write(root.join(format!("n{i}")), "x").unwrap();
    }
    let repaired = Folder::open(root)
        .unwrap()
        .repair(&Kept::default(), &before, 10);
    let left: Vec<_> = walkdir_names(root);
    assert!(left.contains(&"old.txt".to_string()), "{left:?}");
    assert_eq!(left.len(), 11, "{left:?}");
    assert!(repaired.over > 0);
    let aside = fs::read_dir(root.join(crate::removing::REMOVING)).unwrap();
    assert_eq!(aside.count() as u64, repaired.over);
}

/// Every name below `root`, hidden ones included, but those set aside to be
/// removed (`removing`).
fn walkdir_names(root: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let fd = rustix::fs::open(root, DIR_FLAGS, Mode::empty()).unwrap();
    tree::walk(
        fd.as_fd(),
        |item| {
            if crate::removing::is_the_gems(item) {
                return Descend::No;
            }
            names.push(item.path.to_string());
            Descend::Yes
        },
        |_, _| {},
    )
    .unwrap();
    names
}

#[test]
fn repair_never_follows_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("target"), "x").unwrap();
    fs::set_permissions(
        outside.path().join("target"),
        fs::Permissions::from_mode(0o4755),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path().join("target"), dir.path().join("link")).unwrap();
    Folder::open(dir.path())
        .unwrap()
        .repair(&Kept::default(), &Snapshot::new(), u64::MAX);
    let mode = fs::metadata(outside.path().join("target")).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o4755);
}
