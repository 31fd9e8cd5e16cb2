//! The system calls a sandboxed run may not make, compiled with `seccompiler` into
//! two BPF programs that bubblewrap loads (`--add-seccomp-fd`) just before it
//! starts the code, after its own setup.
//!
//! Denied with EPERM: the kernel keyring (`keyctl`, `add_key`, `request_key`),
//! `io_uring_*`, `bpf`, `perf_event_open`, `userfaultfd`, `ptrace`, every mount call
//! (`mount`, `umount2`, `pivot_root` and the new mount API), `setns`, `unshare` and
//! `clone` asking for a new namespace, the `chmod` family and every call that
//! creates a file (`open`, `openat`, `creat`, `mknod`, `mknodat`) with a mode that
//! sets S_ISUID or S_ISGID, `ioctl(TIOCSTI)`, which pushes characters into the
//! terminal's input (CVE-2017-5226), `shmctl(SHM_LOCK)`, memory locked for
//! the uid, and `link`, `linkat`: a hard link adds a name and no inode, which
//! the count of what a run made cannot see.
//!
//! Denied with ENOSYS, so that the C library falls back to the call above that can
//! be checked: `clone3` and `openat2`, whose flags and mode sit in a struct a filter
//! cannot read; and, so that programs take them for absent, `io_setup`, `io_submit`,
//! `inotify_init`, `inotify_init1`, `fanotify_init` and `mq_open`, which hold
//! host-wide slots (the host's AIO contexts, the uid's inotify instances, fanotify
//! groups and message queues) for the run's length; and `memfd_create`
//! where no memory cgroup holds the run. A system call of another architecture (i386 through `int 0x80`)
//! kills the process.

use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp, SeccompCondition,
    SeccompFilter, SeccompRule,
};

use file_store_base::error::{Error, Result};

const S_ISUID: u64 = 0o4000;
const S_ISGID: u64 = 0o2000;
const TIOCSTI: u64 = 0x5412;
const SHM_LOCK: u64 = 11;
const CLONE_NEW: [u64; 8] = [
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    0x80, // CLONE_NEWTIME
];
/// Added to a system call's number by the x32 ABI, which shares x86_64's audit arch.
#[cfg(target_arch = "x86_64")]
const X32: i64 = 0x4000_0000;

/// Rules matching a call whose argument `arg` has any of `bits` set.
fn any_bit(arg: u8, len: Len, bits: &[u64]) -> Vec<SeccompRule> {
    bits.iter()
        .map(|&bit| {
            let cond = SeccompCondition::new(arg, len.clone(), SeccompCmpOp::MaskedEq(bit), bit)
                .expect("a fixed condition");
            SeccompRule::new(vec![cond]).expect("a fixed rule")
        })
        .collect()
}

/// The calls denied with EPERM, by number, with the rules that must match (none:
/// always denied).
fn denied() -> BTreeMap<i64, Vec<SeccompRule>> {
    let setid = [S_ISUID, S_ISGID];
    // x86_64 adds its own calls below; other processors add none.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut calls: Vec<(i64, Vec<SeccompRule>)> = vec![
        (libc::SYS_keyctl, vec![]),
        (libc::SYS_add_key, vec![]),
        (libc::SYS_request_key, vec![]),
        (libc::SYS_io_uring_setup, vec![]),
        (libc::SYS_io_uring_enter, vec![]),
        (libc::SYS_io_uring_register, vec![]),
        (libc::SYS_bpf, vec![]),
        (libc::SYS_perf_event_open, vec![]),
        (libc::SYS_userfaultfd, vec![]),
        (libc::SYS_ptrace, vec![]),
        (libc::SYS_mount, vec![]),
        (libc::SYS_umount2, vec![]),
        (libc::SYS_pivot_root, vec![]),
        (libc::SYS_open_tree, vec![]),
        (libc::SYS_move_mount, vec![]),
        (libc::SYS_fsopen, vec![]),
        (libc::SYS_fsconfig, vec![]),
        (libc::SYS_fsmount, vec![]),
        (libc::SYS_fspick, vec![]),
        (libc::SYS_mount_setattr, vec![]),
        (libc::SYS_setns, vec![]),
        (libc::SYS_unshare, any_bit(0, Len::Dword, &CLONE_NEW)),
        (libc::SYS_clone, any_bit(0, Len::Qword, &CLONE_NEW)),
        (libc::SYS_fchmod, any_bit(1, Len::Dword, &setid)),
        (libc::SYS_fchmodat, any_bit(2, Len::Dword, &setid)),
        (452, any_bit(2, Len::Dword, &setid)), // fchmodat2
        (libc::SYS_openat, any_bit(3, Len::Dword, &setid)),
        (libc::SYS_mknodat, any_bit(2, Len::Dword, &setid)),
        (libc::SYS_ioctl, vec![tiocsti()]),
        // Memory locked for a user (RLIMIT_MEMLOCK holds it small too).
        (libc::SYS_shmctl, vec![shm_lock()]),
        // A hard link is a name without an inode, which the count of names a
        // run made (the file system's inodes) cannot see: 900,000 of them
        // kept a call of timeout 20 for 54 s, its look and repair unforeseen.
        (libc::SYS_linkat, vec![]),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        calls.extend([
            (libc::SYS_chmod, any_bit(1, Len::Dword, &setid)),
            (libc::SYS_open, any_bit(2, Len::Dword, &setid)),
            (libc::SYS_creat, any_bit(1, Len::Dword, &setid)),
            (libc::SYS_mknod, any_bit(1, Len::Dword, &setid)),
            (libc::SYS_link, vec![]),
        ]);
        // The same calls through the x32 ABI, where the kernel has it; its ioctl
        // and ptrace have numbers of their own.
        let x32: Vec<(i64, Vec<SeccompRule>)> = calls
            .iter()
            .filter(|(nr, _)| *nr != libc::SYS_ioctl && *nr != libc::SYS_ptrace)
            .map(|(nr, rules)| (nr | X32, rules.clone()))
            .chain([(514 | X32, vec![tiocsti()]), (521 | X32, vec![])])
            .collect();
        calls.extend(x32);
    }
    calls.into_iter().collect()
}

