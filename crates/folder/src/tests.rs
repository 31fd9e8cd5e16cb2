use std::os::unix::fs::symlink;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::*;

fn store() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(&dir.path().join("store")).unwrap();
    (dir, root)
}

fn paths(entries: &[Entry]) -> Vec<&str> {
    entries.iter().map(|e| e.path.as_str()).collect()
}

#[test]
fn creates_the_folder_and_round_trips_every_byte() {
    let (_tmp, root) = store();
    let bytes: Vec<u8> = (0..=255u8).collect();
    let entry = root.write("deep/er/bytes.bin", &bytes).unwrap();
    assert_eq!(entry.size, 256);
    assert_eq!(entry.content_type, "application/octet-stream");
    assert_eq!(root.read("deep/er/bytes.bin").unwrap(), bytes);
    assert_eq!(root.read("./deep//er/bytes.bin").unwrap(), bytes);
}

#[test]
fn lists_sorted_with_folders_as_prefixes() {
    let (_tmp, root) = store();
    for p in [
        "reports/q3.pdf",
        "b.txt",
        "reports/sub/x.md",
        "rep.txt",
        "a.txt",
    ] {
        root.write(p, b"x").unwrap();
    }
    assert_eq!(
        paths(&root.list(None).unwrap()),
        [
            "a.txt",
            "b.txt",
            "rep.txt",
            "reports/q3.pdf",
            "reports/sub/x.md"
        ]
    );
    assert_eq!(
        paths(&root.list(Some("reports")).unwrap()),
        ["reports/q3.pdf", "reports/sub/x.md"]
    );
    assert!(root.list(Some("rep")).unwrap().is_empty());
    assert!(root.list(Some("a.txt")).unwrap().is_empty());
    assert!(root.list(Some("missing")).unwrap().is_empty());
}

#[test]
fn leaves_out_hidden_files_and_folders() {
    let (tmp, root) = store();
    let base = tmp.path().join("store");
    std::fs::create_dir_all(base.join(".git")).unwrap();
    std::fs::write(base.join(".git/config"), "x").unwrap();
    std::fs::write(base.join(".env"), "SECRET=1").unwrap();
    root.write("seen.txt", b"x").unwrap();
    root.lock().unwrap();
    assert_eq!(paths(&root.list(None).unwrap()), ["seen.txt"]);
    assert_eq!(root.stat(".env").unwrap(), None);
    assert!(matches!(root.read(".env"), Err(Error::NotFound(_))));
    assert!(matches!(
        root.write(".env", b"x"),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn never_follows_a_link() {
    let (tmp, root) = store();
    let base = tmp.path().join("store");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    symlink(outside.join("secret.txt"), base.join("link.txt")).unwrap();
    symlink(&outside, base.join("linked")).unwrap();

    assert!(root.list(None).unwrap().is_empty());
    assert_eq!(root.stat("link.txt").unwrap(), None);
    assert_eq!(root.stat("linked/secret.txt").unwrap(), None);
    assert!(matches!(root.read("link.txt"), Err(Error::NotFound(_))));
    assert!(matches!(
        root.read("linked/secret.txt"),
        Err(Error::NotFound(_))
    ));
    assert!(root.list(Some("linked")).unwrap().is_empty());
    assert!(
        matches!(root.write("linked/new.txt", b"x"), Err(Error::SymbolicLink(p)) if p == "linked")
    );
    assert!(!outside.join("new.txt").exists());
    assert_eq!(root.delete("linked/secret.txt").unwrap(), None);
    assert_eq!(root.delete("link.txt").unwrap(), None);
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        "secret"
    );
    // Replacing a link puts a file in its place; the link's target is untouched.
    root.write("link.txt", b"mine").unwrap();
    assert_eq!(root.read("link.txt").unwrap(), b"mine");
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        "secret"
    );
}

#[test]
fn refuses_paths_that_leave_the_folder() {
    let (_tmp, root) = store();
    for bad in ["../x", "a/../../x", "", "a/./b", "x\0"] {
        assert!(
            matches!(root.write(bad, b"x"), Err(Error::InvalidPath(_))),
            "{bad:?}"
        );
        assert!(
            matches!(root.read(bad), Err(Error::InvalidPath(_))),
            "{bad:?}"
        );
    }
    assert_eq!(root.write("/abs.txt", b"x").unwrap().path, "abs.txt");
}

#[test]
fn folders_and_files_are_not_each_other() {
    let (_tmp, root) = store();
    root.write("reports/q3.pdf", b"%PDF").unwrap();
    assert!(matches!(root.read("reports"), Err(Error::IsFolder(_))));
    assert!(matches!(
        root.write("reports", b"x"),
        Err(Error::IsFolder(_))
    ));
    assert!(matches!(root.delete("reports"), Err(Error::IsFolder(_))));
    assert!(
        matches!(root.write("reports/q3.pdf/x", b"x"), Err(Error::IsFile(p)) if p == "reports/q3.pdf")
    );
    assert_eq!(root.stat("reports").unwrap(), None);
}

#[test]
fn delete_returns_the_file_and_prunes_empty_folders() {
    let (tmp, root) = store();
    root.write("a/b/c.txt", b"hello").unwrap();
    root.write("a/keep.txt", b"k").unwrap();
    let gone = root.delete("a/b/c.txt").unwrap().unwrap();
    assert_eq!((gone.path.as_str(), gone.size), ("a/b/c.txt", 5));
    assert!(!tmp.path().join("store/a/b").exists());
    assert!(tmp.path().join("store/a/keep.txt").exists());
    assert_eq!(root.delete("a/b/c.txt").unwrap(), None);
}

#[test]
fn a_dropped_writer_leaves_the_old_file_whole() {
    let (tmp, root) = store();
    root.write("doc.txt", b"old").unwrap();
    let mut writer = root.writer("doc.txt").unwrap();
    writer.write_all(b"half of the new").unwrap();
    assert_eq!(root.read("doc.txt").unwrap(), b"old");
    drop(writer);
    assert_eq!(root.read("doc.txt").unwrap(), b"old");
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path().join("store"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["doc.txt"]);
}

#[test]
fn keeps_the_mode_of_a_replaced_file() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, root) = store();
    root.write("run.sh", b"echo 1").unwrap();
    let file = tmp.path().join("store/run.sh");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o750)).unwrap();
    root.write("run.sh", b"echo 2").unwrap();
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o750
    );
}

