//! The resource limits of a run, set with setrlimit in the child before exec.

use std::time::Duration;

use rustix::process::{setrlimit, Resource, Rlimit};

/// The limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time before every process of the run is killed.
    pub timeout: Duration,
    /// CPU seconds per process (RLIMIT_CPU), the ceiling where no cpu cgroup
    /// can be made.
    pub cpu_seconds: u64,
    /// The run's share of the host's cores, in percent of one core, held by a cpu
    /// cgroup where the host gives one (`cpu.max`, `cpu.cfs_quota_us`).
    pub cpu_percent: u64,
    /// Memory of the whole run, in bytes: a memory cgroup where one can be made,
    /// and the address space of each process (RLIMIT_AS) in any case.
    pub memory_bytes: u64,
    /// Size of the sandbox's own /tmp, in bytes (its pages count as memory too).
    pub tmp_bytes: u64,
    /// Largest file a process may write, in bytes (RLIMIT_FSIZE).
    pub file_bytes: u64,
    /// Processes at once (a pids cgroup where one can be made; RLIMIT_NPROC too).
    pub processes: u64,
    /// Bytes of standard output, and of standard error, kept.
    pub output_bytes: usize,
    /// Bytes of the folder's files read before the run (and again after, for the
    /// files it touched) to tell a change by content; a file past them is told by
    /// its size and times.
    pub digest_bytes: u64,
    /// The most new names (files, folders, links) the repair leaves after a run;
    /// past them it removes the rest, in the order the folders list them, before
    /// anything looks at them: each costs the app its path in every list.
    pub new_names: u64,
    /// The most new files and folders the app keeps after a run (the Ruby side
    /// removes the rest); the names past them are the ones whose removal the
    /// timeout leaves time for.
    pub save_files: u64,
    /// The most names (files, folders, links, hidden ones included) the folder
    /// may hold when a run starts: the looks before and after keep each in the
    /// app's memory, so past them the code does not run.
    pub folder_names: u64,
}

/// The defaults of every run, which the binding exports as `Native::RUN_LIMITS`
/// and the Ruby layer's `CodeRunner::DEFAULT_LIMITS` takes as they are.
impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(30),
            cpu_seconds: 60,
            cpu_percent: 100,
            memory_bytes: 2 << 30,
            tmp_bytes: 256 << 20,
            file_bytes: 256 << 20,
            processes: 64,
            output_bytes: 20_000,
            digest_bytes: 256 << 20,
            new_names: 20_000,
            save_files: 10_000,
            folder_names: 200_000,
        }
    }
}

/// RLIMIT_NPROC counts every process and thread of the user, not only the run's,
/// so the run's allowance goes on top of what the user already has.
pub(super) fn nproc_for(processes: u64, uid: u32) -> u64 {
    processes + user_tasks(uid)
}

/// Threads of processes owned by `uid`, from /proc.
fn user_tasks(uid: u32) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
        .map(|e| std::fs::read_dir(e.path().join("task")).map_or(1, |tasks| tasks.count() as u64))
        .sum()
}

/// Sets the limits on the calling process; called in the child between fork and exec.
pub(super) fn apply(limits: &Applied) -> std::io::Result<()> {
    let set = |resource, value: u64| {
        setrlimit(
            resource,
            Rlimit {
                current: Some(value),
                maximum: Some(value),
            },
        )
        .map_err(std::io::Error::from)
    };
    set(Resource::Cpu, limits.cpu_seconds)?;
    set(Resource::As, limits.memory_bytes)?;
    set(Resource::Fsize, limits.file_bytes)?;
    set(Resource::Nproc, limits.nproc)?;
    set(Resource::Core, 0)?;
    // Slots the kernel counts per user, not per process: the run's host uid is
    // the app's own (an unprivileged app) or one other processes of the host
    // may use (65534), so a run may hold only a few. The user namespace
    // bubblewrap makes takes these as its ceiling too, which the run cannot
    // raise.
    set(Resource::Sigpending, SIGNALS_QUEUED)?;
    set(Resource::Msgqueue, 0)?;
    set(Resource::Memlock, LOCKED_BYTES)?;
    prefer_to_be_killed()
}

/// Makes the run the OOM killer's first choice (`oom_score_adj` 1000, which any
/// process may raise for itself, and which every process it starts inherits), so a
/// machine short of memory ends the run before the app. Raw system calls on a
/// string made at compile time: it runs between fork and exec. A system without
/// `/proc` has no OOM score to set.
fn prefer_to_be_killed() -> std::io::Result<()> {
    let path = c"/proc/self/oom_score_adj";
    // SAFETY: open, write and close are async-signal-safe; the path is a static C
    // string, the buffer a static byte string of the length given, and the
    // descriptor is this function's own, closed on every path after it was opened.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            let error = std::io::Error::last_os_error();
            return match error.raw_os_error() {
                Some(libc::ENOENT) => Ok(()),
                _ => Err(error),
            };
        }
        let written = libc::write(fd, b"1000".as_ptr().cast(), 4);
        let error = std::io::Error::last_os_error();
        libc::close(fd);
        if written == 4 {
            Ok(())
        } else {
            Err(error)
        }
    }
}

/// Signals a run may have queued at once (RLIMIT_SIGPENDING), in all its
/// processes: a timer each process makes takes one. The host's default is in
/// the tens of thousands per user, which one run could take whole.
pub const SIGNALS_QUEUED: u64 = 256;
/// Bytes of memory a run may lock (RLIMIT_MEMLOCK), which SysV shared memory
/// locked with `SHM_LOCK` counts per user.
pub const LOCKED_BYTES: u64 = 64 << 10;

/// Cuts the child off what the app holds open or in its keyrings; called between
/// fork and exec. Every descriptor past stdio gets close-on-exec (one the app left
/// inheritable would otherwise reach the code), and the child joins a new, empty
/// session keyring in place of the app's.
pub(super) fn isolate(keep: &[i32]) -> std::io::Result<()> {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    // SAFETY: called in the run's forked child before exec, so only async-signal-safe
    // raw system calls: close_range and fcntl take integers (close_range here only
    // marks descriptors close-on-exec, so no owner's number goes stale), and keyctl
    // takes a null name, which asks for an anonymous keyring; `keep` was made before
    // the fork. Nothing allocates.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // Fails only where keyrings are compiled out, and then there is none to reach.
        let null: *const libc::c_char = std::ptr::null();
        libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, null);
        // The descriptors bwrap is told to read (its seccomp programs) stay open.
        for fd in keep {
            if libc::fcntl(*fd, libc::F_SETFD, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// The limits as set in the child, worked out before the fork.
#[derive(Debug, Clone, Copy)]
pub(super) struct Applied {
    pub cpu_seconds: u64,
    pub memory_bytes: u64,
    pub file_bytes: u64,
    pub nproc: u64,
}

impl Applied {
    /// The limits for a run whose processes belong to `uid`.
    pub fn new(limits: &Limits, uid: u32) -> Applied {
        Applied {
            cpu_seconds: limits.cpu_seconds,
            memory_bytes: limits.memory_bytes,
            file_bytes: limits.file_bytes,
            nproc: if uid != 0 {
                nproc_for(limits.processes, uid)
            } else {
                limits.processes
            },
        }
    }
}
