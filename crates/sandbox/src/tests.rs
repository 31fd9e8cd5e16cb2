use super::*;
use std::fs;
use std::path::Path;

fn spec(dir: &std::path::Path, script: &str) -> Spec {
    Spec {
        argv: command("shell", None, script).unwrap(),
        dir: dir.to_path_buf(),
        read_only: Vec::new(),
        sandbox: true,
        limits: Limits {
            timeout: Duration::from_secs(10),
            ..Limits::default()
        },
    }
}

fn run_sh(script: &str) -> (tempfile::TempDir, Outcome) {
    let dir = tempfile::tempdir().unwrap();
    let outcome = run(&spec(dir.path(), script)).unwrap();
    (dir, outcome)
}

#[test]
fn runs_in_the_folder_and_returns_status_and_output() {
    let (dir, out) = run_sh("echo hi; echo oops >&2; echo data > made.txt; exit 3");
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(out.stdout, "hi\n");
    assert_eq!(out.stderr, "oops\n");
    assert!(!out.timed_out);
    assert_eq!(
        fs::read_to_string(dir.path().join("made.txt")).unwrap(),
        "data\n"
    );
}

#[test]
fn python_and_ruby_run() {
    let dir = tempfile::tempdir().unwrap();
    for (language, code) in [("python", "print(6 * 7)"), ("ruby", "puts 6 * 7")] {
        let mut spec = spec(dir.path(), "");
        spec.argv = command(language, None, code).unwrap();
        let out = run(&spec).unwrap();
        assert_eq!(out.stdout, "42\n", "{language}: {}", out.stderr);
    }
}

#[test]
fn an_unknown_language_is_refused() {
    let err = command("cobol", None, "x").unwrap_err();
    assert!(err.to_string().contains("\"cobol\""), "{err}");
}

#[test]
fn the_timeout_kills_every_process_including_forked_children() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path(), "(sleep 31; echo late > late.txt) & sleep 31");
    spec.limits.timeout = Duration::from_millis(500);
    let out = run(&spec).unwrap();
    assert!(out.timed_out);
    assert!(out.elapsed < Duration::from_secs(5), "{:?}", out.elapsed);
    std::thread::sleep(Duration::from_millis(200));
    let ps = std::process::Command::new("sh")
        .args(["-c", "ps -eo args | grep -c '^sleep 31$' || true"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&ps.stdout).trim(), "0");
}

#[test]
fn output_past_the_cap_is_counted_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path(), "head -c 300000 /dev/zero | tr '\\0' x");
    spec.limits.output_bytes = 1000;
    let out = run(&spec).unwrap();
    assert_eq!(out.stdout.len(), 1000);
    assert_eq!(out.stdout_bytes, 300_000);
}

#[test]
fn the_system_is_read_only_and_secrets_absent() {
    let (_dir, out) = run_sh("cat /etc/shadow; touch /usr/x; touch /etc/x; touch /x; ls /root");
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(out.stderr.contains("/etc/shadow"), "{}", out.stderr);
    assert!(out.stderr.contains("/usr/x"), "{}", out.stderr);
    assert!(out.stderr.contains("'/x': Read-only"), "{}", out.stderr);
    assert!(!Path::new("/usr/x").exists());
}

#[test]
fn there_is_no_network_not_even_the_hosts_loopback() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let code = format!(
        "import socket\ntry:\n socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')\nexcept OSError as e: print('refused', e)"
    );
    let mut spec = spec(dir.path(), "");
    spec.argv = command("python", None, &code).unwrap();
    let out = run(&spec).unwrap();
    assert!(
        out.stdout.starts_with("refused"),
        "{} {}",
        out.stdout,
        out.stderr
    );
    // The same code outside the sandbox reaches the listener: the test can fail.
    spec.sandbox = false;
    assert_eq!(run(&spec).unwrap().stdout, "connected\n");
}

#[test]
fn the_file_size_limit_holds() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path(), "head -c 100000 /dev/zero > big.bin");
    spec.limits.file_bytes = 10_000;
    let out = run(&spec).unwrap();
    assert_ne!(out.exit_code, Some(0));
    assert_eq!(
        fs::metadata(dir.path().join("big.bin")).unwrap().len(),
        10_000
    );
}

#[test]
fn a_fork_bomb_is_contained() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path(), "b() { b | b & }; b; sleep 1; echo survived");
    spec.limits.timeout = Duration::from_secs(5);
    spec.limits.processes = 32;
    let out = run(&spec).unwrap();
    assert!(out.processes_limited, "no process limit could be set here");
    assert!(out.elapsed < Duration::from_secs(6), "{:?}", out.elapsed);
    assert!(!out.timed_out, "{}", out.stderr);
    assert!(
        out.stderr.contains("fork"),
        "the limit was never hit: {}",
        out.stderr
    );
}

#[test]
fn without_the_sandbox_the_limits_and_timeout_still_hold() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path(), "echo $HOME; sleep 30 & sleep 30");
    spec.sandbox = false;
    spec.limits.timeout = Duration::from_millis(1500);
    let out = run(&spec).unwrap();
    assert!(out.timed_out);
    assert_eq!(out.stdout, "/tmp\n");
}

#[test]
fn a_missing_folder_is_refused_by_name() {
    let err = run(&spec(Path::new("/no/such/dir"), "true")).unwrap_err();
    assert!(err.to_string().contains("/no/such/dir"), "{err}");
}

#[test]
fn the_sandbox_is_available_here() {
    assert_eq!(sandbox_problem(), None);
}

