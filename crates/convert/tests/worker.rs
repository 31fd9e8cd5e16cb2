//! The convert worker as the app runs it: a process whose death at its memory or
//! CPU limit is the end of one conversion and nothing else, and whose text does not
//! depend on how busy the machine is. Its confinement: worker_confinement.rs.

mod hostile;
mod worker_process;

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use file_store_convert::worker::CPU_LIMIT;
use file_store_convert::{Converted, Kind, Refusal};
use hostile::fans;
use worker_process::{one_heavy_test_at_a_time, Worker};

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
    let _heavy = one_heavy_test_at_a_time();
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
    let _heavy = one_heavy_test_at_a_time();
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
    let _heavy = one_heavy_test_at_a_time();
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

/// The text of `bytes` from `count` workers at once, each started on its own
/// thread while twice as many threads as there are cores spin beside them.
fn at_once_with_every_core_busy(kind: Kind, bytes: &[u8], count: usize) -> Vec<Converted> {
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
    let texts = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..count)
            .map(|_| scope.spawn(|| Worker::start().convert(kind, bytes).unwrap()))
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for spinner in spinners {
        spinner.join().unwrap();
    }
    texts
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build is ten times slower: bin/test runs these with --release"
)]
fn a_document_past_its_work_budget_gives_the_same_text_sixteen_times_at_once() {
    let _heavy = one_heavy_test_at_a_time();
    for (name, kind, bytes) in [
        (
            "a 60 MB content stream",
            Kind::Pdf,
            hostile::pdf(hostile::shows(60 << 20), false),
        ),
        (
            "a tag of 200,000 attributes",
            Kind::Html,
            format!(
                "<p{}>attrs</p>",
                (0..200_000)
                    .map(|i| format!(" a{i}=\"\""))
                    .collect::<String>()
            )
            .into_bytes(),
        ),
    ] {
        let texts = at_once_with_every_core_busy(kind, &bytes, 16);
        let first = texts[0].as_ref().unwrap();
        assert!(
            first.ends_with("steps to read]\n"),
            "{name}: {}",
            tail(first)
        );
        for text in &texts {
            assert!(
                text.as_ref() == Ok(first),
                "{name}: {}",
                describe(&Ok(text.clone()))
            );
        }
    }
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build's CPU limit is 100 s: bin/test runs these with --release"
)]
fn a_document_past_the_cpu_limit_is_refused_never_cut_even_with_sigxcpu_ignored() {
    let _heavy = one_heavy_test_at_a_time();
    // Reading its fonts' widths takes a minute, and no step counts it.
    let bytes = fans::fonts_sharing_chained_widths(1_000, 10_000, 100);
    let mut command = Command::new(env!("CARGO_BIN_EXE_file_store_convert"));
    // SAFETY: the pre_exec closure runs in the forked child before exec, where only
    // async-signal-safe calls are allowed: signal() is one, and the closure allocates
    // nothing.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGXCPU, libc::SIG_IGN);
            Ok(())
        });
    }
    let started = Instant::now();
    let mut worker = Worker::start_with(command);
    let outcome = worker.convert(Kind::Pdf, &bytes);
    eprintln!("{:?}: {}", started.elapsed(), describe(&outcome));
    assert_eq!(outcome, Err(libc::SIGXCPU), "{}", describe(&outcome));
}
