//! What a run left past its limits, set aside at once and removed after the call.
//!
//! Removing a name can cost far more than making it (3 ms a folder on an ext4
//! mounted with `discard`, which hands each freed block back to the disk then and
//! there), so the removals after a run would keep the call busy long past its
//! timeout. Instead, each name past the limits is moved (one rename, no block
//! freed) into a hidden folder of the app's at the top of the run folder,
//! `REMOVING`, which no walk of a run or of the store looks into; once the call
//! has done its work, a process of its own empties it. The call waits for that
//! process while its timeout leaves time, and past it returns while the process
//! goes on: a call waits for renames, and for removals only within its timeout.
//!
//! The folder is made by the app, mode 0700, before the run ([`prepare`]), and
//! stays: the sandbox mounts an empty, read-only tmpfs over it for the run, so
//! the run can neither put anything in it, nor rename it, nor make it itself (an
//! unprivileged app's run has the app's own uid, and a folder it made there
//! would pass for the app's and hide what it held from every look). A remover
//! that took the folder away while a later run had it covered would lift the
//! cover, so removers only empty it. A remover holds a lock (`flock`) on it
//! while it works: what the folder holds when no remover does is what an earlier
//! one could not remove or never came to, which the next run is told of and
//! counts against its own new names. Whatever else is found under the name (a
//! file, a folder of another owner, left by a run of an earlier version or one
//! outside the sandbox) is moved into the app's folder, to be removed with the
//! rest. Where no folder can be had, the name past the limits is removed in place.

use std::ffi::CStr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{FileType, FlockOperation, Mode};
use rustix::io::Errno;

use super::raw::close_all_but;
use file_store_base::removing::open_ours;
pub use file_store_base::removing::{is_the_gems, GEMS_FOLDERS, INDEX, REMOVING};
use file_store_base::tree::{self, Descend, DIR_FLAGS};

/// A number for each name set aside by this process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The folder of what waits to be removed in the run folder `root`, made if
/// missing. Anything else the run left under its name is moved into it first,
/// to be removed with the rest; `None` where that cannot be done.
fn holding(root: BorrowedFd<'_>) -> Option<OwnedFd> {
    let open = || open_ours(root, REMOVING).ok().flatten();
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

/// What the folder of what waits to be removed held before a run while no
/// remover was at work on it, counted up to one name past the most asked for.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Leftover {
    /// Files, folders and links.
    pub names: u64,
    /// The sizes of its files.
    pub bytes: u64,
}

/// Makes the folder of what waits to be removed in the run folder `root` if it
/// is missing, before a run (which sees it only covered, read-only and empty),
/// and counts what it still holds, up to `most` names, when no remover is at
/// work on it: `None` where it holds nothing, a remover works on it, or it could
/// not be made.
pub fn prepare(root: BorrowedFd<'_>, most: u64) -> Option<Leftover> {
    let held = holding(root)?;
    index_folder(root);
    rustix::fs::flock(&held, FlockOperation::NonBlockingLockExclusive).ok()?;
    let mut left = Leftover::default();
    let _ = tree::walk(
        held.as_fd(),
        |item| {
            if left.names > most {
                return Descend::No;
            }
            left.names += 1;
            if FileType::from_raw_mode(item.stat.st_mode) == FileType::RegularFile {
                left.bytes += item.stat.st_size as u64;
            }
            Descend::Yes
        },
        |_, _| {},
    );
    (left.names > 0).then_some(left)
}

/// Makes the store's index folder, `INDEX`, if missing, so that no run makes it
/// first: anything else under its name is set aside, to be removed with the rest.
fn index_folder(root: BorrowedFd<'_>) {
    let is_ours = || open_ours(root, INDEX).is_ok_and(|fd| fd.is_some());
    if rustix::fs::mkdirat(root, INDEX, Mode::RWXU).is_ok() || is_ours() {
        return;
    }
    let name = std::ffi::CString::new(INDEX).expect("a name without a NUL byte");
    if set_aside(root, root, &name, || Err(Errno::EXIST)).is_ok() {
        let _ = rustix::fs::mkdirat(root, INDEX, Mode::RWXU);
    }
}

/// Whether the folder open on `dir` holds no name.
fn is_empty(dir: BorrowedFd<'_>) -> bool {
    let Ok(names) = rustix::fs::Dir::read_from(dir) else {
        return false;
    };
    names
        .filter_map(|name| name.ok())
        .all(|name| matches!(name.file_name().to_bytes(), b"." | b".."))
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

/// Empties the folder of what waits to be removed in `dir`, if it holds
/// anything, in a process of its own, waiting for it at most `wait`: past it the
/// process goes on alone and the app does not wait. The app forks a child that
/// forks the remover and ends at once, so no one has to reap the remover; where
/// the orphan would come back to the app to be reaped (an app that is its PID
/// namespace's first process, as in a container without an init, or a child
/// subreaper), the app forks the remover itself and a thread of its own waits
/// for it, so it never stays a zombie. The remover closes every descriptor but
/// its three, locks the folder, removes everything in it, however deep, never
/// through a link, and ends, which closes the pipe the app waits on. Returns
/// whether it was done within `wait`.
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
    if is_empty(held.as_fd()) {
        return Emptying::Nothing;
    }
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
                // Held until this process ends: the next run's `prepare` counts
                // what is left only once no remover is at work.
                if close_all_but(&own).is_ok()
                    && rustix::fs::flock(&held, FlockOperation::LockExclusive).is_ok()
                {
                    let _ = super::folder::empty_all(held.as_fd());
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
        // Emptied, and kept: a later run may have it covered.
        assert_eq!(fs::read_dir(dir.path().join(REMOVING)).unwrap().count(), 0);
        assert!(dir.path().join("a").exists());
        assert_eq!(prepare(root.as_fd(), 100), None);
    }

    #[test]
    fn before_a_run_the_folder_is_made_and_what_no_remover_took_is_counted() {
        let dir = tempfile::tempdir().unwrap();
        let root = rustix::fs::open(dir.path(), DIR_FLAGS, Mode::empty()).unwrap();
        assert_eq!(prepare(root.as_fd(), 100), None);
        let held = dir.path().join(REMOVING);
        let meta = fs::metadata(&held).unwrap();
        assert!(meta.is_dir());
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
            0o700
        );
        // What a remover killed midway, or never started, left.
        fs::create_dir_all(held.join("a/b")).unwrap();
        fs::write(held.join("a/b/f"), vec![0u8; 5000]).unwrap();
        fs::write(held.join("g"), "12345").unwrap();
        let left = Leftover {
            names: 4,
            bytes: 5005,
        };
        assert_eq!(prepare(root.as_fd(), 100), Some(left));
        // Counted up to one past the most asked for.
        assert_eq!(prepare(root.as_fd(), 1).map(|left| left.names), Some(2));
        // Not while a remover is at work on it.
        let working = rustix::fs::open(&held, DIR_FLAGS, Mode::empty()).unwrap();
        rustix::fs::flock(&working, FlockOperation::LockExclusive).unwrap();
        assert_eq!(prepare(root.as_fd(), 100), None);
        drop(working);
        assert!(empty_within(dir.path(), Duration::from_secs(10)));
        assert_eq!(prepare(root.as_fd(), 100), None);
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
