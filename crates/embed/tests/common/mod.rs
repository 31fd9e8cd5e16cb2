//! Finding the model files and fixtures for the tests that need them (each test
//! crate uses some of these).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The folder holding model.safetensors and tokenizer.json: `RUBY_LLM_FILE_STORE_MINILM`,
/// else `tmp/models/all-MiniLM-L6-v2` under the workspace root (where
/// `bin/fetch-minilm` puts them). `None`, after printing why, when neither has them:
/// the test that asked then returns, skipped.
pub fn model_dir(test: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("RUBY_LLM_FILE_STORE_MINILM") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tmp/models/all-MiniLM-L6-v2"),
    };
    let missing: Vec<_> = ["model.safetensors", "tokenizer.json"]
        .into_iter()
        .filter(|file| !dir.join(file).is_file())
        .collect();
    if missing.is_empty() {
        return Some(dir);
    }
    // CI installs the model (bin/setup runs bin/fetch-minilm): there a test that
    // could not run fails rather than pass unrun.
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: {} has no {} under CI (bin/setup runs bin/fetch-minilm)",
        dir.display(),
        missing.join(" or ")
    );
    println!(
        "skipped {test}: {} has no {} (run bin/fetch-minilm, or set RUBY_LLM_FILE_STORE_MINILM)",
        dir.display(),
        missing.join(" or ")
    );
    None
}

/// A fixture of tests/fixtures, parsed.
pub fn fixture(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
