//! PDF text with lopdf: each page as `## Page N`, its text in the order the page
//! draws it, a new line where the text moves down, a space where it jumps right.
//!
//! Streams are inflated within [`MAX_STREAM`], a page that cannot be read keeps
//! its heading and the others go on, and a panic in the reader becomes a refusal.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use lopdf::content::Content;
use lopdf::{Document, Encoding, LoadOptions, Object};

use super::out::Out;
use super::{Converted, Refusal};

const KIND: &str = "PDF";

/// The most bytes one stream (a page's content, a font's map) may inflate to.
pub const MAX_STREAM: usize = 64 * 1024 * 1024;

/// A kerning gap (in thousandths of an em) wide enough to be a space between words.
const WORD_GAP: f32 = 200.0;

/// The text of the PDF in `bytes`.
pub fn pdf(bytes: &[u8]) -> Converted {
    catch_unwind(AssertUnwindSafe(|| read(bytes)))
        .unwrap_or_else(|_| Err(Refusal::unreadable(KIND, "the PDF reader failed on it")))
}

fn read(bytes: &[u8]) -> Converted {
    if !bytes.starts_with(b"%PDF") {
        return Err(Refusal::unreadable(KIND, "no %PDF header"));
    }
    let options = LoadOptions::with_max_decompressed_size(MAX_STREAM);
    let document = Document::load_mem_with_options(bytes, options)
        .map_err(|e| Refusal::unreadable(KIND, e))?;
    let mut out = Out::default();
    for (number, page) in document.get_pages() {
        if !out.heading(&format!("Page {number}")) {
            break;
        }
        page_text(&document, page, &mut out);
    }
    // Headings alone mean pages of images: leave them to OCR.
    out.finish_text(KIND)
}

/// Writes the text of one page; stops quietly where the page stops making sense.
fn page_text(document: &Document, page: lopdf::ObjectId, out: &mut Out) {
    let Ok(fonts) = document.get_page_fonts(page) else {
        return;
    };
    let encodings: BTreeMap<Vec<u8>, Encoding<'_>> = fonts
        .into_iter()
        .filter_map(|(name, font)| {
            let encoding = font
                .get_font_encoding_with_limit(document, MAX_STREAM)
                .ok()?;
            Some((name, encoding))
        })
        .collect();
    let Ok(content) = document.get_page_content_with_limit(page, MAX_STREAM) else {
        return;
    };
    let Ok(content) = Content::decode(&content) else {
        return;
    };
    let mut pen = Pen::default();
    for operation in &content.operations {
        let operands = &operation.operands;
        match operation.operator.as_str() {
            "Tf" => {
                pen.encoding = operands
                    .first()
                    .and_then(|name| name.as_name().ok())
                    .and_then(|name| encodings.get(name));
            }
            "Tj" => pen.show(operands.first(), out),
            "'" | "\"" => {
                pen.y -= 1.0;
                // `"` sets spacing first: its string is the third operand.
                pen.show(operands.last(), out);
            }
            "TJ" => {
                let Some(Object::Array(items)) = operands.first() else {
                    continue;
                };
                for item in items {
                    match item {
                        Object::String(..) => pen.show(Some(item), out),
                        // A negative number moves the next glyph right.
                        number => {
                            if number.as_float().is_ok_and(|gap| -gap > WORD_GAP) {
                                space(out);
                            }
                        }
                    }
                }
            }
            "BT" => {
                pen.y = 0.0;
                pen.moved = true;
            }
            "Td" | "TD" => {
                pen.y += operand(operands, 1);
                pen.moved = true;
            }
            "Tm" => {
                pen.y = operand(operands, 5);
                pen.moved = true;
            }
            // Next line: any change of baseline will do.
            "T*" => pen.y -= 1.0,
            _ => {}
        }
        if out.full() {
            return;
        }
    }
    out.newline();
}

fn operand(operands: &[Object], index: usize) -> f32 {
    operands
        .get(index)
        .and_then(|n| n.as_float().ok())
        .unwrap_or(0.0)
}

fn space(out: &mut Out) {
    if !out.after_space() {
        out.push(" ");
    }
}

/// Where the text is: the font's encoding, the height of the baseline (in text
/// space, enough to tell one line from the next), and where text was last shown.
#[derive(Default)]
struct Pen<'d> {
    encoding: Option<&'d Encoding<'d>>,
    y: f32,
    /// The baseline and the position of the last text shown.
    shown: Option<f32>,
    moved: bool,
}

impl Pen<'_> {
    /// Writes a string operand in the current font's encoding: on a new line
    /// when the baseline changed, after a space when the position jumped along it.
    fn show(&mut self, operand: Option<&Object>, out: &mut Out) {
        let (Some(encoding), Some(Object::String(bytes, _))) = (self.encoding, operand) else {
            return;
        };
        let mut text = String::new();
        if encoding.write_to_string(bytes, &mut text).is_err() {
            return;
        }
        match self.shown {
            Some(y) if (y - self.y).abs() > 0.01 => {
                out.newline();
            }
            Some(_) if self.moved => space(out),
            _ => {}
        }
        self.shown = Some(self.y);
        self.moved = false;
        out.text(&text);
    }
}
