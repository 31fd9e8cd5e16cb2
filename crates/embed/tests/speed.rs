//! How fast passages embed on one thread. Ignored by default; run it built for release:
//!
//!   cargo test --release -p ruby_llm_file_store_embed --test speed -- --ignored --nocapture

mod common;

use std::time::Instant;

use file_store_embed::{Model, MAX_BATCH_TOKENS};

const PASSAGES: usize = 200;
const WORDS: usize = 150;

/// `PASSAGES` passages of `WORDS` words, drawn from a list of English words by a
/// fixed linear congruential generator, a full stop every 12 words.
pub fn passages() -> Vec<String> {
    let words: Vec<&str> = "the of and to in is that for it as was with be by on not he this are \
        or his from at which but have an they you were her she there been one all we their \
        file search passage model embedding vector index query result rank score token text \
        document folder storage worker process memory thread batch length average system \
        converted spreadsheet invoice contract meeting schedule customer revenue quarter \
        report table chart figure section heading paragraph summary analysis question answer"
        .split_whitespace()
        .collect();
    let mut state: u64 = 42;
    (0..PASSAGES)
        .map(|_| {
            let mut text = String::new();
            for i in 0..WORDS {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push_str(words[(state >> 33) as usize % words.len()]);
                text.push_str(if i % 12 == 11 { ". " } else { " " });
            }
            text
        })
        .collect()
}

#[test]
#[ignore = "a benchmark: run with --release -- --ignored --nocapture"]
fn passages_per_second() {
    let Some(dir) = common::model_dir("passages_per_second") else {
        return;
    };
    let started = Instant::now();
    let model = Model::load(&dir).unwrap();
    let load = started.elapsed();
    let passages = passages();
    let texts: Vec<&str> = passages.iter().map(String::as_str).collect();
    let tokens: usize = texts.iter().map(|t| model.tokenize(t).len()).sum();
    model.embed(&texts[..4]).unwrap(); // warm up
    let started = Instant::now();
    let vectors = model.embed(&texts).unwrap();
    let took = started.elapsed().as_secs_f64();
    assert_eq!(vectors.len(), PASSAGES);
    println!(
        "load {:.0} ms; {PASSAGES} passages of {WORDS} words ({:.0} tokens each): {:.1} passages/s, \
         {:.1} ms a passage, one thread; batch memory at most {:.1} MiB",
        load.as_secs_f64() * 1e3,
        tokens as f64 / PASSAGES as f64,
        PASSAGES as f64 / took,
        took * 1e3 / PASSAGES as f64,
        Model::batch_bytes(MAX_BATCH_TOKENS, 256) as f64 / (1 << 20) as f64,
    );
}
