//! Copy mode's size-capped run folder: a tmpfs mounted in a mount namespace of its
//! own (and, for an app that is not root, a user namespace it owns, which any user
//! may make, as bubblewrap itself does), made by a short-lived child and held open
//! by descriptors. The app reaches the folder's files through the descriptor of its
//! root; the run's child enters the namespaces before it starts bubblewrap, and sees
//! the tmpfs at the run folder's path. The host's mounts never change, and when the
//! descriptors close the tmpfs goes, pages and all, even if the app is killed
//! mid-run: nothing stays mounted on the host.

use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustix::fs::{Mode, OFlags};

use super::raw::{check, close_all_but, make_mounts_private};
use file_store_base::error::{Error, Result};
use file_store_base::tree::DIR_FLAGS;

/// A tmpfs mounted on a run folder in namespaces only the run enters.
#[derive(Debug)]
pub struct PrivateTmpfs {
    /// None for a root app, which needs no user namespace to mount.
    user: Option<OwnedFd>,
    mount: OwnedFd,
    root: OwnedFd,
    /// The run folder's path, where the tmpfs is seen inside the namespaces, for
    /// the child to change into once it has entered them.
    dir: CString,
}

/// The tmpfs of each run folder `mount` made, by the folder's path.
static MOUNTED: Mutex<Vec<(PathBuf, Arc<PrivateTmpfs>)>> = Mutex::new(Vec::new());

/// Mounts a tmpfs of `bytes` and at most `inodes` files, folders and links on the
/// empty folder `dir`, in namespaces of its own,
/// and keeps it for `private_for(dir)` until `forget(dir)`. Returns the path the
/// app reaches the folder's files by.
pub fn mount(dir: &Path, bytes: u64, inodes: u64) -> Result<PathBuf> {
    Ok(keep(
        dir,
        PrivateTmpfs::mount_with(dir, &options(bytes, inodes))?,
    ))
}

/// The mount options of a run folder's tmpfs of `bytes` and `inodes`.
pub fn options(bytes: u64, inodes: u64) -> String {
    format!("size={bytes},nr_inodes={inodes},mode=0700")
}

/// Keeps `tmpfs`, mounted on `dir` here or by another process, for
/// `private_for(dir)` until `forget(dir)`. Returns the path the app reaches the
/// folder's files by.
pub fn keep(dir: &Path, tmpfs: PrivateTmpfs) -> PathBuf {
    let reach = PathBuf::from(format!("/proc/self/fd/{}/.", tmpfs.root.as_raw_fd()));
    let mut mounted = MOUNTED.lock().unwrap_or_else(|e| e.into_inner());
    mounted.retain(|(path, _)| path != dir);
    mounted.push((dir.to_path_buf(), Arc::new(tmpfs)));
    reach
}

/// The private tmpfs `mount` made on `dir`, if it did.
pub fn private_for(dir: &Path) -> Option<Arc<PrivateTmpfs>> {
    let mounted = MOUNTED.lock().unwrap_or_else(|e| e.into_inner());
    mounted
        .iter()
        .find(|(path, _)| path == dir)
        .map(|(_, tmpfs)| Arc::clone(tmpfs))
}

/// Lets the tmpfs on `dir` go: its pages are freed once no run holds it.
pub fn forget(dir: &Path) {
    let mut mounted = MOUNTED.lock().unwrap_or_else(|e| e.into_inner());
    mounted.retain(|(path, _)| path != dir);
}

