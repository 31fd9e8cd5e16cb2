//! The first files of a listing by path, and how many there are, in memory that
//! does not grow with the tree: what `list_files` shows of a store of any size.

use std::collections::BinaryHeap;
use std::os::fd::AsFd;

use file_store_base::error::Result;

use super::{walk, Entry, Root};

/// The first files of a folder by path, and how many files it holds in all.
#[derive(Debug)]
pub struct Listing {
    /// The first `limit` files by path, sorted.
    pub entries: Vec<Entry>,
    /// Every file the folder holds, those in `entries` included.
    pub total: u64,
}

impl Root {
    /// The first `limit` files inside the folder `prefix` (or all) by path, as
    /// [`Root::list`] sorts them, and how many there are. The walk keeps only the
    /// `limit` smallest paths (a max-heap) and a count, so 100,000 files cost what
    /// 1,000 do in memory; only the files kept are statted, after the walk, since
    /// the folder's own entries already say which names are files.
    pub fn list_first(&self, prefix: Option<&str>, limit: usize) -> Result<Listing> {
        let Some((start, base)) = self.start_of(prefix)? else {
            return Ok(Listing {
                entries: Vec::new(),
                total: 0,
            });
        };
        let mut first: BinaryHeap<String> = BinaryHeap::with_capacity(limit.min(4096) + 1);
        let mut total: u64 = 0;
        let start = start.as_ref().map_or(self.fd.as_fd(), |fd| fd.as_fd());
        walk::walk_files(start, &base, |_, _, path| {
            total += 1;
            if first.len() < limit {
                first.push(path);
            } else if first.peek().is_some_and(|last| path < *last) {
                first.pop();
                first.push(path);
            }
            Ok(())
        })?;
        let mut entries = Vec::with_capacity(first.len());
        for path in first.into_sorted_vec() {
            // Gone, or no longer a file, since the walk read its folder.
            match self.stat(&path)? {
                Some(entry) => entries.push(entry),
                None => total -= 1,
            }
        }
        Ok(Listing { entries, total })
    }
}
