//! Grep over many inputs with ripgrep's library crates: linear-time regexes, line
//! numbers, context, binary inputs skipped, parallel over inputs with results reported
//! in input order.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use file_store_base::error::{Error, Result};
use file_store_base::text::escape_breaks;

mod feed;
mod input;
mod sink;
pub mod tree;
use feed::Queue;
pub use input::{
    SearchInput, SearchOptions, SearchOutput, Shared, Source, MAX_LINE_CHARS, MAX_SKIPPED_SHOWN,
};
pub use sink::BINARY;
use sink::{search_one, Found, Searchers};

/// The longest pattern searched for: parsing costs about a hundred bytes of
/// memory per byte of pattern before any size limit applies.
pub const MAX_PATTERN_BYTES: usize = 64 * 1024;
/// The most memory a compiled pattern may take; one that would take more is
/// refused (nested counted repetition such as `((a{100}){100}){100}` does).
pub const MAX_REGEX_BYTES: usize = 8 * 1024 * 1024;
/// The most memory a pattern's lazy DFA caches per searching thread; past it
/// the search goes on with slower engines rather than more memory.
pub const MAX_DFA_BYTES: usize = 8 * 1024 * 1024;

/// Builds the matcher, or explains what is wrong with the pattern.
fn matcher(opts: &SearchOptions) -> Result<RegexMatcher> {
    if opts.pattern.len() > MAX_PATTERN_BYTES {
        return Err(Error::InvalidArgument(format!(
            "the pattern is {} bytes, over the limit of {} KB: search for a shorter part of it",
            opts.pattern.len(),
            MAX_PATTERN_BYTES >> 10
        )));
    }
    let pattern = if opts.literal {
        regex::escape(&opts.pattern)
    } else {
        opts.pattern.clone()
    };
    let built = RegexMatcherBuilder::new()
        .case_insensitive(opts.ignore_case)
        .multi_line(true) // `^` and `$` at line boundaries, as in ripgrep
        .crlf(true)
        .size_limit(MAX_REGEX_BYTES)
        .dfa_size_limit(MAX_DFA_BYTES)
        .build(&pattern);
    built.map_err(|grep_err| {
        // Prefer the regex crate's own wording; fall back to grep's (e.g. a `\n`).
        let reason = match regex::RegexBuilder::new(&pattern)
            .case_insensitive(opts.ignore_case)
            .size_limit(MAX_REGEX_BYTES)
            .dfa_size_limit(MAX_DFA_BYTES)
            .build()
        {
            Err(e) => e.to_string(),
            Ok(_) => grep_err.to_string(),
        };
        Error::InvalidArgument(format!(
            "Invalid regex {}: {}",
            brief_pattern(&opts.pattern),
            brief_reason(&reason, opts.pattern.len())
        ))
    })
}

/// The most characters of a pattern an error message repeats.
const PATTERN_ECHO: usize = 200;

/// `pattern` quoted for a message, cut to its first characters when long, so a
/// huge pattern does not make a huge error.
fn brief_pattern(pattern: &str) -> String {
    match pattern.char_indices().nth(PATTERN_ECHO) {
        None => format!("{pattern:?}"),
        Some((cut, _)) => format!(
            "{:?}… ({} characters)",
            &pattern[..cut],
            pattern.chars().count()
        ),
    }
}

/// The regex error's reason: whole for a short pattern; for a long one only its
/// last line (`error: ...`), since the lines before repeat the pattern.
fn brief_reason(reason: &str, pattern_len: usize) -> String {
    if pattern_len <= PATTERN_ECHO {
        return reason.to_string();
    }
    let last = reason.lines().last().unwrap_or(reason);
    last.chars().take(PATTERN_ECHO).collect()
}

/// Appends inputs' results in input order, showing at most `max` matching lines.
struct Merge<'a> {
    opts: &'a SearchOptions,
    out: SearchOutput,
    next: usize,
    pending: BTreeMap<usize, (String, std::result::Result<Found, String>)>,
}

