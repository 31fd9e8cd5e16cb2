//! Words to terms: Unicode words, lowercased, common English words left out, and
//! a light English stemmer, the same for passages and for questions.
//!
//! Building an index turns every word of every file into a term, so no word
//! allocates: a [`Tokenizer`] lowercases each word into one buffer it keeps, and
//! hands out the term as a borrow of it.

/// Words longer than this (in bytes) are no terms: hashes, base64, minified code.
const MAX_TERM_BYTES: usize = 48;

/// Common English words, which say nothing of what a passage is about.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for",
    "from", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of",
    "on", "or", "so", "that", "the", "their", "them", "then", "there", "these", "this", "those",
    "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will", "with",
    "would", "you", "your",
];

/// The longest stop word, in bytes: a longer word is looked up nowhere.
const MAX_STOP_BYTES: usize = 5;

/// The stop words as numbers (see [`key`]), in the same sorted order, so that
/// telling one costs a binary search over integers rather than string compares.
const STOP_KEYS: [u64; STOP_WORDS.len()] = stop_keys();

/// Turns text into terms, keeping the buffer each word is lowercased into.
#[derive(Default)]
pub struct Tokenizer {
    lower: String,
}

impl Tokenizer {
    /// Calls `each` with every term of `text`, in order; the term lives until the
    /// next one.
    pub fn each_term(&mut self, text: &str, mut each: impl FnMut(&str)) {
        for (word, ascii) in words(text) {
            if word.len() > MAX_TERM_BYTES {
                continue;
            }
            self.lower.clear();
            if ascii {
                self.lower.push_str(word);
                self.lower.make_ascii_lowercase();
            } else {
                // Unicode's own rules, which look past the letter ("Σ" ends a word as "ς").
                self.lower.push_str(&word.to_lowercase());
            }
            if is_stop_word(&self.lower) {
                continue;
            }
            stem(&mut self.lower);
            each(&self.lower);
        }
    }
}

/// The terms of `text`, in order.
pub fn terms(text: &str) -> Vec<String> {
    let mut all = Vec::new();
    Tokenizer::default().each_term(text, |term| all.push(term.to_string()));
    all
}

/// The words of `text` (its runs of alphanumeric characters), each with whether it
/// is all ASCII: what `text.split(|c| !c.is_alphanumeric())` gives without its
/// empty pieces, a byte at a time where the text is ASCII.
fn words(text: &str) -> impl Iterator<Item = (&str, bool)> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            match bytes.get(at)? {
                b if b.is_ascii_alphanumeric() => break,
                b if b.is_ascii() => at += 1,
                _ => {
                    let (alphanumeric, width) = char_at(text, at);
                    if alphanumeric {
                        break;
                    }
                    at += width;
                }
            }
        }
        let start = at;
        let mut ascii = true;
        while let Some(b) = bytes.get(at) {
            if b.is_ascii_alphanumeric() {
                at += 1;
            } else if b.is_ascii() {
                break;
            } else {
                let (alphanumeric, width) = char_at(text, at);
                if !alphanumeric {
                    break;
                }
                ascii = false;
                at += width;
            }
        }
        Some((&text[start..at], ascii))
    })
}

/// Whether the character that starts at byte `at` of `text` is alphanumeric, and
/// its width in bytes.
#[cold]
fn char_at(text: &str, at: usize) -> (bool, usize) {
    text[at..]
        .chars()
        .next()
        .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8()))
}

fn is_stop_word(word: &str) -> bool {
    let word = word.as_bytes();
    if word.len() > MAX_STOP_BYTES {
        return false;
    }
    let mut padded = [0u8; 8];
    padded[..word.len()].copy_from_slice(word);
    STOP_KEYS.binary_search(&u64::from_be_bytes(padded)).is_ok()
}

/// A word of at most 8 bytes as a number that sorts as the word does: its bytes
/// big-endian, zeros after (no word holds a zero byte).
const fn key(word: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < 8 {
        key <<= 8;
        if i < word.len() {
            key |= word[i] as u64;
        }
        i += 1;
    }
    key
}

const fn stop_keys() -> [u64; STOP_WORDS.len()] {
    let mut keys = [0u64; STOP_WORDS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = key(STOP_WORDS[i].as_bytes());
        i += 1;
    }
    keys
}

/// A light English stemmer (plurals, -ing, -ed, -ly): "queries" and "query",
/// "running" and "runs" meet; words of three letters or fewer are kept as they are.
fn stem(word: &mut String) {
    // Every suffix below ends in one of these letters, and most words in none.
    let last = word.as_bytes().last();
    if word.len() <= 3 || !matches!(last, Some(b's' | b'g' | b'd' | b'y')) || !word.is_ascii() {
        return;
    }
    for (suffix, replace) in [
        ("ies", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("edly", ""),
        ("ed", ""),
        ("ly", ""),
        ("es", "e"),
        ("s", ""),
    ] {
        let Some(root) = word.strip_suffix(suffix) else {
            continue;
        };
        if root.len() < 3 || (suffix == "s" && (root.ends_with('s') || root.ends_with('u'))) {
            return;
        }
        word.truncate(root.len());
        word.push_str(replace);
        // "running" -> "runn" -> "run": a doubled last consonant goes.
        let bytes = word.as_bytes();
        let n = bytes.len();
        if replace.is_empty()
            && n > 3
            && bytes[n - 1] == bytes[n - 2]
            && !b"aeiouls".contains(&bytes[n - 1])
        {
            word.truncate(n - 1);
        }
        return;
    }
}

#[cfg(test)]
mod tests;
