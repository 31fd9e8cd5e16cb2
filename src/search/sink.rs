//! The per-input half of the search: a [`Sink`] that keeps up to a cap of matching
//! lines with their context and counts every match, and the searchers that feed it.

use std::io;

use grep_matcher::LineTerminator;
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};

use super::{Source, MAX_LINE_CHARS};
use crate::text::truncate_line;

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
}

/// Collects up to `cap` matching lines with their context, and counts every match.
struct Collect {
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

impl Sink for Collect {
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
                    text: display(bytes),
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

/// The per-thread searchers: one with context and line numbers, one that only counts.
pub(super) struct Searchers {
    full: Searcher,
    count: Searcher,
}

impl Searchers {
    pub(super) fn new(context: usize) -> Self {
        let build = |context: usize, numbers: bool| {
            SearcherBuilder::new()
                .line_number(numbers)
                .line_terminator(LineTerminator::crlf())
                .before_context(context)
                .after_context(context)
                .binary_detection(BinaryDetection::quit(b'\x00'))
                // A line is held whole while it is searched: without a limit a
                // file of one 1 GB line took a gigabyte and more.
                .heap_limit(Some(MAX_LINE_BUFFER))
                .build()
        };
        Searchers {
            full: build(context, true),
            count: build(0, false),
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
    let searcher = if cap == 0 {
        &mut searchers.count
    } else {
        &mut searchers.full
    };
    let mut sink = Collect {
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
        Source::Bytes(bytes) if memchr::memchr(0, &bytes).is_some() => {
            return Err(BINARY.to_string())
        }
        Source::Bytes(bytes) => searcher.search_slice(matcher, &bytes, &mut sink),
        Source::File(open) => match open() {
            // Read through a cancellable reader, so a large file's search stops when asked.
            Ok(file) => {
                searcher.search_reader(matcher, crate::cancel::Reader::new(&file), &mut sink)
            }
            Err(e) => return Err(unreadable(e)),
        },
        // Resolved above; a source that gives another lazy one is a bug of its maker.
        Source::Lazy(_) => return Err(unreadable("no source to read")),
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
    })
}

/// Why a binary input is skipped.
const BINARY: &str = "is binary";

/// The most bytes of a file's lines a search holds at once: a line longer
/// than this is not searched, and its file is skipped with [`LONG_LINE`].
pub const MAX_LINE_BUFFER: usize = 64 << 20;

/// Why an input with a line over [`MAX_LINE_BUFFER`] is skipped.
const LONG_LINE: &str = "has a line over 64 MB (read it with read_file)";

/// Why an input that failed to read is skipped.
pub(super) fn unreadable(error: impl std::fmt::Display) -> String {
    format!("could not be read ({error})")
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::super::{search, SearchInput, SearchOptions, Source};
    use super::MAX_LINE_BUFFER;

    #[test]
    fn a_file_with_a_line_over_the_buffer_limit_is_skipped_saying_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.log");
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(&vec![b'x'; MAX_LINE_BUFFER + 1024]).unwrap();
        file.write_all(b"\nneedle\n").unwrap();
        let short = dir.path().join("short.log");
        std::fs::write(&short, "a needle\n").unwrap();
        let input = |name: &str, path: std::path::PathBuf| SearchInput {
            path: name.into(),
            source: Source::File(Box::new(move || std::fs::File::open(path))),
        };
        let options = SearchOptions {
            pattern: "needle".into(),
            literal: false,
            ignore_case: false,
            context: 0,
            max_matches: 10,
        };
        let out = search(
            vec![input("long.log", path), input("short.log", short)],
            &options,
        )
        .unwrap();
        assert_eq!(out.text, "short.log:1: a needle\n");
        assert_eq!(
            out.skipped_shown,
            [(
                "long.log".to_string(),
                "has a line over 64 MB (read it with read_file)".to_string()
            )]
        );
    }
}
