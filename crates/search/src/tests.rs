use super::*;
use std::fs::File;

fn opts(pattern: &str, context: usize, max_matches: usize) -> SearchOptions {
    SearchOptions {
        pattern: pattern.into(),
        literal: false,
        ignore_case: false,
        context,
        max_matches,
    }
}

fn bytes(path: &str, text: &[u8]) -> SearchInput {
    SearchInput {
        path: path.into(),
        source: Source::Bytes(text.into()),
    }
}

fn run(inputs: Vec<SearchInput>, opts: &SearchOptions) -> SearchOutput {
    search(inputs, opts).unwrap()
}

#[test]
fn grep_n_format() {
    let out = run(
        vec![bytes("a.txt", b"one\ntwo apples\r\nthree\nfour apple pie")],
        &opts("apple", 0, 100),
    );
    assert_eq!(out.text, "a.txt:2: two apples\na.txt:4: four apple pie\n");
    assert_eq!((out.shown, out.total_matches, out.files_matched), (2, 2, 1));
    assert_eq!(format_summary(&out, 100), None);
    let out = run(vec![bytes("a", b"x\r\nend\r\n")], &opts("d$", 0, 100));
    assert_eq!(
        out.text, "a:2: end\n",
        "$ matches before CRLF and \\r is stripped"
    );
}

