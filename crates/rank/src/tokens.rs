//! Words to terms: Unicode words, lowercased, common English words left out, and
//! a light English stemmer, the same for passages and for questions.

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

/// Calls `each` with every term of `text`, in order.
pub fn each_term(text: &str, mut each: impl FnMut(String)) {
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() || word.len() > MAX_TERM_BYTES {
            continue;
        }
        let lower = word.to_lowercase();
        if STOP_WORDS.binary_search(&lower.as_str()).is_ok() {
            continue;
        }
        each(stem(lower));
    }
}

/// The terms of `text`, in order.
pub fn terms(text: &str) -> Vec<String> {
    let mut all = Vec::new();
    each_term(text, |term| all.push(term));
    all
}

/// A light English stemmer (plurals, -ing, -ed, -ly): "queries" and "query",
/// "running" and "runs" meet; words of three letters or fewer are kept as they are.
fn stem(mut word: String) -> String {
    if word.len() <= 3 || !word.is_ascii() {
        return word;
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
        if let Some(root) = word.strip_suffix(suffix) {
            if root.len() < 3 || (suffix == "s" && (root.ends_with('s') || root.ends_with('u'))) {
                return word;
            }
            let keep = root.len();
            word.truncate(keep);
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
            return word;
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_the_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn words_are_lowercased_stemmed_and_common_ones_left_out() {
        assert_eq!(terms("How do I abort the Queries?"), ["abort", "query"]);
        assert_eq!(terms("running runs"), ["run", "run"]);
        assert_eq!(terms("statement_timeout"), ["statement", "timeout"]);
        assert_eq!(terms("Größe über"), ["größe", "über"]);
    }

    #[test]
    fn overlong_words_are_no_terms() {
        assert!(terms(&"x".repeat(100)).is_empty());
    }
}