impl PrivateTmpfs {
    /// Mounts a tmpfs with the mount `options` on the empty folder `dir`, in
    /// namespaces of its own.
    pub fn mount_with(dir: &Path, options: &str) -> Result<PrivateTmpfs> {
        let shown = dir.display().to_string();
        let fail = |why: String| Error::Sandbox(format!("cannot make a tmpfs for {shown}: {why}"));
        let cstring = |s: &[u8]| {
            CString::new(s).map_err(|_| Error::InvalidArgument(format!("{shown} holds a NUL byte")))
        };
        let target = cstring(dir.as_os_str().as_encoded_bytes())?;
        let uid = rustix::process::geteuid().as_raw();
        let gid = rustix::process::getegid().as_raw();
        let maps = (uid != 0).then(|| (format!("{uid} {uid} 1\n"), format!("{gid} {gid} 1\n")));
        let options = cstring(options.as_bytes())?;
        let maker =
            Maker::spawn(maps.as_ref(), &target, &options).map_err(|e| fail(e.to_string()))?;
        let held = Self::hold(maker.pid, dir, uid != 0);
        // The maker's work is done.
        drop(maker);
        let (user, mount, root) = held.map_err(|e| fail(e.to_string()))?;
        let stat = rustix::fs::fstatfs(&root).map_err(|e| fail(e.to_string()))?;
        if stat.f_type != libc::TMPFS_MAGIC {
            return Err(fail(
                "the folder seen in its namespace is not the tmpfs".to_string(),
            ));
        }
        Ok(PrivateTmpfs {
            user,
            mount,
            root,
            dir: target,
        })
    }

    /// Opens the maker's namespaces and the tmpfs's root, while it still lives.
    fn hold(
        pid: libc::pid_t,
        dir: &Path,
        own_user: bool,
    ) -> std::io::Result<(Option<OwnedFd>, OwnedFd, OwnedFd)> {
        let flags = OFlags::RDONLY | OFlags::CLOEXEC;
        let proc = format!("/proc/{pid}");
        let user = own_user
            .then(|| rustix::fs::open(format!("{proc}/ns/user"), flags, Mode::empty()))
            .transpose()?;
        let mount = rustix::fs::open(format!("{proc}/ns/mnt"), flags, Mode::empty())?;
        let mut root_path = std::ffi::OsString::from(format!("{proc}/root"));
        root_path.push(dir.as_os_str());
        let root = rustix::fs::open(&root_path, DIR_FLAGS, Mode::empty())?;
        Ok((user, mount, root))
    }

    /// Mounts another tmpfs, with the mount `options`, on the folder `target` in
    /// these namespaces, through a short-lived child that enters them (a process
    /// of one thread, as entering a user namespace needs). Nothing changes on the
    /// host.
    pub(super) fn mount_also(&self, target: &CString, options: &CString) -> std::io::Result<()> {
        let (ready_r, ready_w) = pipe()?;
        let user = self.user.as_ref().map(|fd| fd.as_raw_fd());
        let mount = self.mount.as_raw_fd();
        let mut own = [ready_w.as_raw_fd(), mount, user.unwrap_or(mount)];
        own.sort_unstable();
        // SAFETY: the child makes only raw system calls (close_range, setns, mount,
        // write) on descriptors and strings made before the fork, and leaves by _exit.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: in the forked child, which leaves only by the `_exit` below:
            // `close_all_but` gets `own`, sorted before the fork; setns takes descriptors
            // kept open in `own`; `mount_tmpfs` reads `target` and `options`, CStrings
            // made before the fork; write reads `told`, an array of this frame. None
            // allocates or takes a lock.
            unsafe {
                let made = close_all_but(&own)
                    .and_then(|()| match user {
                        Some(user) => check(libc::setns(user, libc::CLONE_NEWUSER)),
                        None => Ok(()),
                    })
                    .and_then(|()| check(libc::setns(mount, libc::CLONE_NEWNS)))
                    .and_then(|()| mount_tmpfs(target, options));
                let errno = match made {
                    Ok(()) => 0i32,
                    Err(e) => e.raw_os_error().unwrap_or(libc::EIO),
                };
                let told = errno.to_ne_bytes();
                libc::write(ready_w.as_raw_fd(), told.as_ptr().cast(), told.len());
                libc::_exit(0);
            }
        }
        drop(ready_w);
        let mut told = [0u8; 4];
        let read = loop {
            match rustix::io::read(&ready_r, &mut told) {
                Err(rustix::io::Errno::INTR) => continue,
                other => break other,
            }
        };
        let mut status = 0;
        // SAFETY: waits for the child forked above.
        while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
        {}
        match read {
            Ok(4) => match i32::from_ne_bytes(told) {
                0 => Ok(()),
                errno => Err(std::io::Error::from_raw_os_error(errno)),
            },
            Ok(_) => Err(std::io::Error::from_raw_os_error(libc::ECHILD)),
            Err(e) => Err(e.into()),
        }
    }

    /// What holds it: the user namespace (none for a root app), the mount
    /// namespace, the tmpfs's root, and the run folder's path inside them.
    pub fn parts(
        &self,
    ) -> (
        Option<BorrowedFd<'_>>,
        BorrowedFd<'_>,
        BorrowedFd<'_>,
        &CString,
    ) {
        let user = self.user.as_ref().map(|fd| fd.as_fd());
        (user, self.mount.as_fd(), self.root.as_fd(), &self.dir)
    }

    /// The tmpfs held by the descriptors [`PrivateTmpfs::parts`] gave, received
    /// by another process.
    pub fn from_parts(user: Option<OwnedFd>, mount: OwnedFd, root: OwnedFd, dir: CString) -> Self {
        PrivateTmpfs {
            user,
            mount,
            root,
            dir,
        }
    }

    /// The tmpfs's root folder.
    pub fn root(&self) -> BorrowedFd<'_> {
        self.root.as_fd()
    }

    /// In the run's child, between fork and exec: enters the namespaces and changes
    /// into the run folder there. Raw system calls only.
    pub(super) fn enter(&self) -> std::io::Result<()> {
        // SAFETY: raw system calls on descriptors and a NUL-terminated string that
        // outlive the call.
        unsafe {
            if let Some(user) = &self.user {
                check(libc::setns(user.as_raw_fd(), libc::CLONE_NEWUSER))?;
            }
            check(libc::setns(self.mount.as_raw_fd(), libc::CLONE_NEWNS))?;
            check(libc::chdir(self.dir.as_ptr()))
        }
    }
}

