//! What a snapshot keeps of each entry, and the snapshot itself.

use std::collections::BTreeMap;

/// What a snapshot keeps of one entry: a regular file, or (with `file` false) a
/// folder, a link or another kind of entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Whether it is a regular file; only those are created, changed or deleted.
    pub file: bool,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status-change time, in nanoseconds since the epoch.
    pub ctime_ns: i128,
    /// Whether the store holds no path for it (`path::seen`): a name on the way not
    /// UTF-8 (kept under its lossy form only to be reported), refused, too long or
    /// too deep.
    pub unnamed: bool,
    /// Whether the name, or a folder's on the way, starts with a dot: the store does
    /// not list it, but what a run leaves there still counts against its limits.
    pub hidden: bool,
    /// The SHA-256 of its content, when the snapshot read it (`Digests`).
    pub digest: Option<[u8; 32]>,
}

impl Stamp {
    /// Whether `later` holds what this stamp did: the same size and times, or, when
    /// both have a digest, the same size and content.
    pub fn same(&self, later: &Stamp) -> bool {
        if self.size != later.size || self.file != later.file {
            return false;
        }
        if self.mtime_ns == later.mtime_ns && self.ctime_ns == later.ctime_ns {
            return true;
        }
        self.digest.is_some() && self.digest == later.digest
    }
}

/// Every entry below a folder, by path relative to it.
pub type Snapshot = BTreeMap<String, Stamp>;
