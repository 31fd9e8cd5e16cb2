//! A run leaves no zombie in an app that adopts orphans: a child subreaper here,
//! as an app that is a container's PID 1 without an init is. Before, each
//! timed-out run left one zombie a process it had started, for good. Its own
//! test binary, since the setting holds for the whole process.

mod common;

use std::path::Path;
use std::time::Duration;

use file_store_sandbox::{command, run, Limits, Spec};

fn spec(dir: &Path, sandbox: bool, language: &str, code: &str) -> Spec {
    Spec {
        argv: command(language, None, code).unwrap(),
        dir: dir.to_path_buf(),
        read_only: Vec::new(),
        sandbox,
        limits: Limits {
            timeout: Duration::from_secs(1),
            ..Limits::default()
        },
    }
}

#[test]
fn as_a_subreaper_runs_timed_out_or_leaving_a_daemon_leave_no_zombie() {
    common::adopt_orphans();
    let dir = tempfile::tempdir().unwrap();
    let timed_out = "sleep 30 & sleep 30 & sleep 30";
    let daemon = "(sleep 30 &); sleep 0.3";
    let python = "import subprocess, time\nfor _ in range(3): subprocess.Popen(['sleep', '30'])\ntime.sleep(30)\n";
    for round in 0..3 {
        let ran = run(&spec(dir.path(), false, "shell", timed_out)).unwrap();
        assert!(ran.timed_out, "round {round}");
        let ran = run(&spec(dir.path(), false, "shell", daemon)).unwrap();
        assert!(!ran.timed_out, "round {round}");
        match run(&spec(dir.path(), true, "python", python)) {
            Ok(ran) => assert!(ran.timed_out, "round {round}"),
            Err(e) => eprintln!("the sandboxed run skipped: {e}"),
        }
        assert_eq!(common::zombies(), Vec::<String>::new(), "round {round}");
    }
}
