//! Converted texts kept in memory for the whole process, by file version, so a
//! file is converted once however many searches and reads go through it.
//!
//! A version is the file's device, inode, size and times of change and of status
//! change (to the nanosecond), read from the descriptor the bytes come through: a
//! folder store replaces a file by renaming a new one over it (a new inode), and
//! any write in place moves its times, so a changed file is never taken for the
//! version converted. What the converters made of the bytes is kept with the
//! SHA-256 of those bytes, which a read records as the version the model saw.
//! The cache holds at most [`MAX_CACHED_BYTES`] of text and [`MAX_CACHED_FILES`]
//! files, the least recently used dropped first. A text the budget cut, and a
//! document that stopped its worker, are kept like any other answer: the budget
//! counts work and CPU time, so the same version gets the same answer again, and
//! a document that needs more than a worker may have is not sent again.
//!
//! Threads that want the same version at once wait on one conversion: the
//! first converts, the others take its answer (or, when it gave up, try again).

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::{pool, Kind, Refusal};
use file_store_base::error::{Error, Result};
use file_store_base::process_local::PerProcess;
use file_store_base::version::StatVersion;

/// The most text the cache holds, over all files.
pub const MAX_CACHED_BYTES: usize = 256 * 1024 * 1024;

/// The most files the cache holds conversions of.
pub const MAX_CACHED_FILES: usize = 100_000;

/// What a file's converters made of one version of it.
#[derive(Debug)]
pub struct Conversion {
    /// The text, or why there is none.
    pub text: std::result::Result<Arc<String>, Refusal>,
    /// The SHA-256 of the bytes converted, in hex.
    pub digest: String,
    /// The size of the bytes converted.
    pub size: u64,
    /// Their time of change: seconds and nanoseconds since the epoch.
    pub mtime: (i64, u32),
}

/// A version of a file, and the converters that read it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    at: StatVersion,
    chain: Vec<Kind>,
}

#[derive(Default, Clone)]
struct Cache {
    entries: HashMap<Key, (Arc<Conversion>, u64)>,
    by_use: BTreeMap<u64, Key>,
    bytes: usize,
    tick: u64,
    limit_bytes: usize,
    limit_files: usize,
}

/// The cache of this process. A process forked from the app keeps the parent's
/// texts when no thread held the cache at the fork, and starts empty otherwise.
fn cache() -> &'static Mutex<Cache> {
    static CACHE: PerProcess<Mutex<Cache>> = PerProcess::new(|parent| {
        let kept = parent.and_then(|parent| parent.try_lock().ok().map(|cache| cache.clone()));
        Mutex::new(kept.unwrap_or_else(|| Cache {
            limit_bytes: MAX_CACHED_BYTES,
            limit_files: MAX_CACHED_FILES,
            ..Cache::default()
        }))
    });
    CACHE.get()
}

fn weight(conversion: &Conversion) -> usize {
    conversion.text.as_ref().map_or(0, |text| text.len()) + 64
}

impl Cache {
    fn get(&mut self, key: &Key) -> Option<Arc<Conversion>> {
        self.tick += 1;
        let tick = self.tick;
        let (found, used) = self.entries.get_mut(key)?;
        self.by_use.remove(used);
        *used = tick;
        self.by_use.insert(tick, key.clone());
        Some(Arc::clone(found))
    }

    fn put(&mut self, key: Key, conversion: Arc<Conversion>) {
        let size = weight(&conversion);
        if size > self.limit_bytes {
            return;
        }
        if let Some((old, used)) = self.entries.remove(&key) {
            self.by_use.remove(&used);
            self.bytes -= weight(&old);
        }
        while self.bytes + size > self.limit_bytes || self.entries.len() >= self.limit_files {
            let Some((_, oldest)) = self.by_use.pop_first() else {
                break;
            };
            if let Some((old, _)) = self.entries.remove(&oldest) {
                self.bytes -= weight(&old);
            }
        }
        self.tick += 1;
        self.by_use.insert(self.tick, key.clone());
        self.entries.insert(key, (conversion, self.tick));
        self.bytes += size;
    }
}

