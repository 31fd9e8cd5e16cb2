//! The Directory store: files in a folder on disk, reached only through the folder's
//! own descriptor, one component at a time, never following a symbolic link.
//!
//! Every path is opened with `openat` and `O_NOFOLLOW` from the descriptor of the
//! folder above it, so a link swapped in while an operation runs is refused by the
//! kernel rather than followed. Writes go to a hidden temporary file beside the
//! target, are synced, then renamed over it: a reader sees the old file or the new.

mod digests;
mod entry;
mod first;
mod in_order;
mod leftovers;
mod lock;
mod resolve;
mod saved;
mod typed;
mod walk;
mod write;

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;
use sha2::{Digest, Sha256};

use file_store_base::error::{Error, Result};
use file_store_base::{content_type, path};

use entry::kept_type_of;
pub use entry::{Entry, TYPES_KEPT_ATTRIBUTE, TYPE_ATTRIBUTE};
pub use first::Listing;
use resolve::Opened;
pub use typed::Found;
pub use write::AtomicWriter;

/// A folder opened as a capability: everything is reached through its descriptor.
#[derive(Debug)]
pub struct Root {
    fd: OwnedFd,
}

/// Holds the cross-process lock of a store until dropped.
///
/// Dropped in the process that took it, it unlocks before it closes: a child forked
/// meanwhile shares the open file, and closing alone would leave the lock held for
/// as long as the child lives. Dropped in such a child, it only closes, so the
/// child cannot unlock what its parent still holds.
#[derive(Debug)]
pub struct LockGuard {
    fd: OwnedFd,
    pid: u32,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if std::process::id() == self.pid {
            let _ = rustix::fs::flock(&self.fd, FlockOperation::Unlock);
        }
    }
}

impl Root {
    /// Opens the folder at `dir`, creating it (and its parents) when missing.
    pub fn open(dir: &Path) -> Result<Root> {
        let shown = dir.display().to_string();
        std::fs::create_dir_all(dir)
            .map_err(|e| not_a_folder(dir).unwrap_or(Error::io(&shown, e)))?;
        let fd = rustix::fs::open(
            dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| Error::io(&shown, e))?;
        // A root app killed mid-run left the folder lent to the run's uid: given
        // back before anything else, unless a run going on holds it.
        file_store_base::lent::reclaim_unless_held(fd.as_fd());
        if let Ok(copy) = rustix::io::fcntl_dupfd_cloexec(&fd, 0) {
            leftovers::sweep_once_in_background(copy);
        }
        Ok(Root { fd })
    }

    /// Removes the temporary files crashed writes left in the folder, whose writer
    /// is gone and which have not changed for `grace`; returns how many. Opening
    /// a store does this once per process, with a grace of 15 minutes, on a
    /// thread of its own.
    pub fn sweep_leftovers(&self, grace: std::time::Duration) -> usize {
        leftovers::sweep(self.fd.as_fd(), grace)
    }

    /// Another handle on the same folder, for work on other threads.
    pub fn try_clone(&self) -> Result<Root> {
        let fd = rustix::io::fcntl_dupfd_cloexec(&self.fd, 0).map_err(|e| Error::io(".", e))?;
        Ok(Root { fd })
    }

    /// The files inside the folder `prefix` (or all), sorted by path. Hidden files
    /// and folders and symbolic links are left out.
    pub fn list(&self, prefix: Option<&str>) -> Result<Vec<Entry>> {
        let Some((start, base)) = self.start_of(prefix)? else {
            return Ok(Vec::new());
        };
        let mut entries = walk::list_tree(
            start.as_ref().map_or(self.fd.as_fd(), |fd| fd.as_fd()),
            &base,
            entry::types_kept(self.fd.as_fd()),
        )?;
        entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(entries)
    }

