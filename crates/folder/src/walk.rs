//! Walking a store folder one component at a time, never through a link.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir};
use rustix::io::Errno;

use super::entry::{listed_type, Entry};
use super::resolve::{open_beneath, Opened};
use file_store_base::error::{Error, Result};
use file_store_base::path::{self, Seen};

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// Opens the folder `folder` (a normalised path) below `root`, creating the missing
/// parts when `create` is set.
pub(super) fn open_dirs(root: BorrowedFd<'_>, folder: &str, create: bool) -> Result<OwnedFd> {
    // One call when the folder is there and the kernel can refuse links itself;
    // the walk below gives the precise reason when it cannot, and creates folders.
    if let Opened::Fd(fd) = open_beneath(root, folder, OFlags::RDONLY | OFlags::DIRECTORY) {
        return Ok(fd);
    }
    let mut current = dup(root)?;
    let mut end = 0;
    for part in folder.split('/') {
        end += part.len();
        current = open_step(current.as_fd(), part, &folder[..end], create)?;
        end += 1;
    }
    Ok(current)
}

/// Opens the folder holding `path` and returns it with the file's own name.
pub(super) fn open_parent<'p>(
    root: BorrowedFd<'_>,
    path: &'p str,
    create: bool,
) -> Result<(OwnedFd, &'p str)> {
    if path::hidden(path) && !create {
        return Err(Error::NotFound(path.to_string()));
    }
    match path.rsplit_once('/') {
        Some((folder, name)) => Ok((open_dirs(root, folder, create)?, name)),
        None => Ok((dup(root)?, path)),
    }
}

/// Opens each folder on the way to `path`, outermost first, for pruning after a delete.
pub(super) fn open_chain(root: BorrowedFd<'_>, path: &str) -> Result<Vec<OwnedFd>> {
    if path::hidden(path) {
        return Err(Error::NotFound(path.to_string()));
    }
    let mut chain: Vec<OwnedFd> = Vec::new();
    let Some((folder, _)) = path.rsplit_once('/') else {
        return Ok(chain);
    };
    let mut end = 0;
    for part in folder.split('/') {
        end += part.len();
        let parent = chain.last().map_or(root, |fd| fd.as_fd());
        chain.push(open_step(parent, part, &folder[..end], false)?);
        end += 1;
    }
    Ok(chain)
}

/// Removes the folders of `path` that its delete left empty, innermost first.
pub(super) fn prune_empty(root: BorrowedFd<'_>, chain: &[OwnedFd], path: &str) {
    let folders: Vec<&str> = path.split('/').collect();
    for depth in (0..chain.len()).rev() {
        let parent = if depth == 0 {
            root
        } else {
            chain[depth - 1].as_fd()
        };
        if rustix::fs::unlinkat(parent, folders[depth], AtFlags::REMOVEDIR).is_err() {
            break;
        }
    }
}

/// What is at `name` in `dir`, without following a link; `None` when nothing is.
pub(super) fn kind_at(dir: BorrowedFd<'_>, name: &str, path: &str) -> Result<Option<FileType>> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => Ok(Some(FileType::from_raw_mode(stat.st_mode))),
        Err(Errno::NOENT | Errno::NOTDIR) => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// The entry for the regular file `name` in `dir`, or `None` when it is anything
/// else; its kept content type is looked for where `kept` (`entry::types_kept`).
pub(super) fn entry_at(
    dir: BorrowedFd<'_>,
    name: &str,
    path: &str,
    kept: bool,
) -> Result<Option<Entry>> {
    if path::hidden(path) {
        return Ok(None);
    }
    let stat = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => stat,
        Err(Errno::NOENT | Errno::NOTDIR) => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Ok(None);
    }
    Ok(Some(entry_of(
        path,
        &stat,
        listed_type(dir, name, &stat, kept),
    )))
}

/// The entry of the regular file at `path` whose status is `stat`.
pub(super) fn entry_of(path: &str, stat: &rustix::fs::Stat, content_type: String) -> Entry {
    Entry {
        path: path.to_string(),
        size: stat.st_size as u64,
        mtime_sec: stat.st_mtime as i64,
        mtime_nsec: stat.st_mtime_nsec as u32,
        ctime: (stat.st_ctime as i64, stat.st_ctime_nsec as u32),
        ino: stat.st_ino,
        content_type,
        digest: None,
    }
}

/// Files gathered before they are statted together.
const BATCH_FILES: usize = 16_384;
/// Folders whose descriptors a batch may hold open at once: with the ancestors
/// of the folder being read, all a listing holds, well below the 1,024 a process
/// is often allowed.
const BATCH_FOLDERS: usize = 64;
/// Fewer files than this are statted on the calling thread.
const PARALLEL_FROM: usize = 1024;

