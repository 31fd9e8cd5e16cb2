//! Sentence embeddings with all-MiniLM-L6-v2, in pure Rust: no Python, no torch, no
//! C library, no network. The model's files (model.safetensors, tokenizer.json) are
//! read from a folder; `bin/fetch-minilm` puts them in `tmp/models/all-MiniLM-L6-v2`.
//!
//! It computes what sentence-transformers computes: HF tokenizers' BERT tokenizer
//! (truncated to 256 tokens, `[CLS]` and `[SEP]` included), HF `BertModel`'s forward
//! pass with the exact (erf) GELU, the mean of the last hidden states over the
//! tokens, made unit length: 384 values a text, so the dot product of two is their
//! cosine similarity.
//!
//! ```
//! use file_store_embed::Model;
//! # fn main() -> Result<(), file_store_embed::Error> {
//! # let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tmp/models/all-MiniLM-L6-v2");
//! # if !dir.join("model.safetensors").exists() { return Ok(()) } // bin/fetch-minilm not run
//! let model = Model::load(&dir)?;
//! let v = model.embed(&[
//!     "How do I reset my password?",
//!     "To change a forgotten password, open Settings, then Security.",
//!     "The cat slept on the warm windowsill.",
//! ])?;
//! let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
//! assert!(dot(&v[0], &v[1]) > dot(&v[0], &v[2]));
//! # Ok(()) }
//! ```
//!
//! Memory: the weights take 85.7 MiB (the word embeddings 44.7 of them), the
//! tokenizer's vocabulary a few more. A batch of up to [`MAX_BATCH_TOKENS`] tokens holds
//! 6·384 + 1536 values a token and one head's 256×256 scores, 15.3 MiB at most
//! whatever the number or length of the texts, and each matrix product packs its
//! operands into at most 1.1 MiB more: about 105 MiB at the peak, all told. `embed`
//! runs on the calling thread and starts no other.

mod bert;
mod error;
mod normalize;
mod ops;
mod safetensors;
mod tokenizer;
mod weights;
mod wordpiece;

use std::fmt;
use std::path::Path;

pub use error::Error;

use bert::Scratch;
use tokenizer::Tokenizer;
use weights::{Weights, VOCAB};

/// Values in an embedding.
pub const DIM: usize = 384;
/// The most tokens of a text that are embedded, `[CLS]` and `[SEP]` included: the
/// model's `max_seq_length`; the rest of a longer text is left out.
pub const MAX_TOKENS: usize = 256;
/// The most tokens run through the model at once. Texts are packed end to end, never
/// padded, so a batch is one text or several short ones.
pub const MAX_BATCH_TOKENS: usize = 1024;

/// all-MiniLM-L6-v2, loaded: its tokenizer and weights.
pub struct Model {
    tokenizer: Tokenizer,
    weights: Weights,
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("dim", &DIM)
            .finish_non_exhaustive()
    }
}

impl Model {
    /// Loads the model from `dir`, a folder holding model.safetensors and
    /// tokenizer.json; every file is checked, and an error names the one at fault.
    pub fn load(dir: &Path) -> Result<Model, Error> {
        let folder = |source| Error::ModelDir {
            path: dir.to_path_buf(),
            source,
        };
        let meta = std::fs::metadata(dir).map_err(folder)?;
        if !meta.is_dir() {
            return Err(folder(std::io::ErrorKind::NotADirectory.into()));
        }
        let tokenizer_path = dir.join("tokenizer.json");
        let tokenizer = Tokenizer::load(&tokenizer_path)?;
        if tokenizer.max_id() as usize >= VOCAB {
            let reason = format!(
                "token id {} is past the model's {VOCAB} word embeddings",
                tokenizer.max_id()
            );
            return Err(Error::invalid(&tokenizer_path, reason));
        }
        let weights = Weights::load(&dir.join("model.safetensors"))?;
        Ok(Model { tokenizer, weights })
    }

    /// The token ids the model sees for `text`: `[CLS]`, at most
    /// `MAX_TOKENS - 2` tokens of the text, `[SEP]`.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text, MAX_TOKENS)
    }

    /// One unit vector a text, in order. Texts are taken in batches of at most
    /// [`MAX_BATCH_TOKENS`] tokens, so memory stays bounded however many are given.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<[f32; DIM]>, Error> {
        self.embed_in(texts, MAX_BATCH_TOKENS)
    }

    /// `embed` in batches of at most `batch_tokens` tokens, or of one longer text.
    fn embed_in(&self, texts: &[&str], batch_tokens: usize) -> Result<Vec<[f32; DIM]>, Error> {
        let mut out = Vec::new();
        out.try_reserve_exact(texts.len())
            .map_err(|_| Error::Memory {
                what: "the embeddings",
            })?;
        let mut scratch = Scratch::default();
        let mut batch: Vec<Vec<u32>> = Vec::new();
        let mut tokens = 0;
        for text in texts {
            let ids = self.tokenize(text);
            if tokens + ids.len() > batch_tokens && !batch.is_empty() {
                bert::embed_batch(&self.weights, &batch, &mut scratch, &mut out);
                batch.clear();
                tokens = 0;
            }
            tokens += ids.len();
            batch.push(ids);
        }
        bert::embed_batch(&self.weights, &batch, &mut scratch, &mut out);
        Ok(out)
    }

    /// Bytes of activations a batch of `tokens` tokens holds, its longest text
    /// `longest` tokens: the memory `embed` uses beyond the weights.
    pub fn batch_bytes(tokens: usize, longest: usize) -> usize {
        Scratch::values_for(tokens, longest) * std::mem::size_of::<f32>()
    }
}

#[cfg(test)]
#[path = "../tests/common/mod.rs"]
mod common;

#[cfg(test)]
mod tests {
    use super::common::model_dir;
    use super::Model;

    #[test]
    fn batches_give_what_texts_alone_give() {
        let Some(dir) = model_dir("batches_give_what_texts_alone_give") else {
            return;
        };
        let model = Model::load(&dir).unwrap();
        let texts = [
            "short",
            "",
            "Texts are packed end to end, never padded, and attend only to themselves.",
            "a medium sentence about batching",
            "日本語",
            "Another passage, so that batches of 16 tokens are several.",
        ];
        let lens: Vec<usize> = texts.iter().map(|t| model.tokenize(t).len()).collect();
        assert!(
            lens.iter().sum::<usize>() > 2 * 16 && lens.iter().any(|&n| n > 16),
            "{lens:?}"
        );
        let together = model.embed_in(&texts, 16).unwrap();
        assert_eq!(together.len(), texts.len());
        for (text, vector) in texts.iter().zip(&together) {
            let alone = model.embed(&[text]).unwrap();
            let diff = alone[0]
                .iter()
                .zip(vector)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            assert!(diff < 1e-6, "{text:?}: {diff}");
        }
        assert!(model.embed(&[]).unwrap().is_empty());
    }
}