impl Merge<'_> {
    fn add(&mut self, index: usize, path: String, found: std::result::Result<Found, String>) {
        self.pending.insert(index, (path, found));
        while let Some((path, found)) = self.pending.remove(&self.next) {
            self.next += 1;
            match found {
                Ok(mut found) => {
                    if let Some(why) = found.partial.take() {
                        self.out.partial += 1;
                        if self.out.partial_shown.len() < MAX_SKIPPED_SHOWN {
                            self.out.partial_shown.push((path.clone(), why));
                        }
                    }
                    self.append(&path, found)
                }
                Err(why) => {
                    self.out.skipped += 1;
                    if self.out.skipped_shown.len() < MAX_SKIPPED_SHOWN {
                        self.out.skipped_shown.push((path, why));
                    }
                }
            }
        }
    }

    fn append(&mut self, path: &str, found: Found) {
        let out = &mut self.out;
        out.total_matches += found.matches;
        out.files_matched += usize::from(found.matches > 0);
        let context = self.opts.context as u64;
        let mut prev: Option<u64> = None;
        let mut last_match = 0;
        for hit in found.hits {
            let full = out.shown >= self.opts.max_matches;
            if full
                && (hit.is_match
                    || prev != Some(hit.line.wrapping_sub(1))
                    || hit.line > last_match + context)
            {
                break;
            }
            if context > 0 && !out.text.is_empty() && prev != Some(hit.line.wrapping_sub(1)) {
                out.text.push_str("--\n");
            }
            let sep = if hit.is_match { ':' } else { '-' };
            let text = escape_breaks(&hit.text);
            let _ = writeln!(out.text, "{path}{sep}{}{sep} {text}", hit.line);
            if hit.is_match {
                out.shown += 1;
                last_match = hit.line;
            }
            prev = Some(hit.line);
        }
    }
}

/// Searches every input for `opts.pattern`, in parallel, and reports the matching
/// lines in input order (then line order), at most `opts.max_matches` of them, while
/// counting all. Binary inputs (a NUL byte) and files that cannot be opened or read
/// are skipped and counted in [`SearchOutput::skipped`], with why. An invalid
/// pattern is [`Error::InvalidArgument`].
pub fn search(inputs: Vec<SearchInput>, opts: &SearchOptions) -> Result<SearchOutput> {
    search_fed(opts, |feed| inputs.into_iter().try_for_each(feed))
}

/// Gives an input to a search while it runs; an error (the search was cancelled)
/// says to give no more.
pub type Feed<'f> = dyn FnMut(SearchInput) -> Result<()> + 'f;

/// [`search`] over the inputs `produce` gives to its feed, in their order: the
/// search starts on the first while `produce` finds the rest (a walk of a
/// folder, say). It runs on the calling thread, with a worker thread more for
/// each input past the first, up to one a core; the calling thread searches
/// too once `produce` is done, and before, whenever `produce` runs
/// [`QUEUED_AHEAD`] inputs ahead of the workers. Inputs go to the workers
/// [`GIVEN_TOGETHER`] at a time, or after [`GATHERED_AT_MOST`]. An error of `produce` ends
/// the search with it.
pub fn search_fed(
    opts: &SearchOptions,
    produce: impl FnOnce(&mut Feed<'_>) -> Result<()>,
) -> Result<SearchOutput> {
    let matcher = matcher(opts)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let queue = Queue::default();
    let merge = Mutex::new(Merge {
        opts,
        out: SearchOutput::default(),
        next: 0,
        pending: BTreeMap::new(),
    });
    let shown = AtomicUsize::new(0);
    let flag = file_store_base::cancel::current();
    let worker = || Worker::new(&merge, &shown, &matcher, opts);
    let work =
        || file_store_base::cancel::with_flag(flag.clone(), || worker().search_queue(&queue));
    std::thread::scope(|s| {
        let mut own: Option<Worker<'_, '_>> = None;
        // Closed however `produce` ends, a panic too (a thread that cannot be
        // started), so no worker waits on.
        let produced = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut workers = 1;
            let mut give = |batch: &mut Vec<SearchInput>| {
                let given = queue.push_all(batch);
                while workers < cores.min(given) {
                    workers += 1;
                    s.spawn(work);
                }
            };
            let mut batch = Vec::with_capacity(GIVEN_TOGETHER);
            let mut gathering = Instant::now();
            // An input, or `None` once `produce` is done.
            let mut feed = |input: Option<SearchInput>| {
                let Some(input) = input else {
                    give(&mut batch);
                    return Ok(());
                };
                file_store_base::cancel::check()?;
                if batch.is_empty() {
                    gathering = Instant::now();
                }
                batch.push(input);
                if batch.len() < GIVEN_TOGETHER && gathering.elapsed() < GATHERED_AT_MOST {
                    return Ok(());
                }
                give(&mut batch);
                // An input waiting holds what its search needs (a folder's
                // descriptor, a converted text): the calling thread takes its
                // share rather than let the walk run ahead of the search without
                // bound.
                while let Some((index, input)) = queue.pop_past(QUEUED_AHEAD) {
                    own.get_or_insert_with(worker).take(index, input);
                    file_store_base::cancel::check()?;
                }
                Ok(())
            };
            produce(&mut |input| feed(Some(input)))?;
            feed(None)
        }));
        let done = matches!(produced, Ok(Ok(())));
        queue.close(!done);
        let produced = produced.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        if produced.is_ok() {
            own.unwrap_or_else(worker).search_queue(&queue);
        }
        produced
    })?;
    file_store_base::cancel::check()?;
    Ok(merge.into_inner().unwrap_or_else(|e| e.into_inner()).out)
}

