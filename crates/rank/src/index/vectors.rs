//! Passages' meanings beside their words: each passage's vector, as the embedding
//! model the caller names gives it, kept in 8 bits a dimension; a question's
//! vector compared with every passage's by cosine; and the two scores combined, so
//! a question asked in other words than its answer's still finds it, and one that
//! shares them keeps what BM25 gave it.
//!
//! The combination is convex, of BM25 divided by the best BM25 score and of the
//! cosine as it is (below 0 taken as 0): Bruch, Gai and Ingber ("An Analysis of
//! Fusion Functions for Hybrid Retrieval", 2023) found such a combination of
//! normalized scores ranks better than reciprocal rank fusion, under which a
//! passage that shares no word with the question, however near in meaning, is
//! outranked by every passage that ranks a little in both lists. The cosine is not
//! divided by the best one, so that where nothing is near the question meaning
//! adds little; a passage with no vector yet (past a file's bound of passages
//! embedded, or while its embedding failed) is scored by its words alone.
//!
//! The index embeds nothing itself: [`Index::put`] names the passages that have no
//! vector yet (a passage whose text is unchanged keeps the one it had, found by
//! its digest), the caller embeds them and gives the vectors back with
//! [`Index::set_vectors`].

use std::collections::HashMap;

use file_store_base::cancel;
use file_store_base::error::{Error, Result};

use super::vector::{length, Embedding, Vector, MAX_DIMENSIONS, MAX_VECTOR_BYTES};
use super::{Hit, Index};
use crate::MAX_LIMIT;

/// The weight of meaning in a passage's score, that of its words being the rest.
const MEANING: f64 = 0.7;
/// How many of the passages nearest the question in meaning the combination takes.
const NEAREST: usize = 200;
impl Index {
    /// The embedding model whose vectors the index holds, if any.
    pub fn embedding_model(&self) -> Option<&str> {
        self.embedding.as_ref().map(|e| e.model.as_str())
    }

    /// Makes `model` the one whose vectors the index holds (None: no vectors).
    /// A change drops every vector held and marks every file as indexed at no
    /// version, so that the caller puts each again and embeds its passages with the
    /// new model; true then.
    pub fn embed_with(&mut self, model: Option<&str>) -> bool {
        if self.embedding_model() == model {
            return false;
        }
        self.embedding = model.map(|model| Embedding {
            model: model.to_string(),
            dimensions: 0,
        });
        for stored in self.passages.iter_mut().flatten() {
            stored.vector = None;
        }
        self.vectors = 0;
        for entry in self.files.values_mut() {
            entry.version.clear();
        }
        true
    }

    /// Gives the passages of the file at `path` their vectors: each pair is a
    /// passage's position among the file's (as [`super::Put::unembedded`] names it)
    /// and its vector. An error, changing nothing, when no model is named, the file
    /// or a position is not indexed, or a vector's dimensions differ from the
    /// others' or pass [`MAX_DIMENSIONS`]. A vector of no length is left out, and so
    /// is a new one past [`MAX_VECTOR_BYTES`]: how many were, for that bound.
    pub fn set_vectors(&mut self, path: &str, vectors: &[(usize, Vec<f32>)]) -> Result<usize> {
        let Some(embedding) = &self.embedding else {
            return Err(Error::InvalidArgument(
                "vectors given to an index that names no embedding model".to_string(),
            ));
        };
        let Some(entry) = self.files.get(path) else {
            return Err(Error::NotFound(format!("{path} is not indexed")));
        };
        let mut dimensions = embedding.dimensions;
        let mut quantized = Vec::with_capacity(vectors.len());
        for (at, raw) in vectors {
            let Some(&id) = entry.ids.get(*at) else {
                return Err(Error::InvalidArgument(format!(
                    "{path} has no passage {at} (it has {})",
                    entry.ids.len()
                )));
            };
            if dimensions == 0 {
                dimensions = raw.len();
            }
            if raw.len() != dimensions || dimensions > MAX_DIMENSIONS {
                return Err(Error::InvalidArgument(format!(
                    "a vector of {} dimensions, where the index holds vectors of {dimensions} (at most {MAX_DIMENSIONS})",
                    raw.len()
                )));
            }
            quantized.push((id, Vector::quantize(raw)));
        }
        if let Some(embedding) = &mut self.embedding {
            embedding.dimensions = dimensions;
        }
        let room = MAX_VECTOR_BYTES / dimensions.max(1);
        let mut left_out = 0;
        for (id, vector) in quantized {
            let Some(stored) = &mut self.passages[id as usize] else {
                continue;
            };
            match (stored.vector.is_some(), vector.is_some()) {
                (false, true) if self.vectors >= room => {
                    left_out += 1;
                    continue;
                }
                (false, true) => self.vectors += 1,
                (true, false) => self.vectors -= 1,
                _ => {}
            }
            stored.vector = vector;
        }
        Ok(left_out)
    }

