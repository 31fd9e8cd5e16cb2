//! How a PDF font's codes become text: lopdf's encodings, and for a Type 1 font
//! that names none (TeX's Computer Modern fonts, for one) the encoding built
//! into the embedded font program, which lopdf would read as Standard encoding
//! (losing `ﬁ`, quotes and every mathematical symbol).
//!
//! Each font is read once per document; the font programs read for their
//! encodings share a budget of [`MAX_PROGRAM_BYTES`], and only their clear-text
//! part (a few kilobytes) is inflated.

use std::collections::HashMap;
use std::io::Read;
use std::rc::Rc;

use lopdf::{Dictionary, Document, Encoding, Object};

use super::pdf::MAX_STREAM;

/// The most clear-text font program bytes inflated for one document.
const MAX_PROGRAM_BYTES: usize = 16 * 1024 * 1024;
/// The most clear-text bytes read from one font program: its encoding comes
/// early, after a header of a few hundred bytes.
const MAX_CLEAR_TEXT: usize = 256 * 1024;

/// What turns a font's codes into text.
pub enum FontText<'d> {
    Encoding(Encoding<'d>),
    /// The font program's own encoding: the text of each one-byte code.
    Builtin(Box<[Option<char>; 256]>),
}

impl FontText<'_> {
    /// Appends the text of `bytes`; false when the font cannot say.
    pub fn write(&self, bytes: &[u8], out: &mut String) -> bool {
        match self {
            FontText::Encoding(encoding) => encoding.write_to_string(bytes, out).is_ok(),
            FontText::Builtin(codes) => {
                out.extend(bytes.iter().filter_map(|&b| codes[b as usize]));
                true
            }
        }
    }
}

/// The fonts of one document, each read once.
pub struct Fonts<'d> {
    document: &'d Document,
    /// By the font dictionary's address: the document does not change while read.
    read: HashMap<*const Dictionary, Option<Rc<FontText<'d>>>>,
    program_bytes: usize,
}

impl<'d> Fonts<'d> {
    pub fn new(document: &'d Document) -> Self {
        Fonts {
            document,
            read: HashMap::new(),
            program_bytes: 0,
        }
    }

