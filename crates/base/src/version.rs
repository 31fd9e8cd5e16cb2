//! The version of a file a read showed, the one rule every read follows: the
//! SHA-256 of the bytes read when the file is at most [`DIGEST_LIMIT`] bytes, else
//! its size and time of change with a [`stamp`], so a read of a few lines of a
//! large file does not read all of it.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, MetadataExt};

use sha2::{Digest, Sha256};

use crate::cancel;
use crate::error::{Error, Result};
use crate::text::Hashing;

/// The largest file a read hashes whole to know which version it showed; a
/// larger one is known by its size and time of change.
pub const DIGEST_LIMIT: u64 = 16 * 1024 * 1024;

/// How many bytes at each end of a file past [`DIGEST_LIMIT`] its [`stamp`] hashes.
pub const END_BLOCK: u64 = 64 * 1024;

/// A version of a file: its digest when it is within [`DIGEST_LIMIT`], else its
/// [`stamp`]; and always its size and time of change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The SHA-256 of the content in hex; `None` past [`DIGEST_LIMIT`].
    pub digest: Option<String>,
    /// The size in bytes.
    pub size: u64,
    /// The time of change: seconds and nanoseconds since the epoch.
    pub mtime: (i64, u32),
    /// The file's [`stamp`] past [`DIGEST_LIMIT`]; `None` within it.
    pub stamp: Option<String>,
}

impl Version {
    /// The version of a file of `size` bytes changed at `mtime` whose content has
    /// `digest`, kept within [`DIGEST_LIMIT`], and whose [`stamp`] is `stamp`,
    /// kept past it.
    pub fn new(
        size: u64,
        mtime: (i64, u32),
        digest: Option<String>,
        stamp: Option<String>,
    ) -> Version {
        let within = size <= DIGEST_LIMIT;
        Version {
            digest: digest.filter(|_| within),
            size,
            mtime,
            stamp: stamp.filter(|_| !within),
        }
    }
}

/// What tells one version of a file from another without reading it: its device
/// and inode, size, and modification and change times. Every write moves the
/// change time, which no program sets back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StatVersion {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    /// Seconds and nanoseconds.
    pub mtime: (i64, i64),
    /// Seconds and nanoseconds.
    pub ctime: (i64, i64),
}

impl StatVersion {
    // The types of stat's fields differ between targets (x86_64, aarch64).
    #[allow(clippy::unnecessary_cast)]
    pub fn of(stat: &rustix::fs::Stat) -> StatVersion {
        StatVersion {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            size: stat.st_size as u64,
            mtime: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            ctime: (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        }
    }
}

/// The version of bytes handed in whole (a store's file Ruby holds, a converted
/// file's bytes): their SHA-256 in hex within [`DIGEST_LIMIT`], else `None`, as
/// such a file is known by its size and stamp, which only its store can give.
pub fn of_bytes(bytes: &[u8]) -> Option<String> {
    (bytes.len() as u64 <= DIGEST_LIMIT).then(|| hex::encode(Sha256::digest(bytes)))
}

/// What tells a version of a file past [`DIGEST_LIMIT`] from another of the same
/// size and time of change, as one opaque string: what no program can set back,
/// and what does not depend on the clock.
///
/// - The time of status change (ctime) and the device and inode numbers. A
///   program can restore a file's mtime (`cp -p`, `rsync -t`, `touch -r`), but
///   the kernel sets ctime on every change of content, of mtime too; and a file
///   replaced through a rename (every write of the store, rsync, most editors)
///   is a new inode.
/// - The SHA-256 of the first and last [`END_BLOCK`] bytes. Where times are whole
///   seconds (ext3 with small inodes, NFSv3, FAT) two replacements within one
///   second can reuse the inode number the first freed, and FAT's ctime is the
///   file's creation, which a change in place keeps; the ends catch those when
///   they differ, for 128 KB read, whatever the clock.
///
/// Still the same: a change in place of a middle part of a file, of the same
/// size, with the mtime restored, on a file system whose ctime does not move or
/// within one of its clock's ticks.
pub fn stamp(file: &File, stat: &std::fs::Metadata) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let size = stat.len();
    let tail = size.saturating_sub(END_BLOCK).max(END_BLOCK.min(size));
    hash_range(file, 0, END_BLOCK.min(size), &mut hasher)?;
    hash_range(file, tail, size, &mut hasher)?;
    Ok(format!(
        "{}.{:09} {:x}:{} {}",
        stat.ctime(),
        stat.ctime_nsec(),
        stat.dev(),
        stat.ino(),
        hex::encode(hasher.finalize())
    ))
}

/// The [`stamp`] of the open `file` (at `path`, for errors) when it is past
/// [`DIGEST_LIMIT`], else `None`: for a read that hashes what it reads anyway.
pub fn stamp_if_large(file: &File, path: &str) -> Result<Option<String>> {
    let stat = file.metadata().map_err(|e| Error::io(path, e))?;
    if stat.len() <= DIGEST_LIMIT {
        return Ok(None);
    }
    stamp(file, &stat).map(Some).map_err(|e| Error::io(path, e))
}

/// Hashes the bytes of `file` from `start` to `end`, or to its end when shorter.
fn hash_range(file: &File, start: u64, end: u64, hasher: &mut Sha256) -> io::Result<()> {
    let mut buffer = vec![0; (end.saturating_sub(start)) as usize];
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read_at(&mut buffer[filled..], start + filled as u64) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    hasher.update(&buffer[..filled]);
    Ok(())
}

