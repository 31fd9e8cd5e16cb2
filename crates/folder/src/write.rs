//! Atomic writes: a hidden temporary file beside the target, synced, then renamed.
//! The temporary file is locked and marked as the store's for the write's whole
//! life (see `leftovers`), so only a crashed writer's file is ever swept.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use sha2::{Digest, Sha256};

use super::entry::{mtime_of, type_record, Entry, TYPE_ATTRIBUTE};
use super::walk::entry_of;
use file_store_base::content_type;
use file_store_base::error::{Error, Result};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Bytes kept from the start of the content, to tell its type when the name does not.
const HEAD: usize = 512;

/// A write in progress. Nothing shows at the target until `commit`; dropping it
/// before then removes the temporary file and leaves the old file whole.
#[derive(Debug)]
pub struct AtomicWriter {
    /// The store's own folder, marked when a content type is kept below it.
    root: OwnedFd,
    parent: OwnedFd,
    name: String,
    temp: String,
    path: String,
    file: Option<File>,
    hasher: Sha256,
    head: Vec<u8>,
    content_type: Option<String>,
}

impl AtomicWriter {
    pub(super) fn create(
        root: OwnedFd,
        parent: OwnedFd,
        name: String,
        path: String,
    ) -> Result<AtomicWriter> {
        let old = match rustix::fs::statat(&parent, name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Some(stat),
            Err(Errno::NOENT) => None,
            Err(e) => return Err(Error::io(&path, e)),
        };
        let mode = match old.map(|stat| (FileType::from_raw_mode(stat.st_mode), stat.st_mode)) {
            Some((FileType::Directory, _)) => return Err(Error::IsFolder(path)),
            // A replaced file keeps its permissions, but not setuid or setgid:
            // new content must not run with another's rights.
            Some((FileType::RegularFile, mode)) => mode & 0o1777,
            _ => 0o666,
        };
        let temp = temp_name(&name);
        let fd = match claimed_anonymous(&parent, &temp) {
            Some(fd) => fd,
            None => claimed_named(&parent, &temp, &path)?,
        };
        if mode != 0o666 {
            let _ = rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode));
        }
        Ok(AtomicWriter {
            root,
            parent,
            name,
            temp,
            path,
            file: Some(File::from(fd)),
            hasher: Sha256::new(),
            head: Vec::new(),
            content_type: None,
        })
    }

    /// Keeps `content_type` as the file's type instead of the one detected from
    /// its name and content: in an extended attribute where the file system has
    /// them, and in the entry `commit` returns in any case.
    pub fn keep_content_type(&mut self, content_type: Option<String>) {
        self.content_type = content_type.filter(|ty| !ty.is_empty() && ty.len() <= 255);
    }

    /// Appends `bytes` to what will be written.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let file = self.file.as_mut().ok_or_else(|| finished(&self.path))?;
        file.write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        self.hasher.update(bytes);
        if self.head.len() < HEAD {
            let wanted = (HEAD - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..wanted]);
        }
        Ok(())
    }

    /// Syncs the content and renames it over the target, then returns its entry.
    ///
    /// The folder itself is not synced: after a crash the rename may be undone,
    /// which leaves the old file, whole. Old or new, never part of either.
    pub fn commit(mut self) -> Result<Entry> {
        let file = self.file.take().ok_or_else(|| finished(&self.path))?;
        file.sync_all().map_err(|e| Error::io(&self.path, e))?;
        if let Some(ty) = &self.content_type {
            super::entry::mark_types_kept(self.root.as_fd());
            let written = rustix::fs::fstat(&file).map_err(|e| Error::io(&self.path, e))?;
            let record = type_record(ty, written.st_size as u64, mtime_of(&written));
            // Unsupported on some file systems: the type is then detected on reads.
            let _ = rustix::fs::fsetxattr(
                &file,
                TYPE_ATTRIBUTE,
                record.as_bytes(),
                rustix::fs::XattrFlags::empty(),
            );
        }
        // The file stays open, so locked, until it is renamed: a sweep never takes
        // the temporary file of a write that is committing.
        rustix::fs::renameat(
            &self.parent,
            self.temp.as_str(),
            &self.parent,
            self.name.as_str(),
        )
        .map_err(|e| match e {
            Errno::ISDIR | Errno::NOTEMPTY | Errno::EXIST => Error::IsFolder(self.path.clone()),
            e => lost_folder(&self.parent, &self.path, e),
        })?;
        self.temp.clear();
        super::leftovers::unmark(file.as_fd());
        // After the rename and the unmark, which both move the ctime: the entry
        // describes the file as a look at it finds it from now on.
        let stat = rustix::fs::fstat(&file).map_err(|e| Error::io(&self.path, e))?;
        drop(file);
        let content_type = self
            .content_type
            .take()
            .unwrap_or_else(|| content_type::detect(&self.path, &self.head));
        let mut entry = entry_of(&self.path, &stat, content_type);
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

/// The temporary file `temp`, created locked and marked before it has a name
/// (`O_TMPFILE`, then linked through `/proc`), so no crash leaves a temporary file
/// the sweep cannot tell for one. `None` where the file system or `/proc` cannot.
fn claimed_anonymous(parent: &OwnedFd, temp: &str) -> Option<OwnedFd> {
    let fd = rustix::fs::openat(
        parent,
        ".",
        OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )
    .ok()?;
    super::leftovers::claim(fd.as_fd()).ok()?;
    let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
    rustix::fs::linkat(
        rustix::fs::CWD,
        link.as_str(),
        parent,
        temp,
        AtFlags::SYMLINK_FOLLOW,
    )
    .ok()?;
    Some(fd)
}

/// The temporary file `temp`, created by name and then locked and marked: where
/// `claimed_anonymous` cannot, at the cost of a moment in which a crash leaves an
/// unmarked file, which the sweep then leaves alone.
fn claimed_named(parent: &OwnedFd, temp: &str, path: &str) -> Result<OwnedFd> {
    let fd = rustix::fs::openat(
        parent,
        temp,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    )
    .map_err(|e| lost_folder(parent, path, e))?;
    if let Err(e) = super::leftovers::claim(fd.as_fd()) {
        let _ = rustix::fs::unlinkat(parent, temp, AtFlags::empty());
        return Err(Error::io(path, e));
    }
    Ok(fd)
}

/// The error for `errno` on the write of `path` in the folder `parent`: when the
/// folder was deleted meanwhile (by `delete_folder`, or another process), one that
/// says so, naming the file and the folder.
fn lost_folder(parent: &OwnedFd, path: &str, errno: Errno) -> Error {
    let gone =
        errno == Errno::NOENT && rustix::fs::fstat(parent).is_ok_and(|stat| stat.st_nlink == 0);
    if !gone {
        return Error::io(path, errno);
    }
    let folder = path.rsplit_once('/').map_or(".", |(folder, _)| folder);
    Error::FolderGone {
        path: path.to_string(),
        folder: folder.to_string(),
    }
}

fn finished(path: &str) -> Error {
    Error::InvalidArgument(format!("the write of {path} is already finished"))
}

fn temp_name(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let short: String = name.chars().take(32).collect();
    format!(".{short}.{}-{nanos:x}-{count}.tmp", std::process::id())
}
