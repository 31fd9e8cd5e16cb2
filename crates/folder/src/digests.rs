//! The digests of files this process has read whole, by what tells one version
//! of a file from another without reading it: its device and inode, size, and
//! modification and change times. Every write to a file moves its change time,
//! which no program can set back, so a file whose stat is the same as when it was
//! read holds the same bytes, as git reads its index. A write in the same tick of
//! the kernel's clock as the read could leave the times as they were, so a digest
//! is kept only once the file's change time is [`SETTLED`] old; a newer file is
//! read again each time, as git does with a racily clean entry.
//!
//! A search or a ranked question compares every file's version with the one it
//! last saw: without this, that read every byte of the store each time.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use file_store_base::process_local::PerProcess;
use file_store_base::version::StatVersion as Version;
use rustix::fs::Stat;

/// How old a file's change time must be for its digest to be kept.
pub const SETTLED: Duration = Duration::from_secs(2);

/// The most digests kept: 65,536 of about 100 bytes each, 6.5 MB at most. Past
/// it they are all let go and kept again as files are read.
pub const HELD: usize = 1 << 16;

static KNOWN: PerProcess<Mutex<HashMap<Version, [u8; 32]>>> = PerProcess::new(|_| Mutex::default());

/// The digest this process read of the file whose stat is `stat`, when it still
/// is that version.
pub fn known(stat: &Stat) -> Option<[u8; 32]> {
    let known = KNOWN.get().lock().unwrap_or_else(|e| e.into_inner());
    known.get(&Version::of(stat)).copied()
}

/// Keeps `digest`, read from the file whose stat was `before` the read and
/// `after` it, unless the file changed meanwhile or its change time is newer
/// than [`SETTLED`].
#[allow(clippy::unnecessary_cast)] // stat's field types differ between targets
pub fn keep(before: &Stat, after: &Stat, digest: [u8; 32]) {
    let stat = before;
    if Version::of(before) != Version::of(after) {
        return;
    }
    let changed = UNIX_EPOCH
        + Duration::new(
            (stat.st_ctime as i64).max(0) as u64,
            (stat.st_ctime_nsec as u32).min(999_999_999),
        );
    let settled = SystemTime::now()
        .duration_since(changed)
        .is_ok_and(|age| age >= SETTLED);
    if !settled {
        return;
    }
    let mut known = KNOWN.get().lock().unwrap_or_else(|e| e.into_inner());
    if known.len() >= HELD {
        known.clear();
    }
    known.insert(Version::of(stat), digest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    fn stat_of(path: &std::path::Path) -> Stat {
        let file = std::fs::File::open(path).unwrap();
        rustix::fs::fstat(file.as_fd()).unwrap()
    }

    #[test]
    fn a_digest_is_kept_only_for_a_file_whose_change_time_has_settled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "one").unwrap();
        let fresh = stat_of(&path);
        keep(&fresh, &fresh, [1; 32]);
        assert_eq!(known(&fresh), None, "a file changed just now is read again");
        let mut settled = fresh;
        settled.st_ctime = (settled.st_ctime as i64 - 10) as _;
        let mut written = settled;
        written.st_size += 1;
        keep(&settled, &written, [3; 32]);
        assert_eq!(
            known(&settled),
            None,
            "a file written while it was read is read again"
        );
        keep(&settled, &settled, [2; 32]);
        assert_eq!(known(&settled), Some([2; 32]));
        assert_eq!(
            known(&fresh),
            None,
            "another change time is another version"
        );
    }

    #[test]
    fn a_settled_file_is_digested_once_and_a_file_written_in_place_again() {
        let tmp = tempfile::tempdir().unwrap();
        let root = crate::Root::open(&tmp.path().join("store")).unwrap();
        root.write("a.txt", b"abc").unwrap();
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let listed = root.stat("a.txt").unwrap().unwrap();
        let first = root.digest_of(&listed).unwrap();
        // Kept: the same version is not read again.
        let path = tmp.path().join("store/a.txt");
        let stat = rustix::fs::stat(&path).unwrap();
        assert!(known(&stat).is_some());
        assert_eq!(root.digest_of(&listed).unwrap(), first);
        // Written in place, same size, its times set back: its change time moved.
        let times = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, b"xyz").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(times)
            .unwrap();
        let again = root.stat("a.txt").unwrap().unwrap();
        assert_eq!(
            (again.size, again.mtime_sec, again.mtime_nsec),
            (listed.size, listed.mtime_sec, listed.mtime_nsec)
        );
        const XYZ: &str = "3608bca1e44ea6c4d268eb6db02260269892c0b42b86bbf1e77a6fa16c3c9282";
        assert_eq!(root.digest_of(&again).unwrap().as_deref(), Some(XYZ));
    }
}
