//! Exact, byte-preserving edits: one span of a file (or every copy of it) replaced,
//! every other byte left as it was.

use std::borrow::Cow;
use std::fmt;

use memchr::memmem;

use crate::text::{number_line, truncate_line};

/// Lines longer than this many characters are cut in the `changed` display.
const SHOW_LINE_CHARS: usize = 2000;
/// Lines of context shown around each change.
const CONTEXT: usize = 2;
/// At most this many groups of changed lines are shown.
const MAX_GROUPS: usize = 20;
/// How many closest lines a failed match suggests.
const CLOSEST: usize = 5;
/// Lines longer than this (in characters) are not compared for closeness.
const CLOSEST_LINE_CHARS: usize = 500;
/// Only the first this many bytes of a file are searched for close lines.
const CLOSEST_SCAN_BYTES: usize = 8 << 20;
/// A line must be at least this similar (0 to 1) to be suggested.
const CLOSEST_MIN_SCORE: f64 = 0.3;
/// At most this many line numbers are listed for an ambiguous match.
const LIST_LINES: usize = 10;

/// A successful edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The whole new content.
    pub content: Vec<u8>,
    /// How many spans were replaced.
    pub replacements: usize,
    /// The changed lines after the edit, numbered `cat -n` style, with two lines of
    /// context either side and `...` between groups.
    pub changed: String,
}

/// Why an edit was refused. Messages are meant for the model and do not start with
/// "Error:".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditError {
    /// `old_text` is empty.
    Empty,
    /// `old_text` and `new_text` are the same.
    Same,
    /// `old_text` is not in the file; `closest` holds up to five numbered lines most
    /// like its first non-blank line (empty when none is close).
    NotFound {
        /// The closest lines, `cat -n` style, in file order.
        closest: String,
    },
    /// `old_text` is in the file more than once and `replace_all` was not given.
    Ambiguous {
        /// The 1-based line number where each match starts.
        lines: Vec<usize>,
    },
    /// The edited file would be larger than the limit given to [`edit_within`]
    /// (or than memory allows); nothing was built.
    TooLarge {
        /// How many places would be replaced.
        places: usize,
        /// The edited file's size in bytes (saturated).
        size: usize,
        /// The most bytes a file may have.
        max: usize,
    },
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::Empty => write!(f, "old_text is empty. Give the exact text to replace."),
            EditError::Same => write!(f, "old_text and new_text are the same, so nothing would change."),
            EditError::NotFound { closest } if closest.is_empty() => write!(
                f,
                "old_text was not found in the file, and no line resembles it. Read the file and copy the text exactly."
            ),
            EditError::NotFound { closest } => write!(
                f,
                "old_text was not found in the file. The closest lines are:\n{}",
                closest.trim_end_matches('\n')
            ),
            EditError::Ambiguous { lines } => {
                // Each line once: 20 million matches on one line read "lines 1, 1, 1, ...".
                let mut distinct = lines.clone();
                distinct.dedup();
                let mut list: Vec<String> = distinct.iter().take(LIST_LINES).map(|n| n.to_string()).collect();
                if distinct.len() > LIST_LINES {
                    list.push(format!("and {} more", distinct.len() - LIST_LINES));
                }
                write!(
                    f,
                    "old_text matches {} places (lines {}). Add surrounding lines to old_text to pick one, or pass replace_all: true.",
                    lines.len(),
                    list.join(", ")
                )
            }
            EditError::TooLarge { places, size, max } => write!(
                f,
                "replacing {places} {} would make the file {size} bytes, over this store's limit of {max} bytes \
                 a file. Replace fewer places or shorter text.",
                if *places == 1 { "place" } else { "places" }
            ),
        }
    }
}

impl std::error::Error for EditError {}

/// Whether `s` has a `\n` not preceded by `\r`.
fn has_bare_lf(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'\n', b).any(|i| i == 0 || b[i - 1] != b'\r')
}

