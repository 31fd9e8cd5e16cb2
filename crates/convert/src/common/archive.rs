//! Zip archives read with limits, so a zip bomb is refused instead of filling
//! memory: the entry count and the uncompressed bytes read are capped, and the
//! sizes an archive declares are not trusted (reads stop at the cap).

use std::io::{Cursor, Read};
use std::rc::Rc;

use zip::ZipArchive;

use super::budget::{reserve, Budget};
use super::refusal::Refusal;

pub use super::budget::{MAX_ENTRIES, MAX_UNCOMPRESSED};

/// A zip archive in memory, read within [`MAX_ENTRIES`] and [`MAX_UNCOMPRESSED`].
pub struct Archive<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    left: u64,
    budget: Rc<Budget>,
}

/// How much is inflated between looks at the budget (and the cancellation flag).
const CHUNK: usize = 64 * 1024;

impl<'a> Archive<'a> {
    /// Opens the archive in `bytes`; refuses one that is not a zip or has too many entries.
    pub fn open(bytes: &'a [u8], kind: &'static str, budget: &Rc<Budget>) -> Result<Self, Refusal> {
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| Refusal::unreadable(kind, e))?;
        if zip.len() > MAX_ENTRIES {
            return Err(Refusal::TooManyEntries(zip.len()));
        }
        Ok(Archive {
            zip,
            left: MAX_UNCOMPRESSED,
            budget: budget.clone(),
        })
    }

    /// The budget of the conversion reading this archive.
    pub fn budget(&self) -> &Rc<Budget> {
        &self.budget
    }

    /// Whether the archive has an entry named `name`.
    pub fn has(&self, name: &str) -> bool {
        self.zip.index_for_name(name).is_some()
    }

    /// The bytes of entry `name`: None when there is none or it cannot be read,
    /// [`Refusal::TooLarge`] when it would take the archive past its budget.
    /// Inflated a chunk at a time, each a step of the conversion's budget per
    /// kilobyte, so an abandoned conversion stops inside a large entry; None
    /// too when the conversion stops while reading it.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, Refusal> {
        if self.budget.stopped() {
            return Ok(None);
        }
        let Ok(mut entry) = self.zip.by_name(name) else {
            return Ok(None);
        };
        // What the archive declares is checked first, then what the entry really holds.
        if entry.size() > self.left {
            return Err(Refusal::TooLarge);
        }
        let mut bytes: Vec<u8> = Vec::new();
        let whole = inflate(&mut entry, &mut bytes, self.left, &self.budget)?;
        // A broken entry's bytes count too: they were inflated all the same.
        self.left -= bytes.len() as u64;
        Ok(whole.then_some(bytes))
    }
}

/// Inflates `entry` into `bytes`, refusing past `left` bytes: whether it was
/// read whole.
fn inflate(
    entry: &mut impl Read,
    bytes: &mut Vec<u8>,
    left: u64,
    budget: &Budget,
) -> Result<bool, Refusal> {
    loop {
        // One byte past the budget tells an entry that fits from one that does not.
        if bytes.len() as u64 > left {
            return Err(Refusal::TooLarge);
        }
        if !reserve(bytes, CHUNK, budget) {
            return Ok(false);
        }
        let at = bytes.len();
        bytes.resize(at + CHUNK, 0);
        match entry.read(&mut bytes[at..]) {
            Ok(0) => {
                bytes.truncate(at);
                return Ok(true);
            }
            Ok(n) => bytes.truncate(at + n),
            Err(_) => {
                bytes.truncate(at);
                return Ok(false);
            }
        }
        if !budget.step((bytes.len() - at).div_ceil(1024) as u64) {
            return Ok(false);
        }
    }
}
