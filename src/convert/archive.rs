//! Zip archives read with limits, so a zip bomb is refused instead of filling
//! memory: the entry count and the uncompressed bytes read are capped, and the
//! sizes an archive declares are not trusted (reads stop at the cap).

use std::io::{Cursor, Read};

use zip::ZipArchive;

use super::Refusal;

/// The most entries an archive may have.
pub const MAX_ENTRIES: usize = 10_000;
/// The most bytes read out of one archive, all entries together.
pub const MAX_UNCOMPRESSED: u64 = 200 * 1024 * 1024;

/// A zip archive in memory, read within [`MAX_ENTRIES`] and [`MAX_UNCOMPRESSED`].
pub struct Archive<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    budget: u64,
}

impl<'a> Archive<'a> {
    /// Opens the archive in `bytes`; refuses one that is not a zip or has too many entries.
    pub fn open(bytes: &'a [u8], kind: &'static str) -> Result<Self, Refusal> {
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| Refusal::unreadable(kind, e))?;
        if zip.len() > MAX_ENTRIES {
            return Err(Refusal::TooManyEntries(zip.len()));
        }
        Ok(Archive {
            zip,
            budget: MAX_UNCOMPRESSED,
        })
    }

    /// Whether the archive has an entry named `name`.
    pub fn has(&self, name: &str) -> bool {
        self.zip.index_for_name(name).is_some()
    }

    /// The bytes of entry `name`: None when there is none or it cannot be read,
    /// [`Refusal::TooLarge`] when it would take the archive past its budget.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, Refusal> {
        let Ok(entry) = self.zip.by_name(name) else {
            return Ok(None);
        };
        // What the archive declares is checked first, then what the entry really holds.
        if entry.size() > self.budget {
            return Err(Refusal::TooLarge);
        }
        let mut bytes = Vec::new();
        // One byte past the budget tells an entry that fits from one that does not.
        let read = entry.take(self.budget + 1).read_to_end(&mut bytes);
        if bytes.len() as u64 > self.budget {
            return Err(Refusal::TooLarge);
        }
        self.budget -= bytes.len() as u64;
        Ok(read.ok().map(|_| bytes))
    }
}
