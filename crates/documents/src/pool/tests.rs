use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;

/// The pid of this process's supervisor: `file_store_convert supervise <our pid>`.
fn supervisor_pid() -> Option<u32> {
    let wanted = format!("\0supervise\0{}\0", std::process::id());
    pids().into_iter().find(|pid| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).ends_with(&wanted))
    })
}

fn pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}

/// The parent of `pid` and its state letter.
fn parent_and_state(pid: u32) -> Option<(u32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut after = stat.rsplit_once(") ")?.1.split(' ');
    let state = after.next()?.chars().next()?;
    Some((after.next()?.parse().ok()?, state))
}

/// The pids of this process's convert workers: its supervisor's children.
fn worker_pids() -> Vec<u32> {
    let Some(supervisor) = supervisor_pid() else {
        return Vec::new();
    };
    pids()
        .into_iter()
        .filter(|pid| parent_and_state(*pid).is_some_and(|(parent, _)| parent == supervisor))
        .collect()
}

/// Whether `what` held at one of its looks within 20 seconds: the answer of the look
/// that saw it, never of another, since what is waited for may hold a moment only (a
/// worker running).
fn wait_for(what: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if what() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn converts_in_a_worker_the_supervisor_owns_and_keeps_it_for_the_next_document() {
    let _pool = use_test_worker();
    let text = convert(&[Kind::Html], b"<p>Hello <b>there</b></p>").unwrap();
    assert_eq!(text.unwrap(), "Hello there\n");
    let refusal = convert(&[Kind::Pdf], b"not a pdf").unwrap();
    assert!(matches!(refusal, Err(Refusal::Unreadable("PDF", _))));
    let workers = worker_pids();
    assert!(!workers.is_empty());
    // Neither the supervisor nor a worker is a child of this process.
    let me = std::process::id();
    let supervisor = supervisor_pid().unwrap();
    assert_ne!(parent_and_state(supervisor).unwrap().0, me);
    let score = std::fs::read_to_string(format!("/proc/{}/oom_score_adj", workers[0])).unwrap();
    assert_eq!(score.trim(), "1000");
}

#[test]
fn a_caller_that_gives_up_kills_its_worker_at_once() {
    let _pool = use_test_worker();
    let page = "<p>a few words in a paragraph</p>".repeat(2_000_000);
    let flag = Arc::new(AtomicBool::new(false));
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::SeqCst);
        })
    };
    let started = Instant::now();
    let outcome = cancel::with_flag(Some(flag), || convert(&[Kind::Html], page.as_bytes()));
    setter.join().unwrap();
    assert!(matches!(outcome, Err(Error::Cancelled)), "{outcome:?}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // The worker that held the page is gone, not idle, and the next caller gets a new one.
    let text = convert(&[Kind::Html], b"<p>after</p>").unwrap();
    assert_eq!(text.unwrap(), "after\n");
}

