//! A content stream decoded a piece at a time: lopdf's decoder makes an
//! operation of every few bytes, each far larger than its bytes, so a 60 MB
//! stream decoded at once would take gigabytes. The stream is cut where an
//! operation ends (outside strings, arrays, dictionaries and inline images),
//! and each piece decoded, run and dropped before the next.

use lopdf::content::Content;

use crate::common::budget::Budget;

/// The most bytes one stream (a page's content, a font's map) may inflate to.
pub const MAX_STREAM: usize = 64 * 1024 * 1024;

/// About how many bytes of a content stream are decoded at once.
const PIECE: usize = 256 * 1024;
/// The most bytes decoded at once: an operation longer than this (a TJ array
/// of millions of numbers) would take gigabytes as objects, so is passed over.
const MAX_PIECE: usize = 8 * 1024 * 1024;

/// Calls `run` with the operations of each piece of `content` in order, until
/// it returns false or the budget stops; a piece that does not decode, or
/// is over [`MAX_PIECE`], is passed over. Each kilobyte decoded is a step.
pub fn each_piece(content: &[u8], budget: &Budget, mut run: impl FnMut(&Content) -> bool) {
    let mut start = 0;
    while start < content.len() {
        let end = piece_end(content, start);
        let piece = &content[start..end];
        if !budget.step(piece.len().div_ceil(1024) as u64) {
            return;
        }
        if piece.len() > MAX_PIECE {
            start = end;
            continue;
        }
        if let Ok(operations) = Content::decode(piece) {
            if !run(&operations) {
                return;
            }
        }
        start = end;
    }
}

fn regular(byte: u8) -> bool {
    !byte.is_ascii_whitespace()
        && !matches!(
            byte,
            b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
        )
        && byte != 0
}

/// Where the piece starting at `start` ends: just after the first operator
/// at the top level past [`PIECE`] bytes, or the end of the stream.
fn piece_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    // Arrays and dictionaries open: an operator is never inside one.
    let mut depth = 0usize;
    // The end of the last operation seen: where to cut before an operation
    // too long to decode, so what comes before it is still read.
    let mut last = start;
    while i < bytes.len() {
        if i - start > MAX_PIECE && last > start {
            return last;
        }
        match bytes[i] {
            b'%' => {
                while i < bytes.len() && !matches!(bytes[i], b'\n' | b'\r') {
                    i += 1;
                }
            }
            b'(' => i = string_end(bytes, i),
            b'<' if bytes.get(i + 1) == Some(&b'<') => {
                depth += 1;
                i += 2;
            }
            b'>' if bytes.get(i + 1) == Some(&b'>') => {
                depth = depth.saturating_sub(1);
                i += 2;
            }
            b'<' => {
                i += memchr::memchr(b'>', &bytes[i..]).map_or(bytes.len() - i, |n| n + 1);
            }
            b'[' => {
                depth += 1;
                i += 1;
            }
            b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'/' => {
                i += 1;
                while i < bytes.len() && regular(bytes[i]) {
                    i += 1;
                }
            }
            byte if regular(byte) => {
                let token_start = i;
                while i < bytes.len() && regular(bytes[i]) {
                    i += 1;
                }
                let token = &bytes[token_start..i];
                if token == b"BI" {
                    i = inline_image_end(bytes, i);
                }
                let operator = token[0].is_ascii_alphabetic() || matches!(token[0], b'\'' | b'"');
                let operand = matches!(token, b"true" | b"false" | b"null");
                if depth == 0 && operator && !operand {
                    if i - start >= PIECE {
                        return i;
                    }
                    last = i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Just past the string that opens at `at`, balanced parentheses and escapes
/// taken into account.
fn string_end(bytes: &[u8], at: usize) -> usize {
    let (mut i, mut open) = (at + 1, 1usize);
    while i < bytes.len() && open > 0 {
        match bytes[i] {
            b'\\' => i += 1,
            b'(' => open += 1,
            b')' => open -= 1,
            _ => {}
        }
        i += 1;
    }
    i.min(bytes.len())
}

/// Just past the `EI` ending an inline image whose `BI` ends at `at`: its
/// data (after `ID`) is binary and may hold anything.
fn inline_image_end(bytes: &[u8], at: usize) -> usize {
    let Some(id) = memchr::memmem::find(&bytes[at..], b"ID").map(|n| at + n + 2) else {
        return bytes.len();
    };
    let mut from = id;
    while let Some(n) = memchr::memmem::find(&bytes[from..], b"EI") {
        let end = from + n;
        let before = bytes[end - 1].is_ascii_whitespace();
        let after = bytes.get(end + 2).is_none_or(|b| b.is_ascii_whitespace());
        if before && after {
            return end + 2;
        }
        from = end + 2;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operators(content: &[u8]) -> Vec<String> {
        let mut seen = Vec::new();
        each_piece(content, &Budget::new(), |c| {
            seen.extend(c.operations.iter().map(|o| o.operator.clone()));
            true
        });
        seen
    }

    #[test]
    fn cuts_only_where_an_operation_ends() {
        let one = b"BT /F1 12 Tf (a (nested) \\) Tj) Tj [(x) -120 (y)] TJ << /K true >> BDC EMC \
                    BI /W 1 /H 1 ID \x00EI\xffTj EI ET\n";
        let many = one.repeat(PIECE / one.len() * 3);
        let ops = operators(&many);
        let whole = Content::decode(&many).unwrap();
        assert_eq!(ops.len(), whole.operations.len());
        assert!(ops
            .iter()
            .zip(&whole.operations)
            .all(|(a, b)| *a == b.operator));
    }
}