/// The child that makes the namespaces and mounts the tmpfs, then waits, so that
/// its namespaces can be opened, until it is dropped. A fork with no exec: the app
/// may have no program to run in it (a distroless image).
struct Maker {
    pid: libc::pid_t,
    go: Option<OwnedFd>,
}

impl Maker {
    fn spawn(
        maps: Option<&(String, String)>,
        target: &CString,
        options: &CString,
    ) -> std::io::Result<Maker> {
        let (ready_r, ready_w) = pipe()?;
        let (go_r, go_w) = pipe()?;
        let mut own = [ready_w.as_raw_fd(), go_r.as_raw_fd()];
        own.sort_unstable();
        // SAFETY: the child makes only raw system calls (close_range, unshare, open,
        // write, read, close, mount) on data made before the fork, and leaves by _exit.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: raw system calls. Every descriptor but this maker's two ends
            // goes: the parent's ends of these pipes, whose wait below would never
            // see the pipe close, and those of the makers other threads started at
            // the same time, which would keep each of them waiting for this one.
            let closed = unsafe { close_all_but(&own) };
            let made = closed
                .and_then(|()| enter_own_namespaces(maps))
                .and_then(|()| mount_tmpfs(target, options));
            let errno = match made {
                Ok(()) => 0i32,
                Err(e) => e.raw_os_error().unwrap_or(libc::EIO),
            };
            let told = errno.to_ne_bytes();
            let mut byte = 0u8;
            // SAFETY: raw system calls on descriptors and buffers of this frame.
            unsafe {
                libc::write(ready_w.as_raw_fd(), told.as_ptr().cast(), told.len());
                libc::read(go_r.as_raw_fd(), (&mut byte as *mut u8).cast(), 1);
                libc::_exit(0);
            }
        }
        drop(ready_w);
        drop(go_r);
        let maker = Maker {
            pid,
            go: Some(go_w),
        };
        let mut told = [0u8; 4];
        let read = loop {
            match rustix::io::read(&ready_r, &mut told) {
                Err(rustix::io::Errno::INTR) => continue,
                other => break other,
            }
        };
        match read {
            Ok(4) => match i32::from_ne_bytes(told) {
                0 => Ok(maker),
                errno => Err(std::io::Error::from_raw_os_error(errno)),
            },
            Ok(_) => Err(std::io::Error::from_raw_os_error(libc::ECHILD)),
            Err(e) => Err(e.into()),
        }
    }
}

