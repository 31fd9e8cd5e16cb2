//! The walks of a store's folder apply one rule (`path::seen`): the listing
//! (`Root::list`), the search's walk in path order (`Root::file_paths`) and a run's
//! snapshot (the files a snapshot says a run created) each give exactly the regular
//! files whose paths the store takes as they are, none hidden, over a folder holding
//! every kind of name the rule decides on. A walk that decided otherwise on any of
//! them (a depth, a length, a hidden or refused name, a link) fails here.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

use file_store_base::{path, tree};
use file_store_folder::Root;
use file_store_sandbox::snapshot;

const DIR: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW);

/// Makes the file `relative` below `root`, one folder at a time from the last: its
/// path may be longer than the kernel takes in one call.
fn file(root: &Path, relative: &[u8]) {
    let mut dir = rustix::fs::open(root, DIR, Mode::empty()).unwrap();
    let mut parts: Vec<&[u8]> = relative.split(|b| *b == b'/').collect();
    let name = parts.pop().unwrap();
    for part in parts {
        let part = OsStr::from_bytes(part);
        match rustix::fs::mkdirat(&dir, part, Mode::from_raw_mode(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => panic!("{e}"),
        }
        dir = rustix::fs::openat(&dir, part, DIR, Mode::empty()).unwrap();
    }
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC;
    let fd = rustix::fs::openat(
        &dir,
        OsStr::from_bytes(name),
        flags,
        Mode::from_raw_mode(0o644),
    );
    rustix::io::write(fd.unwrap(), b"x").unwrap();
}

/// A folder with a file under every kind of name and place the rule decides on.
fn every_kind_of_name(root: &Path) {
    for name in [
        &b"a.txt"[..],
        b"sub/b.txt",
        b"sub/deeper/c.txt",
        b"del\x7f.txt",
        "next\u{85}line.txt".as_bytes(),
        "x\u{2028}y.txt".as_bytes(),
        b".hidden.txt",
        b".folder/x.txt",
        b"sub/.write-temporary",
        b"not-utf8-\xff.txt",
        b"not-utf8-\xfe/inner.txt",
        b"back\\slash.txt",
        b"back\\slash/inner.txt",
        b"control-\x01.txt",
        b"control-\x1f/inner.txt",
    ] {
        file(root, name);
    }
    std::os::unix::fs::symlink("a.txt", root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink("sub", root.join("link-folder")).unwrap();
    let fifo = std::ffi::CString::new(root.join("pipe").as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo reads `fifo`, a NUL-terminated CString alive for the call.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    // A file on every level of a chain deeper than a store path may be.
    let mut chain = b"deep".to_vec();
    for _ in 0..tree::MAX_DEPTH + 2 {
        file(root, &[&chain[..], b"/f"].concat());
        chain.extend_from_slice(b"/d");
    }
    // A file on every level of a chain longer than a store path may be.
    let long = vec![b'l'; 200];
    let mut chain = b"long".to_vec();
    while chain.len() <= path::MAX_PATH_BYTES + 400 {
        file(root, &[&chain[..], b"/file.txt"].concat());
        chain.extend_from_slice(b"/");
        chain.extend_from_slice(&long);
    }
}

/// Every regular file below the folder open on `dir`, by a plain walk that follows
/// no link and leaves nothing out.
fn regular_files(dir: &OwnedFd, prefix: &[u8], found: &mut Vec<Vec<u8>>) {
    for entry in Dir::read_from(dir).unwrap() {
        let name = entry.unwrap().file_name().to_owned();
        if name.to_bytes() == b"." || name.to_bytes() == b".." {
            continue;
        }
        let relative = match prefix {
            [] => name.to_bytes().to_vec(),
            _ => [prefix, b"/", name.to_bytes()].concat(),
        };
        let stat = rustix::fs::statat(dir, &name, AtFlags::SYMLINK_NOFOLLOW).unwrap();
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => {
                let inner = rustix::fs::openat(dir, &name, DIR, Mode::empty()).unwrap();
                regular_files(&inner, &relative, found);
            }
            FileType::RegularFile => found.push(relative),
            _ => {}
        }
    }
}

/// The paths the store takes as they are, none hidden: what every walk must give.
fn storable(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let dir = rustix::fs::open(root, DIR, Mode::empty()).unwrap();
    regular_files(&dir, b"", &mut found);
    let mut paths: Vec<String> = found
        .into_iter()
        .filter_map(|bytes| String::from_utf8(bytes).ok())
        .filter(|p| path::normalize(p).ok().as_deref() == Some(p.as_str()) && !path::hidden(p))
        .collect();
    paths.sort();
    paths
}

#[test]
fn the_listing_the_search_walk_and_the_snapshot_give_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    every_kind_of_name(root);
    let expected = storable(root);
    // The oracle sees the chains' ends and the plain names, and no refused one.
    assert!(expected.contains(&"sub/deeper/c.txt".to_string()));
    assert!(!expected.contains(&"del\u{7f}.txt".to_string()));
    assert!(expected
        .iter()
        .any(|p| p.split('/').count() == tree::MAX_DEPTH));
    assert!(expected
        .iter()
        .all(|p| p.split('/').count() <= tree::MAX_DEPTH));
    assert!(expected
        .iter()
        .any(|p| p.len() > path::MAX_PATH_BYTES - 201));
    assert!(expected.iter().all(|p| p.len() <= path::MAX_PATH_BYTES));

    let store = Root::open(root).unwrap();
    let listed = store
        .list(None)
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect();
    same("the listing", listed, &expected);
    same(
        "the search's walk",
        store.file_paths(None).unwrap(),
        &expected,
    );
    let after = snapshot::take(root).unwrap();
    let created = snapshot::diff(&snapshot::Snapshot::new(), &after).created;
    same("the files a snapshot says a run made", created, &expected);
}

/// Fails naming, each cut short, the paths `got` has and `expected` has not, and
/// the other way round.
fn same(walk: &str, mut got: Vec<String>, expected: &[String]) {
    got.sort();
    let not_in = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter()
            .filter(|p| !b.contains(p))
            .map(|p| path::brief(p))
            .collect()
    };
    let (extra, missing) = (not_in(&got, expected), not_in(expected, &got));
    assert!(
        got == expected,
        "{walk} gives {} paths it should not, and leaves out {}: {extra:?}, {missing:?}",
        extra.len(),
        missing.len()
    );
}

#[test]
fn the_snapshot_keeps_apart_what_the_listing_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    every_kind_of_name(root);
    let changes = snapshot::diff(&snapshot::Snapshot::new(), &snapshot::take(root).unwrap());
    for hidden in [".hidden.txt", ".folder/x.txt", "sub/.write-temporary"] {
        assert!(changes.hidden.contains(&hidden.to_string()), "{hidden}");
    }
    for unnamed in [
        "not-utf8-\u{fffd}.txt",
        "not-utf8-\u{fffd}/inner.txt",
        "back\\slash.txt",
        "back\\slash/inner.txt",
        "control-\u{1}.txt",
        "control-\u{1f}/inner.txt",
    ] {
        assert!(changes.unnamed.contains(&unnamed.to_string()), "{unnamed}");
    }
    assert!(changes.entries.contains(&"link.txt".to_string()));
    assert!(changes.entries.contains(&"pipe".to_string()));
}