/// `s` with every line ending as `\r\n`.
fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// Whether the file's first line ends with `\r\n`.
fn file_uses_crlf(content: &[u8]) -> bool {
    matches!(memchr::memchr(b'\n', content), Some(i) if i > 0 && content[i - 1] == b'\r')
}

/// The 1-based line number of each position (ascending).
fn line_numbers(content: &[u8], positions: &[usize]) -> Vec<usize> {
    let (mut line, mut at) = (1, 0);
    positions
        .iter()
        .map(|&p| {
            line += memchr::memchr_iter(b'\n', &content[at..p]).count();
            at = p;
            line
        })
        .collect()
}

/// Replaces `old_text` with `new_text` in `content`, byte for byte.
///
/// The match is on bytes, so a BOM, CRLF endings, or Latin-1 / Shift-JIS bytes
/// elsewhere in the file are untouched. When `old_text` uses `\n` but the file uses
/// `\r\n`, it is matched with `\r\n` endings and `new_text` gets `\r\n` too, so CRLF
/// files stay CRLF. Exactly one match is needed unless `replace_all` is true.
pub fn edit(
    content: &[u8],
    old_text: &str,
    new_text: &str,
    replace_all: bool,
) -> Result<Edited, EditError> {
    edit_within(content, old_text, new_text, replace_all, usize::MAX)
}

/// [`edit`], refusing ([`EditError::TooLarge`]) an edit whose result would be
/// over `max` bytes before building it: replacing each of 20 million one-byte
/// matches with 100 bytes asked for 2 GB at once.
pub fn edit_within(
    content: &[u8],
    old_text: &str,
    new_text: &str,
    replace_all: bool,
    max: usize,
) -> Result<Edited, EditError> {
    if old_text.is_empty() {
        return Err(EditError::Empty);
    }
    if old_text == new_text {
        return Err(EditError::Same);
    }
    let (mut old, mut new) = (Cow::Borrowed(old_text), Cow::Borrowed(new_text));
    let find = |needle: &str| memmem::find_iter(content, needle.as_bytes()).collect::<Vec<_>>();
    let mut starts = find(&old);
    let crlf = file_uses_crlf(content);
    if starts.is_empty() && has_bare_lf(old_text) && memmem::find(content, b"\r\n").is_some() {
        let crlf_old = to_crlf(old_text);
        starts = find(&crlf_old);
        if !starts.is_empty() {
            old = Cow::Owned(crlf_old);
            new = Cow::Owned(to_crlf(new_text));
        }
    } else if crlf && !has_bare_lf(old_text) && has_bare_lf(new_text) {
        new = Cow::Owned(to_crlf(new_text));
    }
    if old == new {
        return Err(EditError::Same);
    }
    if starts.is_empty() {
        return Err(EditError::NotFound {
            closest: closest_lines(content, old_text),
        });
    }
    if starts.len() > 1 && !replace_all {
        return Err(EditError::Ambiguous {
            lines: line_numbers(content, &starts),
        });
    }
    let (old, new) = (old.as_bytes(), new.as_bytes());
    let places = starts.len();
    let size = places
        .checked_mul(new.len())
        .and_then(|grown| (content.len() - places * old.len()).checked_add(grown))
        .unwrap_or(usize::MAX);
    let too_large = EditError::TooLarge { places, size, max };
    if size > max {
        return Err(too_large);
    }
    let mut out = Vec::new();
    if out.try_reserve_exact(size).is_err() {
        return Err(too_large);
    }
    let mut spans = Vec::with_capacity(starts.len());
    let mut at = 0;
    for &s in &starts {
        out.extend_from_slice(&content[at..s]);
        spans.push((out.len(), out.len() + new.len()));
        out.extend_from_slice(new);
        at = s + old.len();
    }
    out.extend_from_slice(&content[at..]);
    let changed = show_changes(&out, &spans);
    Ok(Edited {
        content: out,
        replacements: starts.len(),
        changed,
    })
}

