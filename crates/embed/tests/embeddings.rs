//! Embeddings equal sentence-transformers' (tests/fixtures/embeddings.json: HF
//! BertModel's forward pass in float64 with the exact GELU, mean pooled and
//! normalized, made by make_fixtures.py) within float32 rounding.

mod common;

use file_store_embed::{Model, DIM};

/// Least cosine and most difference in any value allowed against the reference.
const MIN_COSINE: f64 = 0.99999;
const MAX_ABS_DIFF: f64 = 1e-5;

#[test]
fn embeddings_equal_the_reference() {
    let Some(dir) = common::model_dir("embeddings_equal_the_reference") else {
        return;
    };
    let model = Model::load(&dir).unwrap();
    let cases = common::fixture("embeddings.json");
    let cases = cases.as_array().unwrap();
    let texts: Vec<&str> = cases.iter().map(|c| c["text"].as_str().unwrap()).collect();
    let got = model.embed(&texts).unwrap();
    assert_eq!(got.len(), cases.len());
    let (mut worst_cos, mut worst_abs) = (1.0f64, 0.0f64);
    for ((case, text), got) in cases.iter().zip(&texts).zip(&got) {
        let ids: Vec<u32> = serde_json::from_value(case["ids"].clone()).unwrap();
        assert_eq!(model.tokenize(text), ids, "{text:?}");
        let want: Vec<f64> = serde_json::from_value(case["vector"].clone()).unwrap();
        assert_eq!(want.len(), DIM);
        let cos: f64 = got.iter().zip(&want).map(|(g, w)| f64::from(*g) * w).sum();
        let abs = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (f64::from(*g) - w).abs())
            .fold(0.0, f64::max);
        let norm: f64 = got.iter().map(|g| f64::from(*g).powi(2)).sum();
        assert!((norm - 1.0).abs() < 1e-5, "{text:?}: norm² {norm}");
        assert!(
            cos >= MIN_COSINE && abs <= MAX_ABS_DIFF,
            "{text:?}: cosine {cos}, max diff {abs}"
        );
        worst_cos = worst_cos.min(cos);
        worst_abs = worst_abs.max(abs);
    }
    println!(
        "{} texts: lowest cosine {worst_cos:.9}, largest difference {worst_abs:.3e}",
        cases.len()
    );
}
