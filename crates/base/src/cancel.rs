//! Cancellation of long work: the binding sets a flag when Ruby interrupts a thread
//! (`Timeout.timeout`, `Thread#kill`, Ctrl-C), and long loops in the core check it
//! and stop with `Error::Cancelled`.
//!
//! The flag is per thread: the binding installs it around the work with
//! [`with_flag`], and work that fans out to other threads hands it on with
//! [`current`] and [`with_flag`].

use std::cell::RefCell;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};

thread_local! {
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `work` with `flag` as this thread's cancellation flag.
pub fn with_flag<T>(flag: Option<Arc<AtomicBool>>, work: impl FnOnce() -> T) -> T {
    let previous = FLAG.with(|slot| slot.replace(flag));
    struct Restore(Option<Option<Arc<AtomicBool>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take().flatten();
            FLAG.with(|slot| *slot.borrow_mut() = previous);
        }
    }
    let _restore = Restore(Some(previous));
    work()
}

/// This thread's flag, to hand to threads the work starts.
pub fn current() -> Option<Arc<AtomicBool>> {
    FLAG.with(|slot| slot.borrow().clone())
}

/// Whether the work on this thread has been asked to stop.
pub fn cancelled() -> bool {
    FLAG.with(|slot| {
        slot.borrow()
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    })
}

/// `Err(Error::Cancelled)` when the work on this thread has been asked to stop.
pub fn check() -> Result<()> {
    if cancelled() {
        Err(Error::Cancelled)
    } else {
        Ok(())
    }
}

/// The I/O error a [`Reader`] stops with; [`from_io`] tells it apart.
pub fn io_cancelled() -> io::Error {
    io::Error::other(Error::Cancelled)
}

/// Whether `error` is a stop asked for, not a failure of the disk.
pub fn is_cancelled(error: &io::Error) -> bool {
    error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<Error>())
        .is_some_and(|inner| matches!(inner, Error::Cancelled))
}

/// `error` as the core's error on `path`: `Error::Cancelled` stays itself.
pub fn from_io(path: &str, error: io::Error) -> Error {
    if is_cancelled(&error) {
        Error::Cancelled
    } else {
        Error::io(path, error)
    }
}

/// A reader that stops with a cancellation error once the flag of the thread
/// that made it is set, so any loop reading through it can be interrupted.
pub struct Reader<R> {
    inner: R,
    flag: Option<Arc<AtomicBool>>,
}

impl<R> Reader<R> {
    /// Wraps `inner`, watching the current thread's flag.
    pub fn new(inner: R) -> Self {
        Reader {
            inner,
            flag: current(),
        }
    }
}

impl<R: Read> Read for Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self
            .flag
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            return Err(io_cancelled());
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_flag_stops_checks_and_readers() {
        let flag = Arc::new(AtomicBool::new(false));
        with_flag(Some(flag.clone()), || {
            assert!(check().is_ok());
            let mut reader = Reader::new(&b"abc"[..]);
            flag.store(true, Ordering::Relaxed);
            assert!(matches!(check(), Err(Error::Cancelled)));
            let error = reader.read(&mut [0; 3]).unwrap_err();
            assert!(matches!(from_io("x", error), Error::Cancelled));
        });
        assert!(check().is_ok(), "the flag is gone after the work");
    }
}
