//! Character windows, streamed in constant memory, and the trailer that says what
//! a window showed.

use std::io::{self, BufRead};

use super::utf8::{fill, Utf8Stream};

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
        let buf = fill(&mut reader)?;
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

/// A one-line note to put after a [`CharSlice`]: which characters were shown,
/// whether more follow and the offset to read on from. `None` when the whole text
/// was shown from its start.
pub fn trailer_for_chars(slice: &CharSlice) -> Option<String> {
    let (from, count) = (slice.offset, slice.returned);
    let last = from + count;
    if from == 0 && slice.total == Some(last) {
        return None;
    }
    if let (Some(total), 0) = (slice.total, count) {
        return Some(format!(
            "[The text has {total} characters; offset {from} is past the end.]"
        ));
    }
    // As signed: a window of no characters at offset 0 ends at -1.
    let shown = format!("characters {from}-{}", last as i128 - 1);
    Some(match slice.total {
        Some(total) if total == last => format!("[Showing {shown} of {total}.]"),
        _ => format!("[Showing {shown}; more follow. Read on with offset: {last}.]"),
    })
}
