//! The text a converter builds: capped at MAX_OUTPUT, with the line and heading
//! rules every format shares.

use super::MAX_OUTPUT;

/// Text under construction.
#[derive(Default)]
pub struct Out {
    text: String,
    full: bool,
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
}
