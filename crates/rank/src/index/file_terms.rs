//! One file's terms while it is being put: each distinct term numbered once for
//! the file (a local id, so nothing of the index changes before the file is
//! indexed whole), and each passage's terms counted by those numbers in a list
//! rather than a map. The local ids become the index's own once the old file is
//! removed ([`FileTerms::into_names`]).

use crate::tokens::Tokenizer;

/// The local id of a term past the most a file numbers: it counts in its passage's
/// length, and is held nowhere.
const LEFT_OUT: u32 = u32::MAX;

pub struct FileTerms {
    tokenizer: Tokenizer,
    table: Table,
    /// The passage being counted: (local id, occurrences), in the order met.
    counts: Vec<(u32, u32)>,
    /// The passages begun, and the terms counted for the one being counted.
    passage: u32,
    len: u32,
}

/// The file's terms and, by local id, the passage each was last counted for.
struct Table {
    /// Each term of the file by its text, to its local id.
    ids: foldhash::HashMap<Box<str>, u32>,
    /// By local id: the passage it was last counted for (0 for none yet) and
    /// where in `counts` its count is.
    seen: Vec<(u32, u32)>,
    /// The most terms numbered: the index holds no more than that in all, so a
    /// file's own distinct words cost no more memory than the index's dictionary.
    most: usize,
    left_out: bool,
}

impl FileTerms {
    /// Numbers at most `most` distinct terms; the rest are left out.
    pub fn new(most: usize) -> FileTerms {
        FileTerms {
            tokenizer: Tokenizer::default(),
            table: Table {
                ids: foldhash::HashMap::default(),
                seen: Vec::new(),
                most,
                left_out: false,
            },
            counts: Vec::new(),
            passage: 0,
            len: 0,
        }
    }

    /// The local ids of the terms of `text`, in order.
    pub fn ids_of(&mut self, text: &str) -> Vec<u32> {
        let mut found = Vec::new();
        let table = &mut self.table;
        self.tokenizer
            .each_term(text, |term| found.push(table.id(term)));
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
            self.table.count(&mut self.counts, self.passage, id);
        }
        self.len += ids.len() as u32;
    }

    /// Counts the terms of `text` for the passage being counted.
    pub fn count_text(&mut self, text: &str) {
        let FileTerms {
            tokenizer,
            table,
            counts,
            passage,
            len,
        } = self;
        tokenizer.each_term(text, |term| {
            let id = table.id(term);
            table.count(counts, *passage, id);
            *len += 1;
        });
    }

    /// The passage counted: how many terms it has, and each distinct one's
    /// (local id, occurrences), in the order first met.
    pub fn passage_terms(&self) -> (u32, Vec<(u32, u32)>) {
        (self.len, self.counts.clone())
    }

    /// Whether some term was left out, past the most a file numbers.
    pub fn left_out(&self) -> bool {
        self.table.left_out
    }

    /// Each term of the file, by its local id.
    pub fn into_names(self) -> Vec<Box<str>> {
        let mut names: Vec<(u32, Box<str>)> = self
            .table
            .ids
            .into_iter()
            .map(|(name, id)| (id, name))
            .collect();
        names.sort_unstable_by_key(|&(id, _)| id);
        names.into_iter().map(|(_, name)| name).collect()
    }
}

impl Table {
    /// The local id of `term`, numbered now if the file had no such term yet, or
    /// [`LEFT_OUT`].
    fn id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        if self.seen.len() >= self.most {
            self.left_out = true;
            return LEFT_OUT;
        }
        let id = self.seen.len() as u32;
        self.ids.insert(Box::from(term), id);
        self.seen.push((0, 0));
        id
    }

    fn count(&mut self, counts: &mut Vec<(u32, u32)>, passage: u32, id: u32) {
        let Some(slot) = self.seen.get_mut(id as usize) else {
            return;
        };
        if slot.0 == passage {
            counts[slot.1 as usize].1 += 1;
        } else {
            *slot = (passage, counts.len() as u32);
            counts.push((id, 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_has_one_id_in_the_file_and_counts_per_passage() {
        let mut terms = FileTerms::new(100);
        let about = terms.ids_of("Queries guide");
        assert_eq!(about, [0, 1]);
        terms.begin_passage();
        terms.count_ids(&about);
        terms.count_text("the query, a QUERY and a lock");
        assert_eq!(terms.passage_terms(), (5, vec![(0, 3), (1, 1), (2, 1)]));
        terms.begin_passage();
        terms.count_text("lock locks");
        assert_eq!(terms.passage_terms(), (2, vec![(2, 2)]));
        assert!(!terms.left_out());
        let names = terms.into_names();
        assert_eq!(&*names, ["query", "guide", "lock"].map(Box::from));
    }

    #[test]
    fn terms_past_the_most_count_in_the_length_and_are_held_nowhere() {
        let mut terms = FileTerms::new(2);
        let heading = terms.ids_of("alpha beta gamma");
        assert_eq!(heading, [0, 1, LEFT_OUT]);
        terms.begin_passage();
        terms.count_ids(&heading);
        terms.count_text("delta alpha");
        assert_eq!(terms.passage_terms(), (5, vec![(0, 2), (1, 1)]));
        assert!(terms.left_out());
        assert_eq!(terms.into_names().len(), 2);
    }
}