/// What `chain` makes of the file open as `file` (shown as `path` in errors): from
/// the cache when this version was converted before, else read, converted and kept.
pub fn converted(file: &File, path: &str, chain: &[Kind]) -> Result<Arc<Conversion>> {
    let stat = rustix::fs::fstat(file).map_err(|e| Error::io(path, e))?;
    let key = Key {
        at: StatVersion::of(&stat),
        chain: chain.to_vec(),
    };
    loop {
        if let Some(found) = lock().get(&key) {
            return Ok(found);
        }
        match Flight::join(&key) {
            Joined::Leader(flight) => {
                let conversion = convert(file, path, &key);
                flight.land(&key, conversion.as_ref().ok());
                return conversion;
            }
            Joined::Follower(flight) => {
                if let Some(found) = flight.wait()? {
                    return Ok(found);
                }
            }
        }
    }
}

/// Converts the file in a worker and keeps the answer as `key`'s. The file goes
/// to the worker a piece at a time: the app holds at most a piece of it.
fn convert(file: &File, path: &str, key: &Key) -> Result<Arc<Conversion>> {
    // Refused before a byte is read: a worker could not hold it.
    if let Some(refusal) = pool::too_large(key.at.size) {
        let conversion = Arc::new(Conversion {
            text: Err(refusal),
            // Past the size a digest names a version at (`version::DIGEST_LIMIT`).
            digest: String::new(),
            size: key.at.size,
            mtime: (key.at.mtime.0, key.at.mtime.1 as u32),
        });
        lock().put(key.clone(), Arc::clone(&conversion));
        return Ok(conversion);
    }
    let document = pool::Document::File {
        file,
        size: key.at.size,
        path,
    };
    let digest = document.digest().map_err(|e| read_error(path, e))?;
    let text = pool::convert_document(&key.chain, document)?;
    let conversion = Arc::new(Conversion {
        // Arc::new, not Arc::from: a text may be 64 MB, which Arc<str> would copy.
        text: text.map(Arc::new),
        digest,
        size: key.at.size,
        mtime: (key.at.mtime.0, key.at.mtime.1 as u32),
    });
    // A file changed while it was read (a write in place moves its times) is
    // converted for this read but not kept as the version measured.
    let unchanged = rustix::fs::fstat(file).is_ok_and(|stat| StatVersion::of(&stat) == key.at);
    if unchanged {
        lock().put(key.clone(), Arc::clone(&conversion));
    }
    Ok(conversion)
}

fn read_error(path: &str, error: std::io::Error) -> Error {
    file_store_base::cancel::from_io(path, pool::document::Unread::into_read_error(error))
}

/// One conversion under way, which other threads wanting the same version wait on.
struct Flight {
    landed: Mutex<Option<Option<Arc<Conversion>>>>,
    ready: Condvar,
}

enum Joined {
    Leader(Arc<Flight>),
    Follower(Arc<Flight>),
}

/// The conversions under way in this process: a process forked from the app has
/// none of its parent's, whose leaders are not in it.
fn flights() -> std::sync::MutexGuard<'static, HashMap<Key, Arc<Flight>>> {
    static FLIGHTS: PerProcess<Mutex<HashMap<Key, Arc<Flight>>>> =
        PerProcess::new(|_| Mutex::default());
    FLIGHTS.get().lock().unwrap_or_else(|e| e.into_inner())
}

impl Flight {
    fn join(key: &Key) -> Joined {
        let mut flights = flights();
        if let Some(flight) = flights.get(key) {
            return Joined::Follower(Arc::clone(flight));
        }
        let flight = Arc::new(Flight {
            landed: Mutex::new(None),
            ready: Condvar::new(),
        });
        flights.insert(key.clone(), Arc::clone(&flight));
        Joined::Leader(flight)
    }

    /// Ends the flight with the leader's answer (`None`: it gave up or failed).
    fn land(&self, key: &Key, conversion: Option<&Arc<Conversion>>) {
        flights().remove(key);
        *self.landed.lock().unwrap_or_else(|e| e.into_inner()) = Some(conversion.cloned());
        self.ready.notify_all();
    }

    /// The leader's answer, or `None` when it had none; stops when this
    /// thread's caller gives up.
    fn wait(&self) -> Result<Option<Arc<Conversion>>> {
        let mut landed = self.landed.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(answer) = landed.as_ref() {
                return Ok(answer.clone());
            }
            file_store_base::cancel::check()?;
            landed = self
                .ready
                .wait_timeout(landed, Duration::from_millis(10))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    cache().lock().unwrap_or_else(|e| e.into_inner())
}

/// How many files' conversions the cache holds, and how many bytes of text.
pub fn usage() -> (usize, usize) {
    let cache = lock();
    (cache.entries.len(), cache.bytes)
}

#[cfg(test)]
mod tests;
