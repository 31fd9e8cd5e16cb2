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

use super::content::MAX_STREAM;

/// The most clear-text font program bytes inflated for one document.
const MAX_PROGRAM_BYTES: usize = 16 * 1024 * 1024;
/// The most clear-text bytes read from one font program: its encoding comes
/// early, after a header of a few hundred bytes.
const MAX_CLEAR_TEXT: usize = 256 * 1024;

/// What turns a font's codes into text.
enum Codes<'d> {
    Encoding(Encoding<'d>),
    /// The font program's own encoding: the text of each one-byte code.
    Builtin(Box<[Option<char>; 256]>),
    /// A simple font's ToUnicode map over its encoding: the text of each
    /// one-byte code.
    Table(Vec<Option<Box<str>>>),
}

/// A font as text showing needs it: its codes' text and, where the font says,
/// their widths (which tell a space between words from a letter's neighbour).
pub struct FontText<'d> {
    codes: Codes<'d>,
    widths: Option<Widths>,
}

/// Glyph widths in thousandths of an em, by code.
enum Widths {
    /// A simple font: one-byte codes from `first`.
    Simple { first: u32, widths: Vec<f32> },
    /// A Type 0 font with two-byte codes (Identity-H or -V): ranges of codes
    /// `(first, last, width)`, sorted, and the width of the codes not in them.
    Composite {
        ranges: Vec<(u32, u32, f32)>,
        default: f32,
    },
}

/// What a string's glyphs add up to, for the pen to advance by.
pub struct Advance {
    /// The sum of the glyphs' widths, in ems.
    pub ems: f32,
    pub glyphs: usize,
    /// One-byte code 32, which word spacing widens.
    pub spaces: usize,
}

