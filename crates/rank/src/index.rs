//! The index: each file's passages and version, the postings of their terms, and
//! the BM25 ranking of passages for a question.

use std::collections::HashMap;
use std::sync::Arc;

use file_store_base::cancel;
use file_store_base::error::Result;

use crate::passages::{spans, Span};
use crate::postings::Postings;
use crate::tokens::Tokenizer;
use crate::{EXCERPT_CHARS, MAX_FILE_BYTES, MAX_INDEX_BYTES, MAX_LIMIT, MAX_PASSAGES, MAX_TERMS};

/// BM25's usual constants: how fast a term's weight saturates with its count, and
/// how much a long passage is discounted.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// How much a passage's file counts in its rank (see `Index::weigh_files`). On the
/// retrieval bench (151 questions over the Python documentation) every value from
/// 0.3 to 0.6 ranked alike, each kind of question better than none.
const FILE_WEIGHT: f64 = 0.4;
/// How many of a file's best passages count for it.
const FILE_PASSAGES: usize = 3;
/// Removed passages kept in the postings before they are compacted away, beyond
/// as many as there are live ones.
const COMPACT_SLACK: usize = 4096;

mod file_terms;
mod saved;
mod vector;
mod vectors;

use file_terms::FileTerms;
use vector::{digest, text_to_embed, Embedding, Vector};
pub use vector::{MAX_DIMENSIONS, MAX_VECTOR_BYTES};

/// A passage found for a question, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub path: String,
    pub first_line: u32,
    pub last_line: u32,
    pub text: String,
    pub score: f64,
}

/// What putting a file did: how many passages it holds now, and a note when part
/// of it was left out for a bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Put {
    pub passages: usize,
    pub note: Option<String>,
    /// Where the index names an embedding model (`Index::embed_with`), the
    /// passages with no vector yet, by their position among the file's, each with
    /// the text to embed; a passage whose text the file held before keeps its vector.
    pub unembedded: Vec<(usize, String)>,
}

struct Stored {
    path: Arc<str>,
    first_line: u32,
    last_line: u32,
    excerpt: String,
    len: u32,
    terms: Vec<(u32, u32)>,
    /// The digest of the text an embedding model is given of the passage.
    digest: u64,
    vector: Option<Vector>,
}

struct FileEntry {
    version: String,
    ids: Vec<u32>,
    bytes: usize,
}

#[derive(Default)]
pub struct Index {
    files: HashMap<Arc<str>, FileEntry>,
    passages: Vec<Option<Stored>>,
    postings: Postings,
    live: usize,
    total_len: u64,
    bytes: usize,
    embedding: Option<Embedding>,
    /// How many live passages have a vector.
    vectors: usize,
}

impl Index {
    pub fn new() -> Index {
        Index::default()
    }

    /// The version `path` was indexed at, if it is.
    pub fn version(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(|f| f.version.as_str())
    }

    /// Notes the file at `path` as indexed at `version` (a caller that put it at no
    /// version until its passages had their vectors); false when it is not indexed.
    pub fn set_version(&mut self, path: &str, version: &str) -> bool {
        self.files
            .get_mut(path)
            .map(|entry| entry.version = version.to_string())
            .is_some()
    }

    /// The paths indexed, in no order.
    pub fn paths(&self) -> Vec<String> {
        self.files.keys().map(|p| p.to_string()).collect()
    }

    pub fn passages(&self) -> usize {
        self.live
    }

    pub fn terms(&self) -> usize {
        self.postings.terms()
    }

