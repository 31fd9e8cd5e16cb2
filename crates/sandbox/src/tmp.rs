//! A sandboxed run's own `/tmp`: a tmpfs of `tmp_bytes` holding at most
//! `TMP_NAMES` names, which bubblewrap binds at `/tmp`. bubblewrap's own tmpfs
//! takes a size but no count of names, and each empty file costs the kernel memory
//! the size does not count (1.5 million of them cost an unprivileged app's host
//! 1.3 to 1.9 GB where no memory cgroup held the run). It is mounted, like copy
//! mode's run folder, in namespaces only the run enters (`private`): copy mode's
//! own, or, in workspace mode, new ones; the host sees an empty folder, removed
//! after the run.

use std::ffi::CString;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};

use super::held;
use super::private::PrivateTmpfs;
use file_store_base::error::{Error, Result};

/// The most names (files, folders, links) a run's `/tmp` holds.
pub const TMP_NAMES: u64 = 100_000;

/// How the name of every run's `/tmp` folder on the host starts.
const PREFIX: &str = "ruby_llm_tmp_";

/// The run's `/tmp`, mounted on `dir` in the namespaces the run enters.
pub(super) struct RunTmp {
    dir: PathBuf,
    /// The namespaces made for it, where the run enters none of copy mode's.
    own: Option<Arc<PrivateTmpfs>>,
    /// The folder, open and locked (`held`) until it is removed: a sweep from
    /// another PID namespace, where its name's pid is absent or another process,
    /// leaves it, and with it the tmpfs mounted on it in the run's namespaces.
    _held: OwnedFd,
}

impl RunTmp {
    /// Mounts the run's `/tmp` of `bytes`, owned by `uid`:`gid`, in the namespaces
    /// of `private` (copy mode's run folder) or, without them, in new ones.
    pub fn make(private: Option<&PrivateTmpfs>, bytes: u64, uid: u32, gid: u32) -> Result<RunTmp> {
        remove_left_by_the_dead();
        let (dir, held) = made_folder()?;
        let options = format!("size={bytes},nr_inodes={TMP_NAMES},mode=0700,uid={uid},gid={gid}");
        let fail = |e: String| {
            let _ = std::fs::remove_dir(&dir);
            Error::Sandbox(format!("cannot make the run's /tmp: {e}"))
        };
        let own = match private {
            Some(private) => {
                let target = CString::new(dir.as_os_str().as_encoded_bytes())
                    .map_err(|e| fail(e.to_string()))?;
                let options = CString::new(options).map_err(|e| fail(e.to_string()))?;
                private
                    .mount_also(&target, &options)
                    .map_err(|e| fail(e.to_string()))?;
                None
            }
            None => Some(Arc::new(
                PrivateTmpfs::mount_with(&dir, &options).map_err(|e| fail(e.to_string()))?,
            )),
        };
        Ok(RunTmp {
            dir,
            own,
            _held: held,
        })
    }

    /// Where bubblewrap finds it, in the namespaces the run enters.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The namespaces made for it, which the run enters, where it has its own.
    pub fn namespaces(&self) -> Option<Arc<PrivateTmpfs>> {
        self.own.clone()
    }
}

impl Drop for RunTmp {
    /// The folder on the host is empty: the tmpfs is only in the run's namespaces.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// A new, empty folder in the temporary folder named for this process, made by
/// `mkdtemp`, so another user of the host cannot take its name first, and held.
fn made_folder() -> Result<(PathBuf, OwnedFd)> {
    held::made(|| {
        use std::os::unix::ffi::OsStringExt;
        let name = format!("{PREFIX}{}_XXXXXX", std::process::id());
        let mut template = std::env::temp_dir().join(name).into_os_string().into_vec();
        template.push(0);
        // SAFETY: a NUL-terminated buffer of ours, which mkdtemp fills in place.
        if unsafe { libc::mkdtemp(template.as_mut_ptr().cast()) }.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        template.pop();
        Ok(PathBuf::from(std::ffi::OsString::from_vec(template)))
    })
    .map_err(|e| Error::Sandbox(format!("cannot make the run's /tmp: {e}")))
}

/// Removes, once a process, the empty folders of this kind an app killed mid-run
/// left in the temporary folder: those no live run holds.
fn remove_left_by_the_dead() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| held::remove_unheld(&std::env::temp_dir(), PREFIX));
}
