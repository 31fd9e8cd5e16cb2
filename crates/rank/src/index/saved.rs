//! An index as bytes, to be kept where its store lives and read back by another
//! process: its terms once, then each file's path, version and passages, each
//! passage's terms as numbers into that table, so reading it back costs no file's
//! text, conversion or cut, only the postings rebuilt. Where the index names an
//! embedding model, its name and each passage's digest and vector come along
//! (nothing of them where it names none).
//!
//! The bytes come back from a place others may write (a folder a run reaches, a
//! bucket), so reading them trusts nothing: every count and length is checked
//! against what is left and against the index's bounds, and anything off is an
//! error naming what, never a panic or an allocation the bytes ask for. What
//! such bytes could say of a file is only ever used at the version it names,
//! which each search checks against the file's own first.

use std::collections::HashSet;
use std::sync::Arc;

use super::vector::{Embedding, Vector, MAX_DIMENSIONS, MAX_VECTOR_BYTES};
use super::{FileEntry, Index, Stored};
use crate::{EXCERPT_CHARS, MAX_INDEX_BYTES, MAX_PASSAGES, MAX_TERMS};

/// The first bytes of a saved index; the last one is the format's version.
const MAGIC: &[u8; 8] = b"RLFSPI\n\x03";
/// The longest path or version kept.
const MAX_NAME_BYTES: usize = 64 * 1024;
/// The longest term (`tokens` cuts words far shorter).
const MAX_TERM_BYTES: usize = 1024;

impl Index {
    /// The index as bytes for [`Index::load`].
    pub fn save(&self) -> Vec<u8> {
        let names = self.postings.names();
        // The terms some live passage holds, numbered in the order of their ids.
        let mut table = vec![u32::MAX; names.len()];
        let mut kept = 0u32;
        for (id, slot) in table.iter_mut().enumerate() {
            if self.postings.df(id as u32) > 0 {
                *slot = kept;
                kept += 1;
            }
        }
        let mut out = Vec::with_capacity(self.bytes / 2 + 64);
        out.extend_from_slice(MAGIC);
        put(&mut out, kept as usize);
        for (id, name) in names.iter().enumerate() {
            if table[id] != u32::MAX {
                put_str(&mut out, name);
            }
        }
        let (model, dimensions) = self
            .embedding
            .as_ref()
            .map_or(("", 0), |e| (e.model.as_str(), e.dimensions));
        put_str(&mut out, model);
        put(&mut out, dimensions);
        put(&mut out, self.files.len());
        let mut paths: Vec<&Arc<str>> = self.files.keys().collect();
        paths.sort_unstable();
        for path in paths {
            let entry = &self.files[path];
            put_str(&mut out, path);
            put_str(&mut out, &entry.version);
            put(&mut out, entry.bytes);
            let stored: Vec<&Stored> = entry
                .ids
                .iter()
                .filter_map(|&id| self.passages[id as usize].as_ref())
                .collect();
            put(&mut out, stored.len());
            for stored in stored {
                put(&mut out, stored.first_line as usize);
                put(&mut out, stored.last_line as usize);
                put(&mut out, stored.len as usize);
                put_str(&mut out, &stored.excerpt);
                put(&mut out, stored.terms.len());
                for &(term, count) in &stored.terms {
                    put(&mut out, table[term as usize] as usize);
                    put(&mut out, count as usize);
                }
                if self.embedding.is_none() {
                    continue;
                }
                out.extend_from_slice(&stored.digest.to_le_bytes());
                match &stored.vector {
                    Some(vector) => {
                        out.push(1);
                        out.extend_from_slice(&vector.scale.to_le_bytes());
                        out.extend(vector.values.iter().map(|v| *v as u8));
                    }
                    None => out.push(0),
                }
            }
        }
        out
    }

