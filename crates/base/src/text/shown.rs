//! What `read_file` shows of a text: the window it asked for and the trailer
//! after it, under the ceilings every read keeps.

use std::io::{self, BufRead, BufReader, Read};

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
    let slice = read_lines_counted(decoded(reader, size)?, offset, limit, max_chars, budget)?;
    let trailer = trailer_for_lines(&slice, offset);
    Ok(Shown {
        text: slice.text,
        trailer,
    })
}

/// Characters `offset..offset + limit` of `reader`, a text of `size` bytes, at
/// most [`MAX_READ_CHARS`] of them, with their trailer.
pub fn chars_shown(reader: impl Read, size: u64, offset: usize, limit: usize) -> io::Result<Shown> {
    let slice = read_chars(decoded(reader, size)?, offset, limit.min(MAX_READ_CHARS))?;
    let trailer = trailer_for_chars(&slice);
    Ok(Shown {
        text: slice.text,
        trailer,
    })
}

/// `reader`, buffered, as UTF-8 when its bytes start with a byte order mark (as a
/// search reads them, so a read shows what a search found), else as it is. Bytes
/// with no mark, most texts, are read without the decoder, which would pass them
/// through as they are after a read of three bytes of its own and a copy.
/// `size` is the text's, which a buffer need not pass: a buffer is zeroed once
/// before its first read (the readers here cannot read into memory not yet
/// written), 256 KB of zeroes where a small file needs a few.
fn decoded<'r>(reader: impl Read + 'r, size: u64) -> io::Result<Box<dyn BufRead + 'r>> {
    let room =
        usize::try_from(size.saturating_add(1)).map_or(BUFFER, |room| room.clamp(64, BUFFER));
    let mut plain = BufReader::with_capacity(room, reader);
    let head = super::utf8::fill(&mut plain)?;
    // The decoder's own test of a mark, on the first three bytes as it reads them.
    if head.len() >= 3 && encoding_rs::Encoding::for_bom(&head[..3]).is_none() {
        return Ok(Box::new(plain));
    }
    Ok(Box::new(BufReader::with_capacity(
        room,
        utf16_as_utf8(plain),
    )))
}

/// `reader` as UTF-8 when its bytes start with a byte order mark, else as it is.
fn utf16_as_utf8<R: Read>(reader: R) -> impl Read {
    encoding_rs_io::DecodeReaderBytesBuilder::new()
        .bom_sniffing(true)
        .build(reader)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_without_a_mark_reads_as_the_decoder_gives_it() {
        let inputs: [&[u8]; 9] = [
            b"",
            b"x",
            b"\xFF\xFE",
            b"ab\n",
            b"caf\xe9\n\x82\xb1\x82\xf1\n\xf0\x9f\x98\nend\xe2\x82",
            b"\xEF\xBB\xBFmarked\n",
            b"\xEF\xBBnot quite a mark\n",
            b"\xFF\xFEa\0b\0",
            b"\xFE\xFF\0a\0b",
        ];
        for bytes in inputs {
            let mut fast = Vec::new();
            decoded(bytes, bytes.len() as u64)
                .unwrap()
                .read_to_end(&mut fast)
                .unwrap();
            let mut decoder = Vec::new();
            utf16_as_utf8(bytes).read_to_end(&mut decoder).unwrap();
            assert_eq!(fast, decoder, "{bytes:?}");
        }
    }
}