    /// Indexes `text` as the file at `path` at `version`, replacing what the index
    /// held for it; a text with a NUL byte is a binary's, with no passages. Cut short, with a note, at the index's bounds. Cancelled (see
    /// `file_store_base::cancel`) before anything changes, or not at all.
    pub fn put(&mut self, path: &str, version: &str, text: &str) -> Result<Put> {
        let mut notes = Vec::new();
        let (text, cut) = self.bounded(path, text, &mut notes);
        let path: Arc<str> = Arc::from(path);
        let mut terms = FileTerms::new(MAX_TERMS);
        // The file's path and title, and a heading, count for each passage under
        // it: their terms are found once, not once a passage.
        let about = terms.ids_of(&about(&path, &cut));
        let mut heading: (Option<&str>, Vec<u32>) = (None, Vec::new());
        let mut built = Vec::with_capacity(cut.len());
        let mut embed = Vec::new();
        for passage in cut {
            cancel::check()?;
            if passage.heading != heading.0 {
                heading = (passage.heading, terms.ids_of(passage.heading.unwrap_or("")));
            }
            terms.begin_passage();
            terms.count_ids(&about);
            terms.count_ids(&heading.1);
            terms.count_text(passage.text);
            let (len, counts) = terms.passage_terms();
            // Only an index that names a model keeps a digest (0 otherwise): naming one
            // later marks every file stale, so each is put, and digested, again.
            let to_embed = self
                .embedding
                .is_some()
                .then(|| text_to_embed(passage.heading, passage.text));
            built.push((
                passage.first_line,
                passage.last_line,
                excerpt(passage.text),
                len,
                counts,
                to_embed.as_deref().map_or(0, digest),
            ));
            embed.extend(to_embed);
        }
        let mut kept = self.vectors_of(&path);
        self.remove(&path);
        let mut dropped_terms = terms.left_out();
        // The file's terms become the index's, in the order the file first has them.
        let ids: Vec<Option<u32>> = terms
            .into_names()
            .iter()
            .map(|name| self.postings.intern(name, MAX_TERMS))
            .collect();
        let mut held = Vec::with_capacity(built.len());
        let mut unembedded = Vec::new();
        for (at, (first_line, last_line, excerpt, len, mut terms, digest)) in
            built.into_iter().enumerate()
        {
            terms.retain_mut(|(term, _)| match ids[*term as usize] {
                Some(id) => {
                    *term = id;
                    true
                }
                None => {
                    dropped_terms = true;
                    false
                }
            });
            let id = self.passages.len() as u32;
            self.postings.add(id, &terms);
            let vector = kept.remove(&digest);
            if vector.is_some() {
                self.vectors += 1;
            } else {
                if let Some(text) = embed.get_mut(at) {
                    unembedded.push((at, std::mem::take(text)));
                }
            }
            self.passages.push(Some(Stored {
                path: path.clone(),
                first_line,
                last_line,
                excerpt,
                len,
                terms,
                digest,
                vector,
            }));
            self.live += 1;
            self.total_len += u64::from(len);
            held.push(id);
        }
        if dropped_terms {
            notes.push(format!(
                "some of its words are not indexed (the index holds {MAX_TERMS} distinct terms)"
            ));
        }
        self.bytes += text.len();
        let passages = held.len();
        self.files.insert(
            path,
            FileEntry {
                version: version.to_string(),
                ids: held,
                bytes: text.len(),
            },
        );
        Ok(Put {
            passages,
            note: (!notes.is_empty()).then(|| notes.join("; ")),
            unembedded,
        })
    }

