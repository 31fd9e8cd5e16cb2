//! Text slicing for reading files: binary detection, numbered line windows
//! (`cat -n` style) and character windows, all streaming in constant memory.

use std::borrow::Cow;
use std::io::{self, BufRead};

/// The marker put after a line cut at the character limit; `{}` is the line's full length.
fn truncation_marker(total_chars: usize) -> String {
    format!("… [line truncated: {total_chars} characters]")
}

/// Whether a sample of a file's bytes is binary: true iff it contains a NUL byte.
///
/// Invalid UTF-8 without NUL (Latin-1, Shift-JIS, a multi-byte character cut at the
/// end of the sample) is text, shown lossily.
pub fn looks_binary(sample: &[u8]) -> bool {
    memchr::memchr(0, sample).is_some()
}

/// Formats one numbered line the way `cat -n` does: the number right-aligned in six
/// columns, a tab, the text and a newline.
pub fn number_line(out: &mut String, number: usize, line: &str) {
    use std::fmt::Write;
    let _ = writeln!(out, "{number:>6}\t{line}");
}

/// Cuts `line` to `max_chars` characters followed by a `… [line truncated: N characters]`
/// marker (N is the full length in characters); returns the line unchanged (borrowed)
/// and `false` when it fits.
pub fn truncate_line(line: &str, max_chars: usize) -> (Cow<'_, str>, bool) {
    // A line of at most max_chars bytes has at most max_chars chars.
    if line.len() <= max_chars {
        return (Cow::Borrowed(line), false);
    }
    match line.char_indices().nth(max_chars) {
        None => (Cow::Borrowed(line), false),
        Some((cut, _)) => {
            let total = max_chars + line[cut..].chars().count();
            let mut s = String::with_capacity(cut + 40);
            s.push_str(&line[..cut]);
            s.push_str(&truncation_marker(total));
            (Cow::Owned(s), true)
        }
    }
}

/// An incremental, lossy UTF-8 decoder: bytes go in, in pieces of any size, and
/// `&str` pieces come out. Each maximal invalid subsequence becomes one U+FFFD,
/// exactly as [`String::from_utf8_lossy`] does on the whole input.
#[derive(Default)]
struct Utf8Stream {
    carry: [u8; 4],
    carry_len: usize,
}

impl Utf8Stream {
    /// Decodes `bytes`, calling `f` with each non-empty piece; stops early (returning
    /// false) when `f` returns false.
    fn feed(&mut self, mut bytes: &[u8], f: &mut impl FnMut(&str) -> bool) -> bool {
        // Finish a character split across calls.
        while self.carry_len > 0 && !bytes.is_empty() {
            let have = self.carry_len;
            let take = bytes.len().min(4 - have);
            let mut tmp = [0u8; 4];
            tmp[..have].copy_from_slice(&self.carry[..have]);
            tmp[have..have + take].copy_from_slice(&bytes[..take]);
            match std::str::from_utf8(&tmp[..have + take]) {
                Ok(s) => {
                    self.carry_len = 0;
                    bytes = &bytes[take..];
                    if !f(s) {
                        return false;
                    }
                }
                Err(e) if e.valid_up_to() > 0 => {
                    // A whole character, then something else: emit it and go on from there.
                    let n = e.valid_up_to();
                    let s = std::str::from_utf8(&tmp[..n]).unwrap_or_default();
                    self.carry_len = 0;
                    bytes = &bytes[n - have..];
                    if !f(s) {
                        return false;
                    }
                }
                Err(e) => match e.error_len() {
                    Some(n) => {
                        self.carry_len = 0;
                        bytes = &bytes[n.saturating_sub(have)..];
                        if !f("\u{FFFD}") {
                            return false;
                        }
                    }
                    None => {
                        // Still incomplete: everything taken joins the carry.
                        self.carry[have..have + take].copy_from_slice(&bytes[..take]);
                        self.carry_len += take;
                        bytes = &bytes[take..];
                    }
                },
            }
        }
        while !bytes.is_empty() {
            match std::str::from_utf8(bytes) {
                Ok(s) => return f(s),
                Err(e) => {
                    let valid = e.valid_up_to();
                    if valid > 0 {
                        let s = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
                        if !f(s) {
                            return false;
                        }
                    }
                    match e.error_len() {
                        Some(n) => {
                            bytes = &bytes[valid + n..];
                            if !f("\u{FFFD}") {
                                return false;
                            }
                        }
                        None => {
                            let rest = &bytes[valid..];
                            self.carry[..rest.len()].copy_from_slice(rest);
                            self.carry_len = rest.len();
                            return true;
                        }
                    }
                }
            }
        }
        true
    }

