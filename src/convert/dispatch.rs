//! Which built-in converter reads a file, and a chain of them tried in order.

use super::{html, office, pdf, Converted, Refusal};

/// One of the built-in converters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`pdf`]: PDF.
    Pdf,
    /// [`office`]: Word, Excel, PowerPoint, OpenDocument and EPUB.
    Office,
    /// [`html`]: HTML.
    Html,
}

impl Kind {
    /// The converter called `name` (`"pdf"`, `"office"`, `"html"`), or `None`.
    pub fn named(name: &str) -> Option<Kind> {
        match name {
            "pdf" => Some(Kind::Pdf),
            "office" => Some(Kind::Office),
            "html" => Some(Kind::Html),
            _ => None,
        }
    }

    /// The text this converter reads from `bytes`, or why there is none.
    pub fn convert(self, bytes: &[u8]) -> Converted {
        match self {
            Kind::Pdf => pdf(bytes),
            Kind::Office => office(bytes),
            Kind::Html => html(bytes),
        }
    }
}

/// Tries each converter of `chain` in order and returns the first text; when none
/// reads the file, the last one's refusal.
///
/// ```
/// use file_store_core::convert::{convert_with, Kind};
/// let text = convert_with(&[Kind::Pdf, Kind::Html], b"<p>Hi</p>").unwrap();
/// assert_eq!(text, "Hi\n");
/// ```
pub fn convert_with(chain: &[Kind], bytes: &[u8]) -> Converted {
    let mut refusal = Refusal::NoText("file");
    for kind in chain {
        match kind.convert(bytes) {
            Ok(text) => return Ok(text),
            Err(why) => refusal = why,
        }
    }
    Err(refusal)
}
