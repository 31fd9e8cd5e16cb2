//! Why a converter gave no text, and what a converter returns.

use super::budget::{MAX_ENTRIES, MAX_UNCOMPRESSED};

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
    /// An archive with more entries than [`MAX_ENTRIES`].
    #[error("the archive has {0} entries, more than {max}", max = MAX_ENTRIES)]
    TooManyEntries(usize),
    /// An archive that uncompresses past [`MAX_UNCOMPRESSED`].
    #[error("the archive uncompresses to more than {max} bytes", max = MAX_UNCOMPRESSED)]
    TooLarge,
    /// The worker converting the document was stopped: it needed more memory or
    /// CPU time than a conversion may have, or failed.
    #[error("{0}")]
    Stopped(String),
}

impl Refusal {
    pub(crate) fn unreadable(kind: &'static str, why: impl std::fmt::Display) -> Self {
        Refusal::Unreadable(kind, why.to_string())
    }
}

/// What a converter returns.
pub type Converted = std::result::Result<String, Refusal>;