/// `shmctl(SHM_LOCK)`, with or without glibc's `IPC_64` bit.
fn shm_lock() -> SeccompRule {
    let cond = SeccompCondition::new(1, Len::Dword, SeccompCmpOp::MaskedEq(0xff), SHM_LOCK)
        .expect("a fixed condition");
    SeccompRule::new(vec![cond]).expect("a fixed rule")
}

fn tiocsti() -> SeccompRule {
    let cond =
        SeccompCondition::new(1, Len::Dword, SeccompCmpOp::Eq, TIOCSTI).expect("a fixed condition");
    SeccompRule::new(vec![cond]).expect("a fixed rule")
}

/// The calls denied with ENOSYS.
fn unsupported() -> BTreeMap<i64, Vec<SeccompRule>> {
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut calls: Vec<i64> = vec![
        libc::SYS_clone3,
        libc::SYS_openat2,
        // Host-wide slots the run would hold for its length: AIO contexts
        // (fs.aio-max-nr, shared by every process of the host) and inotify
        // instances (counted per uid, which is the app's own for an app that is
        // not root). Programs take their absence as a kernel without them.
        libc::SYS_io_setup,
        libc::SYS_io_submit,
        libc::SYS_inotify_init1,
        // Slots counted per user: fanotify groups (128 a user, host-wide) and
        // POSIX message queues (RLIMIT_MSGQUEUE, which the run has at 0 too).
        libc::SYS_fanotify_init,
        libc::SYS_mq_open,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        libc::SYS_inotify_init,
        libc::SYS_clone3 | X32,
        libc::SYS_openat2 | X32,
        libc::SYS_inotify_init | X32,
        libc::SYS_inotify_init1 | X32,
        libc::SYS_fanotify_init | X32,
        libc::SYS_mq_open | X32,
        543 | X32, // io_setup, a number of x32's own
        544 | X32, // io_submit
    ]);
    calls.into_iter().map(|nr| (nr, vec![])).collect()
}

/// The calls denied with ENOSYS where no memory cgroup holds the run: those and
/// `memfd_create`, whose files RLIMIT_AS does not count (12 of them held 3 GB in a
/// process of 10 MB), while a memory cgroup charges their pages to the run.
fn unsupported_unbounded() -> BTreeMap<i64, Vec<SeccompRule>> {
    let mut calls = unsupported();
    calls.insert(libc::SYS_memfd_create, vec![]);
    #[cfg(target_arch = "x86_64")]
    calls.insert(libc::SYS_memfd_create | X32, vec![]);
    calls
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<Vec<u8>> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|_| Error::Sandbox(format!("no seccomp filter for {}", std::env::consts::ARCH)))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .and_then(BpfProgram::try_from)
    .map_err(|e| Error::Sandbox(format!("cannot build the seccomp filter: {e}")))?;
    // bubblewrap reads the program as the kernel takes it: 8-byte instructions.
    let mut bytes = Vec::with_capacity(filter.len() * 8);
    for insn in filter {
        bytes.extend_from_slice(&insn.code.to_ne_bytes());
        bytes.push(insn.jt);
        bytes.push(insn.jf);
        bytes.extend_from_slice(&insn.k.to_ne_bytes());
    }
    Ok(bytes)
}

/// The compiled programs, built once: the EPERM one, the ENOSYS one, and the
/// ENOSYS one for a run no memory cgroup holds.
fn programs() -> Result<&'static [Vec<u8>; 3]> {
    static PROGRAMS: OnceLock<std::result::Result<[Vec<u8>; 3], String>> = OnceLock::new();
    PROGRAMS
        .get_or_init(|| {
            Ok([
                compile(denied(), libc::EPERM).map_err(|e| e.to_string())?,
                compile(unsupported(), libc::ENOSYS).map_err(|e| e.to_string())?,
                compile(unsupported_unbounded(), libc::ENOSYS).map_err(|e| e.to_string())?,
            ])
        })
        .as_ref()
        .map_err(|e| Error::Sandbox(e.clone()))
}

/// The programs for a run, `memory_limited` or not by a memory cgroup, in memory
/// files, each read from its start by bubblewrap.
pub(super) fn files(memory_limited: bool) -> Result<Vec<OwnedFd>> {
    let [denied, unsupported, unbounded] = programs()?;
    let chosen = [
        denied,
        if memory_limited {
            unsupported
        } else {
            unbounded
        },
    ];
    chosen
        .into_iter()
        .map(|program| {
            let fail = |e: rustix::io::Errno| {
                Error::Sandbox(format!("cannot pass the seccomp filter: {e}"))
            };
            let fd = rustix::fs::memfd_create("ruby_llm_seccomp", rustix::fs::MemfdFlags::CLOEXEC)
                .map_err(fail)?;
            let mut written = 0;
            while written < program.len() {
                written += rustix::io::write(&fd, &program[written..]).map_err(fail)?;
            }
            rustix::fs::seek(&fd, rustix::fs::SeekFrom::Start(0)).map_err(fail)?;
            Ok(fd)
        })
        .collect()
}
