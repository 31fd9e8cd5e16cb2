//! Text from documents a model cannot read as they are: PDF, Word, Excel,
//! PowerPoint and HTML, read locally in time linear in the input.
//!
//! Each converter takes the file's bytes and gives its text, or a [`Refusal`]
//! saying why not. Hostile input ends quickly: archives are read through
//! [`archive::Archive`], which caps entries and uncompressed bytes; each
//! conversion draws on one [`budget::Budget`] of text ([`MAX_OUTPUT`]), work
//! ([`budget::MAX_WORK`]) and time ([`budget::MAX_TIME`]), past which the
//! converter stops and returns what it has, ending `[cut: why]`.
//!
//! ```
//! let html = b"<p>Hello <b>there</b></p><script>alert(1)</script><p>Bye</p>";
//! assert_eq!(file_store_core::convert::html(html).unwrap(), "Hello there\nBye\n");
//! ```

pub mod archive;
pub mod budget;
pub mod cache;
mod charset;
mod dates;
mod dispatch;
mod epub;
mod excel;
pub mod html;
mod odf;
mod office;
mod out;
pub mod pdf;
mod pdf_content;
mod pdf_font;
mod pdf_form;
mod pdf_pen;
mod word;
mod xml;

pub use dispatch::{convert_with, Kind};
pub use html::html;
pub use office::office;
pub use pdf::pdf;

pub use budget::MAX_OUTPUT;

/// Why a converter gave no text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The bytes are not a file of this kind, or are broken past reading.
    #[error("not a readable {0}: {1}")]
    Unreadable(&'static str, String),
    /// A file with no text in it, such as a scanned PDF or an empty document:
    /// the next converter (OCR, say) may read it.
    #[error("the {0} has no text")]
    NoText(&'static str),
    /// An archive with more entries than [`archive::MAX_ENTRIES`].
    #[error("the archive has {0} entries, more than {max}", max = archive::MAX_ENTRIES)]
    TooManyEntries(usize),
    /// An archive that uncompresses past [`archive::MAX_UNCOMPRESSED`].
    #[error("the archive uncompresses to more than {max} bytes", max = archive::MAX_UNCOMPRESSED)]
    TooLarge,
}

impl Refusal {
    pub(crate) fn unreadable(kind: &'static str, why: impl std::fmt::Display) -> Self {
        Refusal::Unreadable(kind, why.to_string())
    }
}

/// What a converter returns.
pub type Converted = std::result::Result<String, Refusal>;
