//! The folder where a run's leftovers wait to be removed (the sandbox sets them aside
//! there and empties it after the call), named here because every walk of a run
//! folder leaves it out: the sandbox's and the repair of a lent folder's alike.

use rustix::fs::{FileType, Stat};

use crate::tree::Item;

/// The hidden folder, at the top of a run folder, of what waits to be removed.
pub const REMOVING: &str = ".ruby_llm_removing";

/// Whether `item` is the folder of what waits to be removed, which walks leave
/// out: at the top, under that name, a folder of the app's that no one else
/// may enter. Anything else under the name is walked and held to the limits as
/// any name the run left.
pub fn is_removing(item: &Item<'_>) -> bool {
    item.depth == 1 && item.name.to_bytes() == REMOVING.as_bytes() && ours(item.stat)
}

/// Whether `stat` is a folder of this process's user that no one else may enter.
pub fn ours(stat: &Stat) -> bool {
    stat.st_uid == rustix::process::geteuid().as_raw()
        && FileType::from_raw_mode(stat.st_mode) == FileType::Directory
        && stat.st_mode & 0o077 == 0
}
