//! BERT's normalizer and pre-tokenizer, as HF tokenizers' `BertNormalizer` and
//! `BertPreTokenizer` run them: control characters dropped and whitespace made a
//! space, spaces put around CJK ideographs, accents stripped (NFD, then nonspacing
//! marks dropped), lowercase char by char; then words split at whitespace, with each
//! punctuation character a word of its own.
//!
//! The text is taken one whitespace-separated run at a time: every step above acts on
//! a character alone except NFD's reordering of combining marks, which never crosses a
//! whitespace character, so this gives HF's words exactly while letting the caller
//! stop as soon as it has enough tokens. The Unicode categories (control, format,
//! private use, nonspacing mark, punctuation) come from the `unicode_categories`
//! tables HF tokenizers uses, so characters Unicode assigned since those tables are
//! treated as HF treats them.

use std::ops::ControlFlow;

use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

/// The `BertNormalizer` settings read from tokenizer.json.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Normalizer {
    /// Drop control characters and make every whitespace character a space.
    pub clean_text: bool,
    /// Put spaces around CJK ideographs, so each is a word.
    pub handle_chinese_chars: bool,
    /// NFD, then drop nonspacing marks.
    pub strip_accents: bool,
    /// Lowercase, one character at a time.
    pub lowercase: bool,
}

/// Whitespace for `clean_text`: tab, newline and return count although they are controls.
fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Controls for `clean_text`: categories Cc, Cf and Co, but not tab, newline, return.
fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

/// The CJK Unified Ideographs blocks and their extensions and compatibility blocks.
fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

/// Punctuation for the pre-tokenizer: ASCII's (which takes in `$+<=>^`|~`) and
/// Unicode's P* categories.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

/// What the text gives: a normalized word, or the id of a token matched in the raw
/// text.
#[derive(Debug, PartialEq)]
pub(crate) enum Piece<'a> {
    Word(&'a str),
    Added(u32),
}

impl Normalizer {
    /// Calls `each` with each piece of `text` in order until it breaks. `added` is
    /// asked at each character whether an added token starts there, and answers with
    /// its length in bytes and its id: it is taken from the raw text, unnormalized.
    pub(crate) fn pieces<B>(
        &self,
        text: &str,
        added: impl Fn(&str, char) -> Option<(usize, u32)>,
        mut each: impl FnMut(Piece<'_>) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        let mut run = String::new();
        let mut normalized = String::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if let Some((len, id)) = added(rest, c) {
                self.split(&run, &mut normalized, &mut each)?;
                run.clear();
                each(Piece::Added(id))?;
                rest = &rest[len..];
                continue;
            }
            rest = &rest[c.len_utf8()..];
            if self.clean_text && (c == '\0' || c == '\u{fffd}' || is_control(c)) {
                continue;
            }
            if is_whitespace(c) && (self.clean_text || c.is_whitespace()) {
                self.split(&run, &mut normalized, &mut each)?;
                run.clear();
            } else if self.handle_chinese_chars && is_chinese_char(c) {
                self.split(&run, &mut normalized, &mut each)?;
                run.clear();
                run.push(c);
                self.split(&run, &mut normalized, &mut each)?;
                run.clear();
            } else {
                run.push(c);
            }
        }
        self.split(&run, &mut normalized, &mut each)
    }

    /// Normalizes one run of text without whitespace and passes on its words: the
    /// stretches between punctuation, and each punctuation character alone.
    fn split<B>(
        &self,
        run: &str,
        normalized: &mut String,
        each: &mut impl FnMut(Piece<'_>) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        if run.is_empty() {
            return ControlFlow::Continue(());
        }
        normalized.clear();
        if self.strip_accents {
            for c in run.nfd().filter(|c| !c.is_mark_nonspacing()) {
                self.push(normalized, c);
            }
        } else {
            for c in run.chars() {
                self.push(normalized, c);
            }
        }
        let mut start = 0;
        for (i, c) in normalized.char_indices() {
            let punctuation = is_punctuation(c);
            if punctuation || c.is_whitespace() {
                if start < i {
                    each(Piece::Word(&normalized[start..i]))?;
                }
                let end = i + c.len_utf8();
                if punctuation {
                    each(Piece::Word(&normalized[i..end]))?;
                }
                start = end;
            }
        }
        if start < normalized.len() {
            each(Piece::Word(&normalized[start..]))?;
        }
        ControlFlow::Continue(())
    }

    fn push(&self, out: &mut String, c: char) {
        if self.lowercase {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let bert = Normalizer {
            clean_text: true,
            handle_chinese_chars: true,
            strip_accents: true,
            lowercase: true,
        };
        let mut out = Vec::new();
        let added = |rest: &str, _| rest.starts_with("[SEP]").then_some((5, 102));
        let _ = bert.pieces::<()>(text, added, |piece| {
            out.push(match piece {
                Piece::Word(w) => w.to_string(),
                Piece::Added(id) => format!("#{id}"),
            });
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn splits_like_bert() {
        assert_eq!(
            words("Hey friend!     How are you?!?"),
            ["hey", "friend", "!", "how", "are", "you", "?", "!", "?"]
        );
        assert_eq!(
            words("野口里佳 Noguchi"),
            ["野", "口", "里", "佳", "noguchi"]
        );
        assert_eq!(words("Crème brûlée"), ["creme", "brulee"]);
        assert_eq!(words("a\u{0}b\u{fffd}c\u{200b}d\te"), ["abcd", "e"]);
        assert_eq!(words("ΟΔΟΣ $5+3"), ["οδοσ", "$", "5", "+", "3"]);
        assert!(words(" \t\r\n ").is_empty());
        assert_eq!(words("a[SEP]\u{301}b [SEP"), ["a", "#102", "b", "[", "sep"]);
    }

    #[test]
    fn stops_when_asked() {
        let bert = Normalizer {
            clean_text: true,
            handle_chinese_chars: true,
            strip_accents: true,
            lowercase: true,
        };
        let mut seen = 0;
        let flow = bert.pieces(
            "one two three four",
            |_, _| None,
            |_| {
                seen += 1;
                if seen == 2 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!((flow, seen), (ControlFlow::Break(()), 2));
    }
}
