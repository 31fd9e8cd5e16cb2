//! What the store keeps of its own beside its files: its ranked search's index,
//! saved in the gem's hidden folder (`INDEX`) so that another process, or the next
//! request's store object, reads it back instead of reading and converting every
//! file again.
//!
//! A run may have reached the folder before (an older version made no such folder
//! before a run), so nothing found there is trusted by name: the folder is used
//! only when it is the app's own, mode 0700, and its file is opened without
//! following a link; the file itself is checked by whoever reads it.

use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;

use file_store_base::error::{Error, Result};
use file_store_base::removing::{open_ours, INDEX};

use crate::Root;

static NEXT: AtomicU64 = AtomicU64::new(0);

impl Root {
    /// The bytes saved under `name` in the store's own folder, if they are there
    /// and at most `most` bytes long.
    pub fn read_saved(&self, name: &str, most: u64) -> Result<Option<Vec<u8>>> {
        let shown = format!("{INDEX}/{name}");
        let Some(folder) = own_folder(self.fd.as_fd(), false).map_err(|e| Error::io(&shown, e))?
        else {
            return Ok(None);
        };
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let fd = match rustix::fs::openat(&folder, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT | Errno::LOOP) => return Ok(None),
            Err(e) => return Err(Error::io(&shown, e)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(|e| Error::io(&shown, e))?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile
            || stat.st_size as u64 > most
        {
            return Ok(None);
        }
        let mut bytes = Vec::with_capacity(stat.st_size as usize);
        std::fs::File::from(fd)
            .take(most + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(&shown, e))?;
        Ok((bytes.len() as u64 <= most).then_some(bytes))
    }

    /// Saves `bytes` under `name` in the store's own folder, made if missing: a
    /// reader sees the bytes saved before or these, whole.
    pub fn save(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let shown = format!("{INDEX}/{name}");
        let folder = own_folder(self.fd.as_fd(), true)
            .map_err(|e| Error::io(&shown, e))?
            .ok_or_else(|| Error::io(&shown, Errno::PERM))?;
        let taken = format!(
            ".{name}.{}.{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        sweep(folder.as_fd(), name);
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&folder, taken.as_str(), flags, Mode::RUSR | Mode::WUSR)
            .map_err(|e| Error::io(&shown, e))?;
        // Held until the rename: a temporary file no save holds is one a save
        // killed midway left, which the next save removes.
        let _ = rustix::fs::flock(&fd, FlockOperation::LockExclusive);
        let mut file = std::fs::File::from(fd);
        let written = file.write_all(bytes);
        let renamed = written.map_err(|e| Error::io(&shown, e)).and_then(|()| {
            rustix::fs::renameat(&folder, taken.as_str(), &folder, name)
                .map_err(|e| Error::io(&shown, e))
        });
        if renamed.is_err() {
            let _ = rustix::fs::unlinkat(&folder, taken.as_str(), AtFlags::empty());
        }
        drop(file);
        renamed
    }
}

/// Removes the temporary files of `name` in the store's own folder that no save
/// holds: a process killed mid-save left them.
fn sweep(folder: BorrowedFd<'_>, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(names) = rustix::fs::Dir::read_from(folder) else {
        return;
    };
    for entry in names.flatten() {
        let found = entry.file_name();
        if !found.to_bytes().starts_with(prefix.as_bytes()) {
            continue;
        }
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let Ok(fd) = rustix::fs::openat(folder, found, flags, Mode::empty()) else {
            continue;
        };
        if rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_ok() {
            let _ = rustix::fs::unlinkat(folder, found, AtFlags::empty());
        }
    }
}

/// The store's own folder, made when `make` says so and it is missing; `None`
/// where it is missing, or where what holds its name is not the app's own folder.
fn own_folder(root: BorrowedFd<'_>, make: bool) -> std::result::Result<Option<OwnedFd>, Errno> {
    if make {
        match rustix::fs::mkdirat(root, INDEX, Mode::RWXU) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(e),
        }
    }
    open_ours(root, INDEX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn saved_bytes_read_back_whole_and_only_from_the_apps_own_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        assert_eq!(root.read_saved("passages", 100).unwrap(), None);
        root.save("passages", b"first").unwrap();
        root.save("passages", b"second").unwrap();
        assert_eq!(
            root.read_saved("passages", 100).unwrap().as_deref(),
            Some(&b"second"[..])
        );
        assert_eq!(
            root.read_saved("passages", 5).unwrap(),
            None,
            "past the most asked for"
        );
        assert_eq!(
            fs::read_dir(dir.path().join(INDEX)).unwrap().count(),
            1,
            "no temporary file left"
        );
        // What a save killed midway left goes with the next save; a save going on stays.
        let index = dir.path().join(INDEX);
        fs::write(index.join(".passages.999999.0"), "cut").unwrap();
        fs::write(index.join(".passages.999999.1"), "writing").unwrap();
        let writing = fs::File::open(index.join(".passages.999999.1")).unwrap();
        rustix::fs::flock(&writing, FlockOperation::LockExclusive).unwrap();
        root.save("passages", b"second").unwrap();
        let mut left: Vec<String> = fs::read_dir(&index)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, [".passages.999999.1", "passages"]);
        drop(writing);
        fs::remove_file(index.join(".passages.999999.1")).unwrap();
        // Not listed among the store's files.
        assert!(root.list(None).unwrap().is_empty());

        // A link in place of the file, or of the folder, is never followed.
        let elsewhere = tempfile::tempdir().unwrap();
        fs::write(elsewhere.path().join("passages"), "planted").unwrap();
        fs::remove_file(dir.path().join(INDEX).join("passages")).unwrap();
        std::os::unix::fs::symlink(
            elsewhere.path().join("passages"),
            dir.path().join(INDEX).join("passages"),
        )
        .unwrap();
        assert_eq!(root.read_saved("passages", 100).unwrap(), None);
        fs::remove_dir_all(dir.path().join(INDEX)).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(INDEX)).unwrap();
        assert_eq!(root.read_saved("passages", 100).unwrap(), None);
        assert!(root.save("passages", b"x").is_err());
        assert_eq!(
            fs::read(elsewhere.path().join("passages")).unwrap(),
            b"planted"
        );

        // A folder others may enter is not the app's own.
        fs::remove_file(dir.path().join(INDEX)).unwrap();
        fs::create_dir(dir.path().join(INDEX)).unwrap();
        fs::set_permissions(
            dir.path().join(INDEX),
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .unwrap();
        assert!(root.save("passages", b"x").is_err());
        assert_eq!(root.read_saved("passages", 100).unwrap(), None);
    }
}
