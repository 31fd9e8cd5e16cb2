//! The text a converter builds, with the line and heading rules every format
//! shares. Every output of one conversion draws on one [`Budget`]: what one
//! writes, the others cannot.

use std::collections::HashSet;
use std::rc::Rc;

use super::budget::Budget;
use super::refusal::{Converted, Refusal};

/// Text under construction.
pub struct Out {
    text: String,
    budget: Rc<Budget>,
    /// Whether any of the document's own text (not a heading or separator the
    /// converter added) has been written.
    seen: bool,
}

impl Out {
    /// An empty output drawing on `budget`.
    pub fn new(budget: &Rc<Budget>) -> Self {
        Out {
            text: String::new(),
            budget: budget.clone(),
            seen: false,
        }
    }

    /// The budget this output draws on.
    pub fn budget(&self) -> &Rc<Budget> {
        &self.budget
    }

    /// Appends `s`; false once the conversion has stopped (the caller stops there).
    pub fn push(&mut self, s: &str) -> bool {
        if s.is_empty() {
            return !self.budget.stopped();
        }
        let mut end = self.budget.take_text(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        if end > 0 {
            if self.text.try_reserve(end).is_err() {
                self.budget.out_of_memory();
                return false;
            }
            self.text.push_str(&s[..end]);
        }
        end == s.len() && self.budget.step(1)
    }

    /// Appends text another output of the same conversion already paid for,
    /// never past the budget's text ceiling: the separators and headings
    /// around paid text are not paid for, and a million notes of a few bytes
    /// each passed the ceiling by a newline each.
    pub fn copy(&mut self, s: &str) {
        let mut end = s
            .len()
            .min(self.budget.text_ceiling().saturating_sub(self.text.len()));
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        if end < s.len() {
            self.budget.text_cut();
        }
        let s = &s[..end];
        self.seen |= s.chars().any(|c| !c.is_whitespace());
        if self.text.try_reserve(s.len()).is_ok() {
            self.text.push_str(s);
        } else {
            self.budget.out_of_memory();
        }
    }

    /// Appends the document's own text: what tells a document with text from
    /// one with none.
    pub fn text(&mut self, s: &str) -> bool {
        self.seen |= s.chars().any(|c| !c.is_whitespace());
        self.push(s)
    }

    /// Ends the current line, unless there is none, without its trailing spaces.
    pub fn newline(&mut self) -> bool {
        let kept = self.text.trim_end_matches(' ').len();
        self.text.truncate(kept);
        if self.text.is_empty() || self.text.ends_with('\n') {
            return !self.budget.stopped();
        }
        self.push("\n")
    }

    /// A `## title` heading, with a blank line before it.
    pub fn heading(&mut self, title: &str) -> bool {
        self.newline();
        if !self.text.is_empty() && !self.text.ends_with("\n\n") {
            self.push("\n");
        }
        self.push("## ") && self.push(title) && self.push("\n")
    }

    /// A `## title` heading over text already paid for (notes, comments),
    /// written even after a cut, so what was read keeps its heading.
    pub fn section(&mut self, title: &str) {
        let kept = self.text.trim_end_matches(' ').len();
        self.text.truncate(kept);
        let gap = match () {
            _ if self.text.is_empty() || self.text.ends_with("\n\n") => "",
            _ if self.text.ends_with('\n') => "\n",
            _ => "\n\n",
        };
        let seen = self.seen;
        self.copy(&format!("{gap}## {title}\n"));
        self.seen = seen;
    }

    /// Takes away the hyphen of a word broken at the end of the line
    /// (`con-`), so the next text completes it; false when the line does not
    /// end that way. Before a capital (`caps`) only a word in capitals is
    /// joined (`ELE-` / `MENT`), so `non-` / `Unix` keeps its hyphen.
    pub fn unhyphenate(&mut self, caps: bool) -> bool {
        let mut end = self.text.chars().rev();
        let (Some(hyphen @ ('-' | '\u{ad}' | '\u{2010}')), Some(letter), before) =
            (end.next(), end.next(), end.next())
        else {
            return false;
        };
        let joins = if caps {
            letter.is_uppercase() && before.is_some_and(char::is_uppercase)
        } else {
            letter.is_alphabetic()
        };
        if joins {
            self.text.truncate(self.text.len() - hyphen.len_utf8());
        }
        joins
    }

    /// Whether the text ends with whitespace (or there is none yet).
    pub fn after_space(&self) -> bool {
        self.text
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace)
    }

    /// Whether the conversion has stopped: a ceiling reached, or abandoned.
    pub fn full(&self) -> bool {
        self.budget.stopped()
    }

    /// Whether any of the document's own text has been written.
    pub fn seen(&self) -> bool {
        self.seen
    }

    /// The text, ending with a newline when it has any: one output among the
    /// conversion's, with no word on a cut (the whole conversion's text says it).
    pub fn finish(mut self) -> String {
        let kept = self.text.trim_end_matches(' ').len();
        self.text.truncate(kept);
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.text
    }

    /// The conversion's text, ending with `[cut: why]` on a line of its own when
    /// a ceiling stopped it; or [`Refusal::NoText`] when the document gave none
    /// of its own (headings and separators alone do not count) and was read
    /// whole, so the next converter (OCR) runs. A cut document is never sent on
    /// as one with no text.
    pub fn finish_text(self, kind: &'static str) -> Converted {
        let marker = self.budget.marker();
        if !self.seen && marker.is_none() {
            return Err(Refusal::NoText(kind));
        }
        let mut text = self.finish();
        if let Some(marker) = marker {
            text.push_str(&marker);
            text.push('\n');
        }
        Ok(text)
    }
}

/// The distinct texts of a section (headers, comments), in the order first
/// seen; a set beside the list, so telling a repeat is one look-up, not a
/// search of all before it.
#[derive(Default)]
pub struct Distinct {
    entries: Vec<Rc<str>>,
    known: HashSet<Rc<str>>,
}

impl Distinct {
    /// Adds `text` unless it is empty or already there.
    pub fn add(&mut self, text: &str) {
        if !text.is_empty() && !self.known.contains(text) {
            let text: Rc<str> = text.into();
            self.known.insert(text.clone());
            self.entries.push(text);
        }
    }

    /// The texts, in order.
    pub fn entries(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| &**e)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::super::budget::Budget;
    use super::Out;

    #[test]
    fn text_copied_between_outputs_stops_at_the_ceiling() {
        let budget = Budget::with(10, 100);
        let mut note = Out::new(&budget);
        assert!(note.text("[^1] é"));
        let mut out = Out::new(&budget);
        for _ in 0..4 {
            out.section("Footnotes");
            out.copy("[^1] é");
        }
        let text = out.finish_text("Word").unwrap();
        assert_eq!(
            text,
            "## Footnot\n[cut: the document expands past 64 MB of text]\n"
        );
    }
}