#[test]
fn context_groups_and_separators() {
    let text: String = (1..=20)
        .map(|i| {
            if [3, 5, 15].contains(&i) {
                format!("hit {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    let inputs = vec![bytes("a", text.as_bytes()), bytes("b", b"x\nhit\n")];
    let out = run(inputs, &opts("hit", 1, 100));
    let want = "a-2- line 2\na:3: hit 3\na-4- line 4\na:5: hit 5\na-6- line 6\n--\n\
                a-14- line 14\na:15: hit 15\na-16- line 16\n--\nb-1- x\nb:2: hit\n";
    assert_eq!(out.text, want);
    assert_eq!((out.shown, out.total_matches, out.files_matched), (4, 4, 2));
    let out = run(
        vec![bytes("a", text.as_bytes()), bytes("b", b"hit\n")],
        &opts("hit", 0, 100),
    );
    assert_eq!(
        out.text, "a:3: hit 3\na:5: hit 5\na:15: hit 15\nb:1: hit\n",
        "no separators without context"
    );
}

#[test]
fn cap_in_input_order_with_exact_totals() {
    // Many inputs so several threads race; the output must not depend on it.
    let inputs = || {
        (0..300)
            .map(|i| {
                bytes(
                    &format!("f{i:03}"),
                    "match\nno\nmatch\n".repeat(i % 4).as_bytes(),
                )
            })
            .collect::<Vec<_>>()
    };
    let out = run(inputs(), &opts("match", 0, 7));
    assert_eq!(out.text, "f001:1: match\nf001:3: match\nf002:1: match\nf002:3: match\nf002:4: match\nf002:6: match\nf003:1: match\n");
    let total: usize = (0..300).map(|i| 2 * (i % 4)).sum();
    assert_eq!(
        (out.shown, out.total_matches, out.files_matched),
        (7, total, 225)
    );
    assert_eq!(
        format_summary(&out, 7).unwrap(),
        format!("[Showing 7 of {total} matching lines in 225 files. Narrow the search with path, or a more specific pattern.]")
    );
    for _ in 0..5 {
        assert_eq!(run(inputs(), &opts("match", 1, 7)).total_matches, total);
    }
    let none = run(inputs(), &opts("match", 2, 0));
    assert_eq!(
        (none.text.as_str(), none.shown, none.total_matches),
        ("", 0, total)
    );
}

#[test]
fn trailing_context_at_the_cap_stops_at_the_next_match() {
    let out = run(
        vec![bytes("a", b"m1\nc\nm2\nc\nc\nc\nm3\n")],
        &opts("m", 2, 2),
    );
    assert_eq!(out.text, "a:1: m1\na-2- c\na:3: m2\na-4- c\na-5- c\n");
    let out = run(vec![bytes("a", b"m1\nc\nm2\n")], &opts("m", 2, 1));
    assert_eq!(out.text, "a:1: m1\na-2- c\n");
    assert_eq!((out.shown, out.total_matches), (1, 2));
}

#[test]
fn a_huge_invalid_pattern_makes_a_short_error() {
    let pattern = format!("({}", "a".repeat(60_000));
    let msg = search(vec![], &opts(&pattern, 0, 10))
        .unwrap_err()
        .to_string();
    assert!(msg.len() < 600, "{} bytes", msg.len());
    assert!(msg.contains("(60001 characters)"));
}

#[test]
fn refuses_a_pattern_over_64_kb_before_parsing_it() {
    for literal in [false, true] {
        let huge = SearchOptions {
            literal,
            ..opts(&"a".repeat(100 << 20), 0, 10)
        };
        let started = std::time::Instant::now();
        let err = search(vec![], &huge).unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_millis(100));
        assert!(matches!(err, Error::InvalidArgument(_)));
        assert_eq!(
            err.to_string(),
            "the pattern is 104857600 bytes, over the limit of 64 KB: search for a shorter part of it"
        );
    }
    let most = "a".repeat(MAX_PATTERN_BYTES);
    let out = run(vec![bytes("a", b"aaa\nbbb\n")], &opts(&most, 0, 10));
    assert_eq!(out.total_matches, 0);
}

#[test]
fn refuses_patterns_that_compile_past_the_size_limit() {
    let started = std::time::Instant::now();
    let alternation = (0..6000)
        .map(|i| format!("\\w{{{}}}", i % 50 + 1))
        .collect::<Vec<_>>()
        .join("|");
    for pattern in [
        "((a{100}){100}){100}".to_string(),
        "(\\w{1000}){1000}".to_string(),
        "[\\p{L}\\p{N}]{5000}".to_string(),
        alternation,
    ] {
        assert!(pattern.len() <= MAX_PATTERN_BYTES);
        let msg = search(vec![], &opts(&pattern, 0, 10))
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("Invalid regex "), "{msg}");
        assert!(msg.contains("size limit"), "{pattern:.40}: {msg}");
        assert!(msg.len() < 600, "{} bytes", msg.len());
    }
    // Within the limit, counted repetition still works.
    let ok = run(vec![bytes("a", b"aaaa\n")], &opts("a{2}{2}", 0, 10));
    assert_eq!(ok.total_matches, 1);
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

#[test]
fn invalid_and_literal_patterns() {
    let err = search(vec![], &opts("foo(", 0, 10)).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::InvalidArgument(_)));
    assert!(
        msg.starts_with("Invalid regex \"foo(\": regex parse error:"),
        "{msg}"
    );
    assert!(msg.contains("unclosed group"), "{msg}");
    let err = search(vec![], &opts("a\nb", 0, 10)).unwrap_err();
    assert!(
        err.to_string().starts_with("Invalid regex \"a\\nb\": "),
        "{err}"
    );
    let lit = SearchOptions {
        literal: true,
        ..opts("foo(.*", 0, 10)
    };
    let out = run(vec![bytes("a", b"foo(x)\nfoo(.*)\n")], &lit);
    assert_eq!(out.text, "a:2: foo(.*)\n");
    let ic = SearchOptions {
        ignore_case: true,
        ..opts("ÉTÉ", 0, 10)
    };
    assert_eq!(
        run(vec![bytes("a", "un été\n".as_bytes())], &ic).text,
        "a:1: un été\n"
    );
    assert_eq!(
        run(
            vec![bytes("a", "(a+)+$".repeat(1000).as_bytes())],
            &opts("(a+)+$", 0, 1)
        )
        .total_matches,
        0
    );
}

#[test]
fn binary_unreadable_lossy_long_and_bom() {
    let mut late_nul = vec![b'x'; 200_000];
    late_nul.extend_from_slice(b"\nneedle\n\0");
    let long = format!("needle{}\n", "é".repeat(3000));
    let inputs = vec![
        bytes("bin", &late_nul),
        SearchInput {
            path: "gone".into(),
            source: Source::File(Box::new(|| File::open("/nonexistent/x"))),
        },
        bytes("latin1", b"caf\xe9 needle\n"),
        bytes("long", long.as_bytes()),
        bytes("bom", b"\xef\xbb\xbfneedle first\n"),
    ];
    let out = run(inputs, &opts("^needle|needle$|caf. needle", 0, 10));
    let cut = format!(
        "needle{}… [line truncated: 3006 characters]",
        "é".repeat(1994)
    );
    assert_eq!(
        out.text,
        format!("latin1:1: caf\u{FFFD} needle\nlong:1: {cut}\nbom:1: needle first\n")
    );
    assert_eq!((out.total_matches, out.files_matched), (3, 3));
    let skipped: Vec<_> = out
        .skipped_shown
        .iter()
        .map(|(p, w)| (p.as_str(), &w[..9]))
        .collect();
    assert_eq!(skipped, [("bin", "is binary"), ("gone", "could not")]);
}

#[test]
fn files_are_opened_and_searched() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = (0..20)
        .map(|i| {
            let p = dir.path().join(format!("{i}.txt"));
            let body = if i == 7 {
                b"a\0needle\n".to_vec()
            } else {
                format!("x\nneedle {i}\n").into_bytes()
            };
            std::fs::write(&p, body).unwrap();
            SearchInput {
                path: format!("{i}.txt"),
                source: Source::File(Box::new(move || File::open(p))),
            }
        })
        .collect();
    let out = run(inputs, &opts("needle", 0, 3));
    assert_eq!(
        out.text,
        "0.txt:2: needle 0\n1.txt:2: needle 1\n2.txt:2: needle 2\n"
    );
    assert_eq!(
        (out.shown, out.total_matches, out.files_matched),
        (3, 19, 19)
    );
}

