//! A pids cgroup per run, where the machine lets us make one: the kernel then
//! refuses a fork past the limit, for root too, whom RLIMIT_NPROC never stops.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rustix::fs::{Mode, OFlags};

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A cgroup of the pids controller made for one run, removed after it.
pub(super) struct Pids {
    path: PathBuf,
    procs: OwnedFd,
}

impl Pids {
    /// Makes a cgroup allowing `max` processes, or `None` where none can be made.
    pub fn create(max: u64) -> Option<Pids> {
        let name = format!(
            "ruby_llm_run_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        candidates().into_iter().find_map(|base| {
            let path = base.join(&name);
            std::fs::create_dir(&path).ok()?;
            let made = std::fs::write(path.join("pids.max"), max.to_string())
                .ok()
                .and_then(|_| {
                    rustix::fs::open(
                        path.join("cgroup.procs"),
                        OFlags::WRONLY | OFlags::CLOEXEC,
                        Mode::empty(),
                    )
                    .ok()
                });
            match made {
                Some(procs) => Some(Pids { path, procs }),
                None => {
                    let _ = std::fs::remove_dir(&path);
                    None
                }
            }
        })
    }

    /// The descriptor the child writes itself into before exec.
    pub fn attach_fd(&self) -> RawFd {
        self.procs.as_raw_fd()
    }

    /// Kills every process in the cgroup.
    pub fn kill_all(&self) {
        let Ok(list) = std::fs::read_to_string(self.path.join("cgroup.procs")) else {
            return;
        };
        for pid in list.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::Kill);
            }
        }
    }

    /// Removes the cgroup once its processes are gone (killed ones take a moment).
    pub async fn remove(self) {
        for _ in 0..100 {
            self.kill_all();
            if std::fs::remove_dir(&self.path).is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Joins the calling process to the cgroup whose `cgroup.procs` is open on `fd`:
/// "0" names the writer. Called between fork and exec, so only a raw write.
pub(super) fn join(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: the descriptor stays open in the parent until the run ends.
    let fd = unsafe { rustix::fd::BorrowedFd::borrow_raw(fd) };
    rustix::io::write(fd, b"0")?;
    Ok(())
}

/// Where a pids cgroup of ours could go: below our own cgroup in the v1 pids
/// hierarchy, or in the unified (v2) one.
fn candidates() -> Vec<PathBuf> {
    let Ok(own) = std::fs::read_to_string("/proc/self/cgroup") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == "pids") {
            found.push(PathBuf::from("/sys/fs/cgroup/pids").join(path));
        } else if controllers.is_empty() {
            found.push(PathBuf::from("/sys/fs/cgroup").join(path));
        }
    }
    found
}