    /// The index [`Index::save`] made `bytes` of; an error saying what is wrong
    /// where they are not such bytes, or hold more than an index may.
    pub fn load(bytes: &[u8]) -> Result<Index, String> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(MAGIC.len())? != MAGIC {
            return Err("not a saved passage index of this version".to_string());
        }
        let mut index = Index::new();
        let terms = reader.count(2, "terms")?;
        if terms > MAX_TERMS {
            return Err("more terms than an index holds".to_string());
        }
        let mut ids = Vec::with_capacity(terms);
        for _ in 0..terms {
            let term = reader.str(MAX_TERM_BYTES, "a term")?;
            let id = index
                .postings
                .intern(term, MAX_TERMS)
                .ok_or("more terms than an index holds")?;
            if term.is_empty() || id as usize != ids.len() {
                return Err(format!("the term {term:?} is saved twice, or empty"));
            }
            ids.push(id);
        }
        let model = reader.str(MAX_NAME_BYTES, "a model's name")?;
        let dimensions = reader.number()?;
        if dimensions > MAX_DIMENSIONS || (model.is_empty() && dimensions > 0) {
            return Err(format!(
                "vectors of {dimensions} dimensions in the saved index"
            ));
        }
        index.embedding = (!model.is_empty()).then(|| Embedding {
            model: model.to_string(),
            dimensions,
        });
        let files = reader.count(5, "files")?;
        for _ in 0..files {
            let path: Arc<str> = Arc::from(reader.str(MAX_NAME_BYTES, "a path")?);
            if index.files.contains_key(&path) {
                return Err(format!("{path:?} is saved twice"));
            }
            let version = reader.str(MAX_NAME_BYTES, "a version")?.to_string();
            let bytes = reader.number()?;
            index.bytes = index
                .bytes
                .checked_add(bytes)
                .filter(|&all| all <= MAX_INDEX_BYTES)
                .ok_or("more text than an index takes")?;
            let passages = reader.count(5, "passages")?;
            if index.live + passages > MAX_PASSAGES {
                return Err("more passages than an index holds".to_string());
            }
            let mut held = Vec::with_capacity(passages);
            for _ in 0..passages {
                let embedded = index.embedding.is_some().then_some(dimensions);
                let stored = read_passage(&mut reader, &path, terms, embedded)?;
                let id = index.passages.len() as u32;
                if stored.vector.is_some() {
                    index.vectors += 1;
                    if index.vectors * dimensions > MAX_VECTOR_BYTES {
                        return Err("more vectors than an index holds".to_string());
                    }
                }
                index.postings.add(id, &stored.terms);
                index.total_len += u64::from(stored.len);
                index.passages.push(Some(stored));
                index.live += 1;
                held.push(id);
            }
            index.files.insert(
                path,
                FileEntry {
                    version,
                    ids: held,
                    bytes,
                },
            );
        }
        if reader.at != reader.bytes.len() {
            return Err("bytes past the saved index's end".to_string());
        }
        Ok(index)
    }
}

/// A passage of the file at `path`, its terms numbers below `terms`; where the index
/// names a model (`embedded`, its vectors' dimensions), its digest and its vector, if
/// it has one.
fn read_passage(
    reader: &mut Reader<'_>,
    path: &Arc<str>,
    terms: usize,
    embedded: Option<usize>,
) -> Result<Stored, String> {
    let first_line = reader.u32()?;
    let last_line = reader.u32()?;
    let len = reader.u32()?;
    if first_line == 0 || last_line < first_line {
        return Err(format!(
            "a passage of {path:?} has lines {first_line} to {last_line}"
        ));
    }
    let excerpt = reader.str(EXCERPT_CHARS * 4 + 8, "an excerpt")?.to_string();
    let count = reader.count(2, "terms")?;
    let mut held = Vec::with_capacity(count);
    let mut seen = HashSet::with_capacity(count);
    for _ in 0..count {
        let term = reader.number()?;
        let times = reader.u32()?;
        if term >= terms || times == 0 || !seen.insert(term) {
            return Err(format!("a passage of {path:?} holds a term out of place"));
        }
        held.push((term as u32, times));
    }
    let (digest, vector) = match embedded {
        Some(dimensions) => (
            u64::from_le_bytes(reader.take(8)?.try_into().unwrap_or_default()),
            read_vector(reader, path, dimensions)?,
        ),
        None => (0, None),
    };
    Ok(Stored {
        path: path.clone(),
        first_line,
        last_line,
        excerpt,
        len,
        terms: held,
        digest,
        vector,
    })
}

