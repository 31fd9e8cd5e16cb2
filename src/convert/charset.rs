//! The charset of an HTML document, found as a browser finds it (WHATWG
//! "determining the character encoding", without the network): a byte order
//! mark, then a `<meta charset>` or `<meta http-equiv content="...; charset=">`
//! in the first 1024 bytes, then UTF-8 when every byte is valid UTF-8, else
//! windows-1252, the web's default. Decoding is encoding_rs, the browsers' own.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

/// How far a `<meta>` declaration is looked for, as browsers do.
const PRESCAN: usize = 1024;

/// `bytes` decoded to text, the byte order mark removed; undecodable bytes
/// become U+FFFD.
pub fn decode_html(bytes: &[u8]) -> Cow<'_, str> {
    let encoding = sniff(bytes);
    let (text, _) = encoding.decode_with_bom_removal(bytes);
    text
}

/// The encoding `bytes` are in.
pub fn sniff(bytes: &[u8]) -> &'static Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return encoding;
    }
    if let Some(encoding) = declared(&bytes[..bytes.len().min(PRESCAN)]) {
        // A page that says UTF-16 yet has no byte order mark is ASCII-compatible.
        if encoding == UTF_16LE || encoding == UTF_16BE {
            return UTF_8;
        }
        // x-user-defined is for XMLHttpRequest, never a page.
        return if encoding.name() == "x-user-defined" {
            WINDOWS_1252
        } else {
            encoding
        };
    }
    if std::str::from_utf8(bytes).is_ok() {
        UTF_8
    } else {
        WINDOWS_1252
    }
}

/// The encoding a `<meta>` tag in `head` declares, if one does.
fn declared(head: &[u8]) -> Option<&'static Encoding> {
    let lower = head.to_ascii_lowercase();
    let mut rest = &lower[..];
    while let Some(at) = find(rest, b"<meta") {
        let tag = &rest[at + 5..];
        let end = tag.iter().position(|&b| b == b'>').unwrap_or(tag.len());
        let tag = &tag[..end];
        if let Some(encoding) = charset_in(tag) {
            return Some(encoding);
        }
        rest = &rest[at + 5 + end..];
    }
    None
}

/// The encoding after `charset=` in a tag's attributes, quoted or not.
fn charset_in(tag: &[u8]) -> Option<&'static Encoding> {
    let at = find(tag, b"charset")?;
    let value = tag[at + 7..].trim_ascii_start().strip_prefix(b"=")?;
    let value = value.trim_ascii_start();
    let value = value
        .strip_prefix(b"\"")
        .or_else(|| value.strip_prefix(b"'"))
        .unwrap_or(value);
    let end = value
        .iter()
        .position(|&b| matches!(b, b'"' | b'\'' | b';' | b'/') || b.is_ascii_whitespace())
        .unwrap_or(value.len());
    Encoding::for_label(&value[..end])
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_charset_as_a_browser_does() {
        assert_eq!(sniff(b"<meta charset=\"iso-8859-1\"><p>\xe9"), WINDOWS_1252);
        assert_eq!(
            sniff(b"<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=Shift_JIS'>"),
            encoding_rs::SHIFT_JIS
        );
        assert_eq!(sniff(b"\xef\xbb\xbf<meta charset=latin1>"), UTF_8);
        assert_eq!(sniff(b"\xff\xfe<\x00p\x00>\x00"), UTF_16LE);
        assert_eq!(sniff(b"<meta charset=utf-16><p>x"), UTF_8);
        assert_eq!(sniff("<p>Zürich".as_bytes()), UTF_8);
        assert_eq!(sniff(b"<p>Z\xfcrich"), WINDOWS_1252);
        assert_eq!(
            sniff(b"<meta name=x><meta charset=koi8-r>"),
            encoding_rs::KOI8_R
        );
    }

    #[test]
    fn decodes_and_drops_the_byte_order_mark() {
        assert_eq!(decode_html(b"<p>Z\xfcrich"), "<p>Zürich");
        assert_eq!(decode_html(b"\xfe\xff\x00<\x00p\x00>\x00\xe9"), "<p>é");
    }
}
