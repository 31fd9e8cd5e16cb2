//! What a run left past its limits, set aside at once and removed after the call.
//!
//! Removing a name can cost far more than making it (3 ms a folder on an ext4
//! mounted with `discard`, which hands each freed block back to the disk then and
//! there), so the removals after a run would keep the call busy long past its
//! timeout. Instead, each name past the limits is moved (one rename, no block
//! freed) into a hidden folder of the app's at the top of the run folder,
//! `REMOVING`, which no walk of a run or of the store looks into; once the call
//! has done its work, a process of its own empties it and removes it. The call
//! waits for that process while its timeout leaves time, and past it returns
//! while the process goes on: a call waits for renames, and for removals only
//! within its timeout.
//!
//! The folder is made by the app, mode 0700. Whatever else the run left under
//! its name (a file, a folder of another owner) is walked like any other name,
//! and moved into the app's folder, to be removed with the rest, once something
//! is set aside. Where no folder can be had, the name past the limits is
//! removed in place.

use std::ffi::CStr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{AtFlags, Mode};
use rustix::io::Errno;

use super::raw::close_all_but;
use file_store_base::removing::ours;
pub use file_store_base::removing::{is_removing, REMOVING};
use file_store_base::tree::DIR_FLAGS;

/// A number for each name set aside by this process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The folder of what waits to be removed in the run folder `root`, made if
/// missing. Anything else the run left under its name is moved into it first,
/// to be removed with the rest; `None` where that cannot be done.
fn holding(root: BorrowedFd<'_>) -> Option<OwnedFd> {
    let open = || -> Option<OwnedFd> {
        let fd = rustix::fs::openat(root, REMOVING, DIR_FLAGS, Mode::empty()).ok()?;
        ours(&rustix::fs::fstat(&fd).ok()?).then_some(fd)
    };
    match rustix::fs::mkdirat(root, REMOVING, Mode::RWXU) {
        Ok(()) => return open(),
        Err(Errno::EXIST) => {}
        Err(_) => return None,
    }
    if let Some(fd) = open() {
        return Some(fd);
    }
    let taken = fresh_name();
    rustix::fs::renameat(root, REMOVING, root, taken.as_str()).ok()?;
    rustix::fs::mkdirat(root, REMOVING, Mode::RWXU).ok()?;
    let held = open()?;
    rustix::fs::renameat(root, taken.as_str(), &held, fresh_name().as_str()).ok()?;
    Some(held)
}

/// A name no other set-aside of this process, or of another, takes.
fn fresh_name() -> String {
    format!(
        ".ruby_llm_removing_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Moves `name` in `dir`, below the run folder `root`, into the folder of what
/// waits to be removed, under a name of its own; where that cannot be, removes
/// it in place with `remove` (a folder with all in it, or anything else).
pub fn set_aside(
    root: BorrowedFd<'_>,
    dir: BorrowedFd<'_>,
    name: &CStr,
    remove: impl FnOnce() -> Result<(), Errno>,
) -> Result<(), Errno> {
    if let Some(held) = holding(root) {
        match rustix::fs::renameat(dir, name, &held, fresh_name().as_str()) {
            Ok(()) => return Ok(()),
            Err(Errno::NOENT) => return Err(Errno::NOENT),
            Err(_) => {}
        }
    }
    remove()
}

/// Empties the folder of what waits to be removed in `dir`, if it has one, and
/// removes it, in a process of its own, waiting for it at most `wait`: past it
/// the process goes on alone and the app does not wait. The app forks a child
/// that forks the remover and ends at once, so no one has to reap the remover;
/// where the orphan would come back to the app to be reaped (an app that is its
/// PID namespace's first process, as in a container without an init, or a
/// child subreaper), the app forks the remover itself and a thread of its own
/// waits for it, so it never stays a zombie. It closes every descriptor but its three, removes everything in the folder,
/// however deep, never through a link, then the folder, and ends, which closes
/// the pipe the app waits on. Returns whether it was done within `wait`.
pub fn empty_within(dir: &Path, wait: Duration) -> bool {
    let adopts = adopts_orphans();
    let (pid, done) = match start_emptying(dir, !adopts) {
        Emptying::Nothing => return true,
        Emptying::Failed => return false,
        Emptying::Started { pid, done } => (pid, done),
    };
    if adopts {
        let reaper = std::thread::Builder::new()
            .name("ruby_llm-reaper".into())
            .spawn(move || reap(pid));
        if reaper.is_err() {
            reap(pid);
        }
    } else {
        // The child ends at once.
        reap(pid);
    }
    done_within(done.as_fd(), wait)
}

/// What [`start_emptying`] did.
pub enum Emptying {
    /// The run folder holds nothing set aside.
    Nothing,
    /// No remover could be started.
    Failed,
    /// The child `pid`, which the caller reaps, started; `done` is readable
    /// (closed) once the remover has ended.
    Started { pid: libc::pid_t, done: OwnedFd },
}

/// Starts the remover of what waits to be removed in `dir`: the child is the
/// remover itself or, when `detached`, a child that forks the remover and ends
/// at once, so that the remover is adopted by whoever adopts orphans.
pub fn start_emptying(dir: &Path, detached: bool) -> Emptying {
    let Ok(root) = rustix::fs::open(dir, DIR_FLAGS, Mode::empty()) else {
        return Emptying::Nothing;
    };
    let Ok(held) = rustix::fs::openat(&root, REMOVING, DIR_FLAGS, Mode::empty()) else {
        return Emptying::Nothing;
    };
    let mut ends = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the two descriptors it was given room for.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Emptying::Failed;
    }
    // SAFETY: both are new descriptors, owned by nothing else.
    let (done, told) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    let mut own = [root.as_raw_fd(), held.as_raw_fd(), told.as_raw_fd()];
    own.sort_unstable();
    // SAFETY: the children take no lock but the allocator's, which glibc's fork
    // hands them usable, touch no Ruby value and leave by `_exit`.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: in the forked child (and the grandchild, when detached): setsid and
        // _exit take no pointer, `close_all_but` keeps `own`, a sorted array made before
        // the fork, and the removal allocates only through glibc's allocator, which fork
        // left usable, takes no other lock and touches no Ruby value; the child never
        // returns from here.
        unsafe {
            if !detached || libc::fork() == 0 {
                libc::setsid();
                if close_all_but(&own).is_ok() {
                    let _ = super::folder::empty_all(held.as_fd());
                    let _ = rustix::fs::unlinkat(&root, REMOVING, AtFlags::REMOVEDIR);
                }
            }
            libc::_exit(0)
        }
    }
    drop(told);
    if pid < 0 {
        return Emptying::Failed;
    }
    Emptying::Started { pid, done }
}

