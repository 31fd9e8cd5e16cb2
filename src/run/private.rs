//! Copy mode's size-capped run folder: a tmpfs mounted in a mount namespace of its
//! own (and, for an app that is not root, a user namespace it owns, which any user
//! may make, as bubblewrap itself does), made by a short-lived child and held open
//! by descriptors. The app reaches the folder's files through the descriptor of its
//! root; the run's child enters the namespaces before it starts bubblewrap, and sees
//! the tmpfs at the run folder's path. The host's mounts never change, and when the
//! descriptors close the tmpfs goes, pages and all, even if the app is killed
//! mid-run: nothing stays mounted on the host.

use std::ffi::CString;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use rustix::fs::{Mode, OFlags};

use crate::error::{Error, Result};
use crate::tree::DIR_FLAGS;

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

/// The program the namespaces' maker runs once it has mounted the tmpfs: it waits
/// on its standard input, which the app closes once it holds the descriptors.
const WAITER: &str = "/bin/cat";

/// Mounts a tmpfs of `bytes` on the empty folder `dir`, in namespaces of its own,
/// and keeps it for `private_for(dir)` until `forget(dir)`. Returns the path the
/// app reaches the folder's files by.
pub fn mount(dir: &Path, bytes: u64) -> Result<PathBuf> {
    let tmpfs = PrivateTmpfs::mount(dir, bytes)?;
    let reach = PathBuf::from(format!("/proc/self/fd/{}/.", tmpfs.root.as_raw_fd()));
    let mut mounted = MOUNTED.lock().unwrap_or_else(|e| e.into_inner());
    mounted.retain(|(path, _)| path != dir);
    mounted.push((dir.to_path_buf(), Arc::new(tmpfs)));
    Ok(reach)
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
    fn mount(dir: &Path, bytes: u64) -> Result<PrivateTmpfs> {
        let shown = dir.display().to_string();
        let fail = |why: String| Error::Sandbox(format!("cannot make a tmpfs for {shown}: {why}"));
        let cstring = |s: &[u8]| {
            CString::new(s).map_err(|_| Error::InvalidArgument(format!("{shown} holds a NUL byte")))
        };
        let target = cstring(dir.as_os_str().as_encoded_bytes())?;
        let uid = rustix::process::geteuid().as_raw();
        let gid = rustix::process::getegid().as_raw();
        let maps = (uid != 0).then(|| (format!("{uid} {uid} 1\n"), format!("{gid} {gid} 1\n")));
        let options = cstring(format!("size={bytes},mode=0700").as_bytes())?;
        let mut maker = Command::new(WAITER);
        maker
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: the closure runs in the forked child before exec and makes only raw
        // system calls (unshare, open, write, close, mount) on data made before the fork.
        unsafe {
            maker.pre_exec(move || {
                enter_own_namespaces(maps.as_ref())?;
                mount_tmpfs(&target, &options)
            });
        }
        let mut child = maker.spawn().map_err(|e| fail(e.to_string()))?;
        let held = Self::hold(child.id(), dir, uid != 0);
        // The maker's work is done: closing its input ends it.
        drop(child.stdin.take());
        let _ = child.wait();
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
            dir: cstring(dir.as_os_str().as_encoded_bytes())?,
        })
    }

    /// Opens the maker's namespaces and the tmpfs's root, while it still lives.
    fn hold(
        pid: u32,
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

    /// The tmpfs's root folder.
    pub fn root(&self) -> BorrowedFd<'_> {
        self.root.as_fd()
    }

    /// In the run's child, between fork and exec: enters the namespaces and changes
    /// into the run folder there. Raw system calls only.
    pub(super) fn enter(&self) -> std::io::Result<()> {
        let check = |rc: libc::c_int| {
            if rc == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        };
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

/// In the maker, between fork and exec: a mount namespace whose mounts reach no
/// other and, given the `maps` of an app that is not root, a user namespace mapping
/// its own uid and gid to themselves, which owns the mount namespace.
fn enter_own_namespaces(maps: Option<&(String, String)>) -> std::io::Result<()> {
    let check = |rc: libc::c_int| {
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    };
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
        let null = std::ptr::null::<libc::c_char>();
        check(libc::mount(
            null,
            c"/".as_ptr(),
            null,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ))
    }
}

/// Mounts the tmpfs on `target`, nosuid and nodev.
fn mount_tmpfs(target: &CString, options: &CString) -> std::io::Result<()> {
    // SAFETY: NUL-terminated strings made before the fork.
    let rc = unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            target.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            options.as_ptr().cast(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
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
        let reach = mount(&dir, 1 << 20).unwrap();
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
        assert!(private_for(&dir).is_some());
        forget(&dir);
        assert!(private_for(&dir).is_none());
        assert!(std::fs::metadata(reach.join("a.txt")).is_err());
    }
}
