//! A run's sweep of the cgroups runs left: it removes one that no live run holds,
//! whatever pid its name gives (one left by an app that was PID 1 in a container of
//! its own), and keeps one a live run holds, though its name gives a pid this PID
//! namespace does not have. Its own test binary, as `cgroups_left.rs` is.

use std::path::Path;
use std::time::Duration;

use file_store_sandbox::{command, run, Limits, Spec};

fn spec(dir: &Path, argv: Vec<String>) -> Spec {
    Spec {
        argv,
        dir: dir.to_path_buf(),
        read_only: Vec::new(),
        sandbox: false,
        limits: Limits {
            timeout: Duration::from_secs(10),
            ..Limits::default()
        },
    }
}

/// The folders of this process's cgroups where its runs' cgroups go: in the v1
/// pids, memory and cpu hierarchies, and in the unified (v2) one.
fn bases() -> Vec<std::path::PathBuf> {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mut found = Vec::new();
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let path = path.trim_start_matches('/');
        for controller in ["pids", "memory", "cpu"] {
            if controllers.split(',').any(|c| c == controller) {
                found.push(Path::new("/sys/fs/cgroup").join(controller).join(path));
            }
        }
        if controllers.is_empty() {
            for unified in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                if Path::new(unified).join("cgroup.controllers").exists() {
                    found.push(Path::new(unified).join(path));
                }
            }
        }
    }
    found
}

#[test]
fn a_sweep_removes_the_cgroup_no_run_holds_whatever_its_pid_and_keeps_a_held_one() {
    let dir = tempfile::tempdir().unwrap();
    let ran = run(&spec(dir.path(), command("shell", None, "true").unwrap())).unwrap();
    let limited = ran.memory_limited || ran.cpu_limited || ran.processes_limited && ran.uid == 0;
    // A base where this process may make a cgroup: a run's sweep looks in each.
    let base = bases().into_iter().find(|base| {
        let probe = base.join("ruby_llm_probe_of_the_sweep_test");
        std::fs::create_dir(&probe).is_ok() && std::fs::remove_dir(&probe).is_ok()
    });
    let Some(base) = base.filter(|_| limited) else {
        eprintln!("skipped: this process can make no cgroup here");
        return;
    };
    // Named for pid 1, which lives here: left by an app that was PID 1 elsewhere.
    let unheld = base.join("ruby_llm_run_1_0_00000000000000aa");
    // Named for a pid this namespace does not have: an app's live run elsewhere.
    let held = base.join("ruby_llm_run_4000000_0_00000000000000bb");
    std::fs::create_dir(&unheld).unwrap();
    std::fs::create_dir(&held).unwrap();
    let holder = std::fs::File::open(&held).unwrap();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&holder);
    // SAFETY: flock on a descriptor this test owns, open for the call.
    let locked = unsafe { libc::flock(fd, libc::LOCK_EX) };
    assert_eq!(locked, 0);
    run(&spec(dir.path(), command("shell", None, "true").unwrap())).unwrap();
    let (unheld_left, held_left) = (unheld.exists(), held.exists());
    drop(holder);
    let _ = std::fs::remove_dir(&unheld);
    let _ = std::fs::remove_dir(&held);
    assert!(!unheld_left, "a cgroup nobody holds was kept");
    assert!(held_left, "a cgroup a live run holds was removed");
}
