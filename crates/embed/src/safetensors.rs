//! A reader of the safetensors format, by hand: an 8-byte little-endian header length,
//! that many bytes of JSON naming each tensor's dtype, shape and byte range, then the
//! tensors' raw little-endian data. Every length, offset and shape is checked against
//! the file before a byte of data is read, and the tensors must tile the data exactly
//! (as the format's own reader requires), so a file cut short or with a damaged header
//! is an error naming the file, never a panic or a read past the end.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Error;

/// The largest header read, as the format's own reader allows.
const MAX_HEADER_BYTES: u64 = 100 * 1024 * 1024;
/// Bytes read at a time when converting a tensor's data.
const CHUNK_BYTES: usize = 64 * 1024;

/// One tensor's entry in the header.
#[derive(Debug)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    begin: u64,
    end: u64,
}

/// An open safetensors file whose header has been read and checked.
pub(crate) struct SafeTensors {
    path: PathBuf,
    file: File,
    data_start: u64,
    entries: HashMap<String, Entry>,
}

/// Bytes per element of each dtype the format names.
fn dtype_size(dtype: &str) -> Option<u64> {
    Some(match dtype {
        "BOOL" | "U8" | "I8" | "F8_E4M3" | "F8_E5M2" | "F8_E8M0" => 1,
        "U16" | "I16" | "F16" | "BF16" => 2,
        "U32" | "I32" | "F32" => 4,
        "U64" | "I64" | "F64" | "C64" => 8,
        _ => return None,
    })
}

fn parse_entry(name: &str, value: &Value) -> Result<Entry, String> {
    let what = |field: &str| format!("tensor {name}: {field} missing or not valid");
    let dtype = value
        .get("dtype")
        .and_then(Value::as_str)
        .ok_or_else(|| what("dtype"))?;
    let size = dtype_size(dtype).ok_or_else(|| format!("tensor {name}: unknown dtype {dtype}"))?;
    let shape = value
        .get("shape")
        .and_then(Value::as_array)
        .ok_or_else(|| what("shape"))?
        .iter()
        .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| what("shape"))?;
    let offsets = value
        .get("data_offsets")
        .and_then(Value::as_array)
        .filter(|o| o.len() == 2)
        .ok_or_else(|| what("data_offsets"))?;
    let (begin, end) = match (offsets[0].as_u64(), offsets[1].as_u64()) {
        (Some(b), Some(e)) if b <= e => (b, e),
        _ => return Err(what("data_offsets")),
    };
    let bytes = shape
        .iter()
        .try_fold(size, |acc, &d| acc.checked_mul(d as u64))
        .ok_or_else(|| format!("tensor {name}: shape {shape:?} is too large"))?;
    if end - begin != bytes {
        return Err(format!(
            "tensor {name}: {dtype} {shape:?} needs {bytes} bytes but data_offsets give {}",
            end - begin
        ));
    }
    Ok(Entry {
        dtype: dtype.to_string(),
        shape,
        begin,
        end,
    })
}

/// Checks that the tensors' byte ranges tile `0..data_len` with no gap or overlap.
fn check_tiling(entries: &HashMap<String, Entry>, data_len: u64) -> Result<(), String> {
    let mut ranges: Vec<(u64, u64, &str)> = entries
        .iter()
        .map(|(name, e)| (e.begin, e.end, name.as_str()))
        .collect();
    ranges.sort_unstable();
    let mut at = 0;
    for (begin, end, name) in ranges {
        if begin != at {
            let how = if begin < at {
                "overlaps"
            } else {
                "leaves a gap after"
            };
            return Err(format!(
                "tensor {name}: data at bytes {begin}..{end} {how} the tensor before it"
            ));
        }
        at = end;
    }
    if at != data_len {
        return Err(format!(
            "the tensors' data ends at byte {at} but the file holds {data_len} bytes of data{}",
            if at > data_len { " (cut short?)" } else { "" }
        ));
    }
    Ok(())
}

impl SafeTensors {
    /// Opens `path` and reads and checks its header.
    pub(crate) fn open(path: &Path) -> Result<Self, Error> {
        let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let invalid = |reason: String| Error::invalid(path, reason);
        if len < 8 {
            return Err(invalid(format!(
                "{len} bytes, too short for a safetensors file's 8-byte header length"
            )));
        }
        let mut n = [0u8; 8];
        file.read_exact(&mut n).map_err(|e| Error::io(path, e))?;
        let header_len = u64::from_le_bytes(n);
        if header_len > MAX_HEADER_BYTES || header_len > len - 8 {
            return Err(invalid(format!(
                "header length {header_len} does not fit the file's {len} bytes \
                 (not a safetensors file, or cut short)"
            )));
        }
        let mut header = vec![0u8; header_len as usize];
        file.read_exact(&mut header)
            .map_err(|e| Error::io(path, e))?;
        let header: Value = serde_json::from_slice(&header)
            .map_err(|e| invalid(format!("header is not valid JSON: {e}")))?;
        let Value::Object(map) = header else {
            return Err(invalid("header is not a JSON object".to_string()));
        };
        let mut entries = HashMap::with_capacity(map.len());
        for (name, value) in &map {
            if name != "__metadata__" {
                entries.insert(name.clone(), parse_entry(name, value).map_err(invalid)?);
            }
        }
        let data_start = 8 + header_len;
        check_tiling(&entries, len - data_start).map_err(invalid)?;
        Ok(SafeTensors {
            path: path.to_path_buf(),
            file,
            data_start,
            entries,
        })
    }

    /// The file's path, for errors.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The names of the tensors the file holds.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Reads the F32 tensor `name`, which must have exactly `shape` and finite values.
    pub(crate) fn read_f32(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, Error> {
        let path = &self.path;
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| Error::invalid(path, format!("no tensor {name}")))?;
        if entry.dtype != "F32" || entry.shape != shape {
            return Err(Error::invalid(
                path,
                format!(
                    "tensor {name} is {} {:?}, expected F32 {shape:?}",
                    entry.dtype, entry.shape
                ),
            ));
        }
        // The header check made `end - begin` exactly 4 bytes a value of `shape`.
        let count = ((entry.end - entry.begin) / 4) as usize;
        let mut values = Vec::with_capacity(count);
        self.file
            .seek(SeekFrom::Start(self.data_start + entry.begin))
            .map_err(|e| Error::io(path, e))?;
        let mut chunk = vec![0u8; CHUNK_BYTES.min(count * 4)];
        while values.len() < count {
            let bytes = (count - values.len()) * 4;
            let chunk = &mut chunk[..bytes.min(CHUNK_BYTES)];
            self.file
                .read_exact(chunk)
                .map_err(|e| Error::io(path, e))?;
            values.extend(
                chunk
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid(
                path,
                format!("tensor {name} holds a value that is not finite"),
            ));
        }
        Ok(values)
    }
}

#[cfg(test)]
#[path = "safetensors_tests.rs"]
mod tests;