/// The lines covering each span (start, end) of `content`, with context, numbered.
fn show_changes(content: &[u8], spans: &[(usize, usize)]) -> String {
    let total = memchr::memchr_iter(b'\n', content).count()
        + usize::from(!content.is_empty() && !content.ends_with(b"\n"));
    if total == 0 {
        return String::new();
    }
    let mut marks = Vec::with_capacity(spans.len() * 2);
    for &(s, e) in spans {
        marks.push(s);
        marks.push(if e > s { e - 1 } else { s });
    }
    let lines = line_numbers(content, &marks);
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for pair in lines.chunks(2) {
        let first = pair[0].saturating_sub(CONTEXT).max(1);
        let last = (pair[1] + CONTEXT).min(total);
        match groups.last_mut() {
            Some(g) if first <= g.1 + 1 => g.1 = g.1.max(last),
            _ => groups.push((first.min(last), last)),
        }
    }
    let hidden = groups.len().saturating_sub(MAX_GROUPS);
    groups.truncate(MAX_GROUPS);
    let mut out = String::new();
    let mut g = 0;
    let mut line_start = 0;
    for (i, line_end) in memchr::memchr_iter(b'\n', content)
        .chain(std::iter::once(content.len()))
        .enumerate()
    {
        let n = i + 1;
        if g == groups.len() || n > total {
            break;
        }
        if n >= groups[g].0 {
            if n == groups[g].0 && g > 0 {
                out.push_str("...\n");
            }
            let bytes = &content[line_start..line_end];
            let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
            number_line(
                &mut out,
                n,
                &truncate_line(&String::from_utf8_lossy(bytes), SHOW_LINE_CHARS).0,
            );
            if n == groups[g].1 {
                g += 1;
            }
        }
        line_start = line_end + 1;
    }
    if hidden > 0 {
        out.push_str(&format!("...\n[and {hidden} more changed places]\n"));
    }
    out
}

/// Character bigrams of `s`, lowercased, as sorted numbers.
fn bigrams(s: &str, out: &mut Vec<u64>) {
    out.clear();
    let mut prev: Option<char> = None;
    for c in s.chars().flat_map(char::to_lowercase) {
        if let Some(p) = prev {
            out.push(((p as u64) << 32) | c as u64);
        }
        prev = Some(c);
    }
    out.sort_unstable();
}

/// Dice similarity of two sorted bigram multisets (0 to 1).
fn dice(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (i, j, common) = (i + 1, j + 1, common + 1),
        }
    }
    2.0 * common as f64 / (a.len() + b.len()).max(1) as f64
}

/// Up to five numbered lines (in file order) most like `old_text`'s first non-blank line.
fn closest_lines(content: &[u8], old_text: &str) -> String {
    let Some(target) = old_text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return String::new();
    };
    let target_lower = target.to_lowercase();
    let (mut want, mut have) = (Vec::new(), Vec::new());
    bigrams(target, &mut want);
    let scan = &content[..content.len().min(CLOSEST_SCAN_BYTES)];
    let mut best: Vec<(f64, usize, String)> = Vec::new();
    for (i, raw) in scan.split(|&b| b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.len() > 4 * CLOSEST_LINE_CHARS {
            continue;
        }
        let line = String::from_utf8_lossy(raw);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.chars().count() > CLOSEST_LINE_CHARS {
            continue;
        }
        let score = if trimmed.to_lowercase().contains(&target_lower) {
            1.0
        } else {
            bigrams(trimmed, &mut have);
            dice(&want, &have)
        };
        if score >= CLOSEST_MIN_SCORE && (best.len() < CLOSEST || score > best[CLOSEST - 1].0) {
            let at = best.partition_point(|b| b.0 >= score);
            best.insert(at, (score, i + 1, line.into_owned()));
            best.truncate(CLOSEST);
        }
    }
    best.sort_by_key(|b| b.1);
    let mut out = String::new();
    for (_, n, line) in &best {
        number_line(&mut out, *n, line);
    }
    out
}

#[cfg(test)]
mod tests;
