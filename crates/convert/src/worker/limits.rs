//! What a worker may cost the machine, set by the worker on itself before it
//! reads a byte: the resource limits, the OOM killer's preference, and the
//! signal its CPU limit ends it with.

use std::io;
use std::time::Duration;

/// Makes this process the OOM killer's first choice (`oom_score_adj` 1000, which
/// any process may raise for itself), so a machine short of memory ends a worker
/// before the app. Opens a file, so it comes before the descriptors are closed.
/// A system without `/proc` has no OOM score to set.
pub fn prefer_to_be_killed() -> io::Result<()> {
    match std::fs::write("/proc/self/oom_score_adj", b"1000") {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Gives SIGXCPU its default action, ending the process, and unblocks it. An app
/// that ignores or blocks it (`trap('XCPU', 'IGNORE')`) hands that to every
/// program it starts, since an ignored signal and the signal mask survive
/// execve; the CPU limit would then not end the worker.
pub fn end_at_cpu_limit() -> io::Result<()> {
    // SAFETY: called from `limit` at the start of the worker's `main`, before any other
    // thread starts, so the mask changed is the process's; no handler of this process
    // relies on SIGXCPU. `set` is a local sigset_t, valid zeroed and set up by sigemptyset
    // before use.
    unsafe {
        if libc::signal(libc::SIGXCPU, libc::SIG_DFL) == libc::SIG_ERR {
            return Err(io::Error::last_os_error());
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGXCPU);
        if libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Closes every descriptor but standard input, output and error.
pub fn close_descriptors() -> io::Result<()> {
    // SAFETY: close_range reads no memory. It runs in `limit` at the start of the worker's
    // `main`, once the OOM score's file is closed again and before anything else is opened,
    // so no File or OwnedFd in this process owns a number from 3 up: they are what the
    // parent left open. (The test probe calls it in a child process that then makes one
    // call and _exits, using no descriptor above 2.)
    if unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The limits that hold for the worker's whole life: `memory` bytes of address
/// space, no core dump, no descriptor past the three it has, no process.
pub fn set_fixed(memory: u64) -> io::Result<()> {
    set_limit(libc::RLIMIT_AS, memory, memory)?;
    set_limit(libc::RLIMIT_CORE, 0, 0)?;
    set_limit(libc::RLIMIT_NOFILE, 3, 3)?;
    set_limit(libc::RLIMIT_NPROC, 0, 0)
}

/// Lets the next conversion take `cpu` more CPU time than this process has used,
/// past which the kernel's SIGXCPU ends it; and lowers the hard limit, past which
/// the kernel's SIGKILL ends it whatever became of SIGXCPU, to what this
/// conversion and the `after` conversions the worker may still be sent may take,
/// a second each over `cpu`. A hard limit is never raised again, so it is a
/// budget for the worker's remaining life: for its last conversion it is one
/// second above the soft limit.
pub fn limit_cpu(cpu: Duration, after: u32) -> io::Result<()> {
    let used = cpu_used()?;
    let per = cpu.as_secs() + 1;
    let soft = used + cpu.as_secs();
    let hard = soft + 1 + per * u64::from(after);
    set_limit(libc::RLIMIT_CPU, soft, hard)
}

/// The CPU time this process has used, in whole seconds rounded up, as the
/// kernel counts it against `RLIMIT_CPU`.
fn cpu_used() -> io::Result<u64> {
    // SAFETY: rusage is integers and timevals, for which zero is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes one rusage into `usage`, a live local.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Ok((micros(usage.ru_utime) + micros(usage.ru_stime)).div_ceil(1_000_000))
}

/// Sets a limit, never above the hard limit this process has (which, once
/// lowered, no process without privileges can raise), the soft limit never
/// above the hard one.
fn set_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> io::Result<()> {
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into `current`, a live local.
    if unsafe { libc::getrlimit(resource, &mut current) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let hard = hard.min(current.rlim_max);
    let limit = libc::rlimit {
        rlim_cur: soft.min(hard),
        rlim_max: hard,
    };
    // SAFETY: setrlimit only reads `limit`, a live local.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
