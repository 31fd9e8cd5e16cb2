//! The term dictionary and each term's postings: which passages hold it, how
//! often. A removed passage's postings stay until the next compaction (the search
//! skips them), so replacing a file costs its own passages, not a scan of the lists.

#[derive(Default)]
pub struct Postings {
    ids: foldhash::HashMap<Box<str>, u32>,
    /// By term id: (passage id, occurrences in it).
    lists: Vec<Vec<(u32, u32)>>,
    /// By term id: how many live passages hold the term.
    df: Vec<u32>,
}

impl Postings {
    pub fn terms(&self) -> usize {
        self.ids.len()
    }

    /// The id of `term`, added unless the dictionary holds `max` terms already.
    pub fn intern(&mut self, term: &str, max: usize) -> Option<u32> {
        if let Some(&id) = self.ids.get(term) {
            return Some(id);
        }
        if self.ids.len() >= max {
            return None;
        }
        let id = u32::try_from(self.lists.len()).ok()?;
        self.ids.insert(Box::from(term), id);
        self.lists.push(Vec::new());
        self.df.push(0);
        Some(id)
    }

    /// Each term by its id ("" for an id no term holds).
    pub fn names(&self) -> Vec<&str> {
        let mut names = vec![""; self.lists.len()];
        for (term, &id) in &self.ids {
            names[id as usize] = term;
        }
        names
    }

    pub fn id(&self, term: &str) -> Option<u32> {
        self.ids.get(term).copied()
    }

    pub fn add(&mut self, passage: u32, terms: &[(u32, u32)]) {
        for &(term, count) in terms {
            self.lists[term as usize].push((passage, count));
            self.df[term as usize] += 1;
        }
    }

    pub fn removed(&mut self, terms: &[(u32, u32)]) {
        for &(term, _) in terms {
            self.df[term as usize] -= 1;
        }
    }

    pub fn df(&self, term: u32) -> u32 {
        self.df[term as usize]
    }

    pub fn list(&self, term: u32) -> &[(u32, u32)] {
        &self.lists[term as usize]
    }

    /// Rebuilds the lists from the live passages, renumbered by `renumber` (old
    /// passage id to new, None for a removed one); terms no passage holds go.
    /// Returns the new id of each old term id.
    pub fn compact(&mut self, renumber: &[Option<u32>]) -> Vec<Option<u32>> {
        let mut by_id: Vec<Option<Box<str>>> = vec![None; self.lists.len()];
        for (term, id) in self.ids.drain() {
            by_id[id as usize] = Some(term);
        }
        let (old_lists, old_df) = (
            std::mem::take(&mut self.lists),
            std::mem::take(&mut self.df),
        );
        let mut new_ids = vec![None; old_lists.len()];
        for (old, (list, df)) in old_lists.into_iter().zip(old_df).enumerate() {
            if df == 0 {
                continue;
            }
            let id = self.lists.len() as u32;
            let kept: Vec<(u32, u32)> = list
                .into_iter()
                .filter_map(|(p, n)| renumber[p as usize].map(|p| (p, n)))
                .collect();
            self.lists.push(kept);
            self.df.push(df);
            if let Some(term) = by_id[old].take() {
                self.ids.insert(term, id);
            }
            new_ids[old] = Some(id);
        }
        new_ids
    }
}
