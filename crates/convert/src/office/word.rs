//! Word documents: the body (headings, paragraphs, lists, tables), with a
//! `[^n]` where a footnote or endnote is referenced, then what the body does not
//! hold, each under its own heading: headers and footers (each distinct text
//! once), footnotes, endnotes and comments (with their author).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::parts::{part, Body, KIND};
use crate::common::archive::Archive;
use crate::common::budget::Budget;
use crate::common::out::{Distinct, Out};
use crate::common::refusal::Converted;
use crate::common::xml::{self, attr, Node};

/// The parts besides the body, in the order they are written, by relationship kind.
const PARTS: &[(&str, &[&str])] = &[
    ("Headers and footers", &["header", "footer"]),
    ("Footnotes", &["footnotes"]),
    ("Endnotes", &["endnotes"]),
    ("Comments", &["comments"]),
];

pub(crate) fn word(archive: &mut Archive<'_>) -> Converted {
    let budget = archive.budget().clone();
    let document = part(archive, "word/document.xml")?;
    let rels = archive
        .read("word/_rels/document.xml.rels")?
        .map(|r| xml::typed_relationships(&r, "word", &budget))
        .unwrap_or_default();
    let mut out = Out::new(&budget);
    let mut notes = Notes::default();
    let mut body = Body::new("t", "p");
    xml::walk(&document, &budget, |node| {
        match node {
            Node::Open("pStyle", tag) => {
                // LibreOffice and Word name heading styles Heading1..Heading9.
                if let Some(level) = attr(tag, "val").and_then(|v| heading_level(&v)) {
                    return out.push(&"#".repeat(level)) && out.push(" ");
                }
            }
            // A numbered or bulleted paragraph.
            Node::Open("numPr", _) => return out.push("- "),
            Node::Open(kind @ ("footnoteReference" | "endnoteReference"), tag) => {
                let label = notes.refer(kind, attr(tag, "id").unwrap_or_default());
                return out.push(&label);
            }
            _ => {}
        }
        body.visit(node, &mut out)
    });
    for (title, kinds) in PARTS {
        let paths = rels
            .iter()
            .filter(|(kind, _)| kinds.contains(&kind.as_str()))
            .map(|(_, path)| path.clone())
            .collect::<Vec<_>>();
        let mut section = Section::default();
        // A part listed twice is read once.
        let mut read = HashSet::new();
        for path in paths {
            if !read.insert(path.clone()) {
                continue;
            }
            if let Some(bytes) = archive.read(&path)? {
                section.read(&bytes, &notes, &budget);
            }
        }
        if !section.write(title, &mut out) {
            break;
        }
    }
    out.finish_text(KIND)
}

fn heading_level(style: &str) -> Option<usize> {
    let level = style.strip_prefix("Heading")?.parse::<usize>().ok()?;
    (1..=6).contains(&level).then_some(level)
}

/// How many notes are numbered: a document of a million distinct references
/// spent its time (and memory) on a table of their labels.
const MAX_NUMBERED_NOTES: usize = 10_000;

/// The labels given to footnotes and endnotes, numbered in the order the body
/// refers to them (`[^1]`, and `[^e1]` for endnotes).
#[derive(Default)]
struct Notes {
    labels: HashMap<(&'static str, String), String>,
    footnotes: usize,
    endnotes: usize,
}

impl Notes {
    fn refer(&mut self, kind: &str, id: String) -> String {
        let (kind, count, prefix) = if kind == "footnoteReference" {
            ("footnote", &mut self.footnotes, "")
        } else {
            ("endnote", &mut self.endnotes, "e")
        };
        if self.labels.len() >= MAX_NUMBERED_NOTES {
            // Past the ceiling a note keeps its own id, as an unreferenced one does.
            return self
                .labels
                .get(&(kind, id.clone()))
                .cloned()
                .unwrap_or_else(|| format!("[^{id}]"));
        }
        self.labels
            .entry((kind, id))
            .or_insert_with(|| {
                *count += 1;
                format!("[^{prefix}{count}]")
            })
            .clone()
    }

    fn label(&self, kind: &'static str, id: String) -> String {
        self.labels
            .get(&(kind, id.clone()))
            .cloned()
            .unwrap_or_else(|| format!("[^{id}]"))
    }
}

/// The distinct entries of one section, in order.
#[derive(Default)]
struct Section {
    entries: Distinct,
}

impl Section {
    /// Reads a header, footer, notes or comments part: one entry per note or
    /// comment, or the whole part for a header or footer.
    fn read(&mut self, bytes: &[u8], notes: &Notes, budget: &Rc<Budget>) {
        let mut out = Out::new(budget);
        let mut body = Body::new("t", "p");
        let mut skipping = false;
        // After a note's label and before its text: the tab Word puts there goes.
        let mut fresh = false;
        xml::walk(bytes, budget, |node| {
            match node {
                Node::Open(kind @ ("footnote" | "endnote" | "comment"), tag) => {
                    self.take(std::mem::replace(&mut out, Out::new(budget)));
                    // Separators are a line Word draws, not a note.
                    skipping = attr(tag, "type").is_some_and(|t| t != "normal");
                    let label = match kind {
                        "footnote" => notes.label("footnote", attr(tag, "id").unwrap_or_default()),
                        "endnote" => notes.label("endnote", attr(tag, "id").unwrap_or_default()),
                        _ => format!("{}:", attr(tag, "author").unwrap_or_default()),
                    };
                    out.push(&label);
                    out.push(" ");
                    fresh = true;
                    return true;
                }
                _ if skipping => return true,
                Node::Open("tab", _) if fresh => return true,
                Node::Text(_) => fresh = false,
                _ => {}
            }
            body.visit(node, &mut out)
        });
        if !skipping {
            self.take(out);
        }
    }

    fn take(&mut self, out: Out) {
        if !out.seen() {
            return;
        }
        self.entries.add(out.finish().trim());
    }

    /// Writes the section under `title`, when it has entries.
    fn write(&self, title: &str, out: &mut Out) -> bool {
        if self.entries.is_empty() {
            return !out.full();
        }
        out.section(title);
        for entry in self.entries.entries() {
            // Paid for when the part was read.
            out.copy(entry);
            out.copy("\n");
        }
        !out.full()
    }
}

#[cfg(test)]
mod tests {
    use super::{Notes, MAX_NUMBERED_NOTES};

    #[test]
    fn notes_past_the_ceiling_keep_their_own_ids() {
        let mut notes = Notes::default();
        for id in 0..MAX_NUMBERED_NOTES {
            notes.refer("footnoteReference", format!("n{id}"));
        }
        assert_eq!(notes.refer("footnoteReference", "n0".into()), "[^1]");
        assert_eq!(notes.refer("footnoteReference", "late".into()), "[^late]");
        assert_eq!(notes.label("footnote", "late".into()), "[^late]");
        assert_eq!(notes.labels.len(), MAX_NUMBERED_NOTES);
    }
}
