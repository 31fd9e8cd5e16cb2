//! The tokenizer read from tokenizer.json: special tokens found in the raw text
//! first (`[CLS]`, `[SEP]`, `[MASK]`… written in a text are those tokens, as in HF
//! tokenizers), the text between them normalized, split into words and cut into
//! WordPiece ids, then `[CLS] … [SEP]` around them, truncated to a length given.
//!
//! Only what all-MiniLM-L6-v2's file holds is taken (a `BertNormalizer`, a
//! `BertPreTokenizer`, a `WordPiece` model, a `[CLS] $A [SEP]` template); anything
//! else is an error naming the file rather than a tokenizer that silently differs.
//! The file's own truncation (128) and padding are not used: sentence-transformers
//! truncates to the model's `max_seq_length`, and this crate never pads.

use std::ops::ControlFlow;
use std::path::Path;

use serde_json::Value;

use crate::normalize::{Normalizer, Piece};
use crate::wordpiece::WordPiece;
use crate::Error;

/// The tokenizer of a BERT model.
#[derive(Debug)]
pub(crate) struct Tokenizer {
    normalizer: Normalizer,
    wordpiece: WordPiece,
    /// Tokens matched in the raw text, longest first so the longest match wins.
    added: Vec<(String, u32)>,
    /// The characters the added tokens start with.
    added_starts: Vec<char>,
    cls: u32,
    sep: u32,
}

fn field<'a>(value: &'a Value, pointer: &str) -> Result<&'a Value, String> {
    value
        .pointer(pointer)
        .ok_or_else(|| format!("{pointer} is missing"))
}

fn str_field<'a>(value: &'a Value, pointer: &str) -> Result<&'a str, String> {
    field(value, pointer)?
        .as_str()
        .ok_or_else(|| format!("{pointer} is not a string"))
}

fn bool_field(value: &Value, pointer: &str) -> Result<bool, String> {
    field(value, pointer)?
        .as_bool()
        .ok_or_else(|| format!("{pointer} is not true or false"))
}

fn id(value: &Value, what: &str) -> Result<u32, String> {
    value
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .ok_or_else(|| format!("{what}: id {value} is not a token id"))
}

fn expect(actual: &str, wanted: &str, pointer: &str) -> Result<(), String> {
    if actual == wanted {
        Ok(())
    } else {
        Err(format!(
            "{pointer} is {actual}, this crate reads only {wanted}"
        ))
    }
}

fn normalizer(json: &Value) -> Result<Normalizer, String> {
    expect(
        str_field(json, "/normalizer/type")?,
        "BertNormalizer",
        "/normalizer/type",
    )?;
    let lowercase = bool_field(json, "/normalizer/lowercase")?;
    // null: strip accents when lowercasing, as BERT's uncased models do.
    let strip_accents = match field(json, "/normalizer/strip_accents")? {
        Value::Null => lowercase,
        _ => bool_field(json, "/normalizer/strip_accents")?,
    };
    Ok(Normalizer {
        clean_text: bool_field(json, "/normalizer/clean_text")?,
        handle_chinese_chars: bool_field(json, "/normalizer/handle_chinese_chars")?,
        strip_accents,
        lowercase,
    })
}

fn wordpiece(json: &Value) -> Result<WordPiece, String> {
    expect(str_field(json, "/model/type")?, "WordPiece", "/model/type")?;
    let vocab = field(json, "/model/vocab")?
        .as_object()
        .ok_or("/model/vocab is not an object")?
        .iter()
        .map(|(piece, value)| Ok((piece.clone(), id(value, piece)?)))
        .collect::<Result<_, String>>()?;
    let unk = str_field(json, "/model/unk_token")?;
    let max_chars = field(json, "/model/max_input_chars_per_word")?
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or("/model/max_input_chars_per_word is not a count")?;
    let mut model = WordPiece {
        vocab,
        unk: 0,
        prefix: str_field(json, "/model/continuing_subword_prefix")?.to_string(),
        max_chars,
    };
    model.unk = *model
        .vocab
        .get(unk)
        .ok_or(format!("the vocab has no {unk}"))?;
    Ok(model)
}

