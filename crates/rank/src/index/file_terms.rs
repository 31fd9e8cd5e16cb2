//! One file's terms while it is being put: each distinct term numbered once for
//! the file (a local id, so nothing of the index changes before the file is
//! indexed whole), and each passage's terms counted by those numbers in a list
//! rather than a map. The local ids become the index's own once the old file is
//! removed ([`FileTerms::into_names`]).

use crate::tokens::Tokenizer;

#[derive(Default)]
pub struct FileTerms {
    tokenizer: Tokenizer,
    /// Each term of the file by its text, to its local id.
    ids: foldhash::HashMap<Box<str>, u32>,
    /// By local id: the passage it was last counted for (its number + 1, 0 for
    /// none yet) and where in `counts` its count is.
    seen: Vec<(u32, u32)>,
    /// The passage being counted: (local id, occurrences), in the order met.
    counts: Vec<(u32, u32)>,
    /// The passages begun, and the terms counted for the one being counted.
    passage: u32,
    len: u32,
}

impl FileTerms {
    /// The local ids of the terms of `text`, in order.
    pub fn ids_of(&mut self, text: &str) -> Vec<u32> {
        let mut found = Vec::new();
        let FileTerms {
            tokenizer,
            ids,
            seen,
            ..
        } = self;
        tokenizer.each_term(text, |term| found.push(local_id(ids, seen, term)));
        found
    }

    /// Starts counting the next passage's terms.
    pub fn begin_passage(&mut self) {
        self.passage += 1;
        self.counts.clear();
        self.len = 0;
    }

    /// Counts the terms `ids_of` found, for the passage being counted.
    pub fn count_ids(&mut self, ids: &[u32]) {
        for &id in ids {
            self.count(id);
        }
    }

    /// Counts the terms of `text` for the passage being counted.
    pub fn count_text(&mut self, text: &str) {
        let FileTerms {
            tokenizer,
            ids,
            seen,
            counts,
            passage,
            len,
        } = self;
        tokenizer.each_term(text, |term| {
            let id = local_id(ids, seen, term);
            count(seen, counts, *passage, id);
            *len += 1;
        });
    }

    fn count(&mut self, id: u32) {
        count(&mut self.seen, &mut self.counts, self.passage, id);
        self.len += 1;
    }

    /// The passage counted: how many terms it has, and each distinct one's
    /// (local id, occurrences), in the order first met.
    pub fn passage_terms(&self) -> (u32, Vec<(u32, u32)>) {
        (self.len, self.counts.clone())
    }

    /// Each term of the file, by its local id.
    pub fn into_names(self) -> Vec<Box<str>> {
        let mut names: Vec<(u32, Box<str>)> =
            self.ids.into_iter().map(|(name, id)| (id, name)).collect();
        names.sort_unstable_by_key(|&(id, _)| id);
        names.into_iter().map(|(_, name)| name).collect()
    }
}

/// The local id of `term`, numbered now if the file had no such term yet.
fn local_id(
    ids: &mut foldhash::HashMap<Box<str>, u32>,
    seen: &mut Vec<(u32, u32)>,
    term: &str,
) -> u32 {
    if let Some(&id) = ids.get(term) {
        return id;
    }
    let id = seen.len() as u32;
    ids.insert(Box::from(term), id);
    seen.push((0, 0));
    id
}

fn count(seen: &mut [(u32, u32)], counts: &mut Vec<(u32, u32)>, passage: u32, id: u32) {
    let slot = &mut seen[id as usize];
    if slot.0 == passage {
        counts[slot.1 as usize].1 += 1;
    } else {
        *slot = (passage, counts.len() as u32);
        counts.push((id, 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_has_one_id_in_the_file_and_counts_per_passage() {
        let mut terms = FileTerms::default();
        let about = terms.ids_of("Queries guide");
        assert_eq!(about, [0, 1]);
        terms.begin_passage();
        terms.count_ids(&about);
        terms.count_text("the query, a QUERY and a lock");
        assert_eq!(terms.passage_terms(), (5, vec![(0, 3), (1, 1), (2, 1)]));
        terms.begin_passage();
        terms.count_text("lock locks");
        assert_eq!(terms.passage_terms(), (2, vec![(2, 2)]));
        let names = terms.into_names();
        assert_eq!(&*names, ["query", "guide", "lock"].map(Box::from));
    }
}
