//! The convert worker as the app runs it: a process fed on its pipes, confined
//! before it reads a byte, whose death at its memory or CPU limit is the end of
//! one conversion and nothing else.

mod hostile;

use std::io::BufReader;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use file_store_convert::worker::{CPU_LIMIT, MEMORY_LIMIT};
use file_store_convert::{wire, Converted, Kind, Refusal};
use hostile::fans;

struct Worker {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Worker {
    fn start() -> Worker {
        let mut child = Command::new(env!("CARGO_BIN_EXE_file_store_convert"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Worker {
            child,
            input,
            output,
        }
    }

    /// The answer, or the signal that ended the worker.
    fn convert(&mut self, kind: Kind, bytes: &[u8]) -> Result<Converted, i32> {
        let sent = wire::write_request(&mut self.input, &[kind], bytes);
        match sent.and_then(|_| wire::read_answer(&mut self.output)) {
            Ok(converted) => Ok(converted),
            Err(_) => {
                let status = self.child.wait().unwrap();
                Err(status.signal().unwrap_or(-1))
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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
fn a_worker_whose_input_closes_ends() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_file_store_convert"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// Converts `bytes` in a fresh worker and checks what the app would: the worker
/// answers or dies at a limit, within the CPU limit and some slack.
fn contained(name: &str, bytes: &[u8]) -> Result<Converted, i32> {
    let started = Instant::now();
    let mut worker = Worker::start();
    let outcome = worker.convert(Kind::Pdf, bytes);
    let took = started.elapsed();
    eprintln!(
        "{:>8.3} s  {name}: {}",
        took.as_secs_f64(),
        describe(&outcome)
    );
    assert!(
        took < CPU_LIMIT + Duration::from_secs(20),
        "{name}: {took:?}"
    );
    match &outcome {
        Ok(Ok(text)) => assert!(
            text.len() <= file_store_convert::MAX_OUTPUT + 1024,
            "{name}"
        ),
        Ok(Err(_)) => {}
        Err(signal) => assert!(
            [libc::SIGABRT, libc::SIGXCPU].contains(signal),
            "{name}: the worker ended by signal {signal}"
        ),
    }
    outcome
}

fn describe(outcome: &Result<Converted, i32>) -> String {
    match outcome {
        Ok(Ok(text)) => format!("{} bytes of text, ending {:?}", text.len(), tail(text)),
        Ok(Err(refusal)) => format!("refused: {refusal}"),
        Err(signal) => format!("the worker died of signal {signal}"),
    }
}

fn tail(text: &str) -> &str {
    let from = text.len().saturating_sub(80);
    let from = (from..text.len())
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    &text[from..]
}

/// The shapes that killed the app's process when the converters ran in it.
fn fan_shapes() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "one form field: /V of 200,000 references to one 1 MB string",
            fans::form_value_array(200_000, 1 << 20),
        ),
        (
            "an object stream listing one id 4,000 times over a 16 MB string",
            fans::object_stream_fan(4_000, 16 << 20, true),
        ),
        (
            "an object stream giving 20,000 ids one offset",
            fans::object_stream_fan(20_000, 100_000, false),
        ),
        (
            "3,000 xref entries at one 4 MB object",
            fans::xref_fan(3_000, 4 << 20),
        ),
        (
            "5,000 fonts sharing one /Widths of 1,000,000 numbers",
            fans::fonts_sharing_widths(5_000, 1_000_000),
        ),
        (
            "100,000 form fields sharing one 4 MB value",
            fans::form_fields_sharing_value(100_000, 4 << 20),
        ),
        ("300,000 one-word pages", fans::many_pages(300_000)),
    ]
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build is ten times slower: bin/test runs these with --release"
)]
fn every_shape_that_ended_the_app_ends_at_most_its_worker() {
    for (name, bytes) in fan_shapes() {
        contained(name, &bytes).ok();
    }
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build is ten times slower: bin/test runs these with --release"
)]
fn a_worker_past_its_memory_dies_alone_and_the_next_one_converts() {
    let outcome = contained(
        "100,000 form fields sharing one 4 MB value",
        &fans::form_fields_sharing_value(100_000, 4 << 20),
    );
    assert!(
        !matches!(outcome, Ok(Ok(ref text)) if !text.contains("[cut: ")),
        "{}",
        describe(&outcome)
    );
    let mut next = Worker::start();
    assert_eq!(
        next.convert(Kind::Html, b"<p>next</p>").unwrap().unwrap(),
        "next\n"
    );
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build is ten times slower: bin/test runs these with --release"
)]
fn the_same_document_gives_the_same_text_idle_and_with_every_core_busy() {
    let corpus = hostile::corpus();
    let cut: Vec<&hostile::Hostile> = corpus
        .iter()
        .filter(|doc| matches!(doc.expect, hostile::Expect::Cut))
        .take(6)
        .collect();
    let convert_all = || -> Vec<Result<Converted, i32>> {
        let mut worker = Worker::start();
        cut.iter()
            .map(|doc| {
                let outcome = worker.convert(doc.kind, &doc.bytes);
                if outcome.is_err() {
                    worker = Worker::start();
                }
                outcome
            })
            .collect()
    };
    let idle = convert_all();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners: Vec<_> = (0..cores * 2)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                }
                x
            })
        })
        .collect();
    let busy = convert_all();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for spinner in spinners {
        spinner.join().unwrap();
    }
    for ((doc, idle), busy) in cut.iter().zip(&idle).zip(&busy) {
        assert!(
            idle == busy,
            "{}: {} / {}",
            doc.name,
            describe(idle),
            describe(busy)
        );
    }
}

#[test]
fn a_refusal_crosses_the_pipe_whole() {
    let mut worker = Worker::start();
    let outcome = worker
        .convert(Kind::Pdf, b"%PDF-1.7 but nothing more")
        .unwrap();
    assert!(
        matches!(outcome, Err(Refusal::Unreadable("PDF", _))),
        "{outcome:?}"
    );
}
