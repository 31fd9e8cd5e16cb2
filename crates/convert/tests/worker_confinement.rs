//! The convert worker's confinement, as the app starts it: no capability, a
//! seccomp filter, its limits set and its signals reset before it reads a byte,
//! and the OOM killer's first choice.

mod worker_process;

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};

use file_store_convert::worker::{CPU_LIMIT, MAX_CONVERSIONS, MEMORY_LIMIT};
use file_store_convert::Kind;
use worker_process::{status_mask, Worker};

#[test]
fn a_worker_is_confined_before_it_reads_a_byte() {
    let mut worker = Worker::start();
    // One conversion, so the worker is past its confinement and waiting on its pipe.
    let text = worker.convert(Kind::Html, b"<p>ready</p>").unwrap();
    assert_eq!(text.unwrap(), "ready\n");
    let pid = worker.child.id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    assert!(status.contains("\nSeccomp:\t2\n"), "{status}");
    assert!(status.contains("\nNoNewPrivs:\t1\n"), "{status}");
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = |name: &str| {
        limits
            .lines()
            .find(|line| line.starts_with(name))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(line("Max address space").contains(&format!("{MEMORY_LIMIT} {MEMORY_LIMIT}")));
    assert!(line("Max open files").contains("3 3"), "{limits}");
    assert!(line("Max core file size").contains("0 0"), "{limits}");
    let fds: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    let mut fds = fds;
    fds.sort();
    assert_eq!(fds, ["0", "1", "2"]);
}

#[test]
fn a_worker_holds_no_capability_whatever_uid_it_runs_as() {
    let mut worker = Worker::start();
    worker
        .convert(Kind::Html, b"<p>ready</p>")
        .unwrap()
        .unwrap();
    let pid = worker.child.id();
    for set in ["CapEff", "CapPrm", "CapInh", "CapAmb"] {
        assert_eq!(
            status_mask(pid, set),
            0,
            "{set} of a worker run by uid {}",
            // SAFETY: getuid takes no argument and cannot fail.
            unsafe { libc::getuid() }
        );
    }
    // Emptying the bounding set takes CAP_SETPCAP, which root's worker has at
    // start (this test's own); a worker started without it gets nothing from it.
    let setpcap = 1 << 8;
    if status_mask(std::process::id(), "CapEff") & setpcap != 0 {
        assert_eq!(status_mask(pid, "CapBnd"), 0);
    }
}

#[test]
fn a_worker_is_the_oom_killers_first_choice() {
    let mut worker = Worker::start();
    worker
        .convert(Kind::Html, b"<p>ready</p>")
        .unwrap()
        .unwrap();
    let pid = worker.child.id();
    let score = std::fs::read_to_string(format!("/proc/{pid}/oom_score_adj")).unwrap();
    assert_eq!(score.trim(), "1000");
}

#[test]
fn a_worker_started_with_sigxcpu_ignored_and_blocked_still_ends_at_its_cpu_limit() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_file_store_convert"));
    // What `trap('XCPU', 'IGNORE')` in the app hands to every program it starts.
    // SAFETY: the pre_exec closure runs in the forked child before exec, where only
    // async-signal-safe calls are allowed: signal, sigemptyset, sigaddset and sigprocmask
    // are, on a sigset_t local to the closure (valid zeroed); it allocates nothing.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXCPU, libc::SIG_IGN);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGXCPU);
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
            Ok(())
        });
    }
    let mut worker = Worker::start_with(command);
    worker
        .convert(Kind::Html, b"<p>ready</p>")
        .unwrap()
        .unwrap();
    let pid = worker.child.id();
    let xcpu = 1u64 << (libc::SIGXCPU - 1);
    assert_eq!(status_mask(pid, "SigIgn") & xcpu, 0, "SIGXCPU ignored");
    assert_eq!(status_mask(pid, "SigBlk") & xcpu, 0, "SIGXCPU blocked");
    // The hard limit ends it even if SIGXCPU were ignored after all: set, and a
    // second past the soft limit for each conversion the worker may yet be sent.
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let cpu: Vec<u64> = limits
        .lines()
        .find(|line| line.starts_with("Max cpu time"))
        .unwrap()
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    let (soft, hard) = (cpu[0], cpu[1]);
    assert!(soft >= CPU_LIMIT.as_secs(), "{limits}");
    let per = CPU_LIMIT.as_secs() + 1;
    assert_eq!(
        hard,
        soft + 1 + per * u64::from(MAX_CONVERSIONS - 1),
        "{limits}"
    );
}