    /// Ends the input: an incomplete character left over becomes one U+FFFD.
    fn finish(&mut self, f: &mut impl FnMut(&str) -> bool) -> bool {
        if self.carry_len > 0 {
            self.carry_len = 0;
            return f("\u{FFFD}");
        }
        true
    }
}

/// A window of numbered lines read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineSlice {
    /// The lines, each as `format!("{:>6}\t{}\n", number, line)`, endings stripped.
    pub text: String,
    /// The 1-based number of the first line asked for (the first shown, if any).
    pub first: usize,
    /// The number of the last line shown; `first - 1` when no line was shown.
    pub last: usize,
    /// The file's line count, known only when the slice reached the end of the file.
    pub total: Option<usize>,
    /// How many of the shown lines were cut to the character limit.
    pub truncated_lines: usize,
}

/// Collects one line's characters, keeping at most `max` of them and counting all.
struct LineAcc {
    text: String,
    chars: usize,
    max: usize,
}

impl LineAcc {
    fn push(&mut self, s: &str) -> bool {
        let room = self.max.saturating_sub(self.chars);
        if room >= s.len() {
            self.text.push_str(s);
            self.chars += s.chars().count();
        } else {
            let n = s.chars().count();
            match s.char_indices().nth(room) {
                Some((cut, _)) => self.text.push_str(&s[..cut]),
                None => self.text.push_str(s),
            }
            self.chars += n;
        }
        true
    }
}

/// Skips `count` lines without allocating; returns how many were skipped (fewer only
/// at the end of the input, where a final line without newline counts as one).
fn skip_lines<R: BufRead>(reader: &mut R, count: usize) -> io::Result<usize> {
    let mut skipped = 0;
    let mut mid_line = false;
    while skipped < count {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(skipped + usize::from(mid_line));
        }
        let mut used = buf.len();
        let mut found_end = false;
        for i in memchr::memchr_iter(b'\n', buf) {
            skipped += 1;
            if skipped == count {
                used = i + 1;
                found_end = true;
                break;
            }
        }
        mid_line = !found_end && buf[used - 1] != b'\n';
        reader.consume(used);
    }
    Ok(skipped)
}

/// Reads one line into `acc` (ending stripped, lossy); false at end of input.
fn read_line<R: BufRead>(reader: &mut R, acc: &mut LineAcc) -> io::Result<bool> {
    let mut dec = Utf8Stream::default();
    let mut push = |s: &str| acc.push(s);
    let mut any = false;
    let mut pending_cr = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if pending_cr {
                dec.feed(b"\r", &mut push);
            }
            dec.finish(&mut push);
            return Ok(any);
        }
        any = true;
        let (seg, used, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        if pending_cr && !(done && seg.is_empty()) {
            dec.feed(b"\r", &mut push);
        }
        let (seg, cr) = match seg.split_last() {
            Some((b'\r', rest)) => (rest, true),
            _ => (seg, false),
        };
        dec.feed(seg, &mut push);
        pending_cr = cr;
        reader.consume(used);
        if done {
            dec.finish(&mut push);
            return Ok(true);
        }
    }
}