    /// How many live passages have a vector.
    pub fn embedded(&self) -> usize {
        self.vectors
    }

    /// The best `limit` passages for `question` among the files at `folder` (or
    /// every file), by BM25 over its words combined with the cosine of `query`, the
    /// question's vector from the index's model, and each passage's. Without a
    /// query vector, or with no passage embedded, the words' ranking alone.
    pub fn search_hybrid(
        &self,
        question: &str,
        query: Option<&[f32]>,
        limit: usize,
        folder: Option<&str>,
    ) -> Result<Vec<Hit>> {
        let limit = limit.clamp(1, MAX_LIMIT);
        let mut words = self.term_scores(question, folder)?;
        let unit = match query {
            Some(query) => self.unit_query(query)?,
            None => None,
        };
        let Some(unit) = unit else {
            return Ok(self.best(words, limit));
        };
        let nearest = self.nearest(&unit, folder)?;
        if nearest.is_empty() {
            return Ok(self.best(words, limit));
        }
        let best_words = words.iter().fold(0f64, |best, (_, score)| best.max(*score));
        let mut combined: HashMap<u32, f64> = HashMap::new();
        if best_words > 0.0 {
            for (id, score) in words.drain(..) {
                // A passage with no vector yet is scored by its words alone.
                let weight = match &self.passages[id as usize] {
                    Some(stored) if stored.vector.is_some() => 1.0 - MEANING,
                    _ => 1.0,
                };
                *combined.entry(id).or_default() += weight * score / best_words;
            }
        }
        for (id, cosine) in nearest {
            *combined.entry(id).or_default() += MEANING * f64::from(cosine).max(0.0);
        }
        Ok(self.best(combined.into_iter().collect(), limit))
    }

    /// `query` as a unit vector of the index's dimensions; None while no passage
    /// has a vector. An error for a vector of other dimensions or of no length.
    fn unit_query(&self, query: &[f32]) -> Result<Option<Vec<f32>>> {
        let Some(embedding) = self.embedding.as_ref().filter(|e| e.dimensions > 0) else {
            return Ok(None);
        };
        if query.len() != embedding.dimensions {
            return Err(Error::InvalidArgument(format!(
                "the question's vector has {} dimensions, the passages' {}",
                query.len(),
                embedding.dimensions
            )));
        }
        let norm = length(query).ok_or_else(|| {
            Error::InvalidArgument("the question's vector has no length".to_string())
        })?;
        Ok(Some(
            query
                .iter()
                .map(|v| (f64::from(*v) / norm) as f32)
                .collect(),
        ))
    }

    /// The [`NEAREST`] embedded passages among the files at `folder` closest to
    /// `unit`, closest first.
    fn nearest(&self, unit: &[f32], folder: Option<&str>) -> Result<Vec<(u32, f32)>> {
        let mut near = Vec::new();
        for (id, stored) in self.passages.iter().enumerate() {
            if id % 4096 == 4095 {
                cancel::check()?;
            }
            let Some(stored) = stored else { continue };
            let Some(vector) = &stored.vector else {
                continue;
            };
            if folder.is_none_or(|folder| super::is_within(&stored.path, folder)) {
                near.push((id as u32, vector.cosine(unit)));
            }
        }
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if near.len() > NEAREST {
            near.select_nth_unstable_by(NEAREST - 1, order);
            near.truncate(NEAREST);
        }
        near.sort_unstable_by(order);
        Ok(near)
    }
}

#[cfg(test)]
mod tests;
