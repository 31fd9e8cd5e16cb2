//! The wait for a store's lock: a blocking `flock`, so the kernel hands the lock
//! over as soon as it is free, in the order the waiters came where it can. A
//! poller that tries now and then rarely finds free a lock that another process
//! takes back to back, and waits seconds where a blocking `flock` waits
//! milliseconds.
//!
//! A blocking `flock` cannot be cancelled, so it runs on a thread of its own, on an
//! open file of its own, and the caller waits for that thread's answer while
//! checking its cancellation flag. A caller that stops waiting leaves nothing held:
//! the thread, once the kernel gives it the lock, finds no one to hand it to and
//! unlocks and closes its file at once.

use std::os::fd::OwnedFd;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use rustix::fs::FlockOperation;
use rustix::io::Errno;

use file_store_base::cancel;
use file_store_base::error::{Error, Result};

/// How often a waiter looks at its cancellation flag.
const CANCEL_CHECK: Duration = Duration::from_millis(5);

/// Waits until `fd` (a fresh open file of the folder) holds the exclusive lock
/// and returns it, or `Error::Cancelled` once the calling thread's flag is set.
pub(crate) fn wait_exclusive(fd: OwnedFd) -> Result<OwnedFd> {
    let (taken, answer) = mpsc::sync_channel::<Result<OwnedFd>>(0);
    std::thread::Builder::new()
        .name("file_store lock".into())
        .spawn(move || {
            let result = loop {
                match rustix::fs::flock(&fd, FlockOperation::LockExclusive) {
                    Ok(()) => break Ok(()),
                    Err(Errno::INTR) => continue,
                    Err(e) => break Err(Error::io(".", e)),
                }
            };
            let pid = std::process::id();
            if let Err(mpsc::SendError(Ok(fd))) = taken.send(result.map(|()| fd)) {
                // The waiter was cancelled: give the lock back before closing, as
                // `LockGuard` does, so a child forked meanwhile does not keep it.
                if std::process::id() == pid {
                    let _ = rustix::fs::flock(&fd, FlockOperation::Unlock);
                }
            }
        })
        .map_err(|e| Error::io(".", e))?;
    loop {
        match answer.recv_timeout(CANCEL_CHECK) {
            Ok(result) => return result,
            Err(RecvTimeoutError::Timeout) => cancel::check()?,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::io(
                    ".",
                    std::io::Error::other("the lock's waiter ended"),
                ))
            }
        }
    }
}