/// The most inputs a search holds given and not yet taken, past the ones it
/// gathers to give together: enough that no worker waits for the walk, few
/// enough that what they hold stays small (a walk's inputs each hold their
/// folder open: this many descriptors and [`GIVEN_TOGETHER`], and one a thread
/// searching).
pub const QUEUED_AHEAD: usize = 64;

/// How many inputs a search gathers before it gives them to its workers.
pub const GIVEN_TOGETHER: usize = 16;

/// How long an input waits to be given with others: a walk that finds files
/// slowly (few in a large tree) gives those it holds with the next it finds
/// past this, rather than at its end.
const GATHERED_AT_MOST: Duration = Duration::from_millis(2);

/// What one thread of a search needs: its own copy of the matcher and its
/// searchers, and where the results go.
struct Worker<'m, 'o> {
    merge: &'m Mutex<Merge<'o>>,
    shown: &'m AtomicUsize,
    matcher: RegexMatcher,
    searchers: Searchers,
    opts: &'o SearchOptions,
}

impl<'m, 'o> Worker<'m, 'o> {
    fn new(
        merge: &'m Mutex<Merge<'o>>,
        shown: &'m AtomicUsize,
        matcher: &RegexMatcher,
        opts: &'o SearchOptions,
    ) -> Self {
        Worker {
            merge,
            shown,
            matcher: matcher.clone(),
            searchers: Searchers::new(opts.context),
            opts,
        }
    }

    /// Inputs from `queue` until it is closed and empty or the search is cancelled.
    fn search_queue(mut self, queue: &Queue) {
        while !file_store_base::cancel::cancelled() {
            let Some((index, input)) = queue.pop() else {
                break;
            };
            self.take(index, input);
        }
    }

    /// Searches the input numbered `index` and hands its result to the merge.
    fn take(&mut self, index: usize, input: SearchInput) {
        // Inputs before this one already show `shown` lines: no need to keep more.
        let cap = self
            .opts
            .max_matches
            .saturating_sub(self.shown.load(Ordering::Relaxed));
        let found = search_one(
            &mut self.searchers,
            &self.matcher,
            input.source,
            cap,
            self.opts.context,
        );
        let mut merge = self.merge.lock().unwrap_or_else(|e| e.into_inner());
        merge.add(index, input.path, found);
        self.shown.store(merge.out.shown, Ordering::Relaxed);
    }
}

/// A note for when not every matching line was shown, e.g. `[Showing 200 of 1834
/// matching lines in 57 files. Narrow the search with path, or a more specific
/// pattern.]`; `None` when all were shown. `max` is the cap the search ran with.
pub fn format_summary(out: &SearchOutput, max: usize) -> Option<String> {
    if out.total_matches <= out.shown {
        return None;
    }
    let files = if out.files_matched == 1 {
        "1 file".to_string()
    } else {
        format!("{} files", out.files_matched)
    };
    Some(format!(
        "[Showing {} of {} matching lines in {files}. Narrow the search with path, or a more specific pattern.]",
        out.shown.min(max),
        out.total_matches
    ))
}

#[cfg(test)]
mod sink_tests;
#[cfg(test)]
mod tests;