    /// How `font`'s codes become text, or None when lopdf cannot read it.
    pub fn text_of(&mut self, font: &'d Dictionary) -> Option<Rc<FontText<'d>>> {
        let key = font as *const Dictionary;
        if let Some(known) = self.read.get(&key) {
            return known.clone();
        }
        let text = self.builtin(font).map(FontText::Builtin).or_else(|| {
            font.get_font_encoding_with_limit(self.document, MAX_STREAM)
                .ok()
                .map(FontText::Encoding)
        });
        let text = text.map(Rc::new);
        self.read.insert(key, text.clone());
        text
    }

    /// The encoding of a Type 1 font's embedded program, for a font that names
    /// no encoding and no Unicode map.
    fn builtin(&mut self, font: &Dictionary) -> Option<Box<[Option<char>; 256]>> {
        if font.has(b"Encoding") || font.has(b"ToUnicode") {
            return None;
        }
        let subtype = font.get(b"Subtype").and_then(Object::as_name).ok()?;
        if subtype != b"Type1" && subtype != b"MMType1" {
            return None;
        }
        let descriptor = font.get_deref(b"FontDescriptor", self.document).ok()?;
        let program = descriptor
            .as_dict()
            .ok()?
            .get_deref(b"FontFile", self.document)
            .ok()?
            .as_stream()
            .ok()?;
        let budget = MAX_PROGRAM_BYTES.saturating_sub(self.program_bytes);
        let clear = clear_text(program, budget.min(MAX_CLEAR_TEXT))?;
        self.program_bytes += clear.len();
        builtin_encoding(&clear)
    }
}

/// The clear-text part of a Type 1 font program (`Length1` bytes), at most
/// `limit` bytes of it, inflated only that far.
fn clear_text(program: &lopdf::Stream, limit: usize) -> Option<Vec<u8>> {
    let length = program
        .dict
        .get(b"Length1")
        .and_then(Object::as_i64)
        .ok()
        .and_then(|n| usize::try_from(n).ok())
        .map_or(limit, |n| n.min(limit));
    let mut clear = Vec::new();
    match program.dict.get(b"Filter").ok() {
        None => clear.extend_from_slice(&program.content[..length.min(program.content.len())]),
        Some(filter) => {
            let flate = match filter {
                Object::Name(name) => name == b"FlateDecode",
                Object::Array(filters) => {
                    filters.len() == 1 && filters[0].as_name().ok() == Some(b"FlateDecode")
                }
                _ => false,
            };
            if !flate {
                return None;
            }
            // A stream cut short still gives the text before the cut.
            let _ = flate2::read::ZlibDecoder::new(&program.content[..])
                .take(length as u64)
                .read_to_end(&mut clear);
        }
    }
    Some(clear)
}

/// The codes a Type 1 program's `/Encoding` array gives glyph names
/// (`dup 12 /fi put`), as text; None for `StandardEncoding` or no array.
fn builtin_encoding(clear: &[u8]) -> Option<Box<[Option<char>; 256]>> {
    let at = find(clear, b"/Encoding")? + b"/Encoding".len();
    let rest = &clear[at..];
    let end = find(rest, b"readonly def")
        .or_else(|| find(rest, b"eexec"))
        .unwrap_or(rest.len());
    let mut codes = Box::new([None; 256]);
    let mut names: HashMap<&[u8], Option<char>> = HashMap::new();
    let mut tokens = rest[..end]
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty());
    let mut any = false;
    while let Some(token) = tokens.next() {
        if token != b"dup" {
            continue;
        }
        let code = tokens
            .next()
            .and_then(|t| std::str::from_utf8(t).ok()?.parse::<u8>().ok());
        let name = tokens.next().and_then(|t| t.strip_prefix(b"/"));
        let (Some(code), Some(name)) = (code, name) else {
            continue;
        };
        let text = *names.entry(name).or_insert_with(|| glyph_char(name));
        codes[code as usize] = text;
        any |= text.is_some();
    }
    any.then_some(codes)
}

/// The character a glyph name stands for: lopdf's glyph list, or `uniXXXX`.
fn glyph_char(name: &[u8]) -> Option<char> {
    if let Some(hex) = name.strip_prefix(b"uni").filter(|h| h.len() == 4) {
        let code = u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
        return char::from_u32(code);
    }
    // lopdf reads glyph names only in an encoding's Differences: ask it through
    // a font of one difference, which it refuses for a name it does not know.
    let mut encoding = Dictionary::new();
    encoding.set(
        "Differences",
        vec![Object::Integer(65), Object::Name(name.to_vec())],
    );
    let mut font = Dictionary::new();
    font.set("Type", Object::Name(b"Font".to_vec()));
    font.set("Encoding", Object::Dictionary(encoding));
    let document = Document::new();
    let Ok(Encoding::Differences(differences)) = font.get_font_encoding(&document) else {
        return None;
    };
    let text = Encoding::Differences(differences)
        .bytes_to_string(b"A")
        .ok()?;
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_type1_programs_own_encoding() {
        let clear = b"%!PS-AdobeFont-1.0: CMR10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n\
dup 12 /fi put\ndup 92 /quotedblleft put\ndup 65 /A put\ndup 20 /lessequal put\ndup 21 /nosuchglyph put\nreadonly def\ncurrentfile eexec";
        let codes = builtin_encoding(clear).unwrap();
        assert_eq!(codes[12], Some('\u{fb01}'));
        assert_eq!(codes[92], Some('\u{201c}'));
        assert_eq!(codes[65], Some('A'));
        assert_eq!(codes[20], Some('\u{2264}'));
        assert_eq!(codes[21], None);
        assert_eq!(codes[66], None);
    }

    #[test]
    fn standard_encoding_is_left_to_lopdf() {
        assert!(builtin_encoding(b"/Encoding StandardEncoding def currentfile eexec").is_none());
    }
}
