//! The text a converter builds: capped at MAX_OUTPUT, with the line and heading
//! rules every format shares.

use super::{Converted, Refusal, MAX_OUTPUT};

/// Text under construction.
#[derive(Default)]
pub struct Out {
    text: String,
    full: bool,
    /// Whether any of the document's own text (not a heading or separator the
    /// converter added) has been written.
    seen: bool,
}

impl Out {
    /// Appends `s`; false once the cap is reached (the caller stops there).
    pub fn push(&mut self, s: &str) -> bool {
        if self.full {
            return false;
        }
        if self.text.len() + s.len() > MAX_OUTPUT {
            let mut end = MAX_OUTPUT - self.text.len();
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&s[..end]);
            self.full = true;
            return false;
        }
        self.text.push_str(s);
        true
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
            return !self.full;
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

    /// Whether the cap was reached.
    pub fn full(&self) -> bool {
        self.full
    }

    /// The text, ending with a newline when it has any.
    pub fn finish(mut self) -> String {
        self.full = false;
        self.newline();
        self.text
    }

    /// The text, or [`Refusal::NoText`] when the document gave none of its own
    /// (headings and separators alone do not count), so the next converter runs.
    pub fn finish_text(self, kind: &'static str) -> Converted {
        if self.seen {
            Ok(self.finish())
        } else {
            Err(Refusal::NoText(kind))
        }
    }
}