    /// Where a walk of the folder `prefix` starts: its descriptor (none for the
    /// root) and its path; `None` when there is no such folder to walk.
    fn start_of(&self, prefix: Option<&str>) -> Result<Option<(Option<OwnedFd>, String)>> {
        let Some(prefix) = prefix else {
            return Ok(Some((None, String::new())));
        };
        let prefix = checked(prefix)?;
        if path::hidden(&prefix) {
            return Ok(None);
        }
        match walk::open_dirs(self.fd.as_fd(), &prefix, false) {
            Ok(fd) => Ok(Some((Some(fd), prefix))),
            Err(Error::NotFound(_) | Error::IsFile(_) | Error::SymbolicLink(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The file at `path`, or `None` when there is none (a folder, a link or a
    /// hidden path is none either).
    pub fn stat(&self, path: &str) -> Result<Option<Entry>> {
        let path = checked(path)?;
        if path::hidden(&path) {
            return Ok(None);
        }
        match resolve::open_beneath(self.fd.as_fd(), &path, OFlags::PATH) {
            Opened::Fd(fd) => {
                let stat = rustix::fs::fstat(&fd).map_err(|e| Error::io(&path, e))?;
                if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
                    return Ok(None);
                }
                let kept = entry::types_kept(self.fd.as_fd());
                let content_type = kept
                    .then(|| kept_type_of(fd.as_fd(), &stat))
                    .flatten()
                    .or_else(|| content_type::from_name(&path))
                    .unwrap_or_else(|| self.sniffed_type(&path));
                return Ok(Some(walk::entry_of(&path, &stat, content_type)));
            }
            // Missing, or a link or a file on the way: either way no file of the store.
            Opened::Failed(Errno::NOENT | Errno::LOOP | Errno::NOTDIR | Errno::XDEV) => {
                return Ok(None)
            }
            Opened::Failed(errno) => return Err(Error::io(&path, errno)),
            Opened::Unsupported => {}
        }
        let (parent, name) = match walk::open_parent(self.fd.as_fd(), &path, false) {
            Ok(found) => found,
            Err(Error::NotFound(_) | Error::IsFile(_) | Error::SymbolicLink(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        walk::entry_at(
            parent.as_fd(),
            name,
            &path,
            entry::types_kept(self.fd.as_fd()),
        )
    }

    /// Opens the regular file at `path` for reading, without following any link.
    pub fn open_file(&self, path: &str) -> Result<File> {
        self.open_sized(path).map(|(file, _)| file)
    }

    /// [`Root::open_file`], with the size the file had when it was opened.
    pub fn open_sized(&self, path: &str) -> Result<(File, u64)> {
        let path = checked(path)?;
        let not_found = || Error::NotFound(path.clone());
        if path::hidden(&path) {
            return Err(not_found());
        }
        // Non-blocking, so that a FIFO put in the folder cannot hang the open.
        let flags = OFlags::RDONLY | OFlags::NONBLOCK;
        match resolve::open_beneath(self.fd.as_fd(), &path, flags) {
            Opened::Fd(fd) => return regular(fd, path),
            Opened::Failed(Errno::NOENT | Errno::LOOP | Errno::NOTDIR | Errno::XDEV) => {
                return Err(not_found())
            }
            Opened::Failed(errno) => return Err(Error::io(&path, errno)),
            Opened::Unsupported => {}
        }
        let (parent, name) =
            walk::open_parent(self.fd.as_fd(), &path, false).map_err(|e| match e {
                Error::IsFile(_) | Error::SymbolicLink(_) => not_found(),
                e => e,
            })?;
        open_regular_at(parent.as_fd(), name, &path)
    }

    /// The whole content of the file at `path`.
    pub fn read(&self, path: &str) -> Result<Vec<u8>> {
        let mut file = self.open_file(path)?;
        let size = rustix::fs::fstat(&file)
            .map_err(|e| Error::io(path, e))?
            .st_size as usize;
        let mut bytes = Vec::with_capacity(size);
        file.read_to_end(&mut bytes)
            .map_err(|e| Error::io(path, e))?;
        Ok(bytes)
    }

    /// The SHA-256 of the file at `path` if it is still the version `entry` describes
    /// (same size and modification time), else `None`: a digest never describes
    /// content other than the listed file's. A file this process read before, whose
    /// stat has not changed since, is not read again ([`digests`]).
    pub fn digest_of(&self, entry: &Entry) -> Result<Option<String>> {
        let mut file = match self.open_file(&entry.path) {
            Ok(file) => file,
            Err(Error::NotFound(_) | Error::IsFolder(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        let stat = rustix::fs::fstat(&file).map_err(|e| Error::io(&entry.path, e))?;
        let same = stat.st_size as u64 == entry.size
            && stat.st_mtime as i64 == entry.mtime_sec
            && stat.st_mtime_nsec as u32 == entry.mtime_nsec;
        if !same {
            return Ok(None);
        }
        if let Some(digest) = digests::known(&stat) {
            return Ok(Some(hex::encode(digest)));
        }
        let mut hasher = Sha256::new();
        std::io::copy(
            &mut file_store_base::cancel::Reader::new(&mut file),
            &mut hasher,
        )
        .map_err(|e| file_store_base::cancel::from_io(&entry.path, e))?;
        let digest: [u8; 32] = hasher.finalize().into();
        if let Ok(after) = rustix::fs::fstat(&file) {
            digests::keep(&stat, &after, digest);
        }
        Ok(Some(hex::encode(digest)))
    }

    /// The [`file_store_base::version::stamp`] of the file at `path` if it is still the file
    /// `entry` describes (same inode, size, modification and change times), else
    /// `None`: a stamp never describes another version than the listed one.
    pub fn stamp_of(&self, entry: &Entry) -> Result<Option<String>> {
        let file = match self.open_file(&entry.path) {
            Ok(file) => file,
            Err(Error::NotFound(_) | Error::IsFolder(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        let stat = file.metadata().map_err(|e| Error::io(&entry.path, e))?;
        let same = stat.ino() == entry.ino
            && stat.len() == entry.size
            && (stat.mtime(), stat.mtime_nsec() as u32) == (entry.mtime_sec, entry.mtime_nsec)
            && (stat.ctime(), stat.ctime_nsec() as u32) == entry.ctime;
        if !same {
            return Ok(None);
        }
        file_store_base::version::stamp(&file, &stat)
            .map(Some)
            .map_err(|e| Error::io(&entry.path, e))
    }

    /// Starts an atomic write of `path`, creating its folders. Nothing is visible at
    /// `path` until `AtomicWriter::commit`; dropping the writer leaves the old file.
    pub fn writer(&self, path: &str) -> Result<AtomicWriter> {
        let path = checked(path)?;
        refuse_hidden(&path)?;
        let (parent, name) = walk::open_parent(self.fd.as_fd(), &path, true)?;
        let name = name.to_string();
        let root = rustix::io::fcntl_dupfd_cloexec(&self.fd, 0).map_err(|e| Error::io(&path, e))?;
        AtomicWriter::create(root, parent, name, path)
    }

    /// Writes `bytes` to `path` atomically, replacing any file there.
    pub fn write(&self, path: &str, bytes: &[u8]) -> Result<Entry> {
        self.write_typed(path, bytes, None)
    }

    /// Writes `bytes` to `path` atomically; a `content_type` given is kept with
    /// the file (see `AtomicWriter::keep_content_type`).
    pub fn write_typed(
        &self,
        path: &str,
        bytes: &[u8],
        content_type: Option<String>,
    ) -> Result<Entry> {
        let mut writer = self.writer(path)?;
        writer.keep_content_type(content_type);
        writer.write_all(bytes)?;
        writer.commit()
    }

    /// Deletes the file at `path` and returns what it was, or `None` when there was
    /// none. A folder is refused; a link is not a file of the store and stays.
    pub fn delete(&self, path: &str) -> Result<Option<Entry>> {
        let path = checked(path)?;
        let chain = match walk::open_chain(self.fd.as_fd(), &path) {
            Ok(chain) => chain,
            Err(Error::NotFound(_) | Error::IsFile(_) | Error::SymbolicLink(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        let name = path.rsplit('/').next().unwrap_or(&path);
        let parent = chain.last().map_or(self.fd.as_fd(), |fd| fd.as_fd());
        if walk::kind_at(parent, name, &path)? == Some(FileType::Directory) {
            return Err(Error::IsFolder(path));
        }
        let Some(entry) = walk::entry_at(parent, name, &path, entry::types_kept(self.fd.as_fd()))?
        else {
            return Ok(None);
        };
        match rustix::fs::unlinkat(parent, name, AtFlags::empty()) {
            Ok(()) => {}
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
        }
        walk::prune_empty(self.fd.as_fd(), &chain, &path);
        Ok(Some(entry))
    }

    /// The content type of the file at `path` from its first bytes, for a name
    /// that says nothing.
    fn sniffed_type(&self, path: &str) -> String {
        let mut head = [0u8; 512];
        let read = self
            .open_file(path)
            .ok()
            .and_then(|mut file| file.read(&mut head).ok())
            .unwrap_or(0);
        content_type::from_content(&head[..read])
    }

    /// Takes the store's exclusive lock, shared with every process that opens the
    /// same folder, waiting for it when another holds it.
    ///
    /// The lock is `flock` on the folder itself, opened afresh so that each lock
    /// is its own open file: no file inside the folder takes part, so nothing
    /// deleted, replaced or linked there can break it. The wait is a blocking
    /// `flock` (see `lock.rs`), which an interrupted caller stops waiting for.
    pub fn lock(&self) -> Result<LockGuard> {
        if let Some(guard) = self.try_lock()? {
            return Ok(guard);
        }
        let fd = lock::wait_exclusive(self.open_for_lock()?)?;
        let pid = std::process::id();
        Ok(LockGuard { fd, pid })
    }

    /// Takes the store's lock if no one holds it, without waiting: `None` when
    /// another open file (another process, or another store on the folder) holds it.
    pub fn try_lock(&self) -> Result<Option<LockGuard>> {
        let fd = self.open_for_lock()?;
        loop {
            match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {
                    let pid = std::process::id();
                    return Ok(Some(LockGuard { fd, pid }));
                }
                Err(Errno::INTR) => continue,
                Err(Errno::WOULDBLOCK) => return Ok(None),
                Err(e) => return Err(Error::io(".", e)),
            }
        }
    }

    fn open_for_lock(&self) -> Result<OwnedFd> {
        rustix::fs::openat(
            &self.fd,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| Error::io(".", e))
    }
}

/// Why `dir` cannot be a store's folder when it, or a folder above it, is a file
/// (or anything else but a folder): the error names which.
fn not_a_folder(dir: &Path) -> Option<Error> {
    let blocker = dir
        .ancestors()
        .filter(|part| !part.as_os_str().is_empty())
        .find(|part| std::fs::symlink_metadata(part).is_ok_and(|meta| !meta.is_dir()))?;
    // A link to a folder is a folder for the store's own path.
    if std::fs::metadata(blocker).is_ok_and(|meta| meta.is_dir()) {
        return None;
    }
    let message = if blocker == dir {
        format!(
            "{} is a file, not a folder: a folder store keeps its files in a folder",
            dir.display()
        )
    } else {
        format!(
            "{} is a file, so {} cannot be a folder for a folder store",
            blocker.display(),
            dir.display()
        )
    };
    Some(Error::InvalidArgument(message))
}

/// The regular file `name` in the folder `dir`, whose store path is `path`, with
/// its size: never through a link, and non-blocking, so that a FIFO put in the
/// folder cannot hang the open.
fn open_regular_at(dir: BorrowedFd<'_>, name: &str, path: &str) -> Result<(File, u64)> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match rustix::fs::openat(dir, name, flags, Mode::empty()) {
        Ok(fd) => regular(fd, path.to_string()),
        Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR) => Err(Error::NotFound(path.to_string())),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// `fd` as a readable file, with its size, if it is a regular file: a folder is
/// refused by name, anything else (a FIFO, a device) is no file of the store.
fn regular(fd: OwnedFd, path: String) -> Result<(File, u64)> {
    let stat = rustix::fs::fstat(&fd).map_err(|e| Error::io(&path, e))?;
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => Ok((File::from(fd), stat.st_size as u64)),
        FileType::Directory => Err(Error::IsFolder(path)),
        _ => Err(Error::NotFound(path)),
    }
}

/// `path` normalised, so the core refuses an escape even when a caller forgot to.
fn checked(path: &str) -> Result<String> {
    path::normalize(path)
}

fn refuse_hidden(path: &str) -> Result<()> {
    if path::hidden(path) {
        return Err(Error::InvalidArgument(format!(
            "{path} is hidden: a folder store leaves out hidden files and folders"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod changed_tests;