/// Inputs given while the search runs, some after a pause so the workers wait
/// for them, come out as the same inputs given all at once do.
#[test]
fn inputs_fed_while_searching_come_out_in_their_order() {
    let make = |i: usize| bytes(&format!("{i:03}"), format!("needle {i}\nx\n").as_bytes());
    let options = opts("needle", 0, 30);
    let fed = search_fed(&options, |feed| {
        for i in 0..100 {
            if i % 25 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            feed(make(i))?;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(fed, run((0..100).map(make).collect(), &options));
    assert_eq!((fed.shown, fed.total_matches), (30, 100));
    assert!(fed.text.starts_with("000:1: needle 0\n001:1: needle 1\n"));
}

/// A producer that fails ends the search with its error, the inputs it gave
/// before or not.
#[test]
fn a_failing_producer_ends_the_search_with_its_error() {
    let failed = search_fed(&opts("x", 0, 10), |feed| {
        feed(bytes("a", b"x\n"))?;
        feed(bytes("b", b"x\n"))?;
        Err(Error::NotFound("gone".into()))
    });
    assert!(matches!(failed, Err(Error::NotFound(path)) if path == "gone"));
}

/// A search cancelled while its inputs are being found stops finding them.
#[test]
fn a_cancelled_search_stops_its_producer() {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut given = 0;
    let out = file_store_base::cancel::with_flag(Some(flag.clone()), || {
        search_fed(&opts("x", 0, 10), |feed| {
            for i in 0..1000 {
                if i == 10 {
                    flag.store(true, Ordering::Relaxed);
                }
                feed(bytes("a", b"x\n"))?;
                given += 1;
            }
            Ok(())
        })
    });
    assert!(matches!(out, Err(Error::Cancelled)));
    assert_eq!(given, 10);
}

/// A producer that panics leaves no worker waiting for inputs: the panic comes
/// out of the search, for the binding to catch, and the search does not hang.
#[test]
fn a_panicking_producer_leaves_no_worker_waiting() {
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| {
            search_fed(&opts("x", 0, 10), |feed| {
                for i in 0..3 {
                    feed(bytes(&format!("{i}"), b"x\n"))?;
                }
                panic!("a walk that panics");
            })
        });
        let _ = done.send(outcome.is_err());
    });
    let panicked = ended.recv_timeout(std::time::Duration::from_secs(30));
    assert_eq!(panicked, Ok(true), "the search hung or did not panic");
}

#[test]
fn a_line_break_inside_a_line_never_shows_as_another_match() {
    let text =
        "intro\r\nfee due\u{2028}secrets.txt:1: fee waived\u{c}x\u{b}y\u{85}z\u{2029}\rw\r\nend\n";
    let out = run(vec![bytes("a.txt", text.as_bytes())], &opts("fee", 1, 100));
    assert_eq!(
        out.text,
        "a.txt-1- intro\n\
         a.txt:2: fee due\\u2028secrets.txt:1: fee waived\\u000Cx\\u000By\\u0085z\\u2029\\u000Dw\n\
         a.txt-3- end\n"
    );
    assert_eq!((out.shown, out.total_matches), (1, 1));
}

#[test]
fn the_inputs_given_ahead_of_the_search_stay_bounded() {
    // Slow inputs and a producer with nothing to do but give more: each input
    // holds a token until it is searched, as a walk's hold their folders open.
    let token = std::sync::Arc::new(());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut most = 0;
    let out = search_fed(&opts("hit", 0, 10_000), |feed| {
        for i in 0..600 {
            let held = std::sync::Arc::clone(&token);
            feed(SearchInput {
                path: format!("f{i:03}"),
                source: Source::Lazy(Box::new(move || {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                    drop(held);
                    Ok(Source::Bytes(b"a hit\n".as_slice().into()))
                })),
            })?;
            most = most.max(std::sync::Arc::strong_count(&token) - 1);
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(out.total_matches, 600);
    assert!(out.text.starts_with("f000:1: a hit\nf001:1: a hit\n"));
    assert!(
        most <= QUEUED_AHEAD + GIVEN_TOGETHER + threads,
        "{most} inputs held at once, over {QUEUED_AHEAD} waiting, {GIVEN_TOGETHER} gathered and one a thread"
    );
}
