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

struct Open {
    first_line: u32,
    last_line: u32,
    words: usize,
    text: String,
}

/// The passages of `text`, in order; blank lines belong to none.
pub fn cut(text: &str) -> Vec<Passage> {
    let mut passages = Vec::new();
    let mut heading: Option<String> = None;
    let mut open: Option<Open> = None;
    let mut at_paragraph_end = false;
    let close = |open: &mut Option<Open>, heading: &Option<String>, passages: &mut Vec<Passage>| {
        if let Some(o) = open.take() {
            passages.push(Passage {
                first_line: o.first_line,
                last_line: o.last_line,
                heading: heading.clone(),
                text: o.text,
            });
        }
    };
    for (i, line) in text.lines().enumerate() {
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let trimmed = line.trim();
        if trimmed.is_empty() {
            at_paragraph_end = true;
            continue;
        }
        let words = trimmed.split_whitespace().count();
        let is_heading = heading_text(trimmed);
        let full = open.as_ref().is_some_and(|o| {
            o.words + words > MAX_PASSAGE_WORDS || (at_paragraph_end && o.words >= TARGET_WORDS)
        });
        if is_heading.is_some() || full {
            close(&mut open, &heading, &mut passages);
        }
        if let Some(title) = is_heading {
            heading = Some(title.to_string());
        }
        at_paragraph_end = false;
        let o = open.get_or_insert_with(|| Open {
            first_line: number,
            last_line: number,
            words: 0,
            text: String::new(),
        });
        if !o.text.is_empty() {
            o.text.push('\n');
        }
        o.text.push_str(line);
        o.last_line = number;
        o.words += words;
    }
    close(&mut open, &heading, &mut passages);
    passages
}

/// The title of a Markdown heading line (`# Title` to `###### Title`).
fn heading_text(line: &str) -> Option<&str> {
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
    fn a_hash_without_a_space_is_no_heading() {
        assert_eq!(cut("#include <x>\nint main;").len(), 1);
    }
}
