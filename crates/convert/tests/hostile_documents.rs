//! The hostile corpus (tests/hostile): every document converts within its
//! budget and says when it was cut, and the whole corpus runs to its end in a
//! process limited to 1 GB of address space, where an allocation that aborts
//! would end the process instead.

mod hostile;

use std::process::Command;
use std::time::Duration;

use file_store_convert::budget::{thread_cpu_time, MAX_OUTPUT};
use file_store_convert::worker::CPU_LIMIT;
use hostile::{corpus, Expect, Hostile};

/// How long one document may take in a release build: such documents ran
/// for minutes; each must now be done in a second or two, stopped by its
/// budget's steps, far below the worker's CPU limit, which would refuse it.
const RELEASE_SECONDS: f64 = 3.0;

/// Converts `doc` and checks what a user would: that it ends in time, within
/// the text ceiling, with the text or refusal it should give. Returns the time:
/// the CPU time the conversion took, which a busy machine changes little.
fn check(doc: &Hostile) -> Duration {
    let started = thread_cpu_time();
    let converted = doc.kind.convert(&doc.bytes);
    let took = thread_cpu_time().saturating_sub(started);
    let name = doc.name;
    assert!(took < CPU_LIMIT, "{name}: {took:?}");
    if !cfg!(debug_assertions) {
        assert!(took.as_secs_f64() < RELEASE_SECONDS, "{name}: {took:?}");
    }
    if let Ok(text) = &converted {
        assert!(
            text.len() <= MAX_OUTPUT + 1024,
            "{name}: {} bytes",
            text.len()
        );
    }
    match (&doc.expect, &converted) {
        (Expect::Cut, Ok(text)) => assert!(
            text.ends_with("]\n") && (text.starts_with("[cut: ") || text.contains("\n[cut: ")),
            "{name} does not say it was cut: ...{:?}",
            &text[text.len().saturating_sub(200)..]
        ),
        (Expect::Holds(part), Ok(text)) => {
            assert!(text.contains(part), "{name}: {:.300?}", text)
        }
        (Expect::Lacks(part), Ok(text)) => {
            assert!(!text.contains(part), "{name}: {:.300?}", text)
        }
        (Expect::Refused, Err(_)) | (Expect::Ends, _) => {}
        (_, other) => panic!("{name}: {:.300?}", other),
    }
    took
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build is ten times slower: bin/test runs these with --release"
)]
fn every_hostile_document_ends_within_its_budget_and_says_it_was_cut() {
    for doc in corpus() {
        let took = check(&doc);
        eprintln!("{:>8.3} s  {}", took.as_secs_f64(), doc.name);
    }
}

/// The child's side of the test below: the corpus under the address-space
/// limit it was started with. Run alone it checks the corpus as the test above.
#[test]
#[ignore = "run by the_corpus_ends_normally_under_a_1_gb_address_space_limit in a child process"]
fn corpus_in_a_limited_process() {
    if let Ok(limit) = std::env::var("HOSTILE_ADDRESS_SPACE") {
        let limit: u64 = limit.parse().unwrap();
        let rlimit = libc::rlimit {
            rlim_cur: limit,
            rlim_max: limit,
        };
        // SAFETY: setrlimit only reads `rlimit`, a live local.
        assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &rlimit) }, 0);
    }
    for doc in corpus() {
        check(&doc);
        println!("converted: {}", doc.name);
    }
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build is ten times slower: bin/test runs these with --release"
)]
fn the_corpus_ends_normally_under_a_1_gb_address_space_limit() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "corpus_in_a_limited_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("HOSTILE_ADDRESS_SPACE", (1u64 << 30).to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // An aborting allocation ends the child by SIGABRT: no exit code at all.
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{stdout}\n{stderr}",
        output.status
    );
    assert_eq!(
        stdout.matches("converted: ").count(),
        corpus().len(),
        "{stdout}"
    );
}

/// Writes each document of the corpus to the folder `HOSTILE_DUMP` names
/// (`NN.kind`, and `index.tsv` naming them), for measuring them elsewhere.
#[test]
#[ignore = "writes the corpus out when HOSTILE_DUMP names a folder"]
fn dump_corpus() {
    let Ok(folder) = std::env::var("HOSTILE_DUMP") else {
        return;
    };
    let mut index = String::new();
    for (i, doc) in corpus().into_iter().enumerate() {
        let file = format!("{i:02}.{:?}", doc.kind).to_lowercase();
        std::fs::write(format!("{folder}/{file}"), &doc.bytes).unwrap();
        index.push_str(&format!("{file}\t{}\t{}\n", doc.bytes.len(), doc.name));
    }
    std::fs::write(format!("{folder}/index.tsv"), index).unwrap();
}
