//! What the Office Open XML converters share: a part read out of the package
//! (or the refusal saying it is missing), a tag's relationship id, and the
//! paragraphs, runs and tables of Word's and DrawingML's bodies.

use crate::common::archive::Archive;
use crate::common::out::Out;
use crate::common::refusal::Refusal;
use crate::common::xml::Node;

/// What an Office file is called in a refusal.
pub(crate) const KIND: &str = "Office document";

/// Reads `name` from the archive, or says it is missing.
pub(super) fn part(archive: &mut Archive<'_>, name: &str) -> Result<Vec<u8>, Refusal> {
    archive
        .read(name)?
        .ok_or_else(|| Refusal::unreadable(KIND, format!("{name} is missing or broken")))
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