impl FontText<'_> {
    /// Appends the text of `bytes`; false when the font cannot say.
    pub fn write(&self, bytes: &[u8], out: &mut String) -> bool {
        match &self.codes {
            Codes::Encoding(encoding) => encoding.write_to_string(bytes, out).is_ok(),
            Codes::Builtin(codes) => {
                out.extend(bytes.iter().filter_map(|&b| codes[b as usize]));
                true
            }
            Codes::Table(codes) => {
                for &b in bytes {
                    out.push_str(codes[b as usize].as_deref().unwrap_or_default());
                }
                true
            }
        }
    }

    /// How far `bytes` move the pen, or None when the font gives no widths.
    pub fn advance(&self, bytes: &[u8]) -> Option<Advance> {
        let mut advance = Advance {
            ems: 0.0,
            glyphs: 0,
            spaces: 0,
        };
        match self.widths.as_ref()? {
            Widths::Simple { first, widths } => {
                for &b in bytes {
                    let at = (b as u32).checked_sub(*first).map(|i| i as usize);
                    advance.ems += at.and_then(|i| widths.get(i)).copied().unwrap_or(0.0) / 1000.0;
                    advance.glyphs += 1;
                    advance.spaces += usize::from(b == b' ');
                }
            }
            Widths::Composite { ranges, default } => {
                for pair in bytes.chunks(2) {
                    let code = pair.iter().fold(0u32, |code, &b| code << 8 | b as u32);
                    let at = ranges.partition_point(|&(first, _, _)| first <= code);
                    let width = at
                        .checked_sub(1)
                        .map(|i| ranges[i])
                        .filter(|&(_, last, _)| code <= last)
                        .map_or(*default, |(_, _, width)| width);
                    advance.ems += width / 1000.0;
                    advance.glyphs += 1;
                }
            }
        }
        Some(advance)
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
        let codes = match self.builtin(font) {
            Some(builtin) => Some(Codes::Builtin(builtin)),
            None => {
                let encoding = font
                    .get_font_encoding_with_limit(self.document, MAX_STREAM)
                    .ok();
                match self.unicode_over(font, encoding.as_ref()) {
                    Some(table) => Some(Codes::Table(table)),
                    None => encoding.map(Codes::Encoding),
                }
            }
        };
        let text = codes.map(|codes| {
            Rc::new(FontText {
                codes,
                widths: widths(self.document, font),
            })
        });
        self.read.insert(key, text.clone());
        text
    }

    /// For a simple font with both an `Encoding` and a `ToUnicode` map (lopdf
    /// reads only the first), the text of each code: the map's where it has
    /// one, as the PDF specification asks, else the encoding's. An encoding
    /// whose glyph names lopdf does not know falls back to Standard in lopdf,
    /// which the map corrects. None for other fonts.
    fn unicode_over(
        &self,
        font: &Dictionary,
        encoding: Option<&Encoding<'_>>,
    ) -> Option<Vec<Option<Box<str>>>> {
        let simple = matches!(
            font.get(b"Subtype").and_then(Object::as_name),
            Ok(b"Type1" | b"MMType1" | b"TrueType")
        );
        let map = font
            .get(b"ToUnicode")
            .ok()
            .filter(|_| simple && font.has(b"Encoding"))?;
        // lopdf reads a ToUnicode map for a font with no Encoding: ask it so.
        let mut only = Dictionary::new();
        only.set("Type", Object::Name(b"Font".to_vec()));
        only.set("ToUnicode", map.clone());
        let Ok(Encoding::UnicodeMapEncoding(map)) =
            only.get_font_encoding_with_limit(self.document, MAX_STREAM)
        else {
            return None;
        };
        let map = Encoding::UnicodeMapEncoding(map);
        let table = (0..=255u8)
            .map(|code| {
                let mapped = map
                    .bytes_to_string(&[code])
                    .ok()
                    .filter(|t| !t.contains('\u{fffd}'));
                let text = mapped.or_else(|| encoding?.bytes_to_string(&[code]).ok());
                text.filter(|t| !t.is_empty()).map(String::into_boxed_str)
            })
            .collect();
        Some(table)
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

/// A font's glyph widths, where it gives them: `Widths` of a simple font, `W`
/// and `DW` of a Type 0 font's descendant with two-byte codes. Type 3 fonts
/// (widths in their own units) and the standard fonts (no widths) give None.
fn widths(document: &Document, font: &Dictionary) -> Option<Widths> {
    let number = |object: &Object| object.as_float().ok();
    match font.get(b"Subtype").and_then(Object::as_name).ok()? {
        b"Type1" | b"MMType1" | b"TrueType" => {
            let first = font.get(b"FirstChar").and_then(Object::as_i64).ok()?;
            let widths = font.get_deref(b"Widths", document).ok()?.as_array().ok()?;
            let widths = widths
                .iter()
                .map(|w| document.dereference(w).ok().and_then(|(_, w)| number(w)))
                .collect::<Option<Vec<f32>>>()?;
            Some(Widths::Simple {
                first: u32::try_from(first).ok()?,
                widths,
            })
        }
        b"Type0" => {
            let encoding = font.get(b"Encoding").and_then(Object::as_name).ok()?;
            if encoding != b"Identity-H" && encoding != b"Identity-V" {
                return None;
            }
            let descendants = font.get_deref(b"DescendantFonts", document).ok()?;
            let descendant = document
                .dereference(descendants.as_array().ok()?.first()?)
                .ok()?
                .1
                .as_dict()
                .ok()?;
            let default = descendant
                .get_deref(b"DW", document)
                .ok()
                .and_then(number)
                .unwrap_or(1000.0);
            let mut ranges = Vec::new();
            if let Ok(w) = descendant
                .get_deref(b"W", document)
                .and_then(Object::as_array)
            {
                let mut items = w
                    .iter()
                    .filter_map(|item| document.dereference(item).ok().map(|(_, o)| o));
                while let Some(first) = items.next().and_then(|o| o.as_i64().ok()) {
                    let first = u32::try_from(first).ok()?;
                    match items.next()? {
                        Object::Array(list) => {
                            for (i, width) in list.iter().enumerate() {
                                let code = first.checked_add(u32::try_from(i).ok()?)?;
                                ranges.push((code, code, number(width)?));
                            }
                        }
                        last => {
                            let last = u32::try_from(last.as_i64().ok()?).ok()?;
                            ranges.push((first, last, number(items.next()?)?));
                        }
                    }
                }
            }
            ranges.sort_by_key(|&(first, _, _)| first);
            Some(Widths::Composite { ranges, default })
        }
        _ => None,
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
    let scratch = Document::new();
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
        let text = *names
            .entry(name)
            .or_insert_with(|| glyph_char(&scratch, name));
        codes[code as usize] = text;
        any |= text.is_some();
    }
    any.then_some(codes)
}

/// The character a glyph name stands for: lopdf's glyph list, or `uniXXXX`.
/// `scratch` is an empty document for lopdf to read a font in.
fn glyph_char(scratch: &Document, name: &[u8]) -> Option<char> {
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
    let Ok(Encoding::Differences(differences)) = font.get_font_encoding(scratch) else {
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
