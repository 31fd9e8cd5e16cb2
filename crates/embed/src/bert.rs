//! The forward pass of HF's `BertModel` and sentence-transformers' pooling, on a
//! batch of texts packed end to end with no padding: the products of the embedding,
//! dense and feed-forward layers, which treat each token alone, run once over all the
//! batch's tokens; attention runs text by text, each text seeing only its own
//! tokens, which is what BERT's attention mask does for a padded batch. The last
//! hidden states of each text are averaged over its tokens (`[CLS]` and `[SEP]`
//! included, as the attention mask includes them) and made unit length.

use crate::ops::{gelu, gemm, softmax_rows, View};
use crate::weights::{Layer, Weights, FFN, HEADS};
use crate::DIM;

/// Width of one attention head.
const HEAD: usize = DIM / HEADS;

/// The activations of one batch, grown to the largest batch seen and reused.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Hidden states, [tokens][DIM].
    x: Vec<f32>,
    /// Queries, keys and values, [tokens][3·DIM].
    qkv: Vec<f32>,
    /// Attention's output before its dense layer, [tokens][DIM].
    context: Vec<f32>,
    /// A dense layer's output before its residual and LayerNorm, [tokens][DIM].
    out: Vec<f32>,
    /// The feed-forward layer's inner activations, [tokens][FFN].
    ffn: Vec<f32>,
    /// One head's attention scores for one text, [len][len].
    scores: Vec<f32>,
}

fn grow(buffer: &mut Vec<f32>, len: usize) {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
}

impl Scratch {
    /// The values held for a batch of `tokens` tokens whose longest text has `longest`.
    pub(crate) fn values_for(tokens: usize, longest: usize) -> usize {
        tokens * (DIM * 6 + FFN) + longest * longest
    }

    fn fit(&mut self, tokens: usize, longest: usize) {
        grow(&mut self.x, tokens * DIM);
        grow(&mut self.qkv, tokens * 3 * DIM);
        grow(&mut self.context, tokens * DIM);
        grow(&mut self.out, tokens * DIM);
        grow(&mut self.ffn, tokens * FFN);
        grow(&mut self.scores, longest * longest);
    }
}

/// Embeds a batch of tokenized texts, appending one unit vector a text to `out`.
/// Every id must be below the vocabulary's size and every text at most
/// `MAX_TOKENS` long (what the tokenizer gives, as `Model::load` checked).
pub(crate) fn embed_batch(
    weights: &Weights,
    texts: &[Vec<u32>],
    scratch: &mut Scratch,
    out: &mut Vec<[f32; DIM]>,
) {
    let tokens = texts.iter().map(Vec::len).sum();
    let longest = texts.iter().map(Vec::len).max().unwrap_or(0);
    scratch.fit(tokens, longest);
    embed_tokens(weights, texts, &mut scratch.x[..tokens * DIM]);
    for layer in &weights.layers {
        encode(layer, texts, tokens, scratch);
    }
    let mut row = 0;
    for text in texts {
        out.push(mean_unit(&scratch.x[row * DIM..(row + text.len()) * DIM]));
        row += text.len();
    }
}

/// Word, position and token type embeddings summed, then LayerNorm.
fn embed_tokens(weights: &Weights, texts: &[Vec<u32>], x: &mut [f32]) {
    let rows = texts
        .iter()
        .flat_map(|ids| ids.iter().enumerate())
        .zip(x.chunks_exact_mut(DIM));
    for ((position, &id), row) in rows {
        let word = &weights.words[id as usize * DIM..][..DIM];
        let place = &weights.positions[position * DIM..][..DIM];
        for (((v, w), t), p) in row.iter_mut().zip(word).zip(&weights.token_type).zip(place) {
            // In HF's order: words and token type first, then positions.
            *v = (w + t) + p;
        }
        weights.embedding_norm.apply_row(row);
    }
}

/// One encoder layer over all the batch's tokens.
fn encode(layer: &Layer, texts: &[Vec<u32>], tokens: usize, s: &mut Scratch) {
    let n = tokens;
    layer.qkv.apply(&s.x[..n * DIM], n, &mut s.qkv);
    let mut start = 0;
    for text in texts {
        attend(&s.qkv, start, text.len(), &mut s.context, &mut s.scores);
        start += text.len();
    }
    layer
        .attention_out
        .apply(&s.context[..n * DIM], n, &mut s.out);
    layer
        .attention_norm
        .add_apply(&mut s.x[..n * DIM], &s.out[..n * DIM]);
    layer.ffn_in.apply(&s.x[..n * DIM], n, &mut s.ffn);
    gelu(&mut s.ffn[..n * FFN]);
    layer.ffn_out.apply(&s.ffn[..n * FFN], n, &mut s.out);
    layer
        .ffn_norm
        .add_apply(&mut s.x[..n * DIM], &s.out[..n * DIM]);
}

/// Self-attention of the `len` tokens from row `start`, head by head, into `context`.
fn attend(qkv: &[f32], start: usize, len: usize, context: &mut [f32], scores: &mut [f32]) {
    let stride = 3 * DIM;
    let scale = 1.0 / (HEAD as f32).sqrt();
    let scores = &mut scores[..len * len];
    for head in 0..HEADS {
        let at = start * stride + head * HEAD;
        let queries = View::new(&qkv[at..], len, HEAD, stride, 1);
        let keys_t = View::new(&qkv[at + DIM..], HEAD, len, 1, stride);
        gemm(scale, queries, keys_t, 0.0, scores, len);
        softmax_rows(scores, len);
        let values = View::new(&qkv[at + 2 * DIM..], len, HEAD, stride, 1);
        let into = &mut context[start * DIM + head * HEAD..];
        gemm(1.0, View::rows(scores, len, len), values, 0.0, into, DIM);
    }
}

/// The mean of a text's hidden states, divided by its length (or by 1e-12 if smaller).
fn mean_unit(rows: &[f32]) -> [f32; DIM] {
    let mut mean = [0.0f32; DIM];
    let count = rows.len() / DIM;
    for row in rows.chunks_exact(DIM) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    for m in &mut mean {
        *m /= count.max(1) as f32;
    }
    let norm = mean.iter().map(|m| m * m).sum::<f32>().sqrt().max(1e-12);
    for m in &mut mean {
        *m /= norm;
    }
    mean
}
