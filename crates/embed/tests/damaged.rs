//! A damaged or missing model is an error naming the file or folder, never a panic.

mod common;

use std::path::{Path, PathBuf};

use file_store_embed::{Error, Model};

/// A folder with the real tokenizer.json and `weights` as model.safetensors.
fn folder_with(dir: &Path, weights: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(
        dir.join("tokenizer.json"),
        tmp.path().join("tokenizer.json"),
    )
    .unwrap();
    let path = tmp.path().join("model.safetensors");
    std::fs::write(&path, weights).unwrap();
    (tmp, path)
}

/// The error loading `folder` gives, checked to name `file` and shown.
fn error_naming(folder: &Path, file: &Path) -> String {
    let err = Model::load(folder).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&file.display().to_string()), "{text}");
    println!("{text}");
    text
}

#[test]
fn damaged_weights_are_errors_naming_the_file() {
    let Some(dir) = common::model_dir("damaged_weights_are_errors_naming_the_file") else {
        return;
    };
    let real = std::fs::read(dir.join("model.safetensors")).unwrap();
    let header_len = u64::from_le_bytes(real[..8].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&real[8..8 + header_len]).unwrap();

    for cut in [0, 7, 100, 8 + header_len, real.len() / 2, real.len() - 1] {
        let (tmp, path) = folder_with(&dir, &real[..cut]);
        let text = error_naming(tmp.path(), &path);
        assert!(
            text.contains("short") || text.contains("header length"),
            "{cut}: {text}"
        );
    }

    let mut bad_length = real.clone();
    bad_length[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    let (tmp, path) = folder_with(&dir, &bad_length);
    assert!(error_naming(tmp.path(), &path).contains("header length"));

    let mut bad_json = real.clone();
    bad_json[8] = b'[';
    let (tmp, path) = folder_with(&dir, &bad_json);
    assert!(error_naming(tmp.path(), &path).contains("not valid JSON"));

    // The same bytes, another shape: the header stays valid and its length the same.
    let name = "\"embeddings.word_embeddings.weight\":{\"dtype\":\"F32\",\"shape\":[";
    let at = 8 + header.find(name).expect("the word embeddings' entry") + name.len();
    let mut reshaped = real.clone();
    reshaped[at..at + 9].copy_from_slice(b"384,30522");
    let (tmp, path) = folder_with(&dir, &reshaped);
    let text = error_naming(tmp.path(), &path);
    assert!(text.contains("expected F32 [30522, 384]"), "{text}");

    let mut not_finite = real;
    let nan_at = 8 + header_len + 4096; // the first value after position_ids
    not_finite[nan_at..nan_at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let (tmp, path) = folder_with(&dir, &not_finite);
    assert!(error_naming(tmp.path(), &path).contains("not finite"));
}

#[test]
fn a_missing_folder_names_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("no-such-model");
    let err = Model::load(&gone).unwrap_err();
    assert!(
        matches!(err, Error::ModelDir { ref path, .. } if *path == gone),
        "{err}"
    );
    assert!(
        err.to_string().contains(&gone.display().to_string()),
        "{err}"
    );

    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    assert!(matches!(Model::load(&file), Err(Error::ModelDir { .. })));
}

#[test]
fn missing_or_damaged_files_in_the_folder_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let tokenizer = tmp.path().join("tokenizer.json");
    assert!(matches!(
        Model::load(tmp.path()),
        Err(Error::Io { ref path, .. }) if *path == tokenizer
    ));
    std::fs::write(&tokenizer, "{not json").unwrap();
    assert!(error_naming(tmp.path(), &tokenizer).contains("not valid JSON"));
    std::fs::write(&tokenizer, r#"{"pre_tokenizer": {"type": "Whitespace"}}"#).unwrap();
    assert!(error_naming(tmp.path(), &tokenizer).contains("this crate reads only BertPreTokenizer"));

    let Some(dir) = common::model_dir("missing_or_damaged_files_in_the_folder_are_named") else {
        return;
    };
    let real: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("tokenizer.json")).unwrap()).unwrap();
    let mut big_id = real.clone();
    big_id["model"]["vocab"]["zzz"] = 40_000.into();
    std::fs::write(&tokenizer, big_id.to_string()).unwrap();
    assert!(error_naming(tmp.path(), &tokenizer).contains("past the model's 30522"));
    let mut no_unk = real;
    no_unk["model"]["unk_token"] = "<unk>".into();
    std::fs::write(&tokenizer, no_unk.to_string()).unwrap();
    assert!(error_naming(tmp.path(), &tokenizer).contains("the vocab has no <unk>"));

    std::fs::copy(dir.join("tokenizer.json"), &tokenizer).unwrap();
    let weights = tmp.path().join("model.safetensors");
    assert!(matches!(
        Model::load(tmp.path()),
        Err(Error::Io { ref path, .. }) if *path == weights
    ));
}
