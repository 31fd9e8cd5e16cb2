//! Ranked search in words: the text of each file is cut into passages on its
//! structure (headings, paragraphs), each passage's words become terms, and a
//! question's terms rank the passages by BM25. Files are put and removed one at a
//! time, so a file written, edited, converted or deleted changes only its own
//! passages, and the version each file was indexed at is kept to tell when it is
//! stale.
//!
//! Everything held is bounded (see the `MAX_` constants): a file past a bound is
//! indexed in part, with a note saying so; an index that is full refuses a file.

mod index;
mod passages;
mod postings;
mod tokens;

pub use index::{Hit, Index, Put, MAX_DIMENSIONS, MAX_VECTOR_BYTES};
pub use passages::{cut, spans, Passage, Span, MAX_PASSAGE_WORDS};
pub use tokens::terms;

/// The most passages an index holds, over all its files.
pub const MAX_PASSAGES: usize = 200_000;
/// The most distinct terms an index holds.
pub const MAX_TERMS: usize = 1_000_000;
/// The most bytes of one file's text that are indexed; the rest is left out.
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;
/// The most bytes of text an index takes in, over all its files.
pub const MAX_INDEX_BYTES: usize = 256 * 1024 * 1024;
/// The most characters of a passage's text kept to show with a hit.
pub const EXCERPT_CHARS: usize = 300;
/// The most hits one search returns.
pub const MAX_LIMIT: usize = 100;
