//! Documents to text. The converters are the `file_store_convert` crate's, and
//! they run in its worker processes ([`pool`]), never in this one; what they
//! made of a file's version is kept ([`cache`]). Code runs go through the same
//! supervisor as the workers, each in a host process of its own ([`runs`]).

pub mod cache;
pub mod pool;
pub mod runs;

pub use file_store_convert::{budget, Converted, Kind, Refusal, MAX_OUTPUT};

/// Why a converted `text` was cut short: the `why` of its last line, `[cut: why]`,
/// which every converter ends a cut text with.
///
/// ```
/// use file_store_documents::cut_reason;
/// assert_eq!(cut_reason("a\n[cut: too long]\n"), Some("too long"));
/// assert_eq!(cut_reason("a\n"), None);
/// ```
pub fn cut_reason(text: &str) -> Option<&str> {
    let last = text.trim_end_matches('\n').rsplit('\n').next()?;
    last.strip_prefix("[cut: ")?.strip_suffix(']')
}
