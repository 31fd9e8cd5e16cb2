//! Grep over many inputs with ripgrep's library crates: linear-time regexes, line
//! numbers, context, binary inputs skipped, parallel over inputs with results reported
//! in input order.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use crate::error::{Error, Result};

mod sink;
pub mod tree;
use sink::{search_one, Found, Searchers};

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
    Bytes(Arc<[u8]>),
    /// A file, opened on the worker thread that searches it; one that fails to open is
    /// skipped.
    File(Box<dyn FnOnce() -> io::Result<File> + Send>),
    /// Work done on the worker thread (opening a file, converting it) that gives the
    /// source to search, or why the input is skipped (`"has no text converter"`).
    Lazy(Box<dyn FnOnce() -> std::result::Result<Source, String> + Send>),
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
}

/// How many skipped inputs a search names; the rest are counted.
pub const MAX_SKIPPED_SHOWN: usize = 10;
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
                Ok(found) => self.append(&path, found),
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
            let _ = writeln!(out.text, "{path}{sep}{}{sep} {}", hit.line, hit.text);
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
    let matcher = matcher(opts)?;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(inputs.len())
        .max(1);
    let queue = Mutex::new(inputs.into_iter().enumerate());
    let merge = Mutex::new(Merge {
        opts,
        out: SearchOutput::default(),
        next: 0,
        pending: BTreeMap::new(),
    });
    let shown = AtomicUsize::new(0);
    let flag = crate::cancel::current();
    let work = || {
        crate::cancel::with_flag(flag.clone(), || {
            search_queue(&queue, &merge, &shown, &matcher, opts)
        })
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    crate::cancel::check()?;
    Ok(merge.into_inner().unwrap_or_else(|e| e.into_inner()).out)
}

