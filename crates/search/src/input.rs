//! What a search is given, and what it gives back.

use std::fs::File;
use std::io;
use std::sync::Arc;

/// A matching or context line longer than this many characters is cut with a marker.
pub const MAX_LINE_CHARS: usize = 2000;

/// What to search for and how much to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchOptions {
    /// A regular expression (Rust `regex` syntax, linear time), or a literal string.
    pub pattern: String,
    /// Whether `pattern` is a literal string rather than a regex.
    pub literal: bool,
    /// Whether letter case is ignored.
    pub ignore_case: bool,
    /// How many lines of context to show before and after each matching line.
    pub context: usize,
    /// How many matching lines to show at most, over all inputs.
    pub max_matches: usize,
}

/// Where an input's bytes come from.
pub enum Source {
    /// Bytes already in memory.
    Bytes(Shared),
    /// A converted text that was cut short, and why (the converter's `[cut: why]`):
    /// searched like bytes, and named in [`SearchOutput::partial_shown`].
    Cut(Shared, String),
    /// A file, opened on the worker thread that searches it; one that fails to open is
    /// skipped.
    File(Box<dyn FnOnce() -> io::Result<File> + Send>),
    /// A file opened already, with the size it had then: its reading stops
    /// there, without one more read to find the end, unless the file has grown.
    Open(File, u64),
    /// Work done on the worker thread (opening a file, converting it) that gives the
    /// source to search, or why the input is skipped (`"has no text converter"`).
    Lazy(Box<dyn FnOnce() -> std::result::Result<Source, String> + Send>),
}

/// Bytes in memory shared with their owner, never copied: a converted text the
/// cache keeps (up to 64 MB) is searched where it is.
#[derive(Clone)]
pub enum Shared {
    Bytes(Arc<[u8]>),
    Text(Arc<String>),
}

impl std::ops::Deref for Shared {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Shared::Bytes(bytes) => bytes,
            Shared::Text(text) => text.as_bytes(),
        }
    }
}

impl From<Arc<[u8]>> for Shared {
    fn from(bytes: Arc<[u8]>) -> Shared {
        Shared::Bytes(bytes)
    }
}

impl From<Arc<String>> for Shared {
    fn from(text: Arc<String>) -> Shared {
        Shared::Text(text)
    }
}

impl From<Vec<u8>> for Shared {
    fn from(bytes: Vec<u8>) -> Shared {
        Shared::Bytes(bytes.into())
    }
}

impl From<&[u8]> for Shared {
    fn from(bytes: &[u8]) -> Shared {
        Shared::Bytes(bytes.into())
    }
}

impl From<&str> for Shared {
    fn from(text: &str) -> Shared {
        Shared::Bytes(text.as_bytes().into())
    }
}

/// One input to search: the path shown in the output, and its bytes.
pub struct SearchInput {
    /// The path printed before each line of this input.
    pub path: String,
    /// The bytes to search.
    pub source: Source,
}

/// The result of a search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchOutput {
    /// The lines shown, `path:LINE: text` for matches and `path-LINE- text` for
    /// context, with `--` between groups when context is asked for.
    pub text: String,
    /// How many matching lines `text` shows.
    pub shown: usize,
    /// How many lines matched over all inputs, shown or not.
    pub total_matches: usize,
    /// How many inputs had at least one matching line.
    pub files_matched: usize,
    /// How many inputs were skipped: binary, unreadable, or with no text.
    pub skipped: usize,
    /// The first [`MAX_SKIPPED_SHOWN`] skipped inputs, in input order: the path and
    /// why, as a predicate (`"is binary"`).
    pub skipped_shown: Vec<(String, String)>,
    /// How many inputs were searched only in part: texts their converter cut.
    pub partial: usize,
    /// The first [`MAX_SKIPPED_SHOWN`] of them, in input order: the path and why the
    /// text was cut (`"the document expands past 64 MB of text"`).
    pub partial_shown: Vec<(String, String)>,
}

/// How many skipped inputs a search names; the rest are counted.
pub const MAX_SKIPPED_SHOWN: usize = 10;
