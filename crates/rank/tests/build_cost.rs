//! Building the index against a ripgrep-class pass over the same text: prints the
//! ratio, asserts nothing about time (the machine may be busy). Run with
//! `cargo test --release -p ruby_llm_file_store_rank --test build_cost -- --ignored --nocapture`.

use std::time::Instant;

use grep_regex::RegexMatcher;
use grep_searcher::{sinks::UTF8, Searcher};

use file_store_rank::Index;

/// Real text no one here wrote: the Python standard library's sources and docs.
fn corpus() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from("/usr/lib/python3.11")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "py" || e == "txt") {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    files.push((path.display().to_string(), text));
                }
            }
        }
    }
    files.sort();
    files
}

#[test]
#[ignore]
fn building_costs_a_small_factor_of_a_grep_pass() {
    let files = corpus();
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    assert!(bytes > 0, "no corpus under /usr/lib/python3.11");
    let matcher = RegexMatcher::new(r"(?i)timeout|statement").unwrap();
    let best = |run: &mut dyn FnMut()| {
        (0..3)
            .map(|_| {
                let t = Instant::now();
                run();
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min)
    };
    let mut matched = 0usize;
    let grep = best(&mut || {
        for (_, text) in &files {
            Searcher::new()
                .search_slice(
                    &matcher,
                    text.as_bytes(),
                    UTF8(|_, _| {
                        matched += 1;
                        Ok(true)
                    }),
                )
                .unwrap();
        }
    });
    let mut passages = 0;
    let build = best(&mut || {
        let mut index = Index::new();
        for (path, text) in &files {
            index.put(path, "v", text).unwrap();
        }
        passages = index.passages();
    });
    let mut index = Index::new();
    for (path, text) in &files {
        index.put(path, "v", text).unwrap();
    }
    let query = best(&mut || {
        index
            .search("how do I make a socket give up after a timeout", 10)
            .unwrap();
    });
    println!(
        "{} files, {:.1} MB, {passages} passages: grep {:.3} s, build {:.3} s, ratio {:.2}; query {:.1} ms",
        files.len(), bytes as f64 / 1e6, grep, build, build / grep, query * 1e3
    );
}