#[test]
fn a_worker_killed_from_outside_is_no_refusal_of_the_document() {
    let _pool = use_test_worker();
    end_idle();
    assert!(convert(&[Kind::Html], b"<p>warm</p>").unwrap().is_ok());
    // An idle worker killed, as the OOM killer would: the next document reads.
    for pid in worker_pids() {
        // SAFETY: kill reads no memory; `pid` is a child of this test's supervisor, read
        // from /proc just before, and a number reused since would at worst be a wrong
        // process signalled in a test, never memory touched.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    let text = convert(&[Kind::Html], b"<p>next</p>").unwrap();
    assert_eq!(text.unwrap(), "next\n");
    // A busy one killed: its document is tried again in a new worker.
    let page = "<p>a few words in a paragraph</p>".repeat(400_000);
    let killer = std::thread::spawn(|| {
        assert!(wait_for(|| worker_pids().iter().any(|pid| {
            parent_and_state(*pid).is_some_and(|(_, state)| state == 'R')
        })));
        for pid in worker_pids() {
            // SAFETY: kill reads no memory; `pid` is a worker of this test's supervisor,
            // read from /proc just before.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    });
    let text = convert(&[Kind::Html], page.as_bytes()).unwrap();
    killer.join().unwrap();
    assert!(text.unwrap().starts_with("a few words"));
}

#[test]
fn a_stopped_worker_ends_at_the_wall_clock_bound_and_gives_its_place_back() {
    let _pool = use_test_worker();
    end_idle();
    set_wall_limit(Duration::from_secs(2));
    let page = "<p>a few words in a paragraph</p>".repeat(2_000_000);
    let stopper = std::thread::spawn(|| {
        assert!(wait_for(|| !worker_pids().is_empty()));
        for pid in worker_pids() {
            // SAFETY: kill reads no memory; `pid` is a worker of this test's supervisor,
            // read from /proc just before.
            unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
        }
    });
    let started = Instant::now();
    let outcome = convert(&[Kind::Html], page.as_bytes());
    stopper.join().unwrap();
    set_wall_limit(WALL_LIMIT);
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("did not answer within 2 seconds"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(running(), 0, "the stopped worker's place is free");
    assert!(
        wait_for(|| worker_pids().is_empty()),
        "the stopped worker was killed"
    );
    assert_eq!(convert(&[Kind::Html], b"<p>x</p>").unwrap().unwrap(), "x\n");
}

#[test]
fn a_missing_worker_is_an_error_naming_its_path_and_why() {
    let _pool = use_test_worker();
    let real = program().unwrap();
    end_idle();
    set_program("/nonexistent/lib/file_store_convert".into());
    let error = convert(&[Kind::Html], b"<p>x</p>").unwrap_err();
    set_program(real);
    assert!(matches!(error, Error::Converter(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "the convert worker /nonexistent/lib/file_store_convert cannot run: there is no file there"
    );
    assert_eq!(convert(&[Kind::Html], b"<p>x</p>").unwrap().unwrap(), "x\n");
}

#[test]
fn the_turn_goes_to_the_queue_with_the_fewest_conversions_under_way() {
    let mut pool = Pool::default();
    pool.busy.insert(1, MAX_WORKERS);
    pool.waiting = vec![(1, 1), (2, 1), (3, 2), (4, 1)];
    assert!(pool.in_turn(3, 1));
    assert!(!pool.in_turn(1, 1));
    assert!(pool.in_turn(1, 2) && !pool.in_turn(2, 2));
    pool.leave(3);
    assert!(pool.in_turn(1, 1));
}

/// The children of `parent` that have not ended.
fn children_of(parent: u32) -> Vec<u32> {
    pids()
        .into_iter()
        .filter(|pid| parent_and_state(*pid).is_some_and(|(p, state)| p == parent && state != 'Z'))
        .collect()
}

fn running_process(pid: u32) -> bool {
    parent_and_state(pid).is_some_and(|(_, state)| state != 'Z')
}

#[test]
fn a_supervisor_ends_with_its_workers_when_the_app_closes_its_socket() {
    let _pool = use_test_worker();
    let wanted = format!("\0supervise\0{}\0", std::process::id());
    let supervisors = || -> Vec<u32> {
        pids()
            .into_iter()
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).ends_with(&wanted))
            })
            .filter(|pid| running_process(*pid))
            .collect()
    };
    let before = supervisors();
    let mut link = link::Link::default();
    let started = link.start_worker(&program().unwrap()).unwrap();
    let new: Vec<u32> = supervisors()
        .into_iter()
        .filter(|pid| !before.contains(pid))
        .collect();
    assert_eq!(new.len(), 1, "{new:?}");
    let workers = children_of(new[0]);
    assert_eq!(workers.len(), 1);
    drop(started);
    drop(link);
    assert!(wait_for(
        || !running_process(new[0]) && !running_process(workers[0])
    ));
}

#[test]
fn a_prestarted_worker_serves_the_first_conversion_and_none_starts_twice() {
    let _pool = use_test_worker();
    end_idle();
    assert!(prestart());
    assert!(!prestart(), "a second prestart while one is under way");
    assert!(wait_for(|| lock(&shared().pool).idle.len() == 1));
    let workers = worker_pids();
    assert_eq!(workers.len(), 1);
    let sent = conversions();
    assert_eq!(
        convert(&[Kind::Html], b"<p>first</p>").unwrap().unwrap(),
        "first\n"
    );
    assert_eq!(conversions(), sent + 1);
    assert_eq!(
        worker_pids(),
        workers,
        "the first conversion took the prestarted worker"
    );
    assert!(!prestart(), "a worker runs");
}

#[test]
fn a_prestart_that_cannot_start_gives_its_place_back_and_the_conversion_names_why() {
    let _pool = use_test_worker();
    let real = program().unwrap();
    end_idle();
    set_program("/nonexistent/lib/file_store_convert".into());
    assert!(prestart());
    assert!(wait_for(|| running() == 0));
    let error = convert(&[Kind::Html], b"<p>x</p>").unwrap_err();
    set_program(real);
    assert_eq!(
        error.to_string(),
        "the convert worker /nonexistent/lib/file_store_convert cannot run: there is no file there"
    );
    assert_eq!(convert(&[Kind::Html], b"<p>x</p>").unwrap().unwrap(), "x\n");
}

#[test]
fn a_conversion_asked_while_a_prestart_is_under_way_takes_its_worker() {
    let _pool = use_test_worker();
    end_idle();
    assert!(prestart());
    assert_eq!(
        convert(&[Kind::Html], b"<p>at once</p>").unwrap().unwrap(),
        "at once\n"
    );
    assert_eq!(running(), 1);
    assert_eq!(worker_pids().len(), 1);
}

#[test]
fn a_prestart_under_way_when_another_program_is_named_keeps_no_worker_of_the_old_one() {
    let _pool = use_test_worker();
    let real = program().unwrap();
    end_idle();
    assert!(prestart());
    // Named again while the prestart starts its worker: that worker is of the
    // program named before, which `set_program` promises no conversion uses.
    set_program(real);
    assert!(wait_for(|| !lock(&shared().pool).prestarting));
    assert_eq!(running(), 0, "the outdated worker ended");
    assert!(wait_for(|| worker_pids().is_empty()));
    assert_eq!(convert(&[Kind::Html], b"<p>x</p>").unwrap().unwrap(), "x\n");
}

#[test]
fn a_file_goes_to_the_worker_a_piece_at_a_time_and_one_that_shrank_is_the_callers_error() {
    let _pool = use_test_worker();
    let html: String = (0..20_000).map(|n| format!("<p>line {n}</p>")).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.html");
    std::fs::write(&path, &html).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let size = html.len() as u64;
    assert!(size > 4 * 64 * 1024, "several pieces");
    let document = Document::File {
        file: &file,
        size,
        path: "long.html",
    };
    let from_file = convert_document(&[Kind::Html], document).unwrap().unwrap();
    let from_bytes = convert(&[Kind::Html], html.as_bytes()).unwrap().unwrap();
    assert_eq!(from_file, from_bytes);
    assert!(from_file.ends_with("line 19999\n"));

    // The file as measured was longer than it is when read: the worker waiting for
    // the rest is ended, and the error names the file, not the worker.
    let shrunk = Document::File {
        file: &file,
        size: size + 10,
        path: "long.html",
    };
    let before = running();
    match convert_document(&[Kind::Html], shrunk) {
        Err(Error::Io { path, source }) => {
            assert_eq!(path, "long.html");
            assert_eq!(source.kind(), std::io::ErrorKind::UnexpectedEof);
            assert!(source.to_string().contains("shorter"), "{source}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(running(), before.saturating_sub(1), "its worker ended");
    assert_eq!(
        convert(&[Kind::Html], b"<p>next</p>").unwrap().unwrap(),
        "next\n"
    );
}
