//! PDF text with lopdf: each page as `## Page N`, its text in the order the page
//! draws it, a new line where the text moves down, a space where it jumps right.
//!
//! Streams are inflated within [`MAX_STREAM`], a page that cannot be read keeps
//! its heading and the others go on, and a panic in the reader becomes a refusal.

mod content;
mod font;
mod form;
mod pen;
mod resources;

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use lopdf::content::Content;
use lopdf::{Document, LoadOptions, Object};

use crate::common::budget::Budget;
use crate::common::out::Out;
use crate::common::refusal::{Converted, Refusal};
use content::each_piece;
use font::{FontText, Fonts};
use pen::{operand, Pen};
use resources::Resources;

pub use content::MAX_STREAM;

const KIND: &str = "PDF";

/// The steps of the budget one content operation takes: lopdf decodes each
/// into objects, about as costly as 16 XML elements (a stream of 9 million
/// `(x) Tj` took 5 seconds), so a page's operations stop at about 3 million,
/// where 2 seconds of CPU time stopped them on a loaded machine.
const OPERATION_STEPS: u64 = 16;

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
    let budget = Budget::new();
    let mut out = Out::new(&budget);
    let mut walk = Walk {
        budget: budget.clone(),
        document: &document,
        form_bytes: 0,
        decoded_bytes: 0,
        draws: 0,
        forms: HashMap::new(),
        drawing: Vec::new(),
        fonts: Fonts::new(&document),
    };
    // Page by page, not `get_pages`: that sizes its list by the tree's own
    // /Count, so a page tree claiming 2^36 pages asked for a terabyte and
    // aborted the process.
    for (number, page) in (1u64..).zip(document.page_iter()) {
        if !(out.heading(&format!("Page {number}")) && budget.step(1)) {
            break;
        }
        page_text(&document, page, &mut out, &mut walk);
    }
    if !out.full() {
        form::form_fields(&document, &mut out);
    }
    // Headings alone mean pages of images: leave them to OCR.
    out.finish_text(KIND)
}

/// The largest form kept decoded between its drawings, and the most bytes of
/// forms so kept: decoded operations take some 35 times their bytes.
const SMALL_FORM: usize = 64 * 1024;
const MAX_DECODED_FORMS: usize = 2 * 1024 * 1024;

/// How deep form XObjects may draw one another.
const MAX_FORM_DEPTH: usize = 8;
/// The most form XObject bytes decoded for one document, all drawings together:
/// a form drawn a million times costs its size a million times.
const MAX_FORM_BYTES: usize = MAX_STREAM;
/// The most form XObjects drawn for one document: each drawing reads the form's
/// fonts again, so even tiny forms drawn millions of times are held back.
const MAX_FORM_DRAWS: usize = 10_000;

/// The state of one document's walk: its form budget and the forms being drawn.
struct Walk<'d> {
    budget: std::rc::Rc<Budget>,
    document: &'d Document,
    form_bytes: usize,
    /// The bytes of the forms kept decoded.
    decoded_bytes: usize,
    draws: usize,
    /// Forms already read: their operations and own resources, read once.
    forms: HashMap<lopdf::ObjectId, Option<Rc<Form<'d>>>>,
    drawing: Vec<lopdf::ObjectId>,
    fonts: Fonts<'d>,
}

/// A form XObject as read once: its content (decoded a piece at a time as it
/// is drawn) and its own fonts and XObjects.
struct Form<'d> {
    content: Vec<u8>,
    /// The operations of a small form, decoded once: a logo drawn on every
    /// page is not decoded again for each.
    decoded: Option<Content>,
    encodings: Rc<BTreeMap<Vec<u8>, Rc<FontText<'d>>>>,
    xobjects: Rc<BTreeMap<Vec<u8>, lopdf::ObjectId>>,
}

