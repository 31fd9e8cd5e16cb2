//! How fast the core decodes a stream of UTF-8 lossily, as `read_file` does when it
//! counts characters up to an offset or through a long line: the core's decoder
//! (`crates/base/src/text/utf8.rs`, compiled in here from its file) against encoding_rs's
//! streaming decoder, each fed the same pieces and counting the characters of what
//! comes out, with std's `String::from_utf8_lossy` over the whole input in memory,
//! and the core's whole `text::read_chars` for context. The best of five runs each.

#[allow(dead_code)]
#[path = "../../crates/base/src/text/utf8.rs"]
mod utf8;

use std::io::{BufReader, Read};
use std::time::{Duration, Instant};

use encoding_rs::{CoderResult, UTF_8};

const SIZE: usize = 64 << 20;
/// The buffer `text::chars_shown` reads through.
const BUFFER: usize = 64 * 1024;
const RUNS: usize = 5;

/// `SIZE` bytes made of `unit` repeated.
fn input(unit: &[u8]) -> Vec<u8> {
    unit.iter().copied().cycle().take(SIZE).collect()
}

fn best(mut run: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut count = 0;
    for _ in 0..RUNS {
        let started = Instant::now();
        count = run();
        best = best.min(started.elapsed());
    }
    (best, count)
}

/// The core's decoder, fed the pieces a 64 KB buffer reads.
fn core_stream(bytes: &[u8]) -> usize {
    let mut reader = BufReader::with_capacity(BUFFER, bytes);
    let mut decoder = utf8::Utf8Stream::default();
    let mut count = 0;
    let mut counting = |s: &str| {
        count += s.chars().count();
        true
    };
    loop {
        let buf = utf8::fill(&mut reader).unwrap();
        if buf.is_empty() {
            decoder.finish(&mut counting);
            return count;
        }
        let n = buf.len();
        decoder.feed(buf, &mut counting);
        std::io::BufRead::consume(&mut reader, n);
    }
}

/// The core's `read_chars`: every character skipped up to an offset past the end.
fn read_chars(bytes: &[u8]) -> usize {
    let reader = BufReader::with_capacity(BUFFER, bytes);
    let slice = file_store_base::text::read_chars(reader, usize::MAX, 1).unwrap();
    slice.total.unwrap()
}

/// encoding_rs's decoder fed the same pieces, each decoded into a buffer.
fn encoding_rs_stream(bytes: &[u8]) -> usize {
    let mut reader = BufReader::with_capacity(BUFFER, bytes);
    let mut decoder = UTF_8.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(BUFFER + 4);
    let mut piece = vec![0u8; BUFFER];
    let mut count = 0;
    loop {
        let n = reader.read(&mut piece).unwrap();
        let mut src = &piece[..n];
        loop {
            out.clear();
            let (result, read, _) = decoder.decode_to_string(src, &mut out, n == 0);
            src = &src[read..];
            count += out.chars().count();
            if result == CoderResult::InputEmpty {
                break;
            }
        }
        if n == 0 {
            return count;
        }
    }
}

/// std over the whole input at once: no stream, no pieces.
fn std_whole(bytes: &[u8]) -> usize {
    String::from_utf8_lossy(bytes).chars().count()
}

fn main() {
    let inputs = [
        (
            "ASCII prose",
            input(b"The quick brown fox jumps over the lazy dog. 0123456789\n"),
        ),
        (
            "mixed scripts",
            input("Grüße, 世界! Ωμέγα — naïve café 🙂 ok\n".as_bytes()),
        ),
        (
            "an invalid byte per 40",
            input(b"plain text with a bad byte \xff here, ok\n"),
        ),
    ];
    println!(
        "{} MB each, best of {RUNS}; ratio = time / the core decoder's\n",
        SIZE >> 20
    );
    println!(
        "{:<24} {:>14} {:>20} {:>20} {:>20}",
        "input", "core decoder", "encoding_rs stream", "std whole input", "core read_chars"
    );
    for (name, bytes) in &inputs {
        let (hand, n1) = best(|| core_stream(bytes));
        let (enc, n2) = best(|| encoding_rs_stream(bytes));
        let (whole, n3) = best(|| std_whole(bytes));
        let (chars, n4) = best(|| read_chars(bytes));
        assert!(
            n1 == n2 && n2 == n3 && n3 == n4,
            "{name}: {n1} {n2} {n3} {n4} characters"
        );
        let cell = |d: Duration| {
            format!(
                "{:.1} ms {:.2}x",
                d.as_secs_f64() * 1e3,
                d.as_secs_f64() / hand.as_secs_f64()
            )
        };
        println!(
            "{name:<24} {:>14} {:>20} {:>20} {:>20}",
            format!("{:.1} ms", hand.as_secs_f64() * 1e3),
            cell(enc),
            cell(whole),
            cell(chars)
        );
    }
}
