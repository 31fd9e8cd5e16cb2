//! The convert worker's side: a process that converts the documents it is sent
//! on standard input and answers on standard output ([`crate::wire`]), one at a
//! time, until its input closes.
//!
//! Before it reads a byte it closes every other descriptor, takes the limits of
//! [`confine`] and installs a seccomp filter that lets it do nothing but read and
//! write its pipes, manage its memory and end: no file can be opened, no socket
//! made, no program run, no process started. What a document can cost is then
//! this process: past [`MEMORY_LIMIT`] an allocation aborts it, past
//! [`CPU_LIMIT`] the kernel kills it, and the app reads either as a refusal.

use std::io::{self, BufReader, BufWriter};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use seccompiler::{BpfProgram, SeccompAction, SeccompFilter};

use crate::{convert_with, wire, Refusal};

/// The address space a worker may use: 1 GiB.
pub const MEMORY_LIMIT: u64 = 1 << 30;

/// The CPU time one conversion may take in a worker, everything included (the
/// budget's [`crate::budget::MAX_TIME`] covers the converters' own loops; this
/// covers the work before them, such as the parse of a PDF's objects): 10 seconds,
/// ten times that in an unoptimised build.
pub const CPU_LIMIT: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(100)
} else {
    Duration::from_secs(10)
};

/// The system calls a worker makes: its pipes, its memory, its clocks and limits,
/// and what `abort` and a panic's unwinding use.
const ALLOWED: &[i64] = &[
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_mprotect,
    libc::SYS_madvise,
    libc::SYS_brk,
    libc::SYS_futex,
    libc::SYS_sched_yield,
    libc::SYS_getrandom,
    libc::SYS_clock_gettime,
    libc::SYS_getrusage,
    libc::SYS_prlimit64,
    libc::SYS_sigaltstack,
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_getpid,
    libc::SYS_gettid,
    libc::SYS_tgkill,
    libc::SYS_exit,
    libc::SYS_exit_group,
];

/// Confines this process and serves requests until its input closes. Returns
/// what went wrong with the pipes or the confinement; a document's failure is an
/// answer, never an error here.
pub fn serve() -> io::Result<()> {
    confine()?;
    answer()
}

/// [`serve`] with the limits of [`confine`] but without its seccomp filter, for the
/// aarch64 gem's check under qemu-user alone (the `file_store_convert_emulated`
/// program, which no gem holds): qemu-user runs the guest's system calls as its
/// own, so it refuses to install a guest's filter (`seccomp(2)` is not emulated,
/// `prctl(PR_SET_SECCOMP)` answers EINVAL), and it applies no address-space limit
/// (`setrlimit(RLIMIT_AS)` is taken and ignored). The gem's worker runs [`serve`],
/// which ends rather than convert unconfined.
pub fn serve_unfiltered_under_emulation() -> io::Result<()> {
    limit()?;
    answer()
}

/// Answers requests until the input closes.
fn answer() -> io::Result<()> {
    let mut input = BufReader::new(io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    while let Some((chain, bytes)) = wire::read_request(&mut input)? {
        limit_cpu(CPU_LIMIT)?;
        let converted = catch_unwind(AssertUnwindSafe(|| convert_with(&chain, &bytes)))
            .unwrap_or_else(|_| Err(Refusal::Stopped("the converter failed on it".into())));
        drop(bytes);
        wire::write_answer(&mut output, &converted)?;
    }
    Ok(())
}

/// Closes every descriptor but the pipes, sets the limits and installs the filter.
pub fn confine() -> io::Result<()> {
    limit()?;
    filter()
}

/// Closes every descriptor but the pipes and sets the limits.
fn limit() -> io::Result<()> {
    // A panic is answered as a refusal; nothing is written to standard error. An
    // allocation that fails prints one line there and aborts, without the
    // backtrace these variables ask for, whose symbols would be read from files.
    std::panic::set_hook(Box::new(|_| {}));
    std::env::remove_var("RUST_BACKTRACE");
    std::env::remove_var("RUST_LIB_BACKTRACE");
    if unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) } != 0 {
        return Err(io::Error::last_os_error());
    }
    set_limit(libc::RLIMIT_AS, MEMORY_LIMIT, MEMORY_LIMIT)?;
    set_limit(libc::RLIMIT_CORE, 0, 0)?;
    set_limit(libc::RLIMIT_NOFILE, 3, 3)?;
    set_limit(libc::RLIMIT_NPROC, 0, 0)
}

/// Installs the filter that lets the process make only the calls of [`ALLOWED`].
fn filter() -> io::Result<()> {
    let rules = ALLOWED.iter().map(|call| (*call, vec![])).collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::KillProcess,
        SeccompAction::Allow,
        std::env::consts::ARCH
            .try_into()
            .map_err(|_| io::Error::other("no seccomp filter for this architecture"))?,
    )
    .map_err(io::Error::other)?;
    let program: BpfProgram = filter.try_into().map_err(io::Error::other)?;
    seccompiler::apply_filter(&program).map_err(io::Error::other)
}

/// Lets the next conversion take `cpu` more CPU time than this process has used:
/// past it, the kernel's SIGXCPU ends the process.
fn limit_cpu(cpu: Duration) -> io::Result<()> {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let used = usage.ru_utime.tv_sec as u64 + usage.ru_stime.tv_sec as u64 + 1;
    set_limit(libc::RLIMIT_CPU, used + cpu.as_secs(), libc::RLIM_INFINITY)
}

/// Sets a limit, never above the hard limit the app was started with (which
/// only a privileged process could raise).
fn set_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> io::Result<()> {
    let mut current = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    if unsafe { libc::getrlimit(resource, &mut current) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let limit = libc::rlimit {
        rlim_cur: soft.min(current.rlim_max),
        rlim_max: hard.min(current.rlim_max),
    };
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
