//! The process that removes what a run set aside is reaped even where its orphan
//! would come back to the app: a child subreaper here, as an app that is a
//! container's PID 1 without an init is. Its own test binary, since the setting
//! holds for the whole process.

use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::time::{Duration, Instant};

use file_store_sandbox::removing::{empty_within, REMOVING};

/// The pids of this process's children that have ended and wait to be reaped.
fn zombies() -> Vec<String> {
    let me = std::process::id().to_string();
    fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| fs::read_to_string(entry.ok()?.path().join("stat")).ok())
        .filter_map(|stat| {
            let (pid, rest) = stat.split_once(" (")?;
            let fields: Vec<&str> = rest.rsplit_once(") ")?.1.split(' ').collect();
            (fields[0] == "Z" && fields[1] == me).then(|| pid.to_string())
        })
        .collect()
}

#[test]
fn as_a_subreaper_the_remover_leaves_no_zombie() {
    assert_eq!(
        // SAFETY: prctl(PR_SET_CHILD_SUBREAPER) takes integers, reads no memory and
        // only sets a flag of this test process.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) },
        0
    );
    for round in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let held = dir.path().join(REMOVING);
        fs::DirBuilder::new().mode(0o700).create(&held).unwrap();
        (0..200).for_each(|i| fs::create_dir_all(held.join(format!("{i}/a/b"))).unwrap());
        // Waiting for none of it, as a call whose timeout is spent.
        empty_within(dir.path(), Duration::ZERO);
        let until = Instant::now() + Duration::from_secs(20);
        while held.exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!held.exists(), "round {round}: the remover never ended");
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(zombies(), Vec::<String>::new(), "round {round}");
    }
}
