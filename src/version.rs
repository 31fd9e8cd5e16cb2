//! The version of a file a read showed, the one rule every read follows: the
//! SHA-256 of the bytes read when the file is at most [`DIGEST_LIMIT`] bytes, else
//! its size and time of change, so a read of a few lines of a large file does not
//! read all of it.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;

use crate::cancel;
use crate::error::{Error, Result};
use crate::text::Hashing;

/// The largest file a read hashes whole to know which version it showed; a
/// larger one is known by its size and time of change.
pub const DIGEST_LIMIT: u64 = 16 * 1024 * 1024;

/// A version of a file: its digest when it is within [`DIGEST_LIMIT`], and always
/// its size and time of change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The SHA-256 of the content in hex; `None` past [`DIGEST_LIMIT`].
    pub digest: Option<String>,
    /// The size in bytes.
    pub size: u64,
    /// The time of change: seconds and nanoseconds since the epoch.
    pub mtime: (i64, u32),
}

impl Version {
    /// The version of a file of `size` bytes changed at `mtime` whose content has
    /// `digest`, which is dropped past [`DIGEST_LIMIT`].
    pub fn new(size: u64, mtime: (i64, u32), digest: Option<String>) -> Version {
        Version {
            digest: digest.filter(|_| size <= DIGEST_LIMIT),
            size,
            mtime,
        }
    }
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
        let value = read(&mut cancel::Reader::new(file), size).map_err(failed)?;
        return Ok((value, Version::new(size, mtime, None)));
    }
    let mut reader = Hashing::new(cancel::Reader::new(file));
    let value = read(&mut reader, size).map_err(failed)?;
    let digest = reader.finish().map_err(failed)?;
    Ok((value, Version::new(size, mtime, Some(digest))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_past_the_limit_is_dropped() {
        let digest = Some("d".to_string());
        assert_eq!(
            Version::new(DIGEST_LIMIT, (1, 2), digest.clone()).digest,
            digest
        );
        assert_eq!(Version::new(DIGEST_LIMIT + 1, (1, 2), digest).digest, None);
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
        use sha2::{Digest, Sha256};
        assert_eq!(
            version.digest.unwrap(),
            hex::encode(Sha256::digest(b"one\ntwo\n"))
        );
    }
}
