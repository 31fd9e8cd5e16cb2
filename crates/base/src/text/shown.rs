//! What `read_file` shows of a text: the window it asked for and the trailer
//! after it, under the ceilings every read keeps.

use std::io::{self, BufReader, Read};

use super::ceiling::{MAX_RESULT_CHARS, TRAILER_ROOM};
use super::chars::{read_chars, trailer_for_chars};
use super::lines::{read_lines_counted, trailer_for_lines};

/// The largest text whose lines are all counted, so its trailer says how many it
/// has: a few milliseconds of work. A larger one is never read past the window,
/// and its trailer says only that more lines follow.
pub const COUNT_BUDGET: u64 = 8 * 1024 * 1024;

/// The most characters one character window shows: the result ceiling less the
/// room its trailer takes.
pub const MAX_READ_CHARS: usize = MAX_RESULT_CHARS - TRAILER_ROOM;

/// How big a buffer a window reads through.
const BUFFER: usize = 256 * 1024;

/// A window as the model reads it: the text and the trailer after it (none when
/// there is nothing to say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The text of the window.
    pub text: String,
    /// The note after it: what was shown and where to read on.
    pub trailer: Option<String>,
}

/// Lines `offset..offset + limit` of `reader`, a text of `size` bytes, each cut to
/// `max_chars` characters, with their trailer.
pub fn lines_shown(
    reader: impl Read,
    size: u64,
    offset: usize,
    limit: usize,
    max_chars: usize,
) -> io::Result<Shown> {
    let budget = if size <= COUNT_BUDGET {
        COUNT_BUDGET
    } else {
        0
    };
    let reader = BufReader::with_capacity(BUFFER, utf16_as_utf8(reader));
    let slice = read_lines_counted(reader, offset, limit, max_chars, budget)?;
    let trailer = trailer_for_lines(&slice, offset);
    Ok(Shown {
        text: slice.text,
        trailer,
    })
}

/// Characters `offset..offset + limit` of `reader`, at most [`MAX_READ_CHARS`] of
/// them, with their trailer.
pub fn chars_shown(reader: impl Read, offset: usize, limit: usize) -> io::Result<Shown> {
    let reader = BufReader::with_capacity(BUFFER, utf16_as_utf8(reader));
    let slice = read_chars(reader, offset, limit.min(MAX_READ_CHARS))?;
    let trailer = trailer_for_chars(&slice);
    Ok(Shown {
        text: slice.text,
        trailer,
    })
}

/// `reader` as UTF-8 when its bytes start with a UTF-16 byte order mark (as a
/// search reads them, so a read shows what a search found), else as it is.
fn utf16_as_utf8<R: Read>(reader: R) -> impl Read {
    encoding_rs_io::DecodeReaderBytesBuilder::new()
        .bom_sniffing(true)
        .build(reader)
}
