use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;

/// Whether a process with this id still exists (a zombie counts).
fn alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// The pids of this process's convert workers.
fn worker_pids() -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let after = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
            stat.contains("(file_store_conv")
                && after.split(' ').nth(1) == Some(me.to_string().as_str())
        })
        .collect()
}

#[test]
fn converts_in_a_worker_and_keeps_it_for_the_next_document() {
    let _pool = use_test_worker();
    let text = convert(&[Kind::Html], b"<p>Hello <b>there</b></p>").unwrap();
    assert_eq!(text.unwrap(), "Hello there\n");
    let refusal = convert(&[Kind::Pdf], b"not a pdf").unwrap();
    assert!(matches!(refusal, Err(Refusal::Unreadable("PDF", _))));
    assert!(!worker_pids().is_empty());
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
fn a_worker_killed_from_outside_is_a_refusal_and_is_replaced() {
    let _pool = use_test_worker();
    // Hold every worker this test starts, so none is another test's.
    let mut held: Vec<Worker> = Vec::new();
    let mut worker = Worker::start().unwrap();
    let pid = worker.pid as u32;
    unsafe { libc::kill(worker.pid, libc::SIGABRT) };
    while !std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .unwrap_or_default()
        .contains(") Z ")
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    let asked = worker.ask(&[Kind::Html], b"<p>x</p>");
    assert!(asked.is_err());
    pool().live += 1; // end() gives back the place start() did not take from the pool
    let why = why_stopped(worker.end());
    assert_eq!(
        why,
        "the document needs more than 1 GB of memory to convert"
    );
    assert!(!alive(pid), "the dead worker was reaped");
    held.push(Worker::start().unwrap());
    assert!(held[0].ask(&[Kind::Html], b"<p>y</p>").unwrap().is_ok());
}

#[test]
fn no_worker_named_is_an_error_naming_the_worker() {
    let error = Worker::start_program(None).err().unwrap();
    assert!(error.to_string().contains("file_store_convert"), "{error}");
}