/// One worker's share of a search: inputs from `queue` until it is empty or the
/// search is cancelled.
fn search_queue(
    queue: &Mutex<std::iter::Enumerate<std::vec::IntoIter<SearchInput>>>,
    merge: &Mutex<Merge<'_>>,
    shown: &AtomicUsize,
    matcher: &RegexMatcher,
    opts: &SearchOptions,
) {
    let matcher = matcher.clone();
    let mut searchers = Searchers::new(opts.context);
    loop {
        if crate::cancel::cancelled() {
            break;
        }
        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
        let Some((index, input)) = next else { break };
        // Inputs before this one already show `shown` lines: no need to keep more.
        let cap = opts
            .max_matches
            .saturating_sub(shown.load(Ordering::Relaxed));
        let found = search_one(&mut searchers, &matcher, input.source, cap, opts.context);
        let mut merge = merge.lock().unwrap_or_else(|e| e.into_inner());
        merge.add(index, input.path, found);
        shown.store(merge.out.shown, Ordering::Relaxed);
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
mod tests {
    use super::*;

    fn opts(pattern: &str, context: usize, max_matches: usize) -> SearchOptions {
        SearchOptions {
            pattern: pattern.into(),
            literal: false,
            ignore_case: false,
            context,
            max_matches,
        }
    }

    fn bytes(path: &str, text: &[u8]) -> SearchInput {
        SearchInput {
            path: path.into(),
            source: Source::Bytes(text.into()),
        }
    }

    fn run(inputs: Vec<SearchInput>, opts: &SearchOptions) -> SearchOutput {
        search(inputs, opts).unwrap()
    }

    #[test]
    fn grep_n_format() {
        let out = run(
            vec![bytes("a.txt", b"one\ntwo apples\r\nthree\nfour apple pie")],
            &opts("apple", 0, 100),
        );
        assert_eq!(out.text, "a.txt:2: two apples\na.txt:4: four apple pie\n");
        assert_eq!((out.shown, out.total_matches, out.files_matched), (2, 2, 1));
        assert_eq!(format_summary(&out, 100), None);
        let out = run(vec![bytes("a", b"x\r\nend\r\n")], &opts("d$", 0, 100));
        assert_eq!(
            out.text, "a:2: end\n",
            "$ matches before CRLF and \\r is stripped"
        );
    }

    #[test]
    fn context_groups_and_separators() {
        let text: String = (1..=20)
            .map(|i| {
                if [3, 5, 15].contains(&i) {
                    format!("hit {i}\n")
                } else {
                    format!("line {i}\n")
                }
            })
            .collect();
        let inputs = vec![bytes("a", text.as_bytes()), bytes("b", b"x\nhit\n")];
        let out = run(inputs, &opts("hit", 1, 100));
        let want = "a-2- line 2\na:3: hit 3\na-4- line 4\na:5: hit 5\na-6- line 6\n--\n\
                    a-14- line 14\na:15: hit 15\na-16- line 16\n--\nb-1- x\nb:2: hit\n";
        assert_eq!(out.text, want);
        assert_eq!((out.shown, out.total_matches, out.files_matched), (4, 4, 2));
        let out = run(
            vec![bytes("a", text.as_bytes()), bytes("b", b"hit\n")],
            &opts("hit", 0, 100),
        );
        assert_eq!(
            out.text, "a:3: hit 3\na:5: hit 5\na:15: hit 15\nb:1: hit\n",
            "no separators without context"
        );
    }

    #[test]
    fn cap_in_input_order_with_exact_totals() {
        // Many inputs so several threads race; the output must not depend on it.
        let inputs = || {
            (0..300)
                .map(|i| {
                    bytes(
                        &format!("f{i:03}"),
                        "match\nno\nmatch\n".repeat(i % 4).as_bytes(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let out = run(inputs(), &opts("match", 0, 7));
        assert_eq!(out.text, "f001:1: match\nf001:3: match\nf002:1: match\nf002:3: match\nf002:4: match\nf002:6: match\nf003:1: match\n");
        let total: usize = (0..300).map(|i| 2 * (i % 4)).sum();
        assert_eq!(
            (out.shown, out.total_matches, out.files_matched),
            (7, total, 225)
        );
        assert_eq!(
            format_summary(&out, 7).unwrap(),
            format!("[Showing 7 of {total} matching lines in 225 files. Narrow the search with path, or a more specific pattern.]")
        );
        for _ in 0..5 {
            assert_eq!(run(inputs(), &opts("match", 1, 7)).total_matches, total);
        }
        let none = run(inputs(), &opts("match", 2, 0));
        assert_eq!(
            (none.text.as_str(), none.shown, none.total_matches),
            ("", 0, total)
        );
    }

    #[test]
    fn trailing_context_at_the_cap_stops_at_the_next_match() {
        let out = run(
            vec![bytes("a", b"m1\nc\nm2\nc\nc\nc\nm3\n")],
            &opts("m", 2, 2),
        );
        assert_eq!(out.text, "a:1: m1\na-2- c\na:3: m2\na-4- c\na-5- c\n");
        let out = run(vec![bytes("a", b"m1\nc\nm2\n")], &opts("m", 2, 1));
        assert_eq!(out.text, "a:1: m1\na-2- c\n");
        assert_eq!((out.shown, out.total_matches), (1, 2));
    }

    #[test]
    fn a_huge_invalid_pattern_makes_a_short_error() {
        let pattern = format!("({}", "a".repeat(60_000));
        let msg = search(vec![], &opts(&pattern, 0, 10))
            .unwrap_err()
            .to_string();
        assert!(msg.len() < 600, "{} bytes", msg.len());
        assert!(msg.contains("(60001 characters)"));
    }

    #[test]
    fn refuses_a_pattern_over_64_kb_before_parsing_it() {
        for literal in [false, true] {
            let huge = SearchOptions {
                literal,
                ..opts(&"a".repeat(100 << 20), 0, 10)
            };
            let started = std::time::Instant::now();
            let err = search(vec![], &huge).unwrap_err();
            assert!(started.elapsed() < std::time::Duration::from_millis(100));
            assert!(matches!(err, Error::InvalidArgument(_)));
            assert_eq!(
                err.to_string(),
                "the pattern is 104857600 bytes, over the limit of 64 KB: search for a shorter part of it"
            );
        }
        let most = "a".repeat(MAX_PATTERN_BYTES);
        let out = run(vec![bytes("a", b"aaa\nbbb\n")], &opts(&most, 0, 10));
        assert_eq!(out.total_matches, 0);
    }

    #[test]
    fn refuses_patterns_that_compile_past_the_size_limit() {
        let started = std::time::Instant::now();
        let alternation = (0..6000)
            .map(|i| format!("\\w{{{}}}", i % 50 + 1))
            .collect::<Vec<_>>()
            .join("|");
        for pattern in [
            "((a{100}){100}){100}".to_string(),
            "(\\w{1000}){1000}".to_string(),
            "[\\p{L}\\p{N}]{5000}".to_string(),
            alternation,
        ] {
            assert!(pattern.len() <= MAX_PATTERN_BYTES);
            let msg = search(vec![], &opts(&pattern, 0, 10))
                .unwrap_err()
                .to_string();
            assert!(msg.starts_with("Invalid regex "), "{msg}");
            assert!(msg.contains("size limit"), "{pattern:.40}: {msg}");
            assert!(msg.len() < 600, "{} bytes", msg.len());
        }
        // Within the limit, counted repetition still works.
        let ok = run(vec![bytes("a", b"aaaa\n")], &opts("a{2}{2}", 0, 10));
        assert_eq!(ok.total_matches, 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }

    #[test]
    fn invalid_and_literal_patterns() {
        let err = search(vec![], &opts("foo(", 0, 10)).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::InvalidArgument(_)));
        assert!(
            msg.starts_with("Invalid regex \"foo(\": regex parse error:"),
            "{msg}"
        );
        assert!(msg.contains("unclosed group"), "{msg}");
        let err = search(vec![], &opts("a\nb", 0, 10)).unwrap_err();
        assert!(
            err.to_string().starts_with("Invalid regex \"a\\nb\": "),
            "{err}"
        );
        let lit = SearchOptions {
            literal: true,
            ..opts("foo(.*", 0, 10)
        };
        let out = run(vec![bytes("a", b"foo(x)\nfoo(.*)\n")], &lit);
        assert_eq!(out.text, "a:2: foo(.*)\n");
        let ic = SearchOptions {
            ignore_case: true,
            ..opts("ÉTÉ", 0, 10)
        };
        assert_eq!(
            run(vec![bytes("a", "un été\n".as_bytes())], &ic).text,
            "a:1: un été\n"
        );
        assert_eq!(
            run(
                vec![bytes("a", "(a+)+$".repeat(1000).as_bytes())],
                &opts("(a+)+$", 0, 1)
            )
            .total_matches,
            0
        );
    }

    #[test]
    fn binary_unreadable_lossy_long_and_bom() {
        let mut late_nul = vec![b'x'; 200_000];
        late_nul.extend_from_slice(b"\nneedle\n\0");
        let long = format!("needle{}\n", "é".repeat(3000));
        let inputs = vec![
            bytes("bin", &late_nul),
            SearchInput {
                path: "gone".into(),
                source: Source::File(Box::new(|| File::open("/nonexistent/x"))),
            },
            bytes("latin1", b"caf\xe9 needle\n"),
            bytes("long", long.as_bytes()),
            bytes("bom", b"\xef\xbb\xbfneedle first\n"),
        ];
        let out = run(inputs, &opts("^needle|needle$|caf. needle", 0, 10));
        let cut = format!(
            "needle{}… [line truncated: 3006 characters]",
            "é".repeat(1994)
        );
        assert_eq!(
            out.text,
            format!("latin1:1: caf\u{FFFD} needle\nlong:1: {cut}\nbom:1: needle first\n")
        );
        assert_eq!((out.total_matches, out.files_matched), (3, 3));
        let skipped: Vec<_> = out
            .skipped_shown
            .iter()
            .map(|(p, w)| (p.as_str(), &w[..9]))
            .collect();
        assert_eq!(skipped, [("bin", "is binary"), ("gone", "could not")]);
    }

    #[test]
    fn files_are_opened_and_searched() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = (0..20)
            .map(|i| {
                let p = dir.path().join(format!("{i}.txt"));
                let body = if i == 7 {
                    b"a\0needle\n".to_vec()
                } else {
                    format!("x\nneedle {i}\n").into_bytes()
                };
                std::fs::write(&p, body).unwrap();
                SearchInput {
                    path: format!("{i}.txt"),
                    source: Source::File(Box::new(move || File::open(p))),
                }
            })
            .collect();
        let out = run(inputs, &opts("needle", 0, 3));
        assert_eq!(
            out.text,
            "0.txt:2: needle 0\n1.txt:2: needle 1\n2.txt:2: needle 2\n"
        );
        assert_eq!(
            (out.shown, out.total_matches, out.files_matched),
            (3, 19, 19)
        );
    }
}