/// Writes the text of one page; stops quietly where the page stops making sense.
fn page_text<'d>(
    document: &'d Document,
    page: lopdf::ObjectId,
    out: &mut Out,
    walk: &mut Walk<'d>,
) {
    let Ok(fonts) = document.get_page_fonts(page) else {
        return;
    };
    let encodings = encodings_of(&mut walk.fonts, fonts.into_iter());
    let mut xobjects = BTreeMap::new();
    if let Ok((dict, ids)) = document.get_page_resources(page) {
        let dicts = dict.into_iter().chain(
            ids.iter()
                .filter_map(|id| document.get_dictionary(*id).ok()),
        );
        for resources in dicts {
            for (name, id) in xobject_ids(document, resources) {
                xobjects.entry(name).or_insert(id);
            }
        }
    }
    let content = match document.get_page_content_with_limit(page, MAX_STREAM) {
        Ok(content) => content,
        // Said in the text, so a page too big to read is not taken for a scan.
        Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. })) => {
            out.newline();
            out.text(&format!(
                "[cut: the page's content is over {} MB]",
                MAX_STREAM >> 20
            ));
            out.newline();
            return;
        }
        Err(_) => return,
    };
    let resources = Resources {
        encodings: Rc::new(encodings),
        xobjects: Rc::new(xobjects),
        parent: None,
    };
    let mut pen = Pen::default();
    let budget = walk.budget.clone();
    each_piece(&content, &budget, |operations| {
        walk.run(operations, &resources, &mut pen, out);
        !out.full()
    });
    out.newline();
}

/// How some fonts' codes become text, by resource name.
fn encodings_of<'d>(
    known: &mut Fonts<'d>,
    fonts: impl Iterator<Item = (Vec<u8>, &'d lopdf::Dictionary)>,
) -> BTreeMap<Vec<u8>, Rc<FontText<'d>>> {
    fonts
        .filter_map(|(name, font)| Some((name, known.text_of(font)?)))
        .collect()
}

/// The XObjects a resource dictionary names, with the objects they are.
fn xobject_ids(
    document: &Document,
    resources: &lopdf::Dictionary,
) -> Vec<(Vec<u8>, lopdf::ObjectId)> {
    let Ok(xobjects) = resources.get(b"XObject") else {
        return Vec::new();
    };
    let Ok((_, Object::Dictionary(xobjects))) = document.dereference(xobjects) else {
        return Vec::new();
    };
    xobjects
        .iter()
        .filter_map(|(name, value)| Some((name.clone(), value.as_reference().ok()?)))
        .collect()
}