/// A passage's vector of `dimensions`, or None where it has none.
fn read_vector(
    reader: &mut Reader<'_>,
    path: &Arc<str>,
    dimensions: usize,
) -> Result<Option<Vector>, String> {
    match reader.take(1)?[0] {
        0 => Ok(None),
        1 if dimensions > 0 => {
            let scale = f32::from_le_bytes(reader.take(4)?.try_into().unwrap_or_default());
            if !scale.is_finite() || scale <= 0.0 {
                return Err(format!(
                    "a passage of {path:?} has a vector scaled by {scale}"
                ));
            }
            let values = reader.take(dimensions)?.iter().map(|v| *v as i8).collect();
            Ok(Some(Vector { scale, values }))
        }
        _ => Err(format!("a passage of {path:?} has a vector out of place")),
    }
}

/// `n` as a LEB128 varint: seven bits a byte, the low ones first.
fn put(out: &mut Vec<u8>, n: usize) {
    let mut n = n as u64;
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or("the saved index is cut short")?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    /// A varint of at most 32 bits.
    fn number(&mut self) -> Result<usize, String> {
        let mut n = 0u64;
        for shift in (0..35).step_by(7) {
            let byte = self.take(1)?[0];
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return u32::try_from(n)
                    .map(|n| n as usize)
                    .map_err(|_| "a number past 32 bits in the saved index".to_string());
            }
        }
        Err("a number past 32 bits in the saved index".to_string())
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(self.number()? as u32)
    }

    /// A count of items of at least `each` bytes, which the bytes left must hold,
    /// so that no count makes room for more than the bytes could fill.
    fn count(&mut self, each: usize, what: &str) -> Result<usize, String> {
        let n = self.number()?;
        if n.saturating_mul(each) > self.bytes.len() - self.at {
            return Err(format!("the saved index counts more {what} than it holds"));
        }
        Ok(n)
    }

    fn str(&mut self, most: usize, what: &str) -> Result<&'a str, String> {
        let n = self.number()?;
        if n > most {
            return Err(format!("{what} of {n} bytes in the saved index"));
        }
        std::str::from_utf8(self.take(n)?)
            .map_err(|_| format!("{what} in the saved index is not UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Index {
        let mut index = Index::new();
        index
            .put("manual.md", "v1", "# Timeouts\n\nAbort any statement that takes too long.\n\n# Locks\n\nWait for a lock.\n")
            .unwrap();
        index
            .put("notes/a.txt", "v2", "the server gives up on slow queries")
            .unwrap();
        index.put("gone.txt", "v3", "soon removed").unwrap();
        index.remove("gone.txt");
        index
    }

    #[test]
    fn an_index_read_back_answers_as_the_one_saved() {
        let index = sample();
        let back = Index::load(&index.save()).unwrap();
        for question in [
            "abort a statement",
            "give up slow query",
            "lock",
            "nothing here",
        ] {
            assert_eq!(
                back.search(question, 10).unwrap(),
                index.search(question, 10).unwrap()
            );
        }
        let mut paths = back.paths();
        paths.sort();
        assert_eq!(paths, ["manual.md", "notes/a.txt"]);
        assert_eq!(back.version("manual.md"), Some("v1"));
        assert_eq!(back.passages(), index.passages());
        // The removed file's own terms stay in the dictionary until a compaction.
        assert!(back.terms() < index.terms());
        assert_eq!(back.save(), index.save());
    }

    #[test]
    fn every_cut_or_changed_byte_is_an_error_or_an_index_never_a_panic() {
        let saved = sample().save();
        for end in 0..saved.len() {
            assert!(Index::load(&saved[..end]).is_err(), "cut at {end}");
        }
        for at in 0..saved.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut changed = saved.clone();
                changed[at] ^= flip;
                let _ = Index::load(&changed);
            }
        }
        let mut longer = saved.clone();
        longer.push(0);
        assert!(Index::load(&longer).is_err());
    }

    #[test]
    fn a_count_larger_than_the_bytes_asks_for_nothing() {
        let mut bytes = MAGIC.to_vec();
        put(&mut bytes, u32::MAX as usize);
        let err = Index::load(&bytes).err().unwrap();
        assert!(err.contains("counts more terms"), "{err}");
        assert!(Index::load(b"not an index").is_err());
    }
}