/// A file found by the walk: its folder, its name there, and its store path.
type Found = (Arc<OwnedFd>, String, String);

/// Every regular file below `start`, whose path inside the store is `base`. Most of
/// a listing is one `stat` per file, so the files are statted in batches spread over
/// the cores, each relative to its folder's descriptor. Kept content types are
/// looked for where `kept`.
pub(super) fn list_tree(start: BorrowedFd<'_>, base: &str, kept: bool) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let mut batch: Vec<Found> = Vec::new();
    let mut folders = 0;
    walk_files(start, base, |dir, name, path| {
        if batch
            .last()
            .is_none_or(|(last, _, _)| !Arc::ptr_eq(last, dir))
        {
            folders += 1;
        }
        batch.push((Arc::clone(dir), name.to_string(), path));
        if batch.len() >= BATCH_FILES || folders >= BATCH_FOLDERS {
            stat_batch(&mut batch, &mut entries, kept)?;
            folders = 0;
        }
        Ok(())
    })?;
    stat_batch(&mut batch, &mut entries, kept)?;
    Ok(entries)
}

/// Stats every file of `batch` into `entries`, on as many threads as there are cores.
fn stat_batch(batch: &mut Vec<Found>, entries: &mut Vec<Entry>, kept: bool) -> Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let stat_part = |part: &[Found]| -> Result<Vec<Entry>> {
        part.iter()
            .filter_map(|(dir, name, path)| entry_at(dir.as_fd(), name, path, kept).transpose())
            .collect()
    };
    if batch.len() < PARALLEL_FROM || threads == 1 {
        entries.extend(stat_part(batch)?);
    } else {
        let chunk = batch.len().div_ceil(threads);
        let parts: Vec<Result<Vec<Entry>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = batch
                .chunks(chunk)
                .map(|part| scope.spawn(move || stat_part(part)))
                .collect();
            handles
                .into_iter()
                .map(|handle| {
                    handle.join().unwrap_or_else(|_| {
                        Err(Error::io(
                            ".",
                            std::io::Error::other("a listing thread panicked"),
                        ))
                    })
                })
                .collect()
        });
        for part in parts {
            entries.extend(part?);
        }
    }
    batch.clear();
    Ok(())
}

/// Calls `visit` with the folder, name and store path of every regular file below
/// `start`, leaving out hidden names, names no path can hold, and links. A
/// folder's names are read before any subfolder is opened, and each subfolder is
/// opened afresh from `start` when its turn comes (one `openat2` that refuses
/// links where Linux has it), so no ancestor stays open: a listing holds `start`,
/// the folder being read and the folders `visit` keeps, whatever the tree's shape.
/// What is left out, and which folders are entered, is [`path::seen`]'s and
/// [`path::enters`]'s to say, as for every walk of a store's folder.
pub(super) fn walk_files(
    start: BorrowedFd<'_>,
    base: &str,
    mut visit: impl FnMut(&Arc<OwnedFd>, &str, String) -> Result<()>,
) -> Result<()> {
    // Folders to read, relative to `start`.
    let mut pending: Vec<String> = vec![String::new()];
    while let Some(relative) = pending.pop() {
        let path = below(base, &relative);
        let Some((dir_fd, names)) = read_folder(start, &relative, &path)? else {
            continue;
        };
        for (name, kind) in names {
            let file_path = join(&path, &name);
            if kind == FileType::Directory {
                pending.push(join(&relative, &name));
            } else {
                visit(&dir_fd, &name, file_path)?;
            }
        }
    }
    Ok(())
}

/// `name` inside the folder `prefix` ("" for the top).
pub(super) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}/{name}")
    }
}

/// The store path of the folder `relative` to a walk's start, whose path is `base`.
pub(super) fn below(base: &str, relative: &str) -> String {
    match (base.is_empty(), relative.is_empty()) {
        (_, true) => base.to_string(),
        (true, false) => relative.to_string(),
        (false, false) => format!("{base}/{relative}"),
    }
}

/// A folder read by [`read_folder`]: its descriptor, and the names in it a walk
/// visits, each with its type.
pub(super) type Folder = (Arc<OwnedFd>, Vec<(String, FileType)>);

