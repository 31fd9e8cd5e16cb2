//! Office Open XML: Word paragraphs and tables, PowerPoint slides in order, and
//! (in `excel`) Excel sheets. The archive is read through [`Archive`], the XML
//! streamed once.

use std::rc::Rc;

use super::{epub, excel, odf, word};
use crate::convert::common::archive::Archive;
use crate::convert::common::budget::Budget;
use crate::convert::common::out::Out;
use crate::convert::common::refusal::{Converted, Refusal};
use crate::convert::common::xml::{self, Node};

pub(super) const KIND: &str = "Office document";

/// The text of a .docx, .xlsx or .pptx file, an OpenDocument file (.odt, .ods,
/// .odp, zipped or flat) or an EPUB book.
pub fn office(bytes: &[u8]) -> Converted {
    let budget = Budget::new();
    let converted = read(bytes, &budget);
    match (converted, budget.marker()) {
        // A part the budget stopped short is no broken file: say it was cut.
        (Err(Refusal::Unreadable(..) | Refusal::NoText(_)), Some(marker)) => Ok(marker + "\n"),
        (converted, _) => converted,
    }
}

fn read(bytes: &[u8], budget: &Rc<Budget>) -> Converted {
    if odf::is_flat(bytes) {
        return odf::flat(bytes, budget);
    }
    let mut archive = Archive::open(bytes, KIND, budget)?;
    if archive.has("word/document.xml") {
        word::word(&mut archive)
    } else if archive.has("xl/workbook.xml") {
        excel::excel(&mut archive)
    } else if archive.has("ppt/presentation.xml") {
        slides(&mut archive)
    } else if archive.has("content.xml") {
        odf::odf(&mut archive)
    } else if archive.has("META-INF/container.xml") {
        epub::epub(&mut archive)
    } else {
        Err(Refusal::unreadable(
            KIND,
            "no Word, Excel, PowerPoint, OpenDocument or EPUB part",
        ))
    }
}

/// Reads `name` from the archive, or says it is missing.
pub(super) fn part(archive: &mut Archive<'_>, name: &str) -> Result<Vec<u8>, Refusal> {
    archive
        .read(name)?
        .ok_or_else(|| Refusal::unreadable(KIND, format!("{name} is missing or broken")))
}

fn slides(archive: &mut Archive<'_>) -> Converted {
    let budget = archive.budget().clone();
    let presentation = part(archive, "ppt/presentation.xml")?;
    let rels = archive
        .read("ppt/_rels/presentation.xml.rels")?
        .map(|r| xml::relationships(&r, "ppt", &budget))
        .unwrap_or_default();
    let mut order = Vec::new();
    // Each slide once: a presentation listing one slide a million times read
    // it a million times.
    let mut listed = std::collections::HashSet::new();
    xml::walk(&presentation, &budget, |node| {
        if let Node::Open("sldId", tag) = node {
            if let Some(path) = attr_rid(tag).and_then(|id| rels.get(&id)) {
                if listed.insert(path.as_str()) {
                    order.push(path.clone());
                }
            }
        }
        true
    });
    let mut out = Out::new(&budget);
    for (number, path) in order.iter().enumerate() {
        if !out.heading(&format!("Slide {}", number + 1)) {
            break;
        }
        // A slide that cannot be read leaves its heading, and the rest go on.
        if let Some(slide) = archive.read(path)? {
            let mut body = Body::new("t", "p");
            xml::walk(&slide, &budget, |node| body.visit(node, &mut out));
        }
    }
    out.finish_text(KIND)
}

/// The relationship id (`r:id`) of a tag.
pub(super) fn attr_rid(tag: &quick_xml::events::BytesStart<'_>) -> Option<String> {
    tag.attributes()
        .flatten()
        .find(|a| a.key.as_ref() != "id" && a.key.local_name().into_inner() == "id")
        .map(|a| a.value.into_owned())
}

/// Paragraphs, runs and tables as Word (`w:`) and DrawingML (`a:`) write them:
/// text only inside the text element, a line per paragraph, a line per table row
/// with its cells separated by ` | `.
pub(super) struct Body {
    text: &'static str,
    paragraph: &'static str,
    in_text: bool,
    /// Per open table row: whether a cell has been seen in it yet.
    rows: Vec<bool>,
    /// The depth of open cells; a paragraph inside one does not end the line.
    cells: usize,
    /// A paragraph ended inside a cell: a space before the next text in it.
    pending_space: bool,
}

impl Body {
    pub(super) fn new(text: &'static str, paragraph: &'static str) -> Self {
        Body {
            text,
            paragraph,
            in_text: false,
            rows: Vec::new(),
            cells: 0,
            pending_space: false,
        }
    }

    pub(super) fn visit(&mut self, node: Node<'_, '_>, out: &mut Out) -> bool {
        match node {
            Node::Open(name, _) if name == self.text => self.in_text = true,
            Node::Close(name) if name == self.text => self.in_text = false,
            Node::Text(text) if self.in_text => {
                if std::mem::take(&mut self.pending_space) && !out.after_space() {
                    out.push(" ");
                }
                return out.text(text);
            }
            Node::Open("tab", _) => return out.push("\t"),
            Node::Open("br" | "cr", _) if self.cells == 0 => return out.newline(),
            Node::Open("br" | "cr", _) => return out.push(" "),
            Node::Open("tr", _) => {
                self.rows.push(false);
                return out.newline();
            }
            Node::Close("tr") => {
                self.rows.pop();
                return out.newline();
            }
            Node::Open("tc", _) => {
                self.cells += 1;
                self.pending_space = false;
                if let Some(seen) = self.rows.last_mut() {
                    if std::mem::replace(seen, true) {
                        return out.push(" | ");
                    }
                }
            }
            Node::Close("tc") => {
                self.cells = self.cells.saturating_sub(1);
                self.pending_space = false;
            }
            // Paragraphs in one cell stay on the row's line.
            Node::Close(name) if name == self.paragraph && self.cells > 0 => {
                self.pending_space = true
            }
            Node::Close(name) if name == self.paragraph => return out.newline(),
            _ => {}
        }
        !out.full()
    }
}