#[test]
fn a_seccomp_filter_holds_and_a_root_app_runs_as_nobody() {
    use std::os::unix::fs::MetadataExt;
    let (dir, out) = run_sh(
        "grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status; touch made; chmod 4755 made; echo $?",
    );
    assert!(out.stdout.contains("Seccomp:\t2\n"), "{}", out.stdout);
    assert!(out.stdout.contains("NoNewPrivs:\t1\n"), "{}", out.stdout);
    assert!(
        out.stdout.ends_with("\n1\n"),
        "{} {}",
        out.stdout,
        out.stderr
    );
    let app = rustix::process::geteuid().as_raw();
    assert_eq!(out.uid, if app == 0 { RUN_UID } else { app });
    let made = fs::metadata(dir.path().join("made")).unwrap();
    assert_eq!(made.mode() & 0o6000, 0);
    assert_eq!(made.uid(), app);
    assert_eq!(out.after.keys().collect::<Vec<_>>(), vec!["made"]);
}

#[test]
fn a_run_that_locks_its_folder_leaves_it_usable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode = fs::metadata(dir.path()).unwrap().permissions().mode();
    let out = run(&spec(
        dir.path(),
        "mkdir sub; echo x > sub/f; chmod 0 sub sub/f; chmod 0 .",
    ))
    .unwrap();
    assert_eq!(out.exit_code, Some(0), "{}", out.stderr);
    assert_eq!(fs::metadata(dir.path()).unwrap().permissions().mode(), mode);
    assert_eq!(out.after.keys().collect::<Vec<_>>(), vec!["sub", "sub/f"]);
    let again = run(&spec(dir.path(), "cat sub/f")).unwrap();
    assert_eq!(again.stdout, "x\n");
}

#[test]
fn a_run_that_only_touches_a_file_changes_nothing_and_one_that_rewrites_it_does() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["touched", "rewritten"] {
        fs::write(dir.path().join(name), "a,b\n").unwrap();
    }
    let out = run(&spec(
        dir.path(),
        "chmod 600 touched; touch touched; printf 'c,d\\n' > rewritten; \
         touch -d '2001-01-01' rewritten; touch -r rewritten touched",
    ))
    .unwrap();
    assert_eq!(out.exit_code, Some(0), "{}", out.stderr);
    let changes = &out.changes;
    assert_eq!(changes.changed, vec!["rewritten"]);
}

#[test]
fn the_app_gets_back_what_the_run_changed_and_not_what_it_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["old.txt", "gone.txt", ".hidden"] {
        fs::write(dir.path().join(name), "x").unwrap();
    }
    let out = run(&spec(
        dir.path(),
        "rm gone.txt; echo new > new.txt; mkdir sub",
    ))
    .unwrap();
    assert_eq!(out.exit_code, Some(0), "{}", out.stderr);
    // The hidden file counts against a run's limits whether or not it changed.
    assert_eq!(
        out.after.keys().collect::<Vec<_>>(),
        vec![".hidden", "new.txt", "sub"]
    );
    assert_eq!(out.changes.created, vec!["new.txt"]);
    assert_eq!(out.changes.deleted, vec!["gone.txt"]);
    assert_eq!(out.changes.entries, vec!["sub"]);
    // Of the look before the run the app keeps only the paths the run left.
    assert_eq!(out.before.keys().collect::<Vec<_>>(), vec![".hidden"]);
}

#[test]
fn a_run_is_the_oom_killers_first_choice() {
    for sandboxed in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = spec(
            dir.path(),
            "cat /proc/self/oom_score_adj; sh -c 'cat /proc/self/oom_score_adj'",
        );
        spec.sandbox = sandboxed;
        let out = run(&spec).unwrap();
        assert_eq!(
            out.stdout, "1000\n1000\n",
            "sandboxed: {sandboxed}, {}",
            out.stderr
        );
    }
}

#[test]
fn the_gems_folders_are_out_of_the_runs_reach() {
    for name in removing::GEMS_FOLDERS {
        // Each step fails inside the sandbox: the folder is covered, read-only and empty.
        let script = format!(
            "mkdir {name}/mine; echo x > {name}/f; mv {name} taken; rmdir {name}; \
             ls -A {name} | wc -l"
        );
        let (dir, out) = run_sh(&script);
        assert_eq!(out.stdout.trim(), "0", "{name}: {}", out.stderr);
        let held = dir.path().join(name);
        let meta = fs::symlink_metadata(&held).unwrap();
        assert!(meta.is_dir());
        assert_eq!(
            std::os::unix::fs::MetadataExt::uid(&meta),
            rustix::process::geteuid().as_raw()
        );
        assert_eq!(fs::read_dir(&held).unwrap().count(), 0, "{name}");
        assert!(!dir.path().join("taken").exists());
        assert!(out.changes.created.is_empty(), "{:?}", out.changes);
    }
}

#[test]
fn what_earlier_runs_left_set_aside_is_told_and_counts_against_the_new_names() {
    let dir = tempfile::tempdir().unwrap();
    let held = dir.path().join(removing::REMOVING);
    fs::create_dir(&held).unwrap();
    fs::set_permissions(&held, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    (0..3).for_each(|i| fs::write(held.join(format!("left{i}")), "abc").unwrap());
    let mut spec = spec(dir.path(), "touch a b c d e");
    spec.limits.new_names = 5;
    let out = run(&spec).unwrap();
    let note = out
        .notes
        .iter()
        .find(|note| note.contains(removing::REMOVING));
    assert!(
        note.is_some_and(|note| note.starts_with("3 names (9 bytes")),
        "{:?}",
        out.notes
    );
    // Two of the five new names fit what was left.
    assert_eq!(out.changes.created.len(), 2, "{:?}", out.changes);
}
