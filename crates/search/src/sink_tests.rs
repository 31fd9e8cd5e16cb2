//! The sink: files read whole or streamed, long lines, NULs.

use super::sink::{MAX_LINE_BUFFER, WHOLE_FILE_BYTES};
use super::{search, SearchInput, SearchOptions, Source};
use std::fs::File;
use std::io::Write;

fn file_input(dir: &tempfile::TempDir, name: &str, body: &[u8]) -> SearchInput {
    let path = dir.path().join(name);
    std::fs::write(&path, body).unwrap();
    SearchInput {
        path: name.into(),
        source: Source::File(Box::new(move || File::open(path))),
    }
}

/// Lines of 99 bytes and a newline, `needle` on line `at`, to `bytes` in all.
fn lines(bytes: usize, at: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(bytes);
    let mut line = 1;
    while body.len() + 100 <= bytes {
        let word = if line == at { "needle" } else { "hay" };
        body.extend_from_slice(format!("{word:<99}\n").as_bytes());
        line += 1;
    }
    body.resize(bytes, b'x');
    body
}

#[test]
fn files_read_whole_or_streamed_give_the_same_lines_and_skip_nuls() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SearchOptions {
        pattern: "^needle".into(),
        literal: false,
        ignore_case: false,
        context: 1,
        max_matches: 100,
    };
    let past = WHOLE_FILE_BYTES / 100 + 3;
    let mut late_nul = lines(WHOLE_FILE_BYTES * 3, 2);
    late_nul.push(0);
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend(lines(1000, 1));
    let mut small_nul = lines(1000, 1);
    small_nul[999] = 0;
    let inputs = vec![
        file_input(&dir, "a_small", &lines(5000, 7)),
        file_input(&dir, "b_exact", &lines(WHOLE_FILE_BYTES, 9)),
        file_input(&dir, "c_large", &lines(WHOLE_FILE_BYTES * 2, past)),
        file_input(&dir, "d_late_nul", &late_nul),
        file_input(&dir, "e_bom", &bom),
        file_input(&dir, "f_small_nul", &small_nul),
    ];
    let out = search(inputs, &opts).unwrap();
    let shown: Vec<String> = out
        .text
        .lines()
        .map(|line| line.split(' ').next().unwrap().to_string())
        .collect();
    let want = [
        "a_small-6-".to_string(),
        "a_small:7:".into(),
        "a_small-8-".into(),
        "--".into(),
        "b_exact-8-".into(),
        "b_exact:9:".into(),
        "b_exact-10-".into(),
        "--".into(),
        format!("c_large-{}-", past - 1),
        format!("c_large:{past}:"),
        format!("c_large-{}-", past + 1),
        "--".into(),
        "e_bom:1:".into(),
        "e_bom-2-".into(),
    ];
    assert_eq!(shown, want);
    assert_eq!((out.total_matches, out.files_matched), (4, 4));
    let skipped: Vec<_> = out
        .skipped_shown
        .iter()
        .map(|(p, w)| (p.as_str(), w.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [("d_late_nul", "is binary"), ("f_small_nul", "is binary")]
    );
}

#[test]
fn a_file_with_a_line_over_the_buffer_limit_is_skipped_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.log");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(&vec![b'x'; MAX_LINE_BUFFER + 1024]).unwrap();
    file.write_all(b"\nneedle\n").unwrap();
    let short = dir.path().join("short.log");
    std::fs::write(&short, "a needle\n").unwrap();
    let input = |name: &str, path: std::path::PathBuf| SearchInput {
        path: name.into(),
        source: Source::File(Box::new(move || std::fs::File::open(path))),
    };
    let options = SearchOptions {
        pattern: "needle".into(),
        literal: false,
        ignore_case: false,
        context: 0,
        max_matches: 10,
    };
    let out = search(
        vec![input("long.log", path), input("short.log", short)],
        &options,
    )
    .unwrap();
    assert_eq!(out.text, "short.log:1: a needle\n");
    assert_eq!(
        out.skipped_shown,
        [(
            "long.log".to_string(),
            "has a line over 64 MB (read it with read_file)".to_string()
        )]
    );
}

/// A file opened with its size is read that far without a read for the end;
/// one that grew or shrank since is read to its end as it is now, and a file
/// at the limit of reading whole, or past it, as before.
#[test]
fn a_file_opened_with_its_size_is_read_to_its_end_as_it_is_now() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SearchOptions {
        pattern: "needle".into(),
        literal: false,
        ignore_case: false,
        context: 0,
        max_matches: 100,
    };
    let body = lines(5_000, 30);
    let cases: [(&str, Vec<u8>, u64); 5] = [
        ("exact", body.clone(), body.len() as u64),
        ("grown", body.clone(), 100),
        ("shrunk", body.clone(), 1 << 30),
        (
            "whole",
            lines(WHOLE_FILE_BYTES, 30),
            WHOLE_FILE_BYTES as u64,
        ),
        ("past", lines(WHOLE_FILE_BYTES + 10_000, 10_480), 1),
    ];
    let inputs = cases
        .into_iter()
        .map(|(name, body, size)| {
            let path = dir.path().join(name);
            std::fs::write(&path, body).unwrap();
            SearchInput {
                path: name.into(),
                source: Source::Open(File::open(path).unwrap(), size),
            }
        })
        .collect();
    let out = search(inputs, &opts).unwrap();
    assert_eq!(
        out.text.lines().collect::<Vec<_>>(),
        [
            format!("exact:30: needle{}", " ".repeat(93)),
            format!("grown:30: needle{}", " ".repeat(93)),
            format!("shrunk:30: needle{}", " ".repeat(93)),
            format!("whole:30: needle{}", " ".repeat(93)),
            format!("past:10480: needle{}", " ".repeat(93)),
        ]
    );
}

#[test]
fn a_long_line_is_shown_around_its_match() {
    let opts = SearchOptions {
        pattern: "needle".into(),
        literal: true,
        ignore_case: false,
        context: 0,
        max_matches: 100,
    };
    // A 25 KB paragraph with the match past its first 2,000 characters, a
    // minified JSON with it near its end, and a short line, each searched.
    let paragraph = format!("{}needle{}\n", "word ".repeat(3_000), " more".repeat(2_000));
    let json = format!("{{\"items\":[{}],\"needle\":1}}", "1,".repeat(20_000));
    let inputs = vec![
        SearchInput {
            path: "paragraph.txt".into(),
            source: Source::Bytes(paragraph.as_bytes().into()),
        },
        SearchInput {
            path: "data.json".into(),
            source: Source::Bytes(json.as_bytes().into()),
        },
        SearchInput {
            path: "short.txt".into(),
            source: Source::Bytes(b"a needle here\n"[..].into()),
        },
    ];
    let out = search(inputs, &opts).unwrap();
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(lines.len(), 3, "{}", out.text);
    assert!(
        lines[0].starts_with("paragraph.txt:1: [14500 characters before] …word word"),
        "{:.120}",
        lines[0]
    );
    assert!(lines[0].contains("needle more more"));
    assert!(lines[0].ends_with("… [line truncated: 25006 characters]"));
    assert!(lines[1].starts_with("data.json:1: [38023 characters before] …"));
    assert!(
        lines[1].ends_with("1,1,],\"needle\":1}"),
        "{}",
        &lines[1][lines[1].len() - 40..]
    );
    assert_eq!(lines[2], "short.txt:1: a needle here");
}