/// Whether the remover whose pipe is `done` ended within `wait`.
pub fn done_within(done: BorrowedFd<'_>, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let mut poll = libc::pollfd {
            fd: done.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().min(i32::MAX as u128) as libc::c_int;
        // SAFETY: one pollfd of ours.
        match unsafe { libc::poll(&mut poll, 1, ms) } {
            // The remover ended: its end of the pipe is closed.
            1.. => return true,
            0 => return false,
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return false,
        }
    }
}

/// Waits for the child `pid` to end.
fn reap(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: waits for a child of this process.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
        && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
    {}
}

/// Whether an orphan of this process's children comes back to it to be reaped:
/// it is the first process of its PID namespace, or a child subreaper.
pub(crate) fn adopts_orphans() -> bool {
    if rustix::process::getpid().is_init() {
        return true;
    }
    let mut flag: libc::c_int = 0;
    // SAFETY: PR_GET_CHILD_SUBREAPER writes one int where it is told.
    let asked = unsafe {
        libc::prctl(
            libc::PR_GET_CHILD_SUBREAPER,
            &mut flag as *mut libc::c_int as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    asked == 0 && flag != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_name_set_aside_is_gone_from_its_place_and_the_folder_empties_later() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("a/deep/er")).unwrap();
        fs::write(dir.path().join("a/deep/er/f"), "x").unwrap();
        let root = rustix::fs::open(dir.path(), DIR_FLAGS, Mode::empty()).unwrap();
        let a = rustix::fs::openat(&root, "a", DIR_FLAGS, Mode::empty()).unwrap();
        set_aside(root.as_fd(), a.as_fd(), c"deep", || panic!("renamed")).unwrap();
        assert!(!dir.path().join("a/deep").exists());
        assert_eq!(fs::read_dir(dir.path().join(REMOVING)).unwrap().count(), 1);
        assert!(empty_within(dir.path(), Duration::from_secs(10)));
        assert!(!dir.path().join(REMOVING).exists());
        assert!(dir.path().join("a").exists());
    }

    #[test]
    fn what_the_run_left_under_the_name_goes_into_the_folder_with_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(REMOVING), "mine").unwrap();
        fs::write(dir.path().join("f"), "x").unwrap();
        let root = rustix::fs::open(dir.path(), DIR_FLAGS, Mode::empty()).unwrap();
        set_aside(root.as_fd(), root.as_fd(), c"f", || panic!("renamed")).unwrap();
        let held = dir.path().join(REMOVING);
        assert!(held.is_dir());
        assert_eq!(fs::read_dir(&held).unwrap().count(), 2);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
