//! Lossy UTF-8 decoding of a stream, in pieces of any size, and the buffered
//! reads the line and character windows share.

use std::io::{self, BufRead};

/// An incremental, lossy UTF-8 decoder: bytes go in, in pieces of any size, and
/// `&str` pieces come out. Each maximal invalid subsequence becomes one U+FFFD,
/// exactly as [`String::from_utf8_lossy`] does on the whole input.
#[derive(Default)]
pub(super) struct Utf8Stream {
    carry: [u8; 4],
    carry_len: usize,
}

impl Utf8Stream {
    /// Decodes `bytes`, calling `f` with each non-empty piece; stops early (returning
    /// false) when `f` returns false.
    pub(super) fn feed(&mut self, mut bytes: &[u8], f: &mut impl FnMut(&str) -> bool) -> bool {
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
    pub(super) fn finish(&mut self, f: &mut impl FnMut(&str) -> bool) -> bool {
        if self.carry_len > 0 {
            self.carry_len = 0;
            return f("\u{FFFD}");
        }
        true
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