fn added_tokens(json: &Value) -> Result<Vec<(String, u32)>, String> {
    let tokens = field(json, "/added_tokens")?
        .as_array()
        .ok_or("/added_tokens is not a list")?;
    let mut added = Vec::with_capacity(tokens.len());
    for token in tokens {
        let content = str_field(token, "/content")?;
        if content.is_empty() {
            return Err("an added token is empty".to_string());
        }
        for flag in ["normalized", "single_word", "lstrip", "rstrip"] {
            if bool_field(token, &format!("/{flag}"))? {
                return Err(format!("added token {content:?}: {flag} is not supported"));
            }
        }
        added.push((content.to_string(), id(field(token, "/id")?, content)?));
    }
    added.sort_by_key(|(content, _)| std::cmp::Reverse(content.len()));
    Ok(added)
}

/// The ids of `[CLS]` and `[SEP]` from a `[CLS] $A [SEP]` template.
fn template(json: &Value) -> Result<(u32, u32), String> {
    expect(
        str_field(json, "/post_processor/type")?,
        "TemplateProcessing",
        "/post_processor/type",
    )?;
    let single = field(json, "/post_processor/single")?;
    let shape = |i: usize, kind: &str| str_field(single, &format!("/{i}/{kind}/id"));
    let (cls, a, sep) = (
        shape(0, "SpecialToken")?,
        shape(1, "Sequence")?,
        shape(2, "SpecialToken")?,
    );
    if a != "A" || single.as_array().map(Vec::len) != Some(3) {
        return Err("/post_processor/single is not [CLS] $A [SEP]".to_string());
    }
    let special = |name: &str| {
        let pointer = format!("/post_processor/special_tokens/{name}/ids/0");
        id(field(json, &pointer)?, name)
    };
    Ok((special(cls)?, special(sep)?))
}

impl Tokenizer {
    /// Reads and checks `path`, a tokenizer.json.
    pub(crate) fn load(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let json: Value = serde_json::from_slice(&text)
            .map_err(|e| Error::invalid(path, format!("not valid JSON: {e}")))?;
        let read = || -> Result<Self, String> {
            expect(
                str_field(&json, "/pre_tokenizer/type")?,
                "BertPreTokenizer",
                "/pre_tokenizer/type",
            )?;
            let (cls, sep) = template(&json)?;
            let added = added_tokens(&json)?;
            let mut added_starts: Vec<char> =
                added.iter().filter_map(|(c, _)| c.chars().next()).collect();
            added_starts.sort_unstable();
            added_starts.dedup();
            Ok(Tokenizer {
                normalizer: normalizer(&json)?,
                wordpiece: wordpiece(&json)?,
                added,
                added_starts,
                cls,
                sep,
            })
        };
        read().map_err(|reason| Error::invalid(path, reason))
    }

    /// The largest id this tokenizer can give.
    pub(crate) fn max_id(&self) -> u32 {
        let ids = self
            .wordpiece
            .vocab
            .values()
            .chain(self.added.iter().map(|(_, id)| id));
        ids.copied().chain([self.cls, self.sep]).max().unwrap_or(0)
    }

    /// The ids of `text`: `[CLS]`, at most `max_len - 2` tokens of it, `[SEP]`.
    /// Only as much of `text` is read as gives those tokens.
    pub(crate) fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let budget = max_len.saturating_sub(2);
        let mut ids = Vec::with_capacity(budget.min(text.len()) + 2);
        ids.push(self.cls);
        let mut buffer = String::new();
        let _ = self.normalizer.pieces(
            text,
            |rest, c| self.added_at(rest, c),
            |piece| {
                match piece {
                    Piece::Word(word) => self.wordpiece.push(word, &mut ids, &mut buffer),
                    Piece::Added(id) => ids.push(id),
                }
                if ids.len() > budget {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        ids.truncate(budget + 1);
        ids.push(self.sep);
        ids
    }

    /// The length and id of the added token `rest` starts with, if any; `c` is its
    /// first character.
    fn added_at(&self, rest: &str, c: char) -> Option<(usize, u32)> {
        if !self.added_starts.contains(&c) {
            return None;
        }
        let (content, id) = self
            .added
            .iter()
            .find(|(content, _)| rest.starts_with(content.as_str()))?;
        Some((content.len(), *id))
    }
}
