//! The process that removes what a run set aside is reaped even where its orphan
//! would come back to the app: a child subreaper here, as an app that is a
//! container's PID 1 without an init is. Its own test binary, since the setting
//! holds for the whole process.

mod common;
use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::time::{Duration, Instant};

use file_store_sandbox::removing::{empty_within, REMOVING};

#[test]
fn as_a_subreaper_the_remover_leaves_no_zombie() {
    common::adopt_orphans();
    for round in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let held = dir.path().join(REMOVING);
        fs::DirBuilder::new().mode(0o700).create(&held).unwrap();
        (0..200).for_each(|i| fs::create_dir_all(held.join(format!("{i}/a/b"))).unwrap());
        // Waiting for none of it, as a call whose timeout is spent.
        empty_within(dir.path(), Duration::ZERO);
        let until = Instant::now() + Duration::from_secs(20);
        let emptied = || fs::read_dir(&held).unwrap().next().is_none();
        while !emptied() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(emptied(), "round {round}: the remover never ended");
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(common::zombies(), Vec::<String>::new(), "round {round}");
    }
}
