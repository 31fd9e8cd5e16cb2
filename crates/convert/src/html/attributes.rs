//! What the tokenizer's attribute check costs, counted from the text: it
//! compares each attribute of a tag with every one before it, so a tag of `n`
//! attributes costs about `n²/2` comparisons (200,000 attributes took minutes).
//! Counting them as steps of the budget stops such a tag at the same place every
//! time, where a look at the clock would stop it wherever the clock had got to.

/// Follows tags through the text as it is handed to the tokenizer, piece by
/// piece, as the tokenizer reads them: a tag opens at `<` and a letter, its
/// attributes are separated by whitespace outside quotes, and `>` outside
/// quotes ends it. Text that is not markup (a script, a comment) may be counted
/// as a tag too; that costs a budget steps only where it holds a long run of
/// words after a `<` and a letter, with no `>`.
#[derive(Default)]
pub(super) struct Attributes {
    /// Whether the text is inside a tag.
    in_tag: bool,
    /// The quote a tag's text is inside, if any.
    quote: Option<char>,
    /// The attributes of the open tag so far.
    count: u64,
    /// Whether the last character was a `<` outside a tag.
    after_open: bool,
    /// Whether the last character was whitespace inside a tag.
    after_space: bool,
}

impl Attributes {
    /// The comparisons the attributes that begin in `piece` cost.
    pub(super) fn cost(&mut self, piece: &str) -> u64 {
        let mut cost = 0u64;
        for c in piece.chars() {
            if !self.in_tag {
                if self.after_open && c.is_ascii_alphabetic() {
                    self.in_tag = true;
                    self.count = 0;
                    self.after_space = false;
                }
                self.after_open = c == '<';
                continue;
            }
            match (self.quote, c) {
                (Some(q), c) if c == q => self.quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => self.quote = Some(c),
                (None, '>') => {
                    self.in_tag = false;
                    self.after_open = false;
                }
                (None, c) if c.is_ascii_whitespace() => self.after_space = true,
                (None, _) => {
                    if self.after_space {
                        cost = cost.saturating_add(self.count);
                        self.count += 1;
                    }
                    self.after_space = false;
                }
            }
        }
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_attribute_against_those_before_it_in_its_tag() {
        let mut attributes = Attributes::default();
        // Three attributes: the second against one, the third against two.
        assert_eq!(attributes.cost("<p a=1 b='x y' c>text a b c d</p>"), 3);
        assert_eq!(attributes.cost("<p a b c d e f>"), 15);
        // A tag split across pieces counts on.
        assert_eq!(attributes.cost("<p a b"), 1);
        assert_eq!(attributes.cost(" c>"), 2);
        assert_eq!(attributes.cost("x < y and z > w"), 0);
    }
}