    /// What of `text` the index takes as the file at `path`, and its passages: none
    /// of a binary's, and as many bytes and passages as its bounds leave room for,
    /// with a note in `notes` for each bound reached.
    fn bounded<'t>(
        &self,
        path: &str,
        text: &'t str,
        notes: &mut Vec<String>,
    ) -> (&'t str, Vec<Span<'t>>) {
        let old_bytes = self.files.get(path).map_or(0, |f| f.bytes);
        let room = MAX_FILE_BYTES.min(MAX_INDEX_BYTES - (self.bytes - old_bytes));
        // A NUL byte makes a file binary, as it does to the grep: no passages.
        let text = if text.as_bytes().contains(&0) {
            ""
        } else {
            text
        };
        let text = if text.len() > room {
            notes.push(format!(
                "only its first {room} bytes are indexed (the index takes {MAX_FILE_BYTES} bytes of a file, {MAX_INDEX_BYTES} in all)"
            ));
            &text[..floor_char_boundary(text, room)]
        } else {
            text
        };
        let old_passages = self.files.get(path).map_or(0, |f| f.ids.len());
        let room = MAX_PASSAGES - (self.live - old_passages);
        let mut cut = spans(text);
        if cut.len() > room {
            notes.push(format!(
                "only its first {room} passages are indexed (the index holds {MAX_PASSAGES})"
            ));
            cut.truncate(room);
        }
        (text, cut)
    }

    /// The vectors the passages of the file at `path` hold, by their digests.
    fn vectors_of(&self, path: &str) -> HashMap<u64, Vector> {
        let Some(entry) = self.files.get(path) else {
            return HashMap::new();
        };
        entry
            .ids
            .iter()
            .filter_map(|&id| self.passages[id as usize].as_ref())
            .filter_map(|stored| Some((stored.digest, stored.vector.clone()?)))
            .collect()
    }

    /// Forgets the file at `path`; true when the index held it.
    pub fn remove(&mut self, path: &str) -> bool {
        let Some(entry) = self.files.remove(path) else {
            return false;
        };
        for id in entry.ids {
            if let Some(stored) = self.passages[id as usize].take() {
                self.postings.removed(&stored.terms);
                self.live -= 1;
                self.vectors -= usize::from(stored.vector.is_some());
                self.total_len -= u64::from(stored.len);
            }
        }
        self.bytes -= entry.bytes;
        if self.passages.len() - self.live > self.live + COMPACT_SLACK {
            self.compact();
        }
        true
    }

    /// The `limit` passages that answer `question` best, by BM25 over its terms.
    pub fn search(&self, question: &str, limit: usize) -> Result<Vec<Hit>> {
        self.search_within(question, limit, None)
    }

    /// The best `limit` passages for `question` among the files at `folder` (the file
    /// of that path, or those under it), or among every file when it is `None`. The
    /// folder narrows the passages before they are ranked, so none of its own is left
    /// out for passages of other files; the weights of words stay the whole index's.
    pub fn search_within(
        &self,
        question: &str,
        limit: usize,
        folder: Option<&str>,
    ) -> Result<Vec<Hit>> {
        let ranked = self.term_scores(question, folder)?;
        Ok(self.best(ranked, limit.clamp(1, MAX_LIMIT)))
    }

    /// Each passage among the files at `folder` that holds a term of `question`,
    /// with its BM25 score and its file's weight, in no order.
    fn term_scores(&self, question: &str, folder: Option<&str>) -> Result<Vec<(u32, f64)>> {
        let within = |path: &str| folder.is_none_or(|folder| is_within(path, folder));
        let mut ids: Vec<u32> = Vec::new();
        Tokenizer::default().each_term(question, |term| {
            if let Some(id) = self.postings.id(term) {
                ids.push(id);
            }
        });
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() || self.live == 0 {
            return Ok(Vec::new());
        }
        let n = self.live as f64;
        let average = self.total_len as f64 / n;
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for term in ids {
            let df = f64::from(self.postings.df(term));
            if df == 0.0 {
                continue;
            }
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (i, &(passage, count)) in self.postings.list(term).iter().enumerate() {
                if i % 4096 == 4095 {
                    cancel::check()?;
                }
                let Some(stored) = &self.passages[passage as usize] else {
                    continue;
                };
                if !within(&stored.path) {
                    continue;
                }
                let tf = f64::from(count);
                let norm = K1 * (1.0 - B + B * f64::from(stored.len) / average);
                *scores.entry(passage).or_default() += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut ranked: Vec<(u32, f64)> = scores.into_iter().collect();
        self.weigh_files(&mut ranked);
        Ok(ranked)
    }

    /// The `limit` best of `ranked`, best first, as hits.
    fn best(&self, mut ranked: Vec<(u32, f64)>, limit: usize) -> Vec<Hit> {
        let order = |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(order);
        ranked
            .into_iter()
            .filter_map(|(id, score)| {
                let stored = self.passages[id as usize].as_ref()?;
                Some(Hit {
                    path: stored.path.to_string(),
                    first_line: stored.first_line,
                    last_line: stored.last_line,
                    text: stored.excerpt.clone(),
                    score,
                })
            })
            .collect()
    }

    /// Adds to each passage's score [`FILE_WEIGHT`] of what its file's best
    /// [`FILE_PASSAGES`] passages score beyond it: of two passages that answer
    /// alike, the one in a file about the question comes first.
    fn weigh_files(&self, ranked: &mut [(u32, f64)]) {
        let mut by_file: HashMap<&str, Vec<f64>> = HashMap::new();
        for &(id, score) in ranked.iter() {
            if let Some(stored) = &self.passages[id as usize] {
                by_file.entry(&stored.path).or_default().push(score);
            }
        }
        let best: HashMap<&str, f64> = by_file
            .into_iter()
            .map(|(path, mut scores)| {
                scores.sort_unstable_by(|a, b| b.total_cmp(a));
                (path, scores.iter().take(FILE_PASSAGES).sum())
            })
            .collect();
        for (id, score) in ranked.iter_mut() {
            if let Some(stored) = &self.passages[*id as usize] {
                *score += FILE_WEIGHT * (best[&*stored.path] - *score);
            }
        }
    }

    fn compact(&mut self) {
        let mut renumber = Vec::with_capacity(self.passages.len());
        let mut next = 0u32;
        for stored in &self.passages {
            renumber.push(stored.as_ref().map(|_| {
                next += 1;
                next - 1
            }));
        }
        let terms = self.postings.compact(&renumber);
        let old = std::mem::take(&mut self.passages);
        for mut stored in old.into_iter().flatten() {
            for term in &mut stored.terms {
                term.0 = terms[term.0 as usize].unwrap_or(term.0);
            }
            self.passages.push(Some(stored));
        }
        for entry in self.files.values_mut() {
            for id in &mut entry.ids {
                *id = renumber[*id as usize].unwrap_or(*id);
            }
        }
    }
}

/// Whether `path` is the file `folder` names or a file under it.
fn is_within(path: &str, folder: &str) -> bool {
    let folder = folder.trim_end_matches('/');
    path.strip_prefix(folder)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The passage's start, its runs of whitespace made one space, to show with a hit.
/// What a whole file is about, counted for each of its passages, as a search
/// engine counts a page's address and title for every part of it: the words of
/// its path (without the extension) and its title, the first heading.
fn about(path: &str, cut: &[Span<'_>]) -> String {
    let name_at = path.rfind('/').map_or(0, |at| at + 1);
    let stem = match path[name_at..].rfind('.') {
        Some(dot) if dot > 0 => &path[..name_at + dot],
        _ => path,
    };
    let title = cut.iter().find_map(|p| p.heading).unwrap_or("");
    format!("{stem} {title}")
}

fn excerpt(text: &str) -> String {
    let mut out = String::new();
    // The characters in `out`, counted as it grows rather than again for each word.
    let mut shown = 0;
    for (n, word) in text.split_whitespace().enumerate() {
        let chars = word.chars().count();
        if shown + chars > EXCERPT_CHARS {
            out.push_str(" …");
            break;
        }
        if n > 0 {
            out.push(' ');
            shown += 1;
        }
        out.push_str(word);
        shown += chars;
    }
    out
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
