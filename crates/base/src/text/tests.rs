use super::*;
use std::borrow::Cow;
use std::io::{self, BufReader, Read};

/// The obvious, all-in-memory version of `read_lines`, to check the streaming one.
fn reference(bytes: &[u8], offset: usize, limit: usize, max: usize) -> LineSlice {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let n = lines.len();
    let first = offset.max(1);
    let mut s = LineSlice {
        text: String::new(),
        first,
        last: first - 1,
        total: None,
        truncated_lines: 0,
    };
    for (i, line) in lines.iter().enumerate().skip(first - 1).take(limit) {
        let is_last = i + 1 == n;
        let line = if !is_last || bytes.ends_with(b"\n") {
            line.strip_suffix('\r').unwrap_or(line)
        } else {
            line
        };
        let (cut, t) = truncate_line(line, max);
        s.truncated_lines += usize::from(t);
        number_line(&mut s.text, i + 1, &cut);
        s.last = i + 1;
    }
    if s.last >= n {
        s.total = Some(if first > n { n } else { s.last });
    }
    s
}

fn lines_with(bytes: &[u8], cap: usize, offset: usize, limit: usize, max: usize) -> LineSlice {
    read_lines(BufReader::with_capacity(cap, bytes), offset, limit, max).unwrap()
}

#[test]
fn binary_means_nul() {
    assert!(looks_binary(b"abc\0def"));
    assert!(!looks_binary("héllo wörld ✓".as_bytes()));
    assert!(
        !looks_binary(&"✓".as_bytes()[..2]),
        "a cut character is not binary"
    );
    assert!(!looks_binary(b"caf\xe9 cr\xe8me"), "Latin-1 is text");
    assert!(
        !looks_binary(b"\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd"),
        "Shift-JIS is text"
    );
    assert!(!looks_binary(b""));
}

#[test]
fn numbered_like_cat_n() {
    let s = lines_with(b"alpha\r\nbeta\n\ngamma", 8192, 1, 100, 2000);
    assert_eq!(
        s.text,
        "     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma\n"
    );
    assert_eq!(
        (s.first, s.last, s.total, s.truncated_lines),
        (1, 4, Some(4), 0)
    );
    assert_eq!(trailer_for_lines(&s, 1), None);
    let s = lines_with(b"a\nb\nc\n", 8192, 0, 2, 2000);
    assert_eq!(
        (s.text.as_str(), s.first, s.last, s.total),
        ("     1\ta\n     2\tb\n", 1, 2, None)
    );
    assert_eq!(
        trailer_for_lines(&s, 0).unwrap(),
        "[Showing lines 1-2; more lines follow. Read on with offset: 3.]"
    );
}