/// Opens the folder `relative` to `start` (`""` for `start` itself), whose store
/// path is `path`, and reads its regular files and the subfolders a walk enters,
/// each with its type: the names [`path::seen`] lists, and of their folders those
/// [`path::enters`]. `None` when it is gone, swapped for a link or a file since it
/// was listed, or, below `start`, not readable.
pub(super) fn read_folder(
    start: BorrowedFd<'_>,
    relative: &str,
    path: &str,
) -> Result<Option<Folder>> {
    let opened = if relative.is_empty() {
        reopen(start)
    } else {
        open_dirs(start, relative, false)
    };
    let listing = opened.and_then(|fd| listed(&fd, path).map(|names| (fd, names)));
    let (dir_fd, names) = match listing {
        Ok(found) => found,
        Err(e) if passed_over(&e, relative) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut kept = Vec::with_capacity(names.len());
    for (name, kind) in names {
        let kind = match kind {
            FileType::Unknown => {
                let file_path = join(path, &name);
                kind_at(dir_fd.as_fd(), &name, &file_path)?.unwrap_or(FileType::Unknown)
            }
            kind => kind,
        };
        let wanted = match kind {
            FileType::Directory => path::enters(&join(path, &name)),
            FileType::RegularFile => true,
            _ => false,
        };
        if wanted {
            kept.push((name, kind));
        }
    }
    Ok(Some((Arc::new(dir_fd), kept)))
}

/// The names in the folder open on `dir`, whose store path is `prefix`, that the
/// store lists ([`path::seen`]), with their types as the folder gives them.
/// `dir` is read through itself: it must be a descriptor of its own, opened for
/// this listing (not a copy sharing its offset), which `Dir::read_from` would
/// open again, at a cost of three system calls a folder.
pub(super) fn listed(dir: &OwnedFd, prefix: &str) -> Result<Vec<(String, FileType)>> {
    let shown = if prefix.is_empty() { "." } else { prefix };
    let mut names = Vec::new();
    let mut buffer = Vec::with_capacity(LISTING_BUFFER);
    let mut entries = RawDir::new(dir, buffer.spare_capacity_mut());
    while let Some(item) = entries.next() {
        let item = item.map_err(|e| match e {
            // Linux reads a removed folder as ENOENT: deleted while it was listed,
            // it is gone, as one deleted before.
            Errno::NOENT => Error::NotFound(shown.to_string()),
            e => Error::io(shown, e),
        })?;
        let name = item.file_name().to_bytes();
        if path::seen(prefix, name) != Seen::Listed {
            continue;
        }
        if let Ok(name) = std::str::from_utf8(name) {
            names.push((name.to_string(), item.file_type()));
        }
    }
    Ok(names)
}

/// Whether `error`, met opening the folder `relative` to a walk's start, says the
/// walk passes the folder over: gone, swapped for a link or a file, or, below the
/// start, not readable.
pub(super) fn passed_over(error: &Error, relative: &str) -> bool {
    match error {
        Error::NotFound(_) | Error::SymbolicLink(_) | Error::IsFile(_) => true,
        Error::Io { source, .. } => {
            !relative.is_empty() && source.kind() == std::io::ErrorKind::PermissionDenied
        }
        _ => false,
    }
}

fn open_step(dir: BorrowedFd<'_>, part: &str, so_far: &str, create: bool) -> Result<OwnedFd> {
    match rustix::fs::openat(dir, part, DIR_FLAGS, Mode::empty()) {
        Ok(fd) => return Ok(fd),
        Err(Errno::NOENT) if create => {
            match rustix::fs::mkdirat(dir, part, Mode::from_raw_mode(0o777)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(Error::io(so_far, e)),
            }
        }
        Err(Errno::NOENT) => return Err(Error::NotFound(so_far.to_string())),
        Err(Errno::LOOP | Errno::NOTDIR) => return Err(blocked(dir, part, so_far)),
        Err(e) => return Err(Error::io(so_far, e)),
    }
    rustix::fs::openat(dir, part, DIR_FLAGS, Mode::empty()).map_err(|e| match e {
        Errno::LOOP | Errno::NOTDIR => blocked(dir, part, so_far),
        e => Error::io(so_far, e),
    })
}

/// Why a folder on the way could not be entered: a link, or a file in its place.
fn blocked(dir: BorrowedFd<'_>, part: &str, so_far: &str) -> Error {
    match kind_at(dir, part, so_far) {
        Ok(Some(FileType::Symlink)) => Error::SymbolicLink(so_far.to_string()),
        Ok(Some(_)) => Error::IsFile(so_far.to_string()),
        Ok(None) => Error::NotFound(so_far.to_string()),
        Err(e) => e,
    }
}

pub(super) fn dup(fd: BorrowedFd<'_>) -> Result<OwnedFd> {
    rustix::io::fcntl_dupfd_cloexec(fd, 0).map_err(|e| Error::io(".", e))
}

/// The folder open on `fd`, opened again: a descriptor with an offset of its own
/// to read its names through (a copy of `fd` would move `fd`'s).
fn reopen(fd: BorrowedFd<'_>) -> Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    rustix::fs::openat(fd, ".", flags, Mode::empty()).map_err(|e| Error::io(".", e))
}

/// The bytes read from a folder at a time: a folder of a few hundred names in one
/// read, and the read that finds its end.
const LISTING_BUFFER: usize = 32 * 1024;