#[test]
fn digests_the_content() {
    let (_tmp, root) = store();
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let written = root.write("a.txt", b"abc").unwrap();
    assert_eq!(written.digest.as_deref(), Some(ABC));
    let listed = root.stat("a.txt").unwrap().unwrap();
    assert_eq!(listed.digest, None);
    assert_eq!(root.digest_of(&listed).unwrap().as_deref(), Some(ABC));
    std::thread::sleep(Duration::from_millis(5));
    root.write("a.txt", b"abcd").unwrap();
    assert_eq!(
        root.digest_of(&listed).unwrap(),
        None,
        "a changed file is not the listed version"
    );
}

#[test]
fn the_lock_is_exclusive_across_openings_of_the_folder() {
    let (tmp, root) = store();
    let other = Root::open(&tmp.path().join("store")).unwrap();
    let held = root.lock().unwrap();
    assert_waits_until_released(held, other);
}

#[test]
fn the_lock_is_the_folder_itself_and_leaves_no_file() {
    let (tmp, root) = store();
    let base = tmp.path().join("store");
    let held = root.lock().unwrap();
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 0);
    // A planted link or file under the old lock file's name changes nothing.
    std::os::unix::fs::symlink("/etc/passwd", base.join(".ruby_llm_file_store.lock")).unwrap();
    let other = Root::open(&base).unwrap();
    assert_waits_until_released(held, other);
}

#[test]
fn try_lock_takes_a_free_lock_and_refuses_a_held_one_at_once() {
    let (tmp, root) = store();
    let other = Root::open(&tmp.path().join("store")).unwrap();
    let held = root.try_lock().unwrap().expect("a free lock is taken");
    let asked = std::time::Instant::now();
    assert!(other.try_lock().unwrap().is_none());
    assert!(asked.elapsed() < Duration::from_millis(100));
    drop(held);
    assert!(other.try_lock().unwrap().is_some());
}

#[test]
fn a_released_lock_is_free_while_a_copy_of_its_descriptor_lives() {
    // What a child forked inside the lock holds: the same open file.
    let (tmp, root) = store();
    let held = root.lock().unwrap();
    let childs_copy = rustix::io::dup(&held.fd).unwrap();
    drop(held);
    let other = Root::open(&tmp.path().join("store")).unwrap();
    assert!(other.try_lock().unwrap().is_some());
    drop(childs_copy);
}

