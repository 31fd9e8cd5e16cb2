use std::path::PathBuf;

use serde_json::json;

use super::SafeTensors;
use crate::Error;

/// A safetensors file of the given header and data, in a folder of its own.
fn file(header: &serde_json::Value, data: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let header = serde_json::to_vec(header).unwrap();
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(data);
    raw(&bytes)
}

fn raw(bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.safetensors");
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Two tensors: a 2×3 F32 `w` and a 2-value I64 `ids` after it.
fn good() -> (serde_json::Value, Vec<u8>) {
    let header = json!({
        "__metadata__": {"format": "pt"},
        "w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
        "ids": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]},
    });
    let mut data = floats(&[1.0, 2.0, 3.0, 4.0, 5.0, -6.5]);
    data.extend_from_slice(&[0u8; 16]);
    (header, data)
}

/// The reason of an `Invalid` error for `path`.
fn reason(result: Result<SafeTensors, Error>, path: &std::path::Path) -> String {
    match result {
        Err(Error::Invalid { path: p, reason }) => {
            assert_eq!(p, path);
            reason
        }
        Err(other) => panic!("expected Invalid, got {other}"),
        Ok(_) => panic!("expected an error"),
    }
}

#[test]
fn reads_a_tensor() {
    let (header, data) = good();
    let (_dir, path) = file(&header, &data);
    let mut st = SafeTensors::open(&path).unwrap();
    let mut names: Vec<_> = st.names().collect();
    names.sort_unstable();
    assert_eq!(names, ["ids", "w"]);
    assert_eq!(
        st.read_f32("w", &[2, 3]).unwrap(),
        [1.0, 2.0, 3.0, 4.0, 5.0, -6.5]
    );
}

#[test]
fn wrong_shape_dtype_or_name_is_an_error() {
    let (header, data) = good();
    let (_dir, path) = file(&header, &data);
    let mut st = SafeTensors::open(&path).unwrap();
    let err = st.read_f32("w", &[3, 2]).unwrap_err().to_string();
    assert!(
        err.contains("tensor w is F32 [2, 3], expected F32 [3, 2]"),
        "{err}"
    );
    assert!(err.contains("model.safetensors"), "{err}");
    let err = st.read_f32("ids", &[2]).unwrap_err().to_string();
    assert!(err.contains("tensor ids is I64"), "{err}");
    let err = st.read_f32("nope", &[2]).unwrap_err().to_string();
    assert!(err.contains("no tensor nope"), "{err}");
}

#[test]
fn cut_files_are_errors() {
    let (header, data) = good();
    let (_dir, path) = file(&header, &data);
    let whole = std::fs::read(&path).unwrap();
    for len in [0, 5, 8, 20, whole.len() - data.len(), whole.len() - 1] {
        let (_d, cut) = raw(&whole[..len]);
        let why = reason(SafeTensors::open(&cut), &cut);
        assert!(
            why.contains("too short") || why.contains("header length") || why.contains("cut short"),
            "{len}: {why}"
        );
    }
}

#[test]
fn damaged_headers_are_errors() {
    let (_d, path) = raw(&[0xff; 64]);
    assert!(reason(SafeTensors::open(&path), &path).contains("header length"));
    let mut bytes = 4u64.to_le_bytes().to_vec();
    bytes.extend_from_slice(b"{\"a\"");
    let (_d, path) = raw(&bytes);
    assert!(reason(SafeTensors::open(&path), &path).contains("not valid JSON"));
    let cases = [
        (json!([1, 2]), "not a JSON object"),
        (
            json!({"w": {"shape": [1], "data_offsets": [0, 4]}}),
            "dtype",
        ),
        (
            json!({"w": {"dtype": "Q9", "shape": [1], "data_offsets": [0, 4]}}),
            "unknown dtype",
        ),
        (
            json!({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}),
            "shape",
        ),
        (
            json!({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}}),
            "data_offsets",
        ),
        (
            json!({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}}),
            "data_offsets",
        ),
        (
            json!({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}),
            "needs 8 bytes",
        ),
        (
            json!({"w": {"dtype": "F64", "shape": [1u64 << 62, 8], "data_offsets": [0, 4]}}),
            "too large",
        ),
        (
            json!({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                   "b": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]}}),
            "overlaps",
        ),
        (
            json!({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                   "b": {"dtype": "F32", "shape": [1], "data_offsets": [6, 10]}}),
            "leaves a gap",
        ),
        (
            json!({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}),
            "cut short",
        ),
    ];
    for (header, expected) in cases {
        let (_d, path) = file(&header, &[0u8; 10]);
        let why = reason(SafeTensors::open(&path), &path);
        assert!(why.contains(expected), "{header}: {why}");
    }
}

#[test]
fn values_that_are_not_finite_are_errors() {
    let header = json!({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}});
    let (_d, path) = file(&header, &floats(&[1.0, f32::NAN]));
    let err = SafeTensors::open(&path)
        .unwrap()
        .read_f32("w", &[2])
        .unwrap_err();
    assert!(err.to_string().contains("not finite"), "{err}");
}

#[test]
fn a_missing_file_names_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.safetensors");
    match SafeTensors::open(&path) {
        Err(Error::Io { path: p, .. }) => assert_eq!(p, path),
        Err(other) => panic!("expected Io, got {other}"),
        Ok(_) => panic!("expected an error"),
    }
}
