//! The charset of an HTML document, found as a browser finds it (WHATWG
//! "determining the character encoding", without the network): a byte order
//! mark, then the prescan of the first 1024 bytes for a `<meta charset>` or a
//! `<meta http-equiv=content-type content="...; charset=">` (comments and other
//! tags' attributes passed over), then UTF-8 when every byte is valid UTF-8,
//! else windows-1252, the web's default. Labels and decoding are encoding_rs,
//! the browsers' own.

use std::borrow::Cow;

use encoding_rs::{Encoding, REPLACEMENT, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// How far a `<meta>` declaration is looked for, as browsers do.
const PRESCAN: usize = 1024;

/// `bytes` decoded to text, the byte order mark removed; undecodable bytes
/// become U+FFFD.
#[cfg(test)]
pub fn decode_html(bytes: &[u8]) -> Cow<'_, str> {
    decode(bytes).unwrap_or_default()
}

/// `bytes` decoded as `decode_html` does, or None when there is not memory
/// enough for the text: the buffer is reserved fallibly, as its size comes
/// from the document.
pub fn decode(bytes: &[u8]) -> Option<Cow<'_, str>> {
    let encoding = sniff(bytes);
    let unmarked = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if encoding == UTF_8 {
        if let Ok(text) = std::str::from_utf8(unmarked) {
            return Some(Cow::Borrowed(text));
        }
    }
    let mut decoder = encoding.new_decoder_with_bom_removal();
    let most = decoder.max_utf8_buffer_length(bytes.len())?;
    let mut text = String::new();
    text.try_reserve_exact(most).ok()?;
    let _ = decoder.decode_to_string(bytes, &mut text, true);
    Some(Cow::Owned(text))
}

/// The encoding `bytes` are in.
pub fn sniff(bytes: &[u8]) -> &'static Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return encoding;
    }
    if let Some(encoding) = prescan(&bytes[..bytes.len().min(PRESCAN)]) {
        return encoding;
    }
    if std::str::from_utf8(bytes).is_ok() {
        UTF_8
    } else {
        WINDOWS_1252
    }
}

/// The WHATWG prescan of a byte stream: the encoding the first `<meta>` that
/// declares one says, comments and other tags' attributes passed over.
fn prescan(head: &[u8]) -> Option<&'static Encoding> {
    let mut at = 0;
    while at < head.len() {
        let rest = &head[at..];
        if rest.starts_with(b"<!--") {
            // The `-->` may share its dashes with the `<!--`.
            at += 2 + find(&rest[2..], b"-->").map_or(rest.len(), |n| n + 3);
        } else if starts_with_meta(rest) {
            let (encoding, end) = meta(head, at + 5);
            if encoding.is_some() {
                return encoding;
            }
            at = end;
        } else if rest.len() > 1
            && rest[0] == b'<'
            && (rest[1].is_ascii_alphabetic()
                || rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic))
        {
            // Another tag: its name, then its attributes, whatever they say.
            at += 1;
            while at < head.len() && !is_space(head[at]) && head[at] != b'>' {
                at += 1;
            }
            while let Some((_, _, end)) = attribute(head, at) {
                at = end;
            }
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            at += find(rest, b">").map_or(rest.len(), |n| n + 1);
        } else {
            at += 1;
        }
    }
    None
}