#[test]
fn a_lock_wait_stops_when_cancelled() {
    let (tmp, root) = store();
    let _held = root.lock().unwrap();
    let other = Root::open(&tmp.path().join("store")).unwrap();
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let waiter = std::thread::spawn(move || {
        file_store_base::cancel::with_flag(Some(flag), || other.lock().map(|_| ()))
    });
    std::thread::sleep(Duration::from_millis(50));
    let asked = std::time::Instant::now();
    cancel.store(true, Ordering::SeqCst);
    assert!(matches!(waiter.join().unwrap(), Err(Error::Cancelled)));
    assert!(asked.elapsed() < Duration::from_millis(200));
}

#[test]
fn a_replaced_file_keeps_its_permissions_but_not_setuid_or_setgid() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, root) = store();
    let file = tmp.path().join("store/tool.sh");
    root.write("tool.sh", b"old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o6750)).unwrap();
    root.write("tool.sh", b"new").unwrap();
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750);
}

/// A temporary file as a writer that crashed leaves it: marked, and locked by no one.
fn crashed_temp(path: &std::path::Path) {
    let file = std::fs::File::create(path).unwrap();
    leftovers::claim(file.as_fd()).unwrap();
    age(path);
}

/// Makes the file at `path` look untouched for a day.
fn age(path: &std::path::Path) {
    let day_ago = std::time::SystemTime::now() - Duration::from_secs(24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(day_ago)
        .unwrap();
}

#[test]
fn sweeps_only_marked_temporary_files_no_writer_holds() {
    let (tmp, root) = store();
    let base = tmp.path().join("store");
    root.write("a/doc.txt", b"whole").unwrap();
    let crashed = base.join("a/.doc.txt.2147483632-1f-0.tmp");
    crashed_temp(&crashed);
    // A user's file shaped like a temporary file, but not marked as one.
    let look_alike = base.join("a/.notes.txt.1-1f-0.tmp");
    std::fs::write(&look_alike, b"mine").unwrap();
    age(&look_alike);
    std::fs::write(base.join("a/.keep.tmp"), b"mine").unwrap();
    assert_eq!(
        root.sweep_leftovers(Duration::from_secs(7 * 24 * 3600)),
        0,
        "too recent"
    );
    assert_eq!(root.sweep_leftovers(Duration::ZERO), 1);
    assert!(!crashed.exists());
    assert!(look_alike.exists());
    assert!(base.join("a/.keep.tmp").exists());
    assert_eq!(root.read("a/doc.txt").unwrap(), b"whole");
}

#[test]
fn never_sweeps_a_live_writer_however_long_idle() {
    let (tmp, root) = store();
    let base = tmp.path().join("store");
    let mut writer = root.writer("doc.txt").unwrap();
    writer.write_all(b"new").unwrap();
    let temp: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(temp.len(), 1);
    age(&temp[0]);
    assert_eq!(root.sweep_leftovers(Duration::ZERO), 0);
    assert_eq!(writer.commit().unwrap().size, 3);
    assert_eq!(root.read("doc.txt").unwrap(), b"new");
    // A committed file keeps no mark of a temporary file.
    let path = base.join("doc.txt");
    assert!(rustix::fs::getxattr(&path, leftovers::MARK, &mut [0u8; 64]).is_err());
}

#[test]
fn sweeps_no_hidden_folder_and_no_folder_through_a_link() {
    let (tmp, root) = store();
    let base = tmp.path().join("store");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(base.join(".git")).unwrap();
    crashed_temp(&outside.join(".x.txt.2147483632-1f-0.tmp"));
    crashed_temp(&base.join(".git/.x.txt.2147483632-1f-0.tmp"));
    symlink(&outside, base.join("linked")).unwrap();
    assert_eq!(root.sweep_leftovers(Duration::ZERO), 0);
    assert!(outside.join(".x.txt.2147483632-1f-0.tmp").exists());
    assert!(base.join(".git/.x.txt.2147483632-1f-0.tmp").exists());
}

#[test]
fn says_which_folder_went_when_a_write_loses_a_race_with_its_deletion() {
    let (_tmp, root) = store();
    root.write("notes/a.txt", b"a").unwrap();
    // The folder goes between the writer opening it and creating its file.
    let (parent, name) = walk::open_parent(root.fd.as_fd(), "notes/c.txt", true).unwrap();
    root.delete("notes/a.txt").unwrap();
    let own = rustix::io::fcntl_dupfd_cloexec(&root.fd, 0).unwrap();
    let error = AtomicWriter::create(own, parent, name.to_string(), "notes/c.txt".to_string())
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "notes/c.txt was not written: its folder notes was deleted while the write ran"
    );
}

