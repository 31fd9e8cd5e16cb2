//! Entries of a snapshot as bytes, one record at a time: how the helper after a
//! run streams what it found to the app, and how the look before a run is kept
//! on disk rather than in the app's memory (`before`).

use std::io::{Read, Write};

use crate::snapshot::Stamp;

/// A stamp's fields, after its path: flags, size, mtime, ctime, digest.
pub const STAMP_BYTES: usize = 1 + 8 + 16 + 16 + 32;

/// Records that carry a stamp after their text.
const STAMPED: &[u8] = b"sb";

/// One record: its kind, the length of its text, the text.
pub fn record(out: &mut impl Write, kind: u8, text: &[u8]) -> std::io::Result<()> {
    out.write_all(&[kind])?;
    out.write_all(&(text.len() as u32).to_le_bytes())?;
    out.write_all(text)
}

/// A record of kind `kind` holding `path` and its stamp (a kind of `STAMPED`).
pub fn stamped(out: &mut impl Write, kind: u8, path: &str, stamp: &Stamp) -> std::io::Result<()> {
    debug_assert!(STAMPED.contains(&kind));
    record(out, kind, path.as_bytes())?;
    out.write_all(&encode(stamp))
}

/// What one record held.
pub enum Record {
    /// A record with text only.
    Text(u8, String),
    /// A record with a path and its stamp.
    Stamped(u8, String, Stamp),
    /// The end mark: every record came.
    End,
}

/// The next record of `input`; `None` when the input ends before the end mark,
/// or a record is cut or not UTF-8.
pub fn next(input: &mut impl Read) -> Option<Record> {
    let (kind, bytes) = match next_bytes(input)? {
        None => return Some(Record::End),
        Some(record) => record,
    };
    let text = String::from_utf8(bytes).ok()?;
    if !STAMPED.contains(&kind) {
        return Some(Record::Text(kind, text));
    }
    let mut stamp = [0u8; STAMP_BYTES];
    input.read_exact(&mut stamp).ok()?;
    Some(Record::Stamped(kind, text, decode(&stamp)))
}

/// The next record's kind and bytes, as they came (a stamp after them is left
/// to read); `Some(None)` at the end mark, `None` when the input ends first.
pub fn next_bytes(input: &mut impl Read) -> Option<Option<(u8, Vec<u8>)>> {
    let mut kind = [0u8];
    input.read_exact(&mut kind).ok()?;
    if kind[0] == b'z' {
        return Some(None);
    }
    let mut len = [0u8; 4];
    input.read_exact(&mut len).ok()?;
    let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
    input.read_exact(&mut bytes).ok()?;
    Some(Some((kind[0], bytes)))
}

/// The end mark.
pub fn end(out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(b"z")
}

fn encode(stamp: &Stamp) -> [u8; STAMP_BYTES] {
    let mut bytes = [0u8; STAMP_BYTES];
    bytes[0] = u8::from(stamp.file)
        | u8::from(stamp.unnamed) << 1
        | u8::from(stamp.hidden) << 2
        | u8::from(stamp.digest.is_some()) << 3;
    bytes[1..9].copy_from_slice(&stamp.size.to_le_bytes());
    bytes[9..25].copy_from_slice(&stamp.mtime_ns.to_le_bytes());
    bytes[25..41].copy_from_slice(&stamp.ctime_ns.to_le_bytes());
    bytes[41..].copy_from_slice(&stamp.digest.unwrap_or_default());
    bytes
}

fn decode(bytes: &[u8; STAMP_BYTES]) -> Stamp {
    let at = |range: std::ops::Range<usize>| &bytes[range];
    Stamp {
        file: bytes[0] & 1 != 0,
        unnamed: bytes[0] & 2 != 0,
        hidden: bytes[0] & 4 != 0,
        size: u64::from_le_bytes(at(1..9).try_into().expect("8 bytes")),
        mtime_ns: i128::from_le_bytes(at(9..25).try_into().expect("16 bytes")),
        ctime_ns: i128::from_le_bytes(at(25..41).try_into().expect("16 bytes")),
        digest: (bytes[0] & 8 != 0).then(|| at(41..73).try_into().expect("32 bytes")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> Stamp {
        Stamp {
            file: true,
            size: 7,
            mtime_ns: -3,
            ctime_ns: 1 << 70,
            unnamed: false,
            hidden: true,
            digest: Some([9; 32]),
        }
    }

    #[test]
    fn a_stamp_comes_back_as_it_went() {
        assert_eq!(decode(&encode(&stamp())), stamp());
        let bare = Stamp {
            digest: None,
            file: false,
            ..stamp()
        };
        assert_eq!(decode(&encode(&bare)), bare);
    }

    #[test]
    fn records_are_read_back_in_order_and_a_cut_stream_ends_in_none() {
        let mut bytes = Vec::new();
        record(&mut bytes, b'n', b"a note").unwrap();
        stamped(&mut bytes, b's', "new.txt", &stamp()).unwrap();
        let whole = bytes.len();
        end(&mut bytes).unwrap();
        let mut input = &bytes[..];
        assert!(matches!(next(&mut input), Some(Record::Text(b'n', text)) if text == "a note"));
        assert!(
            matches!(next(&mut input), Some(Record::Stamped(b's', path, got)) if path == "new.txt" && got == stamp())
        );
        assert!(matches!(next(&mut input), Some(Record::End)));
        let mut cut = &bytes[..whole - 1];
        next(&mut cut);
        assert!(next(&mut cut).is_none());
    }
}
