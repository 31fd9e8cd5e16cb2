//! all-MiniLM-L6-v2's weights, read from model.safetensors by their names in HF's
//! `BertModel`, each checked for the shape this model has. The pooler and
//! `position_ids` are not read: sentence-transformers pools the last hidden states
//! itself and positions here are 0, 1, 2…

use std::path::Path;

use crate::ops::{Linear, Norm};
use crate::safetensors::SafeTensors;
use crate::{Error, DIM, MAX_TOKENS};

/// Encoder layers.
pub(crate) const LAYERS: usize = 6;
/// Attention heads in each layer.
pub(crate) const HEADS: usize = 12;
/// Width of the feed-forward layer.
pub(crate) const FFN: usize = 1536;
/// Rows of the word embeddings.
pub(crate) const VOCAB: usize = 30522;
/// Rows of the position embeddings.
const POSITIONS: usize = 512;

/// One encoder layer.
#[derive(Debug)]
pub(crate) struct Layer {
    /// Query, key and value in one [3·DIM][DIM] product, in that order.
    pub qkv: Linear,
    pub attention_out: Linear,
    pub attention_norm: Norm,
    pub ffn_in: Linear,
    pub ffn_out: Linear,
    pub ffn_norm: Norm,
}

/// The weights of the model.
#[derive(Debug)]
pub(crate) struct Weights {
    /// [VOCAB][DIM].
    pub words: Vec<f32>,
    /// [MAX_TOKENS][DIM]: the rows a truncated text can reach.
    pub positions: Vec<f32>,
    /// The token type 0 row, added to every token (a single text has no second).
    pub token_type: Vec<f32>,
    pub embedding_norm: Norm,
    pub layers: Vec<Layer>,
}

fn linear(st: &mut SafeTensors, name: &str, outs: usize, ins: usize) -> Result<Linear, Error> {
    Ok(Linear {
        weight: st.read_f32(&format!("{name}.weight"), &[outs, ins])?,
        bias: st.read_f32(&format!("{name}.bias"), &[outs])?,
    })
}

fn norm(st: &mut SafeTensors, name: &str) -> Result<Norm, Error> {
    Ok(Norm {
        weight: st.read_f32(&format!("{name}.weight"), &[DIM])?,
        bias: st.read_f32(&format!("{name}.bias"), &[DIM])?,
    })
}

fn layer(st: &mut SafeTensors, i: usize) -> Result<Layer, Error> {
    let p = format!("encoder.layer.{i}");
    let mut qkv = linear(st, &format!("{p}.attention.self.query"), DIM, DIM)?;
    for part in ["key", "value"] {
        let more = linear(st, &format!("{p}.attention.self.{part}"), DIM, DIM)?;
        qkv.weight.extend_from_slice(&more.weight);
        qkv.bias.extend_from_slice(&more.bias);
    }
    Ok(Layer {
        qkv,
        attention_out: linear(st, &format!("{p}.attention.output.dense"), DIM, DIM)?,
        attention_norm: norm(st, &format!("{p}.attention.output.LayerNorm"))?,
        ffn_in: linear(st, &format!("{p}.intermediate.dense"), FFN, DIM)?,
        ffn_out: linear(st, &format!("{p}.output.dense"), DIM, FFN)?,
        ffn_norm: norm(st, &format!("{p}.output.LayerNorm"))?,
    })
}

/// A layer past the sixth means another model, whose output would silently differ.
fn check_depth(st: &SafeTensors) -> Result<(), Error> {
    let deeper = st.names().find(|name| {
        name.strip_prefix("encoder.layer.")
            .and_then(|rest| rest.split('.').next())
            .and_then(|i| i.parse::<usize>().ok())
            .is_some_and(|i| i >= LAYERS)
    });
    match deeper {
        Some(name) => Err(Error::invalid(
            st.path(),
            format!("tensor {name}: more than {LAYERS} layers, not all-MiniLM-L6-v2"),
        )),
        None => Ok(()),
    }
}

impl Weights {
    /// Reads the weights from `path`, a model.safetensors.
    pub(crate) fn load(path: &Path) -> Result<Self, Error> {
        let mut st = SafeTensors::open(path)?;
        check_depth(&st)?;
        let mut positions =
            st.read_f32("embeddings.position_embeddings.weight", &[POSITIONS, DIM])?;
        positions.truncate(MAX_TOKENS * DIM);
        positions.shrink_to_fit();
        let mut token_type = st.read_f32("embeddings.token_type_embeddings.weight", &[2, DIM])?;
        token_type.truncate(DIM);
        Ok(Weights {
            words: st.read_f32("embeddings.word_embeddings.weight", &[VOCAB, DIM])?,
            positions,
            token_type,
            embedding_norm: norm(&mut st, "embeddings.LayerNorm")?,
            layers: (0..LAYERS)
                .map(|i| layer(&mut st, i))
                .collect::<Result<_, _>>()?,
        })
    }
}
