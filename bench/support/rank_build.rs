//! How long the ranked search's index takes to build from a folder of text, against
//! two ripgrep passes over the same files: `rg --count-matches '\w+'`, which visits
//! every word as the index's tokenizer does, and `rg -c zzzqqq`, which only reads.
//! The build reads each file and puts it into one `Index`, in one process and one
//! thread; ripgrep searches with a thread per core, so the word pass runs once more
//! with one thread (`-j1`), on the build's own terms. Each is the best of `RUNS`.
//! The files are the folder's `.py` and `.txt` files that read as UTF-8, the same
//! list given to ripgrep by name.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use file_store_rank::Index;

const RUNS: usize = 3;
const DEFAULT_FOLDER: &str = "/usr/lib/python3.11";
const RG: &str = "/usr/bin/rg";

/// The text files under `folder`, sorted, with their sizes in bytes.
fn corpus(folder: &Path) -> Vec<(PathBuf, usize)> {
    let mut files = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "py" || e == "txt") {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    files.push((path, text.len()));
                }
            }
        }
    }
    files.sort();
    files
}

fn best(mut run: impl FnMut()) -> Duration {
    (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Runs ripgrep with `args` over `files`, its output thrown away (it exits 1 when
/// nothing matched, which is what the reading pass expects).
fn ripgrep(args: &[&str], files: &[(PathBuf, usize)]) {
    let status = Command::new(RG)
        .args(["--no-config", "--no-messages"])
        .args(args)
        .args(files.iter().map(|f| &f.0))
        .stdout(Stdio::null())
        .status()
        .expect("ripgrep runs");
    assert!(status.code().is_some_and(|c| c <= 1), "ripgrep failed");
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_string())
}

fn main() {
    let folder = std::env::args()
        .nth(1)
        .unwrap_or_else(|| DEFAULT_FOLDER.to_string());
    let files = corpus(Path::new(&folder));
    assert!(!files.is_empty(), "no .py or .txt files under {folder}");
    let bytes: usize = files.iter().map(|f| f.1).sum();
    println!("load average before: {}", load_average());

    let mut built = (0, 0);
    let build = best(|| {
        let mut index = Index::new();
        for (path, _) in &files {
            let text = std::fs::read_to_string(path).expect("the file reads as before");
            index.put(&path.to_string_lossy(), "v", &text).expect("put");
        }
        built = (index.passages(), index.terms());
    });
    let words = best(|| ripgrep(&["--count-matches", r"\w+"], &files));
    let words_one_thread = best(|| ripgrep(&["-j1", "--count-matches", r"\w+"], &files));
    let reading = best(|| ripgrep(&["-c", "zzzqqq"], &files));

    println!(
        "{folder}: {} files, {:.1} MB; {} passages, {} terms",
        files.len(),
        bytes as f64 / 1e6,
        built.0,
        built.1
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "index build (read and put every file): {:8.1} ms",
        ms(build)
    );
    println!(
        "rg --count-matches '\\w+':               {:8.1} ms   build / this: {:.2}x",
        ms(words),
        build.as_secs_f64() / words.as_secs_f64()
    );
    println!(
        "rg -j1 --count-matches '\\w+':           {:8.1} ms   build / this: {:.2}x",
        ms(words_one_thread),
        build.as_secs_f64() / words_one_thread.as_secs_f64()
    );
    println!(
        "rg -c 'zzzqqq':                         {:8.1} ms   build / this: {:.2}x",
        ms(reading),
        build.as_secs_f64() / reading.as_secs_f64()
    );
    println!(
        "best of {RUNS} each; load average after: {}",
        load_average()
    );
}
