//! The per-input half of the search: a [`Sink`] that keeps up to a cap of matching
//! lines with their context and counts every match, and the searchers that feed it.

use std::io;

use grep_matcher::{LineTerminator, Matcher};
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};

use super::input::{Source, MAX_LINE_CHARS};
use file_store_base::text::{truncate_line, truncation_marker};

/// One line kept for display: its number, whether it matched, and its text.
pub(super) struct Hit {
    pub(super) line: u64,
    pub(super) is_match: bool,
    pub(super) text: String,
}

/// What searching one input found.
pub(super) struct Found {
    pub(super) hits: Vec<Hit>,
    pub(super) matches: usize,
    /// Why only part of the input's text could be searched, if so.
    pub(super) partial: Option<String>,
}

/// Collects up to `cap` matching lines with their context, and counts every match.
struct Collect<'m> {
    /// Finds the match in a matching line too long to show whole.
    matcher: &'m RegexMatcher,
    cap: usize,
    context: u64,
    kept: usize,
    count: usize,
    last_kept: u64,
    hits: Vec<Hit>,
    binary: bool,
}

/// A line's display text: ending stripped, lossy, cut to [`MAX_LINE_CHARS`].
fn display(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    truncate_line(&text, MAX_LINE_CHARS).0.into_owned()
}

/// A matching line's display text: as [`display`], but a line too long to show
/// whole is shown around its first match, with how much was left out before it.
fn display_match(bytes: &[u8], matcher: &RegexMatcher) -> String {
    let shown = display(bytes);
    if bytes.len() <= MAX_LINE_CHARS {
        return shown;
    }
    let Ok(Some(found)) = matcher.find(bytes) else {
        return shown;
    };
    let line = display_whole(bytes);
    let total = line.chars().count();
    let at = String::from_utf8_lossy(&bytes[..found.start()])
        .chars()
        .count();
    // The match a quarter of the way in, unless the line ends before the window does.
    let start = at
        .saturating_sub(MAX_LINE_CHARS / 4)
        .min(total.saturating_sub(MAX_LINE_CHARS));
    if start == 0 {
        return shown;
    }
    let window: String = line.chars().skip(start).take(MAX_LINE_CHARS).collect();
    let mut text = format!("[{start} characters before] …{window}");
    if start + MAX_LINE_CHARS < total {
        text.push_str(&truncation_marker(total));
    }
    text
}

