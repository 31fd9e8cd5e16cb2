//! The globset side of bench/glob.rb, built by it (`support/rust_bench.rb`). Reads a
//! file of paths (one a line) and patterns (the arguments), and for each
//! pattern prints `pattern<TAB>matches<TAB>seconds`: the best of five runs of
//! compiling it with globset as glob_files reads a glob (`*` and `?` within a
//! folder name, `**` across folders, `{a,b}`, `[a-z]`, a backslash escaping) and
//! matching every path.

use std::time::{Duration, Instant};

use globset::GlobBuilder;

fn main() {
    let mut args = std::env::args().skip(1);
    let listing = std::fs::read_to_string(args.next().expect("a file of paths")).unwrap();
    let paths: Vec<&str> = listing.lines().collect();
    for pattern in args {
        let mut best = Duration::MAX;
        let mut count = 0;
        for _ in 0..5 {
            let started = Instant::now();
            let glob = GlobBuilder::new(&pattern)
                .literal_separator(true)
                .backslash_escape(true)
                .empty_alternates(true)
                .build()
                .unwrap()
                .compile_matcher();
            count = paths.iter().filter(|path| glob.is_match(path)).count();
            best = best.min(started.elapsed());
        }
        println!("{pattern}\t{count}\t{:.6}", best.as_secs_f64());
    }
}
