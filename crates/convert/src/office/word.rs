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
use crate::common::refusal::{Converted, Refusal};
use crate::common::xml::{self, attr, Node};

/// The parts besides the body, in the order they are written, by relationship kind.
const PARTS: &[(&str, &[&str])] = &[
    ("Headers and footers", &["header", "footer"]),
    ("Footnotes", &["footnotes"]),
    ("Endnotes", &["endnotes"]),
    ("Comments", &["comments"]),
];

/// The path of a Word document's main part: the one the package's relationships
/// (`_rels/.rels`) name as its office document when that is a Word part, else
/// `word/document.xml` when there is one; None for a package that is no Word
/// document.
pub(crate) fn main_word_part(archive: &mut Archive<'_>) -> Result<Option<String>, Refusal> {
    let budget = archive.budget().clone();
    let named = archive
        .read("_rels/.rels")?
        .map(|rels| xml::typed_relationships(&rels, "", &budget))
        .unwrap_or_default()
        .into_iter()
        .find(|(kind, _)| kind == "officeDocument")
        .map(|(_, path)| path);
    let content_types = archive.read("[Content_Types].xml")?.unwrap_or_default();
    let content_types = String::from_utf8_lossy(&content_types);
    if let Some(path) = named {
        let word_part = path.starts_with("word/")
            || (content_types.contains(&format!("\"/{path}\""))
                && content_types.contains("wordprocessingml.document.main"));
        if word_part && archive.has(&path) {
            return Ok(Some(path));
        }
    }
    Ok(archive
        .has("word/document.xml")
        .then(|| "word/document.xml".to_string()))
}

/// The folder of the part at `path` and the path of its relationships.
fn folder_and_rels(path: &str) -> (&str, String) {
    match path.rsplit_once('/') {
        Some((dir, name)) => (dir, format!("{dir}/_rels/{name}.rels")),
        None => ("", format!("_rels/{path}.rels")),
    }
}

pub(crate) fn word(archive: &mut Archive<'_>, main: &str) -> Converted {
    let budget = archive.budget().clone();
    let document = part(archive, main)?;
    let (dir, rels_path) = folder_and_rels(main);
    let rels_bytes = archive.read(&rels_path)?.unwrap_or_default();
    let rels = xml::typed_relationships(&rels_bytes, dir, &budget);
    let targets = xml::relationships(&rels_bytes, dir, &budget);
    let mut out = Out::new(&budget);
    let mut notes = Notes::default();
    let mut body = Body::new("t", "p");
    xml::walk(&document, &budget, |node| {
        match node {
            // A document of another format embedded in place (an HTML or text chunk).
            Node::Open("altChunk", tag) => {
                let path = attr(tag, "id").and_then(|id| targets.get(&id).cloned());
                return alt_chunk(archive, path.as_deref(), &budget, &mut out);
            }
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

/// Writes the text of the part at `path` an `altChunk` embeds: an HTML page or
/// plain text read in place; another format (RTF, a Word document, MHT) named as
/// not read, so nothing goes missing without a word.
fn alt_chunk(
    archive: &mut Archive<'_>,
    path: Option<&str>,
    budget: &Rc<Budget>,
    out: &mut Out,
) -> bool {
    let Some(path) = path else { return true };
    let Ok(Some(bytes)) = archive.read(path) else {
        return true;
    };
    let extension = path
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let text = match extension.as_str() {
        "html" | "htm" | "xhtml" => crate::html::page(&bytes, budget),
        "txt" => Some(String::from_utf8_lossy(&bytes).into_owned()),
        other => Some(format!("[an embedded .{other} document, not read]")),
    };
    match text {
        Some(text) => out.newline() && out.push(text.trim_end()) && out.newline(),
        None => true,
    }
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
