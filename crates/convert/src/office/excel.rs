//! Excel workbooks: each sheet as `## Sheet name` (`## Sheet name (hidden)` for
//! a hidden one), then a line per row with its cells separated by tabs, placed by
//! their A1 references, shared strings resolved, and numbers whose format is a
//! date or time shown as ISO 8601 dates or times.

use std::collections::HashMap;

use super::parts::{attr_rid, part, KIND};
use crate::common::archive::Archive;
use crate::common::budget::{reserve, Budget};
use crate::common::dates::{self, Shows};
use crate::common::out::Out;
use crate::common::refusal::Converted;
use crate::common::xml::{self, attr, Node};

/// The last column Excel has (XFD); a reference past it is not believed.
const MAX_COLUMN: usize = 16_384;

/// The most bytes of text kept for one cell or shared string: Excel holds
/// at most 32,767 characters in a cell, of at most 4 bytes each. A 150 MB
/// shared string used by a thousand cells was copied whole for each cell.
pub(super) const MAX_CELL: usize = 32_767 * 4;

/// Appends `text` to a cell's `value`, up to [`MAX_CELL`] bytes.
fn push_cell(value: &mut String, text: &str) {
    let mut room = MAX_CELL.saturating_sub(value.len()).min(text.len());
    while !text.is_char_boundary(room) {
        room -= 1;
    }
    value.push_str(&text[..room]);
}

pub(crate) fn excel(archive: &mut Archive<'_>) -> Converted {
    let budget = archive.budget().clone();
    let workbook = part(archive, "xl/workbook.xml")?;
    let rels = archive
        .read("xl/_rels/workbook.xml.rels")?
        .map(|r| xml::relationships(&r, "xl", &budget))
        .unwrap_or_default();
    let strings = archive
        .read("xl/sharedStrings.xml")?
        .map(|s| shared_strings(&s, &budget))
        .unwrap_or_default();
    let styles = archive
        .read("xl/styles.xml")?
        .map(|s| cell_styles(&s, &budget))
        .unwrap_or_default();
    let mut sheets = Vec::new();
    let mut date1904 = false;
    xml::walk(&workbook, &budget, |node| {
        match node {
            Node::Open("sheet", tag) => {
                let mut name = attr(tag, "name").unwrap_or_default();
                if matches!(attr(tag, "state").as_deref(), Some("hidden" | "veryHidden")) {
                    name.push_str(" (hidden)");
                }
                if let Some(path) = attr_rid(tag).and_then(|id| rels.get(&id)) {
                    sheets.push((name, path.clone()));
                }
            }
            Node::Open("workbookPr", tag) => {
                date1904 = matches!(attr(tag, "date1904").as_deref(), Some("1" | "true"));
            }
            _ => {}
        }
        true
    });
    let mut out = Out::new(&budget);
    // A part listed as two sheets is one sheet: a workbook listing one part
    // 100,000 times read it 100,000 times.
    let mut read = std::collections::HashSet::new();
    for (name, path) in sheets {
        if !read.insert(path.clone()) {
            continue;
        }
        if !out.heading(&name) {
            break;
        }
        if let Some(sheet) = archive.read(&path)? {
            let mut rows = Rows::new(&strings, &styles, date1904);
            xml::walk(&sheet, &budget, |node| rows.visit(node, &mut out));
        }
    }
    out.finish_text(KIND)
}

/// The shared strings, in order: each `si` item's text, its runs joined, its
/// phonetic hints (`rPh`) left out.
fn shared_strings(bytes: &[u8], budget: &Budget) -> Vec<String> {
    let mut strings = Vec::new();
    let (mut in_text, mut in_phonetic) = (false, false);
    xml::walk(bytes, budget, |node| {
        match node {
            Node::Open("si", _) => {
                if !reserve(&mut strings, 1, budget) {
                    return false;
                }
                strings.push(String::new())
            }
            Node::Open("rPh", _) => in_phonetic = true,
            Node::Close("rPh") => in_phonetic = false,
            Node::Open("t", _) => in_text = true,
            Node::Close("t") => in_text = false,
            Node::Text(text) if in_text && !in_phonetic => {
                if let Some(last) = strings.last_mut() {
                    // No bigger than a cell holds; what cells repeat of
                    // them is paid for as it is written.
                    push_cell(last, text);
                }
            }
            _ => {}
        }
        true
    });
    strings
}