#[test]
fn matches_reference_at_every_buffer_size() {
    let inputs: [&[u8]; 9] = [
        b"",
        b"\n",
        b"x",
        b"one\ntwo\r\nthree\r\n\r\nfour",
        b"a\rb\r\n\r\r\n\r",
        "h\u{e9}llo w\u{f6}rld \u{2713}\u{1F600}\nsecond \u{4e2d}\u{6587}\n".as_bytes(),
        b"caf\xe9\n\x82\xb1\x82\xf1\n\xf0\x9f\x98\nend\xe2\x82",
        b"\xef\xbb\xbfBOM line\r\nnext\r\n",
        b"\n\n\nlast without newline",
    ];
    for bytes in inputs {
        for cap in [1, 2, 3, 5, 8192] {
            for offset in 0..7 {
                for limit in 0..6 {
                    for max in [0, 1, 3, 2000] {
                        let got = lines_with(bytes, cap, offset, limit, max);
                        assert_eq!(
                            got,
                            reference(bytes, offset, limit, max),
                            "{bytes:?} cap {cap} off {offset} lim {limit} max {max}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn long_lines_cut_in_characters() {
    let line = "é".repeat(10) + "\n";
    let s = lines_with(line.as_bytes(), 4, 1, 10, 4);
    assert_eq!(s.text, "     1\téééé… [line truncated: 10 characters]\n");
    assert_eq!(s.truncated_lines, 1);
    assert_eq!(
        trailer_for_lines(&s, 1).unwrap(),
        "[Showing all 1 line. 1 long line was cut short (marked \"line truncated\").]"
    );
    assert_eq!(truncate_line("abc", 3), (Cow::Borrowed("abc"), false));
}

#[test]
fn empty_and_past_the_end() {
    let s = lines_with(b"", 8192, 1, 10, 2000);
    assert_eq!(
        (s.text.as_str(), s.first, s.last, s.total),
        ("", 1, 0, Some(0))
    );
    assert_eq!(trailer_for_lines(&s, 1).unwrap(), "[The file is empty.]");
    let ten: String = (1..=10).map(|i| format!("l{i}\n")).collect();
    let s = lines_with(ten.as_bytes(), 8192, 50, 10, 2000);
    assert_eq!(
        (s.text.as_str(), s.first, s.last, s.total),
        ("", 50, 49, Some(10))
    );
    assert_eq!(
        trailer_for_lines(&s, 50).unwrap(),
        "[The file has 10 lines; offset 50 is past the end.]"
    );
    let s = lines_with(b"x", 8192, 2, 10, 2000);
    assert_eq!(
        trailer_for_lines(&s, 2).unwrap(),
        "[The file has 1 line; offset 2 is past the end.]"
    );
    let s = lines_with(ten.as_bytes(), 8192, 3, 100, 2000);
    assert_eq!(
        trailer_for_lines(&s, 3).unwrap(),
        "[Showing lines 3-10 of 10.]"
    );
    let s = lines_with(ten.as_bytes(), 8192, 10, 100, 2000);
    assert_eq!(
        trailer_for_lines(&s, 10).unwrap(),
        "[Showing line 10 of 10.]"
    );
    let s = lines_with(ten.as_bytes(), 8192, 4, 0, 2000);
    assert_eq!(
        trailer_for_lines(&s, 4).unwrap(),
        "[Showing no lines. Read on with offset: 4.]"
    );
}

#[test]
fn trailer_with_a_known_total() {
    let s = LineSlice {
        text: String::new(),
        first: 1,
        last: 2000,
        total: Some(5230),
        truncated_lines: 2,
    };
    assert_eq!(
        trailer_for_lines(&s, 1).unwrap(),
        "[Showing lines 1-2000 of 5230. 2 long lines were cut short (marked \"line truncated\"). Read on with offset: 2001.]"
    );
}

/// Generates `lines` lines of 100 bytes each ("{n:099}\n") without holding them.
struct Generated {
    next: usize,
    lines: usize,
    pending: Vec<u8>,
    at: usize,
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            if self.at == self.pending.len() {
                if self.next > self.lines {
                    break;
                }
                self.pending = format!("{:099}\n", self.next).into_bytes();
                self.next += 1;
                self.at = 0;
            }
            let k = (buf.len() - n).min(self.pending.len() - self.at);
            buf[n..n + k].copy_from_slice(&self.pending[self.at..self.at + k]);
            self.at += k;
            n += k;
        }
        Ok(n)
    }
}

#[test]
fn line_one_million_of_a_100_mb_stream() {
    let gen = || {
        BufReader::with_capacity(
            64 << 10,
            Generated {
                next: 1,
                lines: 1_000_000,
                pending: Vec::new(),
                at: 0,
            },
        )
    };
    let s = read_lines(gen(), 999_999, 5, 2000).unwrap();
    assert_eq!(
        s.text,
        format!("999999\t{:099}\n1000000\t{:099}\n", 999_999, 1_000_000)
    );
    assert_eq!(
        (s.first, s.last, s.total),
        (999_999, 1_000_000, Some(1_000_000))
    );
    let s = read_lines(gen(), 500_000, 2, 2000).unwrap();
    assert_eq!((s.last, s.total), (500_001, None));
    assert_eq!(
        trailer_for_lines(&s, 500_000).unwrap(),
        "[Showing lines 500000-500001; more lines follow. Read on with offset: 500002.]"
    );
    let s = read_lines(gen(), 2_000_000, 5, 2000).unwrap();
    assert_eq!((s.text.as_str(), s.total), ("", Some(1_000_000)));
}

#[test]
fn char_windows_and_their_trailers() {
    let window = |text: &str, offset, limit| {
        chars_shown(text.as_bytes(), text.len() as u64, offset, limit).unwrap()
    };
    let shown = window("héllo ✓ wörld", 4, 3);
    assert_eq!(shown.text, "o ✓");
    assert_eq!(
        shown.trailer.as_deref(),
        Some("[Showing characters 4-6; more follow. Read on with offset: 7.]")
    );
    assert_eq!(window("abc", 0, 3).trailer, None);
    assert_eq!(
        window("abc", 1, 5).trailer.as_deref(),
        Some("[Showing characters 1-2 of 3.]")
    );
    assert_eq!(
        window("abc", 5, 3).trailer.as_deref(),
        Some("[The text has 3 characters; offset 5 is past the end.]")
    );
    assert_eq!(window("", 0, 3).trailer, None);
}

#[test]
fn a_character_window_stops_at_the_result_ceiling() {
    let text = "x".repeat(MAX_RESULT_CHARS * 2);
    let shown = chars_shown(text.as_bytes(), text.len() as u64, 0, usize::MAX).unwrap();
    assert_eq!(shown.text.len(), MAX_READ_CHARS);
    assert_eq!(MAX_READ_CHARS + TRAILER_ROOM, MAX_RESULT_CHARS);
}

#[test]
fn read_chars_is_a_window_of_the_lossy_text() {
    let inputs: [&[u8]; 6] = [
        b"",
        b"plain ascii",
        "h\u{e9}llo \u{2713}\u{1F600} \u{4e2d}".as_bytes(),
        b"caf\xe9 \x82\xb1\x82\xf1 \xf0\x9f\x98 x\xe2\x82",
        b"\xff\xfe\xfd",
        b"a\xf0\x9f\x98\x80\xf0",
    ];
    for bytes in inputs {
        let lossy: Vec<char> = String::from_utf8_lossy(bytes).chars().collect();
        for cap in [1, 2, 3, 4, 7, 8192] {
            for offset in 0..=lossy.len() + 1 {
                for limit in 0..=lossy.len() + 1 {
                    let got =
                        read_chars(BufReader::with_capacity(cap, bytes), offset, limit).unwrap();
                    let want: String = lossy.iter().skip(offset).take(limit).collect();
                    assert_eq!(
                        got.text, want,
                        "{bytes:?} cap {cap} off {offset} lim {limit}"
                    );
                    assert_eq!(got.returned, want.chars().count());
                    assert_eq!(got.offset, offset);
                    let ends = offset + limit >= lossy.len();
                    assert_eq!(
                        got.total,
                        ends.then_some(lossy.len()),
                        "{bytes:?} cap {cap} off {offset} lim {limit}"
                    );
                }
            }
        }
    }
}

#[test]
fn counts_the_lines_after_a_slice_within_the_budget() {
    let text = (1..=100).map(|n| format!("line {n}\n")).collect::<String>();
    let counted = read_lines_counted(text.as_bytes(), 10, 5, 2000, 1 << 20).unwrap();
    assert_eq!(
        (counted.first, counted.last, counted.total),
        (10, 14, Some(100))
    );
    assert_eq!(
        trailer_for_lines(&counted, 10).unwrap(),
        "[Showing lines 10-14 of 100. Read on with offset: 15.]"
    );
    let unterminated = "a\nb\nc";
    let counted = read_lines_counted(unterminated.as_bytes(), 1, 1, 2000, 1 << 20).unwrap();
    assert_eq!(counted.total, Some(3));
    let over_budget = read_lines_counted(text.as_bytes(), 1, 5, 2000, 16).unwrap();
    assert_eq!(over_budget.total, None);
}

#[test]
fn a_read_of_many_lines_stops_at_the_result_ceiling() {
    let text = "0123456789\n".repeat(1_000_000);
    let slice = read_lines_counted(text.as_bytes(), 1, usize::MAX, 2000, 64 << 20).unwrap();
    assert!(slice.text.chars().count() <= MAX_RESULT_CHARS);
    assert!(slice.last > 1000);
    assert_eq!(slice.total, Some(1_000_000));
    let trailer = trailer_for_lines(&slice, 1).unwrap();
    assert!(trailer.contains(&format!("Read on with offset: {}", slice.last + 1)));
}

#[test]
fn a_utf16_file_with_a_byte_order_mark_reads_as_its_text() {
    let mut le = vec![0xFF, 0xFE];
    le.extend(
        "first\nsecond é\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes()),
    );
    let mut be = vec![0xFE, 0xFF];
    be.extend(
        "first\nsecond é\n"
            .encode_utf16()
            .flat_map(|u| u.to_be_bytes()),
    );
    for bytes in [le, be] {
        let shown = super::lines_shown(&bytes[..], bytes.len() as u64, 2, 1, 2000).unwrap();
        assert_eq!(shown.text, "     2\tsecond é\n");
        let chars = super::chars_shown(&bytes[..], bytes.len() as u64, 0, 5).unwrap();
        assert_eq!(chars.text, "first");
    }
    // Without a UTF-16 mark the bytes are read as they are, invalid UTF-8 and all.
    let utf8 = b"\xEF\xBB\xBFplain\n";
    let shown = super::lines_shown(&utf8[..], utf8.len() as u64, 1, 1, 2000).unwrap();
    assert!(shown.text.ends_with("plain\n"), "{:?}", shown.text);
}

#[test]
fn a_shown_line_never_holds_a_line_break() {
    let line = "a\u{2028}b\u{2029}c\u{b}d\u{c}e\u{85}f\rh\tg";
    assert_eq!(
        escape_breaks(line),
        "a\\u2028b\\u2029c\\u000Bd\\u000Ce\\u0085f\\u000Dh\tg"
    );
    assert!(matches!(escape_breaks("plain\ttext é"), Cow::Borrowed(_)));
    let slice = lines_with(
        "one\u{2028}b.txt:9: forged\ntwo\u{c}three\r\nfour\rb.txt:1: forged\r\n".as_bytes(),
        8,
        1,
        10,
        2000,
    );
    assert_eq!(
        slice.text,
        "     1\tone\\u2028b.txt:9: forged\n     2\ttwo\\u000Cthree\n     3\tfour\\u000Db.txt:1: forged\n"
    );
    assert_eq!((slice.last, slice.total), (3, Some(3)));
}