impl<'d> Walk<'d> {
    /// Shows the text of a content stream, drawing the forms it uses.
    fn run(
        &mut self,
        content: &Content,
        resources: &Resources<'d, '_>,
        pen: &mut Pen,
        out: &mut Out,
    ) {
        for operation in &content.operations {
            if !self.budget.step(OPERATION_STEPS) {
                return;
            }
            let operands = &operation.operands;
            match operation.operator.as_str() {
                "Tf" => {
                    pen.font = operands
                        .first()
                        .and_then(|name| name.as_name().ok())
                        .map(<[u8]>::to_vec);
                    pen.size = operand(operands, 1);
                }
                "Do" => {
                    let name = operands.first().and_then(|name| name.as_name().ok());
                    if let Some(id) = name.and_then(|name| resources.xobject(name)) {
                        self.form(id, resources, pen, out);
                    }
                }
                "Tj" => pen.show(resources, operands.first(), out),
                "'" | "\"" => {
                    if operands.len() == 3 {
                        pen.word_spacing = operand(operands, 0);
                        pen.char_spacing = operand(operands, 1);
                    }
                    pen.next_line(0.0, -pen.leading);
                    pen.new_line = true;
                    // `"` sets spacing first: its string is the third operand.
                    pen.show(resources, operands.last(), out);
                }
                "TJ" => {
                    let Some(Object::Array(items)) = operands.first() else {
                        continue;
                    };
                    for item in items {
                        match item {
                            Object::String(..) => pen.show(resources, Some(item), out),
                            number => {
                                if let Ok(thousandths) = number.as_float() {
                                    pen.adjust(thousandths, out);
                                }
                            }
                        }
                    }
                }
                "BT" => pen.matrix([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
                "Td" => pen.next_line(operand(operands, 0), operand(operands, 1)),
                "TD" => {
                    pen.leading = -operand(operands, 1);
                    pen.next_line(operand(operands, 0), operand(operands, 1));
                }
                "Tm" => pen.matrix(std::array::from_fn(|i| operand(operands, i))),
                "T*" => {
                    pen.next_line(0.0, -pen.leading);
                    pen.new_line = true;
                }
                "TL" => pen.leading = operand(operands, 0),
                "Tc" => pen.char_spacing = operand(operands, 0),
                "Tw" => pen.word_spacing = operand(operands, 0),
                "Tz" => pen.h_scaling = operand(operands, 0) / 100.0,
                _ => {}
            }
            if out.full() {
                return;
            }
        }
    }

    /// Draws form XObject `id`: its text, with its own fonts over the caller's.
    /// Images are passed over; a form drawing itself, forms nested past
    /// [`MAX_FORM_DEPTH`] and forms past the document's budgets
    /// ([`MAX_FORM_BYTES`], [`MAX_FORM_DRAWS`]) are not drawn.
    fn form(
        &mut self,
        id: lopdf::ObjectId,
        outer: &Resources<'d, '_>,
        pen: &mut Pen,
        out: &mut Out,
    ) {
        if self.drawing.len() >= MAX_FORM_DEPTH
            || self.drawing.contains(&id)
            || self.draws >= MAX_FORM_DRAWS
            || self.form_bytes >= MAX_FORM_BYTES
        {
            return;
        }
        self.draws += 1;
        let form = match self.forms.get(&id) {
            Some(form) => form.clone(),
            None => {
                let form = self.read_form(id).map(Rc::new);
                self.forms.insert(id, form.clone());
                form
            }
        };
        let Some(form) = form else {
            return;
        };
        // Each drawing decodes the form again: its bytes count every time.
        self.form_bytes += form.content.len();
        if self.form_bytes > MAX_FORM_BYTES {
            return;
        }
        let resources = Resources {
            encodings: form.encodings.clone(),
            xobjects: form.xobjects.clone(),
            parent: Some(outer),
        };
        self.drawing.push(id);
        // The form draws in its own space: where the last text ended means
        // nothing there.
        pen.moved = true;
        if let Some(shown) = &mut pen.shown {
            shown.end = None;
        }
        if let Some(operations) = &form.decoded {
            self.run(operations, &resources, pen, out);
        } else {
            let budget = self.budget.clone();
            each_piece(&form.content, &budget, |operations| {
                self.run(operations, &resources, pen, out);
                !out.full()
            });
        }
        self.drawing.pop();
    }

    /// Reads form `id` once: None for an image, a broken form or one past the
    /// byte budget.
    fn read_form(&mut self, id: lopdf::ObjectId) -> Option<Form<'d>> {
        let Ok(Object::Stream(stream)) = self.document.get_object(id) else {
            return None;
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form") {
            return None;
        }
        let left = MAX_FORM_BYTES.saturating_sub(self.form_bytes);
        let content = match stream.decompressed_content_with_limit(left) {
            Ok(content) => content,
            Err(_) if stream.dict.get(b"Filter").is_err() && stream.content.len() <= left => {
                stream.content.clone()
            }
            Err(_) => return None,
        };
        let (mut encodings, mut xobjects) = (BTreeMap::new(), BTreeMap::new());
        let own = stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|r| self.document.dereference(r).ok())
            .and_then(|(_, r)| r.as_dict().ok());
        if let Some(own) = own {
            if let Ok(Ok((_, Object::Dictionary(fonts)))) =
                own.get(b"Font").map(|f| self.document.dereference(f))
            {
                let document = self.document;
                let fonts = fonts.iter().filter_map(|(name, font)| {
                    let (_, font) = document.dereference(font).ok()?;
                    Some((name.clone(), font.as_dict().ok()?))
                });
                encodings = encodings_of(&mut self.fonts, fonts);
            }
            xobjects.extend(xobject_ids(self.document, own));
        }
        // Small forms are kept decoded, within a budget of their bytes.
        let decoded = if content.len() <= SMALL_FORM
            && self.decoded_bytes + content.len() <= MAX_DECODED_FORMS
        {
            self.decoded_bytes += content.len();
            Content::decode(&content).ok()
        } else {
            None
        };
        Some(Form {
            content,
            decoded,
            encodings: Rc::new(encodings),
            xobjects: Rc::new(xobjects),
        })
    }
}