/// Per cell style (the `s` of a cell, an index into `cellXfs`): whether its
/// number format shows a date or time, and which.
fn cell_styles(bytes: &[u8], budget: &Budget) -> Vec<Option<Shows>> {
    let mut custom = HashMap::new();
    let mut styles = Vec::new();
    let mut in_cell_xfs = false;
    xml::walk(bytes, budget, |node| {
        match node {
            Node::Open("numFmt", tag) => {
                let id = attr(tag, "numFmtId").and_then(|id| id.parse::<u32>().ok());
                if let (Some(id), Some(code)) = (id, attr(tag, "formatCode")) {
                    custom.insert(id, dates::custom(&code));
                }
            }
            Node::Open("cellXfs", _) => in_cell_xfs = true,
            Node::Close("cellXfs") => in_cell_xfs = false,
            Node::Open("xf", tag) if in_cell_xfs => {
                let id = attr(tag, "numFmtId").and_then(|id| id.parse::<u32>().ok());
                styles.push(id.and_then(|id| {
                    custom
                        .get(&id)
                        .copied()
                        .unwrap_or_else(|| dates::builtin(id))
                }));
            }
            _ => {}
        }
        true
    });
    styles
}

/// The column (0 for A) of an A1 reference such as `AB12`.
fn column(reference: &str) -> Option<usize> {
    let letters = reference.bytes().take_while(u8::is_ascii_alphabetic);
    let mut column = 0usize;
    let mut any = false;
    for letter in letters {
        column = column * 26 + (letter.to_ascii_uppercase() - b'A') as usize + 1;
        any = true;
        if column > MAX_COLUMN {
            return None;
        }
    }
    any.then(|| column - 1)
}

/// One sheet's rows: the cell being read and where the row has got to.
struct Rows<'s> {
    strings: &'s [String],
    styles: &'s [Option<Shows>],
    date1904: bool,
    /// What the current cell's number format shows, when a date or time.
    shows: Option<Shows>,
    /// The next column the row would write.
    next: usize,
    kind: Option<String>,
    value: String,
    in_value: bool,
}

impl<'s> Rows<'s> {
    fn new(strings: &'s [String], styles: &'s [Option<Shows>], date1904: bool) -> Self {
        Rows {
            strings,
            styles,
            date1904,
            shows: None,
            next: 0,
            kind: None,
            value: String::new(),
            in_value: false,
        }
    }

    fn visit(&mut self, node: Node<'_, '_>, out: &mut Out) -> bool {
        match node {
            Node::Open("row", _) => {
                self.next = 0;
                out.newline();
            }
            Node::Close("row") => return out.newline(),
            Node::Open("c", tag) => {
                let at = attr(tag, "r").and_then(|r| column(&r)).unwrap_or(self.next);
                // Tabs up to the cell's own column: a gap keeps later cells in place.
                let gap = at.saturating_sub(self.next) + usize::from(self.next > 0);
                if gap > 0 && !out.push(&"\t".repeat(gap)) {
                    return false;
                }
                self.next = at.max(self.next) + 1;
                self.kind = attr(tag, "t");
                self.shows = attr(tag, "s")
                    .and_then(|s| s.parse::<usize>().ok())
                    .and_then(|s| self.styles.get(s).copied().flatten());
                self.value.clear();
            }
            Node::Close("c") => return out.text(&self.cell_text()),
            // `v` holds a value; `t` the text of an inline string (`is`).
            Node::Open("v" | "t", _) => self.in_value = true,
            Node::Close("v" | "t") => self.in_value = false,
            Node::Text(text) if self.in_value => push_cell(&mut self.value, text),
            _ => {}
        }
        !out.full()
    }

    fn cell_text(&self) -> String {
        let date = match (self.kind.as_deref(), self.shows) {
            (None | Some("n"), Some(shows)) => self
                .value
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(|serial| dates::format(serial, shows, self.date1904)),
            _ => None,
        };
        let text = match self.kind.as_deref() {
            _ if date.is_some() => date.as_deref().unwrap_or_default(),
            Some("s") => self
                .value
                .trim()
                .parse::<usize>()
                .ok()
                .and_then(|i| self.strings.get(i))
                .map_or("", String::as_str),
            Some("b") => match self.value.trim() {
                "1" => "TRUE",
                _ => "FALSE",
            },
            _ => self.value.as_str(),
        };
        // A tab or newline inside a cell would break the row apart.
        text.replace(['\t', '\n', '\r'], " ")
    }
}

#[cfg(test)]
mod tests {
    use super::column;

    #[test]
    fn reads_a1_columns() {
        assert_eq!(column("A1"), Some(0));
        assert_eq!(column("Z9"), Some(25));
        assert_eq!(column("AA10"), Some(26));
        assert_eq!(column("XFD1048576"), Some(16_383));
        assert_eq!(column("XFE1"), None);
        assert_eq!(column("12"), None);
    }
}
