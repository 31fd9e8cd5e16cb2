//! The gem's own folders at the top of a run folder, named here because every
//! walk of a run folder leaves them out, the sandbox's and the repair of a lent
//! folder's alike: where a run's leftovers wait to be removed (the sandbox sets
//! them aside there and empties it after the call), and where the store keeps
//! its ranked search's index. The sandbox makes both before a run and covers
//! them for it, so no run makes, fills or renames either.

use std::os::fd::{BorrowedFd, OwnedFd};

use rustix::fs::{FileType, Mode, Stat};
use rustix::io::Errno;

use crate::tree::{Item, DIR_FLAGS};

/// The hidden folder, at the top of a run folder, of what waits to be removed.
pub const REMOVING: &str = ".ruby_llm_removing";

/// The hidden folder, at the top of a folder store, of its saved index.
pub const INDEX: &str = ".ruby_llm_index";

/// The gem's folders, in the order a run has them made.
pub const GEMS_FOLDERS: [&str; 2] = [REMOVING, INDEX];

/// Whether `item` is one of the gem's folders, which walks leave out: at the
/// top, under one of their names, a folder of the app's that no one else may
/// enter. Anything else under such a name is walked and held to the limits as
/// any name the run left.
pub fn is_the_gems(item: &Item<'_>) -> bool {
    item.depth == 1
        && GEMS_FOLDERS
            .iter()
            .any(|name| item.name.to_bytes() == name.as_bytes())
        && ours(item.stat)
}

/// Whether `stat` is a folder of this process's user that no one else may enter.
pub fn ours(stat: &Stat) -> bool {
    stat.st_uid == rustix::process::geteuid().as_raw()
        && FileType::from_raw_mode(stat.st_mode) == FileType::Directory
        && stat.st_mode & 0o077 == 0
}

/// The gem's folder `name` in `root`, opened without following a link, where it
/// is the app's own ([`ours`]); `None` where it is missing or is not.
pub fn open_ours(root: BorrowedFd<'_>, name: &str) -> Result<Option<OwnedFd>, Errno> {
    let fd = match rustix::fs::openat(root, name, DIR_FLAGS, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::NOENT | Errno::NOTDIR | Errno::LOOP) => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(ours(&rustix::fs::fstat(&fd)?).then_some(fd))
}
