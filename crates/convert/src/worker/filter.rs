//! The worker's seccomp filter: the system calls it may make, and for those that
//! name a process or a signal, which. Any other call ends the process (SIGSYS,
//! which the app reads as a refusal).

use std::collections::BTreeMap;
use std::io;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// The calls a worker makes whatever their arguments: its pipes, its memory, its
/// clocks, and what a panic's unwinding uses.
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
    libc::SYS_sigaltstack,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_getpid,
    libc::SYS_gettid,
    libc::SYS_exit,
    libc::SYS_exit_group,
];

/// Sets `no_new_privs` and installs the filter on the calling thread (the
/// worker has no other). `pid` is the worker's own: the only process whose
/// limits it may read or set (`prlimit64` on 0 or `pid`, as `getrlimit` and
/// `setrlimit` call it) and the only one it may signal (`tgkill` with `pid` as
/// the thread group, as `abort` calls it; `kill` not at all). `rt_sigaction`
/// may not touch SIGXCPU, so the default action the worker set, ending at its
/// CPU limit, stays.
pub fn install(pid: libc::pid_t) -> io::Result<()> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        ALLOWED.iter().map(|call| (*call, vec![])).collect();
    let own = pid as u64;
    rules.insert(
        libc::SYS_prlimit64,
        vec![
            rule(0, SeccompCmpOp::Eq, 0)?,
            rule(0, SeccompCmpOp::Eq, own)?,
        ],
    );
    rules.insert(libc::SYS_tgkill, vec![rule(0, SeccompCmpOp::Eq, own)?]);
    rules.insert(
        libc::SYS_rt_sigaction,
        vec![rule(0, SeccompCmpOp::Ne, libc::SIGXCPU as u64)?],
    );
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
    let (on, none): (libc::c_ulong, libc::c_ulong) = (1, 0);
    // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) takes integers, reads no memory, and only sets a
    // flag of this process that the filter below requires.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, on, none, none, none) } != 0 {
        return Err(io::Error::last_os_error());
    }
    seccompiler::apply_filter(&program).map_err(io::Error::other)
}

/// A rule on one argument, compared as the kernel reads it: an `int`.
fn rule(arg: u8, op: SeccompCmpOp, value: u64) -> io::Result<SeccompRule> {
    let condition =
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(io::Error::other)?;
    SeccompRule::new(vec![condition]).map_err(io::Error::other)
}
