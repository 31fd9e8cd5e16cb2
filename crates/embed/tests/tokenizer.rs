//! The tokenizer gives HF tokenizers' ids (tests/fixtures/tokenizer_ids.json, made by
//! make_fixtures.py) for strings chosen to be hard: accents, CJK, emoji, controls,
//! punctuation runs, words past 100 characters, special tokens written in the text,
//! texts past 256 tokens.

mod common;

use file_store_embed::{Model, MAX_TOKENS};

#[test]
fn ids_equal_hf_tokenizers() {
    let Some(dir) = common::model_dir("ids_equal_hf_tokenizers") else {
        return;
    };
    let model = Model::load(&dir).unwrap();
    let cases = common::fixture("tokenizer_ids.json");
    let cases = cases.as_array().unwrap();
    assert!(cases.len() >= 40);
    let mut wrong = Vec::new();
    for case in cases {
        let text = case["text"].as_str().unwrap();
        let want: Vec<u32> = serde_json::from_value(case["ids"].clone()).unwrap();
        let got = model.tokenize(text);
        assert!(got.len() <= MAX_TOKENS);
        if got != want {
            wrong.push(format!("{text:?}\n  got  {got:?}\n  want {want:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn huge_texts_are_cut_without_reading_them_whole() {
    let Some(dir) = common::model_dir("huge_texts_are_cut_without_reading_them_whole") else {
        return;
    };
    let model = Model::load(&dir).unwrap();
    let huge = "lorem ipsum dolor sit amet ".repeat(400_000);
    let started = std::time::Instant::now();
    let ids = model.tokenize(&huge);
    assert_eq!(ids.len(), MAX_TOKENS);
    assert_eq!((ids[0], ids[MAX_TOKENS - 1]), (101, 102));
    assert!(
        started.elapsed().as_millis() < 500,
        "{:?}",
        started.elapsed()
    );
}