/// A line's text: ending stripped, lossy, whole.
fn display_whole(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> io::Result<bool> {
        let first = mat.line_number().unwrap_or(0);
        for (line, bytes) in (first..).zip(mat.lines()) {
            self.count += 1;
            if self.kept < self.cap {
                self.kept += 1;
                self.last_kept = line;
                self.hits.push(Hit {
                    line,
                    is_match: true,
                    text: display_match(bytes, self.matcher),
                });
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> io::Result<bool> {
        let line = ctx.line_number().unwrap_or(0);
        // Past the cap only the after-context of the last kept match is kept.
        let wanted = self.kept < self.cap
            || (self.count == self.kept && self.kept > 0 && line <= self.last_kept + self.context);
        if wanted {
            self.hits.push(Hit {
                line,
                is_match: false,
                text: display(ctx.bytes()),
            });
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> io::Result<bool> {
        self.binary = true;
        Ok(false)
    }
}

/// A file up to this size is read whole into its thread's buffer and searched as
/// one slice; a larger one is streamed through the searcher's own 64 KB buffer.
pub(super) const WHOLE_FILE_BYTES: usize = 1 << 20;

/// The per-thread searchers: one with context and line numbers and one that only
/// counts, each for a stream (which it checks for NUL bytes as it reads) and for
/// a slice already checked whole, and the buffer files are read into.
pub(super) struct Searchers {
    full: Searcher,
    count: Searcher,
    full_slice: Searcher,
    count_slice: Searcher,
    buffer: Vec<u8>,
}

impl Searchers {
    pub(super) fn new(context: usize) -> Self {
        let build = |context: usize, numbers: bool, binary: BinaryDetection| {
            SearcherBuilder::new()
                .line_number(numbers)
                .line_terminator(LineTerminator::crlf())
                .before_context(context)
                .after_context(context)
                .binary_detection(binary)
                // A line is held whole while it is searched: without a limit a
                // file of one 1 GB line took a gigabyte and more.
                .heap_limit(Some(MAX_LINE_BUFFER))
                .build()
        };
        let quit = || BinaryDetection::quit(b'\x00');
        Searchers {
            full: build(context, true, quit()),
            count: build(0, false, quit()),
            full_slice: build(context, true, BinaryDetection::none()),
            count_slice: build(0, false, BinaryDetection::none()),
            buffer: Vec::new(),
        }
    }
}

fn has_bom(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\xEF\xBB\xBF")
        || bytes.starts_with(b"\xFF\xFE")
        || bytes.starts_with(b"\xFE\xFF")
}

/// Searches one input; why not when it is binary, cannot be read or has no text.
pub(super) fn search_one(
    searchers: &mut Searchers,
    matcher: &RegexMatcher,
    source: Source,
    cap: usize,
    context: usize,
) -> Result<Found, String> {
    let mut source = source;
    for _ in 0..4 {
        match source {
            Source::Lazy(prepare) => source = prepare()?,
            ready => {
                source = ready;
                break;
            }
        }
    }
    let mut partial = None;
    if let Source::Cut(bytes, why) = source {
        partial = Some(why);
        source = Source::Bytes(bytes);
    }
    let Searchers {
        full,
        count,
        full_slice,
        count_slice,
        buffer,
    } = searchers;
    let (searcher, slicer) = if cap == 0 {
        (count, count_slice)
    } else {
        (full, full_slice)
    };
    let mut sink = Collect {
        matcher,
        cap,
        context: context as u64,
        kept: 0,
        count: 0,
        last_kept: 0,
        hits: Vec::new(),
        binary: false,
    };
    let done = match source {
        // A BOM goes through the reader, which strips it (or transcodes UTF-16) like a file.
        Source::Bytes(bytes) if has_bom(&bytes) => {
            searcher.search_reader(matcher, io::Cursor::new(&bytes[..]), &mut sink)
        }
        Source::Bytes(bytes) if file_store_base::text::looks_binary(&bytes) => {
            return Err(BINARY.to_string())
        }
        Source::Bytes(bytes) => slicer.search_slice(matcher, &bytes, &mut sink),
        Source::File(open) => {
            let file = open().map_err(unreadable)?;
            search_file(searcher, slicer, buffer, matcher, &file, None, &mut sink)?
        }
        Source::Open(file, size) => {
            let size = usize::try_from(size).ok();
            search_file(searcher, slicer, buffer, matcher, &file, size, &mut sink)?
        }
        // Resolved above; a source that gives another lazy one is a bug of its maker.
        Source::Lazy(_) | Source::Cut(..) => return Err(unreadable("no source to read")),
    };
    if let Err(e) = done {
        if e.to_string().contains("allocation limit") {
            return Err(LONG_LINE.to_string());
        }
        return Err(unreadable(e));
    }
    if sink.binary {
        return Err(BINARY.to_string());
    }
    Ok(Found {
        hits: sink.hits,
        matches: sink.count,
        partial,
    })
}

/// Searches the open `file`, whose size is `size` when known: a file up to
/// [`WHOLE_FILE_BYTES`] as one slice read whole into `buffer`, a larger one (or
/// one with a BOM) through `searcher`'s reader. `Err` says why it is skipped.
fn search_file(
    searcher: &mut Searcher,
    slicer: &mut Searcher,
    buffer: &mut Vec<u8>,
    matcher: &RegexMatcher,
    file: &std::fs::File,
    size: Option<usize>,
    sink: &mut Collect,
) -> Result<Result<(), io::Error>, String> {
    // Read through a cancellable reader, so a large file's search stops when asked.
    let mut reader = file_store_base::cancel::Reader::new(file);
    let head = read_up_to(&mut reader, buffer, WHOLE_FILE_BYTES, size).map_err(unreadable)?;
    Ok(if head.len() == WHOLE_FILE_BYTES || has_bom(head) {
        // Too large to hold, or to be decoded: the head read goes first, then the rest.
        let rest = io::Read::chain(head, reader);
        searcher.search_reader(matcher, rest, sink)
    } else if file_store_base::text::looks_binary(head) {
        return Err(BINARY.to_string());
    } else {
        // A slice is searched without copying it again, its lines are counted
        // only as far as its last match, and its NUL bytes were looked for once.
        slicer.search_slice(matcher, head, sink)
    })
}

/// Where a file's bytes go in a thread's buffer: its first address on a page.
/// The kernel copies a file into memory several times slower when the address
/// is aligned to 16 bytes only, as an allocation of this size is (0.43 s against
/// 0.12 s of CPU to read 526 MB of 100 KB files on a 2-core AMD EPYC).
const ALIGN: usize = 4096;

/// Reads from `reader` into `buffer` until the end or `limit` bytes, whichever
/// comes first, and gives the bytes read. The buffer is kept between files, so a
/// file takes one read for its bytes and one that finds the end; none to find
/// the end when the file's `size` is known and that much was read (a file that
/// grows meanwhile is read on to its new end).
fn read_up_to<'b>(
    reader: &mut impl io::Read,
    buffer: &'b mut Vec<u8>,
    limit: usize,
    size: Option<usize>,
) -> io::Result<&'b [u8]> {
    if buffer.len() < limit + ALIGN {
        *buffer = vec![0; limit + ALIGN];
    }
    let start = buffer.as_ptr().align_offset(ALIGN).min(ALIGN);
    let area = &mut buffer[start..start + limit];
    let mut filled = 0;
    while filled < limit && size != Some(filled) {
        match reader.read(&mut area[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(&area[..filled])
}

/// Why a binary input is skipped.
pub const BINARY: &str = "is binary";

/// The most bytes of a file's lines a search holds at once: a line longer
/// than this is not searched, and its file is skipped with [`LONG_LINE`].
pub const MAX_LINE_BUFFER: usize = 64 << 20;

/// Why an input with a line over [`MAX_LINE_BUFFER`] is skipped.
const LONG_LINE: &str = "has a line over 64 MB (read it with read_file)";

/// Why an input that failed to read is skipped.
pub(super) fn unreadable(error: impl std::fmt::Display) -> String {
    format!("could not be read ({error})")
}