/// Whether the reader has any byte left (peeks, consumes nothing).
fn has_more<R: BufRead>(reader: &mut R) -> io::Result<bool> {
    loop {
        match reader.fill_buf() {
            Ok(b) => return Ok(!b.is_empty()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Reads up to `limit` lines starting at the 1-based line `offset` (0 means 1), numbered
/// `cat -n` style, each cut to `max_line_chars` characters with a marker.
///
/// Streams in constant memory: lines before `offset` are skipped by scanning for
/// newlines without allocating, and nothing past the last shown line is read except a
/// peek to see whether the file goes on.
pub fn read_lines<R: BufRead>(
    mut reader: R,
    offset: usize,
    limit: usize,
    max_line_chars: usize,
) -> io::Result<LineSlice> {
    let first = offset.max(1);
    let skipped = skip_lines(&mut reader, first - 1)?;
    let mut slice = LineSlice {
        text: String::new(),
        first,
        last: first - 1,
        total: None,
        truncated_lines: 0,
    };
    if skipped < first - 1 {
        slice.total = Some(skipped);
        return Ok(slice);
    }
    let mut acc = LineAcc {
        text: String::new(),
        chars: 0,
        max: max_line_chars,
    };
    while slice.last + 1 - first < limit {
        acc.text.clear();
        acc.chars = 0;
        if !read_line(&mut reader, &mut acc)? {
            break;
        }
        slice.last += 1;
        if acc.chars > max_line_chars {
            acc.text.push_str(&truncation_marker(acc.chars));
            slice.truncated_lines += 1;
        }
        number_line(&mut slice.text, slice.last, &acc.text);
    }
    if !has_more(&mut reader)? {
        slice.total = Some(slice.last);
    }
    Ok(slice)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A one-line note to put after a [`LineSlice`]: which lines were shown, whether more
/// follow and the offset to read on from, and how many lines were cut. `None` when the
/// whole file was shown from line 1 with nothing cut. An empty file gets
/// `[The file is empty.]`.
pub fn trailer_for_lines(slice: &LineSlice, requested_offset: usize) -> Option<String> {
    let offset = requested_offset.max(1);
    let shown = (slice.last + 1).saturating_sub(slice.first);
    let cut = match slice.truncated_lines {
        0 => String::new(),
        1 => " 1 long line was cut short (marked \"line truncated\").".to_string(),
        n => format!(" {n} long lines were cut short (marked \"line truncated\")."),
    };
    if shown == 0 {
        return Some(match slice.total {
            Some(0) if offset == 1 => "[The file is empty.]".to_string(),
            Some(n) => format!(
                "[The file has {}; offset {offset} is past the end.]",
                plural(n, "line", "lines")
            ),
            None => format!("[Showing no lines. Read on with offset: {}.]", slice.first),
        });
    }
    let range = if shown == 1 {
        format!("line {}", slice.first)
    } else {
        format!("lines {}-{}", slice.first, slice.last)
    };
    let next = slice.last + 1;
    let note = match slice.total {
        Some(n) if slice.first == 1 && slice.last >= n => {
            if cut.is_empty() {
                return None;
            }
            format!("[Showing all {}.{cut}]", plural(n, "line", "lines"))
        }
        Some(n) if slice.last >= n => format!("[Showing {range} of {n}.{cut}]"),
        Some(n) => format!("[Showing {range} of {n}.{cut} Read on with offset: {next}.]"),
        None => format!("[Showing {range}; more lines follow.{cut} Read on with offset: {next}.]"),
    };
    Some(note)
}

/// Takes `limit` characters from the 0-based character `offset` of `text`; returns the
/// slice and the text's total length in characters. Never splits a character.
pub fn slice_chars(text: &str, offset: usize, limit: usize) -> (String, usize) {
    let total = text.chars().count();
    let start = text
        .char_indices()
        .nth(offset)
        .map_or(text.len(), |(i, _)| i);
    let rest = &text[start..];
    let end = rest
        .char_indices()
        .nth(limit)
        .map_or(rest.len(), |(i, _)| i);
    (rest[..end].to_string(), total)
}

/// A window of characters read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharSlice {
    /// The characters (invalid UTF-8 shown as U+FFFD).
    pub text: String,
    /// The 0-based character offset the window starts at.
    pub offset: usize,
    /// How many characters `text` holds.
    pub returned: usize,
    /// The file's length in characters, known only when the window reached the end.
    pub total: Option<usize>,
}

/// Reads `limit` characters from the 0-based character `offset`, decoding UTF-8
/// incrementally in constant memory. Invalid bytes are decoded as
/// [`String::from_utf8_lossy`] would: each maximal invalid sequence is one U+FFFD
/// character, so the result is always a window of the lossy text.
pub fn read_chars<R: BufRead>(mut reader: R, offset: usize, limit: usize) -> io::Result<CharSlice> {
    let mut out = CharSlice {
        text: String::new(),
        offset,
        returned: 0,
        total: None,
    };
    let mut seen = 0usize; // characters passed so far, skipped or taken
    let mut more = false;
    let mut take = |s: &str| -> bool {
        let mut s = s;
        if seen < offset {
            let skip = offset - seen;
            match s.char_indices().nth(skip) {
                Some((i, _)) => {
                    seen = offset;
                    s = &s[i..];
                }
                None => {
                    seen += s.chars().count();
                    return true;
                }
            }
        }
        let room = limit - out.returned;
        match s.char_indices().nth(room) {
            Some((i, _)) => {
                out.text.push_str(&s[..i]);
                out.returned = limit;
                more = true;
                false
            }
            None => {
                let n = s.chars().count();
                out.text.push_str(s);
                out.returned += n;
                true
            }
        }
    };
    let mut dec = Utf8Stream::default();
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            dec.finish(&mut take);
            break;
        }
        let n = buf.len();
        let go_on = dec.feed(buf, &mut take);
        reader.consume(n);
        if !go_on {
            break;
        }
    }
    if !more {
        out.total = Some(seen + out.returned);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

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
    fn char_slices() {
        assert_eq!(slice_chars("héllo ✓ wörld", 4, 3), ("o ✓".to_string(), 13));
        assert_eq!(slice_chars("abc", 5, 3), (String::new(), 3));
        assert_eq!(slice_chars("abc", 0, 0), (String::new(), 3));
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
                        let got = read_chars(BufReader::with_capacity(cap, bytes), offset, limit)
                            .unwrap();
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
}
