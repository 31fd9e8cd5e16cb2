use super::*;

/// The tokenizer as it was before it kept a buffer: a String a word, split on
/// `char::is_alphanumeric`, the stop words looked up as strings. The one above
/// must give exactly its terms.
fn terms_before(text: &str) -> Vec<String> {
    let mut all = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() || word.len() > MAX_TERM_BYTES {
            continue;
        }
        let lower = word.to_lowercase();
        if STOP_WORDS.binary_search(&lower.as_str()).is_ok() {
            continue;
        }
        all.push(stem_before(lower));
    }
    all
}

fn stem_before(mut word: String) -> String {
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

#[test]
fn stop_words_are_sorted_for_the_binary_search() {
    assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    assert!(STOP_KEYS.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        STOP_WORDS.iter().map(|w| w.len()).max(),
        Some(MAX_STOP_BYTES)
    );
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

#[test]
fn stop_words_are_told_from_words_that_start_like_them() {
    for word in STOP_WORDS {
        assert!(is_stop_word(word), "{word}");
    }
    for word in ["", "ab", "abou", "aboutx", "thei", "x", "z", "yours", "wh"] {
        assert!(!is_stop_word(word), "{word}");
    }
}

#[test]
fn the_terms_are_those_of_the_tokenizer_before_on_mixed_text() {
    let texts = [
        "How do I abort the Queries? THE Timeouts, running runs; classes passes.",
        "Größe über ÜBER straße STRASSE İstanbul ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΎΣ Σ",
        "Kelvin \u{212A} and Å: \u{212B}ngstrom; ﬁnance ǅemal ǈ",
        "日本語のテキスト 中文 한국어 עברית العربية हिन्दी १२३ ٣٤٥",
        "e\u{301}te\u{301} cafe\u{301}s — combining marks split a word",
        "snake_case camelCaseWords SCREAMING_CASE x86_64 0xDEADBEEF 3.14159 1e10",
        "def __init__(self, *args, **kwargs):\n    return self._cache[key]\r\n",
        "tabs\tand\u{a0}no-break\u{2003}spaces\u{feff}bom \u{1F600}emoji\u{1F600}",
        "queries queried querying quickly studies sses bus gas yes ties",
        &format!("{} short {}", "a".repeat(48), "b".repeat(49)),
        &format!("{}{}", "é".repeat(24), "é".repeat(25)),
    ];
    for text in texts {
        assert_eq!(terms(text), terms_before(text), "{text:?}");
    }
    let all = texts.join("\n");
    assert_eq!(terms(&all), terms_before(&all));
}

#[test]
fn the_terms_are_those_of_the_tokenizer_before_on_real_text() {
    // The crate's own sources: code, comments and prose.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if let Ok(text) = std::fs::read_to_string(entry.path()) {
            assert_eq!(terms(&text), terms_before(&text), "{:?}", entry.path());
            seen += 1;
        }
    }
    assert!(seen > 3);
}

proptest::proptest! {
    #[test]
    fn the_terms_are_those_of_the_tokenizer_before_on_any_text(
        text in "(?s)([a-zA-Z0-9 _.\\-\n]|[\u{80}-\u{3ff}]|[\u{1e00}-\u{1fff}]|[\u{2100}-\u{214f}]|Σ|İ|ß|ﬁ|\u{301}|\u{1F600}){0,80}",
    ) {
        proptest::prop_assert_eq!(terms(&text), terms_before(&text));
    }
}