fn starts_with_meta(rest: &[u8]) -> bool {
    rest.len() > 5
        && rest[..5].eq_ignore_ascii_case(b"<meta")
        && (is_space(rest[5]) || rest[5] == b'/')
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// A `<meta>` tag's attributes from `at`: the encoding it declares (a
/// `charset`, or a `content` with `http-equiv="content-type"`) and where it ends.
fn meta(head: &[u8], mut at: usize) -> (Option<&'static Encoding>, usize) {
    let mut names: Vec<Vec<u8>> = Vec::new();
    let (mut got_pragma, mut need_pragma) = (false, None);
    let mut charset = None;
    while let Some((name, value, end)) = attribute(head, at) {
        at = end;
        if names.contains(&name) {
            continue;
        }
        match &name[..] {
            b"http-equiv" if value.eq_ignore_ascii_case(b"content-type") => got_pragma = true,
            b"content" if charset.is_none() => {
                if let Some(found) = from_content(&value) {
                    charset = Some(found);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Some(Encoding::for_label(&value));
                need_pragma = Some(false);
            }
            _ => {}
        }
        names.push(name);
    }
    let declared = match (need_pragma, got_pragma, charset.flatten()) {
        (None, ..) | (Some(true), false, _) | (_, _, None) => None,
        (_, _, Some(encoding)) => Some(usable(encoding)),
    };
    (declared, at)
}

/// What a page may declare stands, except what browsers replace: UTF-16
/// without a byte order mark is ASCII-compatible bytes, so UTF-8; the
/// replacement encoding (iso-2022-kr, hz-gb-2312 and their kin, which would
/// make the whole page one U+FFFD) is read as UTF-8; x-user-defined is for
/// XMLHttpRequest, never a page.
fn usable(encoding: &'static Encoding) -> &'static Encoding {
    if encoding == UTF_16LE || encoding == UTF_16BE || encoding == REPLACEMENT {
        UTF_8
    } else if encoding == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        encoding
    }
}

/// The encoding named in a `content` value (`text/html; charset=...`), as the
/// WHATWG "extracting a character encoding from a meta element" reads it.
fn from_content(value: &[u8]) -> Option<Option<&'static Encoding>> {
    let lower = value.to_ascii_lowercase();
    let mut from = 0;
    loop {
        let at = from + find(&lower[from..], b"charset")?;
        let mut i = at + 7;
        while i < value.len() && is_space(value[i]) {
            i += 1;
        }
        if value.get(i) != Some(&b'=') {
            from = i;
            continue;
        }
        i += 1;
        while i < value.len() && is_space(value[i]) {
            i += 1;
        }
        let rest = &value[i..];
        let label = match rest.first() {
            Some(&quote @ (b'"' | b'\'')) => &rest[1..][..find(&rest[1..], &[quote])?],
            Some(_) => {
                let end = rest
                    .iter()
                    .position(|&b| is_space(b) || b == b';')
                    .unwrap_or(rest.len());
                &rest[..end]
            }
            None => return None,
        };
        return Some(Encoding::for_label(label));
    }
}

/// The WHATWG "get an attribute" from `at`: its lowercased name, its value
/// and where it ends; None at the tag's end.
fn attribute(head: &[u8], mut at: usize) -> Option<(Vec<u8>, Vec<u8>, usize)> {
    while at < head.len() && (is_space(head[at]) || head[at] == b'/') {
        at += 1;
    }
    if at >= head.len() || head[at] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    loop {
        match head.get(at) {
            None => return None,
            Some(b'=') if !name.is_empty() => break,
            Some(&b) if is_space(b) => {
                while at < head.len() && is_space(head[at]) {
                    at += 1;
                }
                if head.get(at) != Some(&b'=') {
                    return Some((name, Vec::new(), at));
                }
                break;
            }
            Some(b'/' | b'>') => return Some((name, Vec::new(), at)),
            Some(&b) => name.push(b.to_ascii_lowercase()),
        }
        at += 1;
    }
    // At the `=`.
    at += 1;
    while at < head.len() && is_space(head[at]) {
        at += 1;
    }
    let mut value = Vec::new();
    match head.get(at) {
        None => return None,
        Some(&quote @ (b'"' | b'\'')) => {
            at += 1;
            while let Some(&b) = head.get(at) {
                at += 1;
                if b == quote {
                    return Some((name, value, at));
                }
                value.push(b.to_ascii_lowercase());
            }
            return None;
        }
        Some(b'>') => return Some((name, value, at)),
        Some(_) => {}
    }
    while let Some(&b) = head.get(at) {
        if is_space(b) || b == b'>' {
            break;
        }
        value.push(b.to_ascii_lowercase());
        at += 1;
    }
    Some((name, value, at))
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
    fn follows_the_prescan_not_any_charset_word() {
        let zurich = "<p>Zürich".as_bytes();
        for head in [
            "<meta name=description content='text/html; charset=koi8-r'>",
            "<!-- <meta charset=koi8-r> -->",
            "<div title='<meta charset=koi8-r>'>",
            "<meta content='charset=koi8-r'>",
        ] {
            let page = [head.as_bytes(), zurich].concat();
            assert_eq!(sniff(&page), UTF_8, "{head}");
            assert_eq!(decode_html(&page), format!("{head}<p>Zürich"));
        }
        assert_eq!(
            sniff(b"<meta content='text/html; charset=koi8-r' http-equiv=Content-Type>"),
            encoding_rs::KOI8_R
        );
        // The comment's `-->` may share the dashes of its `<!--`.
        assert_eq!(sniff(b"<!--><meta charset=koi8-r>"), encoding_rs::KOI8_R);
        assert_eq!(sniff(b"<!-- --!><meta charset=koi8-r>"), UTF_8);
    }

    #[test]
    fn reads_replacement_labels_as_utf8() {
        for label in ["iso-2022-kr", "hz-gb-2312", "csiso2022kr", "iso-2022-cn"] {
            let page = format!("<meta charset={label}><p>Hello, Zürich");
            assert_eq!(sniff(page.as_bytes()), UTF_8, "{label}");
            assert!(decode_html(page.as_bytes()).ends_with("Hello, Zürich"));
        }
        assert_eq!(sniff(b"<meta charset=x-user-defined>"), WINDOWS_1252);
    }

    #[test]
    fn decodes_and_drops_the_byte_order_mark() {
        assert_eq!(decode_html(b"<p>Z\xfcrich"), "<p>Zürich");
        assert_eq!(decode_html(b"\xfe\xff\x00<\x00p\x00>\x00\xe9"), "<p>é");
    }
}