impl Drop for Maker {
    /// Closing its pipe ends the maker; it is reaped here.
    fn drop(&mut self) {
        drop(self.go.take());
        let mut status = 0;
        // SAFETY: waits for the child this Maker forked.
        while unsafe { libc::waitpid(self.pid, &mut status, 0) } < 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
        {}
    }
}

/// A pipe's two ends, closed on exec.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut ends = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the two descriptors it was given room for.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both are new descriptors, owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) })
}

/// In the maker, between fork and its exit: a mount namespace whose mounts reach no
/// other and, given the `maps` of an app that is not root, a user namespace mapping
/// its own uid and gid to themselves, which owns the mount namespace.
fn enter_own_namespaces(maps: Option<&(String, String)>) -> std::io::Result<()> {
    // SAFETY: raw system calls on NUL-terminated strings and buffers made before the fork.
    unsafe {
        if let Some((uid_map, gid_map)) = maps {
            check(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS))?;
            write_proc(c"/proc/self/setgroups", b"deny")?;
            write_proc(c"/proc/self/uid_map", uid_map.as_bytes())?;
            write_proc(c"/proc/self/gid_map", gid_map.as_bytes())?;
        } else {
            check(libc::unshare(libc::CLONE_NEWNS))?;
        }
        make_mounts_private()
    }
}

/// Mounts the tmpfs on `target`, nosuid and nodev.
fn mount_tmpfs(target: &CString, options: &CString) -> std::io::Result<()> {
    // SAFETY: NUL-terminated strings made before the fork.
    check(unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            target.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            options.as_ptr().cast(),
        )
    })
}

/// Writes `data` to the /proc file `path` in one call. Raw system calls only.
///
/// # Safety
/// Callable between fork and exec: no allocation, no lock.
unsafe fn write_proc(path: &std::ffi::CStr, data: &[u8]) -> std::io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let written = libc::write(fd, data.as_ptr().cast(), data.len());
    let error = std::io::Error::last_os_error();
    libc::close(fd);
    if written == data.len() as isize {
        Ok(())
    } else {
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn the_app_reaches_a_capped_tmpfs_the_host_never_sees() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("run");
        std::fs::create_dir(&dir).unwrap();
        let reach = mount(&dir, 1 << 20, 100).unwrap();
        std::fs::write(reach.join("a.txt"), "kept").unwrap();
        // Not on the host's folder: only through the tmpfs.
        assert!(std::fs::read_dir(&dir).unwrap().next().is_none());
        assert_eq!(
            std::fs::read_to_string(reach.join("a.txt")).unwrap(),
            "kept"
        );
        let mut big = std::fs::File::create(reach.join("big")).unwrap();
        let err = big.write_all(&vec![0u8; 2 << 20]).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
        let made = (0..200)
            .take_while(|i| std::fs::write(reach.join(format!("f{i}")), "").is_ok())
            .count();
        assert!(made < 100, "{made} files in a tmpfs of 100 inodes");
        assert!(private_for(&dir).is_some());
        forget(&dir);
        assert!(private_for(&dir).is_none());
        assert!(std::fs::metadata(reach.join("a.txt")).is_err());
    }

    #[test]
    fn makers_started_at_once_by_several_threads_all_end() {
        let base = tempfile::tempdir().unwrap();
        let (done, ended) = std::sync::mpsc::channel();
        for thread in 0..4 {
            let (base, done) = (base.path().to_path_buf(), done.clone());
            std::thread::spawn(move || {
                for run in 0..5 {
                    let dir = base.join(format!("run{thread}_{run}"));
                    std::fs::create_dir(&dir).unwrap();
                    mount(&dir, 1 << 20, 100).unwrap();
                    forget(&dir);
                }
                done.send(()).unwrap();
            });
        }
        for _ in 0..4 {
            // Each maker once held the others' pipe ends, and they waited for one
            // another for good.
            ended
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("a thread making tmpfs folders hung");
        }
    }

    #[test]
    fn a_folder_it_cannot_mount_on_is_an_error_naming_it_and_nothing_is_kept() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("missing");
        let err = mount(&dir, 1 << 20, 100).unwrap_err().to_string();
        assert!(err.contains("missing"), "{err}");
        assert!(private_for(&dir).is_none());
    }
}
