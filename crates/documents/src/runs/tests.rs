use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use file_store_base::cancel;
use file_store_sandbox::{folder, Limits};

use super::*;

fn spec(dir: &Path, script: &str) -> Spec {
    Spec {
        argv: vec!["sh".into(), "-c".into(), script.into()],
        dir: dir.to_path_buf(),
        read_only: Vec::new(),
        sandbox: false,
        limits: Limits::default(),
    }
}

/// The parent of `pid`.
fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")?.1.split(' ').nth(1)?.parse().ok()
}

#[test]
fn a_run_is_a_child_of_its_host_and_the_host_of_the_supervisor_never_of_this_process() {
    let _pool = pool::use_test_worker();
    let dir = tempfile::tempdir().unwrap();
    let ran = run(&spec(dir.path(), "echo $PPID; echo made > f; exit 3")).unwrap();
    assert_eq!(ran.exit_code, Some(3));
    assert_eq!(ran.changes.created, vec!["f".to_string()]);
    let host: u32 = ran.stdout.trim().parse().unwrap();
    assert_ne!(host, std::process::id());
    // The host has ended and been reaped by then: no process of this one's waits.
    assert!(parent(host).is_none_or(|p| p != std::process::id()));
    // SAFETY: waitpid with WNOHANG on any child writes one int.
    let reaped = unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG | libc::__WALL) };
    assert_eq!(reaped, -1, "this process has a child");
}

#[test]
fn an_error_of_the_run_comes_back_as_itself() {
    let _pool = pool::use_test_worker();
    let dir = tempfile::tempdir().unwrap();
    let mut empty = spec(dir.path(), "true");
    empty.argv.clear();
    assert!(matches!(run(&empty), Err(Error::InvalidArgument(_))));
}

#[test]
fn a_caller_that_gives_up_stops_the_run_and_the_folder_comes_back() {
    let _pool = pool::use_test_worker();
    let dir = tempfile::tempdir().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let started = Instant::now();
    let ran = cancel::with_flag(Some(stop), || run(&spec(dir.path(), "touch f; sleep 30")));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    if let Ok(outcome) = ran {
        assert_ne!(outcome.exit_code, Some(0));
    }
    assert!(dir.path().join("f").exists());
}

#[test]
fn a_copy_mode_tmpfs_made_by_the_supervisor_holds_what_the_app_wrote_for_the_run() {
    let _pool = pool::use_test_worker();
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    let Some(reach) = folder::mount_tmpfs_by(&dir, 1 << 20, 100, make_tmpfs).unwrap() else {
        eprintln!("skipped: no namespace for a private tmpfs here");
        return;
    };
    std::fs::write(reach.join("given"), "from the app").unwrap();
    let ran = run(&spec(&dir, "cat given; head -c 2000000 /dev/zero > big")).unwrap();
    assert_eq!(ran.stdout, "from the app");
    // The tmpfs holds 1 MiB: the run cannot write 2 MB into it.
    assert!(std::fs::metadata(reach.join("big")).unwrap().len() <= 1 << 20);
    assert!(
        !dir.join("given").exists(),
        "the tmpfs is not the folder on disk"
    );
    folder::remove(&dir).unwrap();
}

#[test]
fn what_a_run_set_aside_is_removed_by_a_remover_the_supervisor_starts() {
    let _pool = pool::use_test_worker();
    let dir = tempfile::tempdir().unwrap();
    let held = dir.path().join(removing::REMOVING);
    std::fs::create_dir_all(held.join("a/b/c")).unwrap();
    std::fs::write(held.join("a/b/c/f"), "x").unwrap();
    assert!(empty_removing(dir.path(), Duration::from_secs(20)));
    assert_eq!(std::fs::read_dir(&held).unwrap().count(), 0);
    assert!(
        empty_removing(dir.path(), Duration::ZERO),
        "nothing to remove is done"
    );
}
