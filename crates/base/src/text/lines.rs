//! Numbered line windows (`cat -n` style), streamed in constant memory, and the
//! trailer that says what a window showed.

use std::io::{self, BufRead};

use super::ceiling::{MAX_RESULT_CHARS, TRAILER_ROOM};
use super::format::{escape_breaks, number_line, plural, truncation_marker};
use super::utf8::{fill, Utf8Stream};

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
        let buf = fill(reader)?;
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
        let buf = fill(reader)?;
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
    Ok(!fill(reader)?.is_empty())
}
/// How many lines follow, when they end within `budget` more bytes; `None` when the
/// file goes on past that.
fn count_rest<R: BufRead>(reader: &mut R, budget: u64) -> io::Result<Option<usize>> {
    let mut lines = 0;
    let mut read = 0u64;
    let mut ends_with_newline = true;
    loop {
        let buf = fill(reader)?;
        let Some(&last) = buf.last() else {
            return Ok(Some(lines + usize::from(!ends_with_newline)));
        };
        read += buf.len() as u64;
        if read > budget {
            return Ok(None);
        }
        lines += memchr::memchr_iter(b'\n', buf).count();
        ends_with_newline = last == b'\n';
        let used = buf.len();
        reader.consume(used);
    }
}

/// Like [`read_lines`], and when the slice stops before the end of a file whose
/// remaining lines end within `count_budget` bytes, counts them too, so `total`
/// says how many lines the file has. A large file is still not read past the slice.
pub fn read_lines_counted<R: BufRead>(
    mut reader: R,
    offset: usize,
    limit: usize,
    max_line_chars: usize,
    count_budget: u64,
) -> io::Result<LineSlice> {
    let (mut slice, held_back) = lines_within_ceiling(&mut reader, offset, limit, max_line_chars)?;
    if slice.total.is_none() && count_budget > 0 {
        // A line read but held back by the ceiling is one more of the file's.
        let read = slice.last + usize::from(held_back);
        slice.total = count_rest(&mut reader, count_budget)?.map(|rest| read + rest);
    }
    Ok(slice)
}

/// Reads up to `limit` lines starting at the 1-based line `offset` (0 means 1), numbered
/// `cat -n` style, each cut to `max_line_chars` characters with a marker.
///
/// Streams in constant memory: lines before `offset` are skipped by scanning for
/// newlines without allocating, and nothing past the last shown line is read except a
/// peek to see whether the file goes on.
/// At most [`MAX_RESULT_CHARS`] characters are shown: the slice ends before the
/// line that would pass them.
pub fn read_lines<R: BufRead>(
    reader: R,
    offset: usize,
    limit: usize,
    max_line_chars: usize,
) -> io::Result<LineSlice> {
    lines_within_ceiling(reader, offset, limit, max_line_chars).map(|(slice, _)| slice)
}

/// `read_lines`, and whether a line was read but held back by the ceiling.
fn lines_within_ceiling<R: BufRead>(
    mut reader: R,
    offset: usize,
    limit: usize,
    max_line_chars: usize,
) -> io::Result<(LineSlice, bool)> {
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
        return Ok((slice, false));
    }
    let mut acc = LineAcc {
        text: String::new(),
        chars: 0,
        max: max_line_chars,
    };
    // Lines stop before the result would pass the ceiling: the trailer then says
    // where to read on, and a huge `limit` never builds a huge string.
    let mut shown_chars = 0;
    let mut over_ceiling = false;
    while slice.last + 1 - first < limit {
        acc.text.clear();
        acc.chars = 0;
        if !read_line(&mut reader, &mut acc)? {
            break;
        }
        if acc.chars > max_line_chars {
            acc.text.push_str(&truncation_marker(acc.chars));
        }
        // The number, its tab and the newline take 8 characters up to line 999,999.
        let line_chars =
            escape_breaks(&acc.text).chars().count() + 8 + (slice.last + 1).ilog10() as usize / 6;
        if slice.last >= first && shown_chars + line_chars > MAX_RESULT_CHARS - TRAILER_ROOM {
            over_ceiling = true;
            break;
        }
        shown_chars += line_chars;
        slice.last += 1;
        if acc.chars > max_line_chars {
            slice.truncated_lines += 1;
        }
        number_line(&mut slice.text, slice.last, &acc.text);
    }
    if !over_ceiling && !has_more(&mut reader)? {
        slice.total = Some(slice.last);
    }
    Ok((slice, over_ceiling))
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
