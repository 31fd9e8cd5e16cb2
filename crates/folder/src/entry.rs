//! What the store tells of one file: its entry, and the content type a write
//! gave it, kept in an extended attribute.

use std::fs::File;
use std::io::Read;

use rustix::fs::{Mode, OFlags, Stat};

use file_store_base::content_type;

/// What a listing or a look-up tells of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The path inside the store.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Modification time: seconds since the epoch.
    pub mtime_sec: i64,
    /// Modification time: nanoseconds within the second.
    pub mtime_nsec: u32,
    /// Status change time (ctime), which no program sets back: seconds and
    /// nanoseconds since the epoch.
    pub ctime: (i64, u32),
    /// The inode number.
    pub ino: u64,
    /// The content type, from the name or else the first bytes.
    pub content_type: String,
    /// The SHA-256 of the content in hex, when the operation read or wrote all of it.
    pub digest: Option<String>,
}

/// The extended attribute that keeps a content type given to a write.
pub const TYPE_ATTRIBUTE: &str = "user.ruby_llm.content_type";

/// The extended attribute of a store's own folder saying that a write kept a
/// content type in some file below it. Looking for a kept type costs a listing a
/// path lookup through /proc for every file, about as much as the rest of the
/// listing: a store where no write kept one is listed without them.
pub const TYPES_KEPT_ATTRIBUTE: &str = "user.ruby_llm.types_kept";

/// Whether a write ever kept a content type below the store folder `root`.
pub(super) fn types_kept(root: std::os::fd::BorrowedFd<'_>) -> bool {
    rustix::fs::fgetxattr(root, TYPES_KEPT_ATTRIBUTE, &mut [0u8; 8]).is_ok()
}

/// Marks the store folder `root` as one where a write keeps a content type,
/// before the write does, so that no listing after the write misses it.
pub(super) fn mark_types_kept(root: std::os::fd::BorrowedFd<'_>) {
    if !types_kept(root) {
        // Unsupported on some file systems: the files' types are then detected.
        let _ = rustix::fs::fsetxattr(
            root,
            TYPES_KEPT_ATTRIBUTE,
            b"1",
            rustix::fs::XattrFlags::empty(),
        );
    }
}

/// The value [`TYPE_ATTRIBUTE`] keeps for `content_type`, given to a write whose
/// bytes have `size` and `mtime`: the type, then on a line of its own the size and
/// mtime it was given for. A program that rewrites the file in place keeps the
/// attribute, since it belongs to the inode; [`kept_for`] then finds the size or
/// the mtime moved and the type no longer told. Not the ctime, which would say
/// more: setting the attribute moves it, and so do the rename that publishes the
/// file and the removal of its temporary mark. A rewrite of the same size that
/// also sets the mtime back keeps the type: the type is what a listing tells,
/// never what a write is checked against (that is the file's version).
pub(super) fn type_record(content_type: &str, size: u64, mtime: (i64, u32)) -> String {
    format!("{content_type}\n{size} {}.{:09}", mtime.0, mtime.1)
}

/// The type kept in the attribute `value` when the file's bytes are still those
/// it was kept for (their `size` and `mtime`), else `None`. A value with no line
/// for the bytes, kept before the type recorded them, is taken as it is.
pub(super) fn kept_for(value: &[u8], size: u64, mtime: (i64, u32)) -> Option<String> {
    let value = std::str::from_utf8(value).ok()?;
    let Some((content_type, bytes)) = value.rsplit_once('\n') else {
        return Some(value.to_string());
    };
    let (kept_size, kept_mtime) = bytes.split_once(' ')?;
    let (sec, nsec) = kept_mtime.split_once('.')?;
    let kept = (
        kept_size.parse::<u64>().ok()?,
        sec.parse::<i64>().ok()?,
        nsec.parse::<u32>().ok()?,
    );
    (kept == (size, mtime.0, mtime.1)).then(|| content_type.to_string())
}

/// The longest value of [`TYPE_ATTRIBUTE`]: a type of 255 bytes and its record.
const RECORD_MAX: usize = 512;

/// The content type a write was given for the file `name` in `dir`, kept in its
/// extended attribute where the file system has them, while the file whose
/// status is `stat` still has the bytes it was given for.
fn kept_type(dir: std::os::fd::BorrowedFd<'_>, name: &str, stat: &Stat) -> Option<String> {
    use std::os::fd::AsRawFd;
    // The descriptor's path in /proc reaches the file without following a link
    // at `name`: lgetxattr reads the attribute of the name itself.
    let path = format!("/proc/self/fd/{}/{name}", dir.as_raw_fd());
    let mut value = [0u8; RECORD_MAX];
    let len = rustix::fs::lgetxattr(path.as_str(), TYPE_ATTRIBUTE, &mut value).ok()?;
    kept_for(&value[..len], stat.st_size as u64, mtime_of(stat))
}

/// The content type kept for the file open as `fd` (an `O_PATH` descriptor too),
/// whose status is `stat`, as [`kept_type`] tells it.
pub(super) fn kept_type_of(fd: std::os::fd::BorrowedFd<'_>, stat: &Stat) -> Option<String> {
    use std::os::fd::AsRawFd;
    let path = format!("/proc/self/fd/{}", fd.as_raw_fd());
    let mut value = [0u8; RECORD_MAX];
    let len = rustix::fs::getxattr(path.as_str(), TYPE_ATTRIBUTE, &mut value).ok()?;
    kept_for(&value[..len], stat.st_size as u64, mtime_of(stat))
}

/// The content type kept for the open `file`, as [`kept_type`] tells it.
pub(super) fn kept_type_of_file(file: &File) -> Option<String> {
    let mut value = [0u8; RECORD_MAX];
    let len = rustix::fs::fgetxattr(file, TYPE_ATTRIBUTE, &mut value).ok()?;
    let stat = rustix::fs::fstat(file).ok()?;
    kept_for(&value[..len], stat.st_size as u64, mtime_of(&stat))
}

/// The modification time in `stat`: seconds and nanoseconds.
pub(super) fn mtime_of(stat: &Stat) -> (i64, u32) {
    (stat.st_mtime as i64, stat.st_mtime_nsec as u32)
}

/// The content type of a file in a listing, whose status is `stat`: the one given
/// to its write (looked for where `kept`), else from its name, or its first bytes.
pub(super) fn listed_type(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &str,
    stat: &Stat,
    kept: bool,
) -> String {
    if let Some(ty) = kept.then(|| kept_type(dir, name, stat)).flatten() {
        return ty;
    }
    if let Some(ty) = content_type::from_name(name) {
        return ty;
    }
    let mut head = [0u8; 512];
    let read = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()
    .and_then(|fd| File::from(fd).read(&mut head).ok())
    .unwrap_or(0);
    content_type::from_content(&head[..read])
}