/// Runs [`probe_in_a_confined_process`] in a child of this test binary: the
/// worker's confinement, then `probe` on `target`. Returns what it printed, or
/// the signal that ended it.
fn probe(probe: &str, target: u32) -> Result<String, i32> {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "probe_in_a_confined_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("WORKER_PROBE", probe)
        .env("WORKER_PROBE_TARGET", target.to_string())
        .output()
        .unwrap();
    match output.status.signal() {
        Some(signal) => Err(signal),
        None => Ok(String::from_utf8_lossy(&output.stdout).into_owned()),
    }
}

/// The child's side of the test below: confined as a worker is, it makes one
/// call and prints whether the call was done. A call the filter refuses ends it.
#[test]
#[ignore = "run by a_confined_worker_may_signal_and_limit_itself_alone in a child process"]
fn probe_in_a_confined_process() {
    let Ok(probe) = std::env::var("WORKER_PROBE") else {
        return;
    };
    let target: libc::pid_t = std::env::var("WORKER_PROBE_TARGET")
        .unwrap()
        .parse()
        .unwrap();
    file_store_convert::worker::confine().unwrap();
    let own = std::process::id() as libc::pid_t;
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    let none = std::ptr::null_mut::<libc::rlimit>();
    // SAFETY: raw system calls on integers and on `limit` and `zero`, live locals that
    // prlimit64 writes one rlimit into or reads one from (`none` is null, which prlimit64
    // takes as no limit to read or write); a call that the filter refuses ends the process,
    // as probed.
    let done = unsafe {
        match probe.as_str() {
            "itself" => {
                let tid = libc::syscall(libc::SYS_gettid);
                libc::syscall(
                    libc::SYS_prlimit64,
                    0,
                    libc::RLIMIT_NOFILE,
                    none,
                    &mut limit,
                ) == 0
                    && libc::syscall(
                        libc::SYS_prlimit64,
                        own,
                        libc::RLIMIT_NOFILE,
                        none,
                        &mut limit,
                    ) == 0
                    && libc::syscall(libc::SYS_tgkill, own, tid, 0) == 0
            }
            "prlimit64" => {
                let zero = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::syscall(
                    libc::SYS_prlimit64,
                    target,
                    libc::RLIMIT_NOFILE,
                    &zero,
                    none,
                ) == 0
            }
            "tgkill" => libc::syscall(libc::SYS_tgkill, target, target, libc::SIGKILL) == 0,
            "kill" => libc::syscall(libc::SYS_kill, target, libc::SIGKILL) == 0,
            other => panic!("no probe {other}"),
        }
    };
    let line: &[u8] = if done { b"done\n" } else { b"failed\n" };
    // SAFETY: write reads `line.len()` bytes of `line`, a static string, to standard
    // output; _exit ends this child process at once, running no exit handler.
    unsafe {
        libc::write(1, line.as_ptr().cast(), line.len());
        libc::_exit(0)
    }
}

#[test]
fn a_confined_worker_may_signal_and_limit_itself_alone() {
    let mut target = Command::new("sleep").arg("600").spawn().unwrap();
    let pid = target.id();
    let limits = || std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let before = limits();
    assert!(probe("itself", pid).unwrap().contains("done"));
    for call in ["prlimit64", "tgkill", "kill"] {
        assert_eq!(
            probe(call, pid),
            Err(libc::SIGSYS),
            "{call} on another process"
        );
        assert!(
            target.try_wait().unwrap().is_none(),
            "{call} ended the target"
        );
        assert_eq!(limits(), before, "{call} changed the target's limits");
    }
    target.kill().unwrap();
    target.wait().unwrap();
}

#[test]
fn a_worker_whose_input_closes_ends() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_file_store_convert"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
