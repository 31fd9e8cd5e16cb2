//! A run that ends by an error leaves none of its cgroups behind: each would cost
//! the host a cgroup for as long as the app lives. Its own test binary, so no other
//! test's runs make cgroups of this process meanwhile.

use std::path::Path;
use std::time::Duration;

use file_store_sandbox::{command, run, Limits, Spec};

/// The cgroups below `dir`, `depth` levels down at most, named for a run of this
/// process.
fn ours(dir: &Path, depth: usize, found: &mut Vec<String>) {
    let prefix = format!("ruby_llm_run_{}_", std::process::id());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            found.push(entry.path().display().to_string());
        } else if depth > 0 {
            ours(&entry.path(), depth - 1, found);
        }
    }
}

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

#[test]
fn a_run_whose_program_is_missing_leaves_no_cgroup() {
    let dir = tempfile::tempdir().unwrap();
    let ran = run(&spec(dir.path(), command("shell", None, "true").unwrap())).unwrap();
    if !(ran.memory_limited || ran.cpu_limited || ran.processes_limited && ran.uid == 0) {
        eprintln!("skipped: this process can make no cgroup here");
        return;
    }
    for _ in 0..3 {
        let err = run(&spec(dir.path(), vec!["/no/such/program".into()])).unwrap_err();
        assert!(err.to_string().contains("/no/such/program"), "{err}");
    }
    let mut found = Vec::new();
    ours(Path::new("/sys/fs/cgroup"), 6, &mut found);
    assert_eq!(found, Vec::<String>::new());
}
