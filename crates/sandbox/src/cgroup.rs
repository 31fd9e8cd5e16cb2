//! The run's cgroups, where the machine lets us make them: a pids one, so the kernel
//! refuses a fork past the limit (for root too, whom RLIMIT_NPROC never stops), a
//! memory one, so every process of the run and the files it keeps in its /tmp
//! share one ceiling, and a cpu one, so the run as a whole gets at most its share
//! of the host's cores however many processes it starts. Both are made and sized here, outside the sandbox, which does
//! not see /sys and has no capability to mount a cgroup hierarchy of its own.
//!
//! cgroup v2 (one unified hierarchy: `pids.max`, `memory.max`, `cpu.max`) and v1
//! (one hierarchy per controller: `pids.max`, `memory.limit_in_bytes`,
//! `cpu.cfs_quota_us`) are both handled.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rustix::fs::{Mode, OFlags};

use super::held;

static NEXT: AtomicU64 = AtomicU64::new(0);

/// How the name of every run cgroup starts.
const PREFIX: &str = "ruby_llm_run_";

/// One cgroup made for one run, removed after it.
struct Group {
    path: PathBuf,
    procs: OwnedFd,
    /// The cgroup's folder, open and locked (`flock`) for as long as the run may use
    /// it: the lock, not a pid, is what tells a sweep from any PID namespace that
    /// the cgroup is someone's.
    _held: OwnedFd,
}

/// The cgroups of one run: each controller that could be limited here.
pub(super) struct Groups {
    groups: Vec<Group>,
    /// Whether a pids limit is in force.
    pub pids: bool,
    /// Whether a memory limit is in force.
    pub memory: bool,
    /// Whether a CPU ceiling is in force.
    pub cpu: bool,
}

/// The memory the helper after a run may use, whatever the run's own ceiling:
/// a look at a folder of `folder_names` (200,000) names, before and after,
/// takes about a third of it.
pub const HELPER_BYTES: u64 = 512 << 20;

/// CPU time is handed out per period of this many microseconds.
const CPU_PERIOD_US: u64 = 100_000;

impl Groups {
    /// Makes the run's cgroups with at most `processes` processes, `memory` bytes
    /// and `cpu_percent` percent of one core; each controller that cannot be used
    /// here is left out.
    pub fn create(processes: u64, memory: u64, cpu_percent: u64) -> Groups {
        let mut groups = Groups {
            groups: Vec::new(),
            pids: false,
            memory: false,
            cpu: false,
        };
        let quota = (cpu_percent.max(1) * CPU_PERIOD_US / 100).max(1000);
        let mem = memory.to_string();
        for (base, kind) in bases() {
            remove_left_by_the_dead(&base);
            let v2 = kind == Kind::Unified;
            let pids = [("pids.max", processes.to_string())];
            let memory_files: Vec<(&str, String)> = if v2 {
                vec![("memory.max", mem.clone()), ("memory.swap.max", "0".into())]
            } else {
                vec![
                    ("memory.limit_in_bytes", mem.clone()),
                    ("memory.memsw.limit_in_bytes", mem.clone()),
                ]
            };
            let cpu_files: Vec<(&str, String)> = if v2 {
                vec![("cpu.max", format!("{quota} {CPU_PERIOD_US}"))]
            } else {
                vec![
                    ("cpu.cfs_period_us", CPU_PERIOD_US.to_string()),
                    ("cpu.cfs_quota_us", quota.to_string()),
                ]
            };
            let wanted_pids = !groups.pids && matches!(kind, Kind::Pids | Kind::Unified);
            let wanted_memory = !groups.memory && matches!(kind, Kind::Memory | Kind::Unified);
            let wanted_cpu = !groups.cpu && matches!(kind, Kind::Cpu | Kind::Unified);
            if !(wanted_pids || wanted_memory || wanted_cpu) {
                continue;
            }
            let Some((path, held)) = make_held(&base) else {
                continue;
            };
            let set_pids = wanted_pids && set_all(&path, &pids, 1);
            let set_memory = wanted_memory && set_all(&path, &memory_files, 1);
            let set_cpu = wanted_cpu && set_all(&path, &cpu_files, cpu_files.len());
            let procs = rustix::fs::open(
                path.join("cgroup.procs"),
                OFlags::WRONLY | OFlags::CLOEXEC,
                Mode::empty(),
            );
            match procs {
                Ok(procs) if set_pids || set_memory || set_cpu => {
                    groups.pids |= set_pids;
                    groups.memory |= set_memory;
                    groups.cpu |= set_cpu;
                    groups.groups.push(Group {
                        path,
                        procs,
                        _held: held,
                    });
                }
                _ => {
                    let _ = std::fs::remove_dir(&path);
                }
            }
        }
        groups
    }

    /// The descriptors the child writes itself into before exec.
    pub fn attach_fds(&self) -> Vec<RawFd> {
        self.groups.iter().map(|g| g.procs.as_raw_fd()).collect()
    }

