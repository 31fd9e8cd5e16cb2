//! Cutting a text into passages on its structure: a heading (Markdown's `#`, as
//! the converters write them) starts a passage, paragraphs (blank-line separated)
//! are gathered until a passage has about `TARGET_WORDS`, and a paragraph longer
//! than `MAX_PASSAGE_WORDS` is cut between its lines. Each passage keeps its line
//! range and the heading it sits under, whose words count for it too.

/// About how many words a passage gathers before the next paragraph starts another.
pub const TARGET_WORDS: usize = 120;
/// The most words a passage holds, unless one line alone has more.
pub const MAX_PASSAGE_WORDS: usize = 300;

/// A passage of a text: lines `first_line..=last_line` (1-based) and their text.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub first_line: u32,
    pub last_line: u32,
    /// The heading the passage sits under, if any (its own first line or above).
    pub heading: Option<String>,
    pub text: String,
}

/// A passage as slices of the text it was cut from: what the index reads, with no
/// copy. `text` runs from its first line's start to its last line's end, so it
/// holds the blank lines and line ends between (which are no words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span<'a> {
    pub first_line: u32,
    pub last_line: u32,
    pub heading: Option<&'a str>,
    pub text: &'a str,
}

struct Open {
    first_line: u32,
    last_line: u32,
    words: usize,
    start: usize,
    end: usize,
}

/// The passages of `text`, in order; blank lines belong to none. A passage's text
/// is its lines that are not blank, joined by `\n`.
pub fn cut(text: &str) -> Vec<Passage> {
    spans(text)
        .into_iter()
        .map(|span| Passage {
            first_line: span.first_line,
            last_line: span.last_line,
            heading: span.heading.map(str::to_string),
            text: span
                .text
                .lines()
                .filter(|line| !line.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n"),
        })
        .collect()
}

/// The passages of `text` as [`cut`] finds them, as slices of it.
pub fn spans(text: &str) -> Vec<Span<'_>> {
    let mut passages = Vec::new();
    let mut heading: Option<&str> = None;
    let mut open: Option<Open> = None;
    let mut at_paragraph_end = false;
    for (i, line) in text.lines().enumerate() {
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        // A line of whitespace alone has no words: no trim is needed to tell it.
        let words = count_words(line);
        if words == 0 {
            at_paragraph_end = true;
            continue;
        }
        let is_heading = heading_text(line.trim_start());
        let full = open.as_ref().is_some_and(|o| {
            o.words + words > MAX_PASSAGE_WORDS || (at_paragraph_end && o.words >= TARGET_WORDS)
        });
        if is_heading.is_some() || full {
            close(text, open.take(), heading, &mut passages);
        }
        if is_heading.is_some() {
            heading = is_heading;
        }
        at_paragraph_end = false;
        // `lines` gives slices of `text`, so where one starts is its distance from text's start.
        let start = line.as_ptr() as usize - text.as_ptr() as usize;
        let o = open.get_or_insert(Open {
            first_line: number,
            last_line: number,
            words: 0,
            start,
            end: start,
        });
        o.end = start + line.len();
        o.last_line = number;
        o.words += words;
    }
    close(text, open.take(), heading, &mut passages);
    passages
}

/// How many words `split_whitespace` finds in `line`, a byte at a time where the
/// line is ASCII (whose whitespace is tab to carriage return, and space).
fn count_words(line: &str) -> usize {
    if !line.is_ascii() {
        return line.split_whitespace().count();
    }
    let mut words = 0;
    let mut in_word = false;
    for &b in line.as_bytes() {
        let space = matches!(b, b'\t'..=b'\r' | b' ');
        words += usize::from(!space && !in_word);
        in_word = !space;
    }
    words
}

fn close<'a>(
    text: &'a str,
    open: Option<Open>,
    heading: Option<&'a str>,
    passages: &mut Vec<Span<'a>>,
) {
    if let Some(o) = open {
        passages.push(Span {
            first_line: o.first_line,
            last_line: o.last_line,
            heading,
            text: &text[o.start..o.end],
        });
    }
}

/// The title of a Markdown heading line (`# Title` to `###### Title`), given
/// without the whitespace it starts with; most lines are turned away at their first
/// byte, before the end is trimmed.
fn heading_text(line: &str) -> Option<&str> {
    if !line.starts_with('#') {
        return None;
    }
    let line = line.trim_end();
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    rest.starts_with(' ').then(|| rest.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_start_passages_and_keep_their_line_ranges() {
        let text = "# Intro\nHello there.\n\nMore.\n\n## Setup\nInstall it.\n";
        let cut = cut(text);
        assert_eq!(cut.len(), 2);
        assert_eq!((cut[0].first_line, cut[0].last_line), (1, 4));
        assert_eq!(cut[0].heading.as_deref(), Some("Intro"));
        assert_eq!((cut[1].first_line, cut[1].last_line), (6, 7));
        assert_eq!(cut[1].heading.as_deref(), Some("Setup"));
        assert_eq!(cut[1].text, "## Setup\nInstall it.");
    }

    #[test]
    fn paragraphs_gather_to_a_target_and_long_ones_are_cut_between_lines() {
        let paragraph = "word ".repeat(TARGET_WORDS);
        let text = format!("{paragraph}\n\n{paragraph}\n\n{paragraph}\n");
        assert_eq!(cut(&text).len(), 3);
        let long: String = (0..100)
            .map(|_| "one two three four five six seven\n")
            .collect();
        let cut = cut(&long);
        assert!(cut.len() >= 2);
        assert!(cut
            .iter()
            .all(|p| p.text.split_whitespace().count() <= MAX_PASSAGE_WORDS));
        assert_eq!(cut.last().unwrap().last_line, 100);
    }

    #[test]
    fn a_span_is_a_slice_of_the_text_and_a_passage_its_lines_not_blank() {
        let text = "# Intro\r\nHello there.\r\n  \r\nMore.\n\nLast words.";
        let spans = spans(text);
        assert_eq!(spans.len(), 1);
        assert_eq!(spans[0].heading, Some("Intro"));
        assert_eq!(spans[0].text, text);
        assert_eq!((spans[0].first_line, spans[0].last_line), (1, 6));
        let cut = cut(text);
        assert_eq!(cut[0].text, "# Intro\nHello there.\nMore.\nLast words.");
        assert_eq!(cut[0].heading.as_deref(), Some("Intro"));
    }

    #[test]
    fn words_are_counted_as_split_whitespace_counts_them() {
        for line in [
            "",
            "one",
            " one  two\tthree\x0bfour\x0cfive\rsix ",
            "über  straße\u{a0}nbsp\u{2003}em",
            "#include <x>",
        ] {
            assert_eq!(
                count_words(line),
                line.split_whitespace().count(),
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_heading_is_told_on_the_line_trimmed_at_both_ends() {
        assert_eq!(heading_text("## Setup  \t".trim_start()), Some("Setup"));
        assert_eq!(heading_text("   # Intro ".trim_start()), Some("Intro"));
        assert_eq!(heading_text("# ".trim_start()), None);
        assert_eq!(heading_text("#\u{a0}".trim_start()), None);
        assert_eq!(heading_text("####### seven".trim_start()), None);
        assert_eq!(heading_text("text # not".trim_start()), None);
    }

    #[test]
    fn a_hash_without_a_space_is_no_heading() {
        assert_eq!(cut("#include <x>\nint main;").len(), 1);
    }
}