#[test]
fn keeps_a_given_content_type() {
    let (_tmp, root) = store();
    let written = root
        .write_typed("data", b"{}", Some("application/json".to_string()))
        .unwrap();
    assert_eq!(written.content_type, "application/json");
    assert_eq!(
        root.stat("data").unwrap().unwrap().content_type,
        "application/json"
    );
    assert_eq!(root.list(None).unwrap()[0].content_type, "application/json");
    root.write("data", b"{}").unwrap();
    assert_eq!(
        root.stat("data").unwrap().unwrap().content_type,
        "text/plain"
    );
}

#[test]
fn kept_types_are_looked_for_only_in_a_store_where_a_write_kept_one() {
    let (tmp, root) = store();
    let folder = tmp.path().join("store");
    root.write("plain/a", b"{}").unwrap();
    // Set by another program, in a store where no write kept a type: not looked for.
    let file = folder.join("plain/a");
    rustix::fs::setxattr(
        &file,
        TYPE_ATTRIBUTE,
        b"application/json",
        rustix::fs::XattrFlags::empty(),
    )
    .unwrap();
    assert_eq!(root.list(None).unwrap()[0].content_type, "text/plain");
    assert!(rustix::fs::getxattr(&folder, TYPES_KEPT_ATTRIBUTE, &mut [0u8; 8]).is_err());
    // A typed write deep down marks the store's own folder, and every kept type counts.
    root.write_typed("deep/down/b", b"x", Some("text/csv".to_string()))
        .unwrap();
    assert!(rustix::fs::getxattr(&folder, TYPES_KEPT_ATTRIBUTE, &mut [0u8; 8]).is_ok());
    let types: Vec<(String, String)> = root
        .list(None)
        .unwrap()
        .into_iter()
        .map(|e| (e.path, e.content_type))
        .collect();
    assert_eq!(
        types,
        [
            ("deep/down/b".to_string(), "text/csv".to_string()),
            ("plain/a".to_string(), "application/json".to_string()),
        ]
    );
    assert_eq!(
        root.stat("plain/a").unwrap().unwrap().content_type,
        "application/json"
    );
}

/// `other` cannot take the folder lock while `held` is held, and takes it once
/// `held` is dropped.
fn assert_waits_until_released<T>(held: T, other: Root) {
    let taken = Arc::new(AtomicBool::new(false));
    let flag = taken.clone();
    let waiter = std::thread::spawn(move || {
        let _guard = other.lock().unwrap();
        flag.store(true, Ordering::SeqCst);
    });
    std::thread::sleep(Duration::from_millis(100));
    assert!(!taken.load(Ordering::SeqCst));
    drop(held);
    waiter.join().unwrap();
    assert!(taken.load(Ordering::SeqCst));
}

#[test]
fn refuses_a_file_for_its_folder_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, b"mine").unwrap();
    let error = Root::open(&file).unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "{} is a file, not a folder: a folder store keeps its files in a folder",
            file.display()
        )
    );
    let below = file.join("store");
    let error = Root::open(&below).unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "{} is a file, so {} cannot be a folder for a folder store",
            file.display(),
            below.display()
        )
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");
}

#[test]
fn a_folder_deleted_while_it_is_listed_lists_as_gone() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path()).unwrap();
    root.write("work/d1/f.txt", b"x").unwrap();
    // Open, then removed under the open descriptor: Linux reads it as ENOENT.
    let folder = std::fs::File::open(dir.path().join("work/d1")).unwrap();
    std::fs::remove_dir_all(dir.path().join("work/d1")).unwrap();
    let fd = std::os::fd::OwnedFd::from(folder);
    assert!(matches!(
        super::walk::listed(&fd, "work/d1"),
        Err(Error::NotFound(path)) if path == "work/d1"
    ));
}