/// Runs `read` over `file` (at `path`, for errors), hashing what it reads when the
/// file is within [`DIGEST_LIMIT`], and gives what it returns with the version it
/// read: both come from the one descriptor, so no other writer's content can
/// stand in for what was shown.
pub fn read_versioned<T>(
    file: &File,
    path: &str,
    read: impl FnOnce(&mut dyn Read, u64) -> io::Result<T>,
) -> Result<(T, Version)> {
    let stat = file.metadata().map_err(|e| Error::io(path, e))?;
    let (size, mtime) = (stat.len(), (stat.mtime(), stat.mtime_nsec() as u32));
    let failed = |e| cancel::from_io(path, e);
    if size > DIGEST_LIMIT {
        // Taken before the read: a change while it reads moves the file's ctime,
        // and then no later look at the file matches what the read showed.
        let stamp = stamp(file, &stat).map_err(|e| Error::io(path, e))?;
        let value = read(&mut cancel::Reader::new(file), size).map_err(failed)?;
        return Ok((value, Version::new(size, mtime, None, Some(stamp))));
    }
    let mut reader = Hashing::new(cancel::Reader::new(file));
    let value = read(&mut reader, size).map_err(failed)?;
    let digest = reader.finish().map_err(failed)?;
    Ok((value, Version::new(size, mtime, Some(digest), None)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_within_the_limit_are_known_by_their_digest() {
        assert_eq!(
            of_bytes(b"abc").as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
    }

    #[test]
    fn a_digest_past_the_limit_is_dropped() {
        let digest = Some("d".to_string());
        assert_eq!(
            Version::new(DIGEST_LIMIT, (1, 2), digest.clone(), None).digest,
            digest
        );
        assert_eq!(
            Version::new(DIGEST_LIMIT + 1, (1, 2), digest, None).digest,
            None
        );
    }

    #[test]
    fn a_stamp_within_the_limit_is_dropped() {
        let stamp = Some("s".to_string());
        assert_eq!(
            Version::new(DIGEST_LIMIT, (1, 2), None, stamp.clone()).stamp,
            None
        );
        assert_eq!(
            Version::new(DIGEST_LIMIT + 1, (1, 2), None, stamp.clone()).stamp,
            stamp
        );
    }

    #[test]
    fn a_read_gives_the_digest_of_the_whole_file() {
        let dir = std::env::temp_dir().join(format!("version-{}", std::process::id()));
        std::fs::write(&dir, b"one\ntwo\n").unwrap();
        let file = File::open(&dir).unwrap();
        let (first, version) = read_versioned(&file, "f", |reader, _| {
            let mut byte = [0; 1];
            reader.read_exact(&mut byte).map(|()| byte[0])
        })
        .unwrap();
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(first, b'o');
        assert_eq!(version.size, 8);
        // The digest of every byte, not only of the one read.
        assert_eq!(
            version.digest.unwrap(),
            hex::encode(Sha256::digest(b"one\ntwo\n"))
        );
    }

    /// A file of `bytes` in a folder of its own, open for reading.
    fn file_of(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    fn stamp_at(path: &std::path::Path) -> String {
        let file = File::open(path).unwrap();
        stamp(&file, &file.metadata().unwrap()).unwrap()
    }

    /// Sets the mtime of `path` back to `mtime`, as `cp -p` or `rsync -t` does.
    fn restore_mtime(path: &std::path::Path, mtime: std::time::SystemTime) {
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        file.set_modified(mtime).unwrap();
    }

    #[test]
    fn a_stamp_moves_with_a_change_in_place_whose_mtime_is_set_back() {
        let (_dir, path) = file_of(&[b'a'; 300_000]);
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        let before = stamp_at(&path);
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(b"b", 0).unwrap();
        restore_mtime(&path, mtime);
        assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
        assert_ne!(stamp_at(&path), before);
    }

    #[test]
    fn a_stamp_moves_with_a_replacement_of_the_same_bytes_and_mtime() {
        let (dir, path) = file_of(&[b'a'; 300_000]);
        let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
        let before = stamp_at(&path);
        // What rsync -t does: a new file renamed over the old, its mtime set back.
        // The old one is kept open, so the new one cannot reuse its inode.
        let _old = File::open(&path).unwrap();
        let temp = dir.path().join(".big.tmp");
        std::fs::write(&temp, [b'a'; 300_000]).unwrap();
        restore_mtime(&temp, mtime);
        std::fs::rename(&temp, &path).unwrap();
        assert_ne!(stamp_at(&path), before);
    }

    #[test]
    fn a_stamp_is_the_same_while_nothing_changes() {
        let (_dir, path) = file_of(&[b'a'; 300_000]);
        assert_eq!(stamp_at(&path), stamp_at(&path));
    }

    #[test]
    fn a_read_past_the_limit_gives_the_stamp_taken_before_it_read() {
        let (_dir, path) = file_of(&vec![b'x'; DIGEST_LIMIT as usize + 1]);
        let file = File::open(&path).unwrap();
        let ((), version) = read_versioned(&file, "big", |_, _| Ok(())).unwrap();
        assert_eq!(version.digest, None);
        assert_eq!(version.size, DIGEST_LIMIT + 1);
        assert_eq!(version.stamp, Some(stamp_at(&path)));
        assert_eq!(stamp_if_large(&file, "big").unwrap(), Some(stamp_at(&path)));
    }
}
