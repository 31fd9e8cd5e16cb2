//! Atomic writes: a hidden temporary file beside the target, synced, then renamed.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use sha2::{Digest, Sha256};

use super::walk::{entry_at, kind_at};
use super::Entry;
use crate::error::{Error, Result};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A write in progress. Nothing shows at the target until `commit`; dropping it
/// before then removes the temporary file and leaves the old file whole.
#[derive(Debug)]
pub struct AtomicWriter {
    parent: OwnedFd,
    name: String,
    temp: String,
    path: String,
    file: Option<File>,
    hasher: Sha256,
}

impl AtomicWriter {
    pub(super) fn create(parent: OwnedFd, name: String, path: String) -> Result<AtomicWriter> {
        if kind_at(parent.as_fd(), &name, &path)? == Some(FileType::Directory) {
            return Err(Error::IsFolder(path));
        }
        let temp = temp_name(&name);
        let fd = rustix::fs::openat(
            &parent,
            temp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
        .map_err(|e| Error::io(&path, e))?;
        Ok(AtomicWriter {
            parent,
            name,
            temp,
            path,
            file: Some(File::from(fd)),
            hasher: Sha256::new(),
        })
    }

    /// Appends `bytes` to what will be written.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| Error::InvalidArgument(format!("{} is already written", self.path)))?;
        file.write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        self.hasher.update(bytes);
        Ok(())
    }

    /// Syncs the content and renames it over the target, then returns its entry.
    pub fn commit(mut self) -> Result<Entry> {
        let file = self
            .file
            .take()
            .ok_or_else(|| Error::InvalidArgument(format!("{} is already written", self.path)))?;
        if let Ok(old) =
            rustix::fs::statat(&self.parent, self.name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
        {
            match FileType::from_raw_mode(old.st_mode) {
                FileType::Directory => return Err(Error::IsFolder(self.path.clone())),
                // Keep the permissions of the file being replaced.
                FileType::RegularFile => {
                    let _ = rustix::fs::fchmod(&file, Mode::from_raw_mode(old.st_mode & 0o7777));
                }
                _ => {}
            }
        }
        file.sync_all().map_err(|e| Error::io(&self.path, e))?;
        drop(file);
        rustix::fs::renameat(
            &self.parent,
            self.temp.as_str(),
            &self.parent,
            self.name.as_str(),
        )
        .map_err(|e| Error::io(&self.path, e))?;
        self.temp.clear();
        // The rename is durable only once the folder itself is synced.
        let _ = rustix::fs::fsync(&self.parent);
        let mut entry = entry_at(self.parent.as_fd(), &self.name, &self.path)?
            .ok_or_else(|| Error::NotFound(self.path.clone()))?;
        entry.digest = Some(hex::encode(std::mem::take(&mut self.hasher).finalize()));
        Ok(entry)
    }
}

impl Drop for AtomicWriter {
    fn drop(&mut self) {
        if !self.temp.is_empty() {
            let _ = rustix::fs::unlinkat(&self.parent, self.temp.as_str(), AtFlags::empty());
        }
    }
}

fn temp_name(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let short: String = name.chars().take(32).collect();
    format!(".{short}.{}-{nanos:x}-{count}.tmp", std::process::id())
}
