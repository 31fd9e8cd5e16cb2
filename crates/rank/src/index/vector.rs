//! A passage's vector as the index keeps it, the embedding model's name, and the
//! text and digest a passage is embedded and found again by.

/// The most dimensions a vector may have (OpenAI's largest embeddings have 3,072).
pub const MAX_DIMENSIONS: usize = 4096;
/// The most bytes of vectors an index holds, one a dimension: 131,072 passages'
/// of 384 dimensions, 32,768 of 1,536.
pub const MAX_VECTOR_BYTES: usize = 48 << 20;

/// A unit vector in 8 bits a dimension: `values[i] * scale` is its i-th value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Vector {
    pub scale: f32,
    pub values: Box<[i8]>,
}

/// The length of `raw`, where it is a finite number above 0.
pub(crate) fn length(raw: &[f32]) -> Option<f64> {
    let norm = raw
        .iter()
        .map(|v| f64::from(*v).powi(2))
        .sum::<f64>()
        .sqrt();
    (norm.is_finite() && norm > 0.0).then_some(norm)
}

impl Vector {
    /// `raw` made a unit vector and quantized; None for a vector of no length, or
    /// one with a value that is not a finite number.
    pub fn quantize(raw: &[f32]) -> Option<Vector> {
        let norm = length(raw)?;
        let largest = raw
            .iter()
            .fold(0f64, |most, v| most.max((f64::from(*v) / norm).abs()));
        let scale = largest / 127.0;
        let values = raw
            .iter()
            .map(|v| (f64::from(*v) / norm / scale).round() as i8)
            .collect();
        Some(Vector {
            scale: scale as f32,
            values,
        })
    }

    /// The cosine with `unit`, a unit vector of as many dimensions.
    pub fn cosine(&self, unit: &[f32]) -> f32 {
        let dot: f32 = self
            .values
            .iter()
            .zip(unit)
            .map(|(value, other)| f32::from(*value) * other)
            .sum();
        dot * self.scale
    }
}

/// The embedding model whose vectors the index holds, and their dimensions (0
/// until the first vector is set).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Embedding {
    pub model: String,
    pub dimensions: usize,
}

/// A stable digest of a passage's text to embed, to find its vector again when
/// its file is put anew with the passage unchanged (FNV-1a, 64 bits).
pub(crate) fn digest(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What an embedding model is given of a passage: its heading, then its text.
pub(crate) fn text_to_embed(heading: Option<&str>, text: &str) -> String {
    match heading {
        Some(heading)
            if !text
                .lines()
                .next()
                .is_some_and(|line| line.contains(heading)) =>
        {
            format!("{heading}\n{text}")
        }
        _ => text.to_string(),
    }
}
