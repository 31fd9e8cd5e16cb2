//! WordPiece, as HF tokenizers runs it: each word is cut greedily into the longest
//! pieces found in the vocabulary, every piece after the first looked up with the
//! `##` prefix; a word with a part no piece matches, or longer than
//! `max_input_chars_per_word` characters, is the one unknown token.

use std::collections::HashMap;

/// The WordPiece model read from tokenizer.json.
#[derive(Debug)]
pub(crate) struct WordPiece {
    /// Piece to id.
    pub vocab: HashMap<String, u32>,
    /// The id of `[UNK]`.
    pub unk: u32,
    /// What marks a piece that continues a word: `##`.
    pub prefix: String,
    /// Words longer than this, in characters, are unknown.
    pub max_chars: usize,
}

impl WordPiece {
    /// Appends the ids of `word`'s pieces to `out`; `piece` is a buffer to reuse.
    pub(crate) fn push(&self, word: &str, out: &mut Vec<u32>, piece: &mut String) {
        if word.chars().nth(self.max_chars).is_some() {
            out.push(self.unk);
            return;
        }
        let first = out.len();
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let id = loop {
                piece.clear();
                if start > 0 {
                    piece.push_str(&self.prefix);
                }
                piece.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(piece.as_str()) {
                    break Some(id);
                }
                // Back off one character: `end` stays on a char boundary.
                match word[start..end].chars().next_back() {
                    Some(c) if end - c.len_utf8() > start => end -= c.len_utf8(),
                    _ => break None,
                }
            };
            let Some(id) = id else {
                out.truncate(first);
                out.push(self.unk);
                return;
            };
            out.push(id);
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> WordPiece {
        let vocab = ["[UNK]", "un", "##aff", "##able", "aff", "##a", "é", "##é"]
            .iter()
            .enumerate()
            .map(|(i, s)| (s.to_string(), i as u32))
            .collect();
        WordPiece {
            vocab,
            unk: 0,
            prefix: "##".to_string(),
            max_chars: 5,
        }
    }

    fn ids(word: &str) -> Vec<u32> {
        let mut out = vec![99];
        model().push(word, &mut out, &mut String::new());
        out
    }

    #[test]
    fn longest_pieces_first() {
        assert_eq!(ids("unaff"), [99, 1, 2]);
        assert_eq!(ids("affa"), [99, 4, 5]);
        assert_eq!(ids("éé"), [99, 6, 7]);
    }

    #[test]
    fn unmatched_or_long_words_are_unknown() {
        assert_eq!(ids("unx"), [99, 0]);
        assert_eq!(ids("xun"), [99, 0]);
        assert_eq!(ids("unaffa"), [99, 0]);
        assert_eq!(ids("ééééé"), [99, 6, 7, 7, 7, 7]);
        assert_eq!(ids("éééééé"), [99, 0]);
    }
}
