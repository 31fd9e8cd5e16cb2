//! Lossy UTF-8 decoding of a stream, in pieces of any size (encoding_rs's decoder),
//! and the buffered reads the line and character windows share.

use std::io::{self, BufRead};

use encoding_rs::{CoderResult, Decoder, UTF_8};

/// The most bytes of text one call of the decoder writes before they are handed on.
const PIECE: usize = 8 * 1024;

/// An incremental, lossy UTF-8 decoder: bytes go in, in pieces of any size, and
/// `&str` pieces come out. Each maximal invalid subsequence becomes one U+FFFD,
/// exactly as [`String::from_utf8_lossy`] does on the whole input (the WHATWG
/// decoder's rule, which encoding_rs implements).
pub(super) struct Utf8Stream {
    decoder: Decoder,
    out: String,
}

impl Default for Utf8Stream {
    fn default() -> Self {
        Utf8Stream {
            decoder: UTF_8.new_decoder_without_bom_handling(),
            out: String::new(),
        }
    }
}

impl Utf8Stream {
    /// Decodes `bytes`, calling `f` with each non-empty piece; stops early (returning
    /// false) when `f` returns false.
    pub(super) fn feed(&mut self, bytes: &[u8], f: &mut impl FnMut(&str) -> bool) -> bool {
        self.decode(bytes, false, f)
    }

    /// Ends the input: an incomplete character left over becomes one U+FFFD.
    pub(super) fn finish(&mut self, f: &mut impl FnMut(&str) -> bool) -> bool {
        self.decode(&[], true, f)
    }

    fn decode(&mut self, mut bytes: &[u8], last: bool, f: &mut impl FnMut(&str) -> bool) -> bool {
        // Room for the piece and a character carried over from the last call.
        self.out.reserve(bytes.len().min(PIECE) + 4);
        loop {
            self.out.clear();
            let (result, read, _) = self.decoder.decode_to_string(bytes, &mut self.out, last);
            bytes = &bytes[read..];
            if !self.out.is_empty() && !f(&self.out) {
                return false;
            }
            if result == CoderResult::InputEmpty {
                return true;
            }
        }
    }
}

/// The reader's next buffered bytes, empty at the end; a read interrupted by a
/// signal is tried again.
pub(super) fn fill<R: BufRead>(reader: &mut R) -> io::Result<&[u8]> {
    loop {
        match reader.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    reader.fill_buf()
}