    /// Gives the emptied cgroups to the helper that repairs and looks at the
    /// folder after the run: `HELPER_BYTES` of memory beyond what the run left
    /// charged there (its /tmp, its page cache) and no CPU ceiling, so neither
    /// the run's `memory_bytes` nor its `cpu_percent` moves the helper's cost or
    /// the call's end. Best effort: a cgroup left as it was still holds it.
    pub fn for_helper(&self) {
        for group in &self.groups {
            let path = &group.path;
            if let Some(used) = read_number(&path.join("memory.current")) {
                let _ = std::fs::write(path.join("memory.max"), (used + HELPER_BYTES).to_string());
            }
            if let Some(used) = read_number(&path.join("memory.usage_in_bytes")) {
                // v1 refuses a memory ceiling above the memory and swap one: that goes first.
                let limit = (used + HELPER_BYTES).to_string();
                let _ = std::fs::write(path.join("memory.memsw.limit_in_bytes"), &limit);
                let _ = std::fs::write(path.join("memory.limit_in_bytes"), &limit);
            }
            let _ = std::fs::write(path.join("cpu.max"), format!("max {CPU_PERIOD_US}"));
            let _ = std::fs::write(path.join("cpu.cfs_quota_us"), "-1");
        }
    }

    /// Kills every process in the run's cgroups.
    pub fn kill_all(&self) {
        for group in &self.groups {
            let Ok(list) = std::fs::read_to_string(group.path.join("cgroup.procs")) else {
                continue;
            };
            for pid in list.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::Kill);
                }
            }
        }
    }

    /// Waits until the run's cgroups hold no process, killing any still there,
    /// for at most a second: a killed process may take a moment to leave.
    pub async fn drain(&self) {
        for _ in 0..100 {
            self.kill_all();
            let empty = self.groups.iter().all(|g| {
                std::fs::read_to_string(g.path.join("cgroup.procs"))
                    .map_or(true, |procs| procs.trim().is_empty())
            });
            if empty {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Removes the cgroups once their processes are gone (killed ones take a moment).
    pub async fn remove(self) {
        for _ in 0..100 {
            self.kill_all();
            if self.remove_empty() == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Removes each cgroup that holds no process; how many are left.
    fn remove_empty(&self) -> usize {
        self.groups
            .iter()
            .filter(|g| g.path.exists() && std::fs::remove_dir(&g.path).is_err())
            .count()
    }
}

/// A run that ends by an error (its command missing, bubblewrap refused, its
/// look not kept) removes its cgroups too, as `remove` does but blocking; after
/// `remove` there is nothing left to do.
impl Drop for Groups {
    fn drop(&mut self) {
        for _ in 0..100 {
            self.kill_all();
            if self.remove_empty() == 0 {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A new run cgroup in `base`, its folder open and locked (`held`); None where
/// none can be made. The name (this process's pid, a count and 64 random bits) is
/// never another run's, in any PID namespace: two apps that are each PID 1 share a
/// base.
fn make_held(base: &Path) -> Option<(PathBuf, OwnedFd)> {
    held::made(|| {
        let path = base.join(format!(
            "{PREFIX}{}_{}_{:016x}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            random()
        ));
        std::fs::create_dir(&path).map(|()| path)
    })
    .ok()
}

/// 64 bits no other process can guess: the standard library's hash keys are
/// random per process and per map.
fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(NEXT.load(Ordering::Relaxed));
    hasher.finish()
}

/// Removes the run cgroups in `base` that an app killed mid-run left. Each costs
/// the host a cgroup for good otherwise. Only those no live run holds go
/// (`held`), and only empty ones (rmdir refuses the others): nothing in one is
/// killed. A killed app's runs are gone already, its bubblewrap having died with
/// it.
fn remove_left_by_the_dead(base: &Path) {
    held::remove_unheld(base, PREFIX);
}

/// The number a cgroup file holds, where it holds one.
fn read_number(file: &Path) -> Option<u64> {
    std::fs::read_to_string(file).ok()?.trim().parse().ok()
}

/// Writes each `(file, value)`; the first `required` must succeed, the rest are
/// best effort (a swap limit where the kernel has no swap accounting).
fn set_all(path: &Path, files: &[(&str, String)], required: usize) -> bool {
    for (i, (file, value)) in files.iter().enumerate() {
        if std::fs::write(path.join(file), value).is_err() && i < required {
            return false;
        }
    }
    true
}

/// Which hierarchy a base folder belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pids,
    Memory,
    Cpu,
    Unified,
}

/// Joins the calling process to the cgroup whose `cgroup.procs` is open on `fd`:
/// "0" names the writer. Called between fork and exec, so only a raw write.
pub(super) fn join(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: the descriptor stays open in the parent until the run ends.
    let fd = unsafe { rustix::fd::BorrowedFd::borrow_raw(fd) };
    rustix::io::write(fd, b"0")?;
    Ok(())
}

/// Where a cgroup of ours could go, below our own cgroup: in the v1 pids, memory
/// and cpu hierarchies, and in the unified (v2) one.
fn bases() -> Vec<(PathBuf, Kind)> {
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
        for (controller, kind) in [
            ("pids", Kind::Pids),
            ("memory", Kind::Memory),
            ("cpu", Kind::Cpu),
        ] {
            if controllers.split(',').any(|c| c == controller) {
                found.push((
                    PathBuf::from("/sys/fs/cgroup").join(controller).join(path),
                    kind,
                ));
            }
        }
        if controllers.is_empty() {
            let unified = if Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
                PathBuf::from("/sys/fs/cgroup")
            } else {
                PathBuf::from("/sys/fs/cgroup/unified")
            };
            found.push((unified.join(path), Kind::Unified));
        }
    }
    found
}
