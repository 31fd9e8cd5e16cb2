//! OpenDocument (.odt, .ods, .odp, and their flat .fodt, .fods, .fodp forms):
//! text documents as Word ones are read (headings, lists, tables, then headers
//! and footers, footnotes, endnotes and comments), spreadsheets as Excel ones
//! (`## Sheet`, `(hidden)` when hidden, tab-separated rows, dates as their ISO
//! value), presentations a `## Slide N` per page. One streaming pass per part.

use std::collections::HashSet;

use super::archive::Archive;
use super::out::Out;
use super::xml::{self, attr, Node};
use super::{Converted, Refusal, MAX_OUTPUT};

const KIND: &str = "OpenDocument file";

/// The most times a repeated row or cell is written (a sheet's last column).
const MAX_REPEAT: usize = 16_384;
/// How deep notes and comments may nest in one another before more are ignored.
const MAX_NESTING: usize = 16;

/// The text of an OpenDocument archive (`content.xml`, with `styles.xml` for
/// headers and footers).
pub(super) fn odf(archive: &mut Archive<'_>) -> Converted {
    let content = archive
        .read("content.xml")?
        .ok_or_else(|| Refusal::unreadable(KIND, "content.xml is missing or broken"))?;
    let mut reader = Reader::default();
    if let Some(styles) = archive.read("styles.xml")? {
        xml::walk(&styles, |node| reader.visit(node));
    }
    xml::walk(&content, |node| reader.visit(node));
    reader.finish()
}

/// The text of a flat OpenDocument file: one XML document with it all.
pub fn flat(bytes: &[u8]) -> Converted {
    let mut reader = Reader::default();
    xml::walk(bytes, |node| reader.visit(node));
    reader.finish()
}

/// Whether `bytes` look like a flat OpenDocument file.
pub fn is_flat(bytes: &[u8]) -> bool {
    if bytes.starts_with(b"PK") {
        return false;
    }
    let head = &bytes[..bytes.len().min(4096)];
    memchr::memmem::find(head, b"<office:document").is_some()
        && memchr::memmem::find(head, b"urn:oasis:names:tc:opendocument:xmlns:office").is_some()
}

#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Mode {
    /// Outside the body and any header or footer: nothing is written.
    #[default]
    Outside,
    Text,
    Spreadsheet,
    Presentation,
}

/// Where text goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    Body,
    Headers,
    Note(usize),
    Comment(usize),
}

#[derive(Default)]
struct Reader {
    mode: Mode,
    in_body: bool,
    in_master: bool,
    out: Out,
    headers: Vec<Out>,
    /// Footnotes and endnotes: (endnote?, label, text).
    notes: Vec<(bool, String, Out)>,
    comments: Vec<Out>,
    sinks: Vec<Sink>,
    /// Depth of `p`/`h` open: text counts only inside one.
    paragraphs: usize,
    /// An element whose text is not shown (tracked deletions, speaker notes,
    /// a note's citation, a comment's date) and how many of it are open.
    skipping: Option<(String, usize)>,
    footnotes: usize,
    endnotes: usize,
    slides: usize,
    /// Table styles that hide their sheet.
    hidden_styles: HashSet<String>,
    style: Option<String>,
    table: Table,
    /// A list item's `- ` was written: its first paragraph goes on that line.
    item_started: bool,
}

/// Where a table has got to.
#[derive(Default)]
struct Table {
    /// Open tables (a table in a cell nests).
    depth: usize,
    /// In the current row: cells seen, and empty ones not yet written.
    cells_in_row: usize,
    pending: usize,
    /// The row's text so far (written once per repeat when the row ends).
    row: String,
    row_repeat: usize,
    /// Open cells, and the one being read: its repeat and value.
    cells: usize,
    cell: String,
    cell_repeat: usize,
    cell_value: Option<String>,
}

impl Reader {
    fn sink(&mut self) -> &mut Out {
        match self.sinks.last().copied().unwrap_or(Sink::Body) {
            Sink::Body => &mut self.out,
            Sink::Headers => self.headers.last_mut().unwrap_or(&mut self.out),
            Sink::Note(i) => &mut self.notes[i].2,
            Sink::Comment(i) => &mut self.comments[i],
        }
    }

    fn writing(&self) -> bool {
        self.skipping.is_none() && (self.in_body || !self.sinks.is_empty())
    }

    fn push_sink(&mut self, sink: Sink) {
        if self.sinks.len() < MAX_NESTING {
            self.sinks.push(sink);
        } else {
            self.skipping = Some(("annotation".into(), 1));
        }
    }

    fn visit(&mut self, node: Node<'_, '_>) -> bool {
        if let Some((name, open)) = &mut self.skipping {
            match node {
                Node::Open(n, _) if n == name => *open += 1,
                Node::Close(n) if n == name => {
                    *open -= 1;
                    if *open == 0 {
                        self.skipping = None;
                    }
                }
                _ => {}
            }
            return true;
        }
        match node {
            Node::Open(name, tag) => self.open(name, tag),
            Node::Close(name) => self.close(name),
            Node::Text(text) => self.text(text),
        }
        !self.out.full()
    }

    fn open(&mut self, name: &str, tag: &quick_xml::events::BytesStart<'_>) {
        match name {
            "body" => self.in_body = true,
            "text" if self.in_body && self.mode == Mode::Outside => self.mode = Mode::Text,
            "spreadsheet" if self.in_body => self.mode = Mode::Spreadsheet,
            "presentation" if self.in_body => self.mode = Mode::Presentation,
            "master-styles" => self.in_master = true,
            "header" | "footer" | "header-left" | "footer-left" | "header-first"
            | "footer-first"
                if self.in_master =>
            {
                self.headers.push(Out::default());
                self.push_sink(Sink::Headers);
            }
            // Hidden sheets: a table style with `table:display="false"`.
            "style" => self.style = attr(tag, "name"),
            "table-properties" if attr(tag, "display").as_deref() == Some("false") => {
                if let Some(style) = self.style.clone() {
                    self.hidden_styles.insert(style);
                }
            }
            "tracked-changes" | "notes" | "note-citation" | "date" | "sequence-decls" | "forms"
            | "scripts" | "named-expressions" | "annotation-end" => {
                self.skipping = Some((name.to_string(), 1))
            }
            _ if !self.writing() => {}
            "page" if self.mode == Mode::Presentation => {
                self.slides += 1;
                let title = format!("Slide {}", self.slides);
                self.sink().heading(&title);
            }
            "h" => {
                self.paragraphs += 1;
                self.line_start();
                let level = attr(tag, "outline-level")
                    .and_then(|l| l.parse::<usize>().ok())
                    .unwrap_or(1)
                    .clamp(1, 6);
                self.sink().push(&"#".repeat(level));
                self.sink().push(" ");
            }
            "p" => {
                self.paragraphs += 1;
                self.line_start();
            }
            "list-item" => {
                self.line_start();
                self.sink().push("- ");
                self.item_started = true;
            }
            "s" => {
                let count = attr(tag, "c")
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(1)
                    .min(64);
                self.sink().push(&" ".repeat(count));
            }
            "tab" => {
                self.sink().push("\t");
            }
            "line-break" => self.line_start(),
            "note" => {
                let endnote = attr(tag, "note-class").as_deref() == Some("endnote");
                let label = if endnote {
                    self.endnotes += 1;
                    format!("[^e{}]", self.endnotes)
                } else {
                    self.footnotes += 1;
                    format!("[^{}]", self.footnotes)
                };
                self.sink().push(&label);
                self.notes.push((endnote, label, Out::default()));
                self.push_sink(Sink::Note(self.notes.len() - 1));
            }
            "annotation" => {
                self.comments.push(Out::default());
                self.push_sink(Sink::Comment(self.comments.len() - 1));
            }
            "table" => self.open_table(tag),
            "table-row" => {
                self.table.cells_in_row = 0;
                self.table.pending = 0;
                self.table.row.clear();
                self.table.row_repeat = repeat(tag, "number-rows-repeated");
            }
            "table-cell" | "covered-table-cell" => {
                self.table.cells += 1;
                self.table.cell.clear();
                self.table.cell_repeat = repeat(tag, "number-columns-repeated");
                self.table.cell_value = match attr(tag, "value-type").as_deref() {
                    Some("date") => attr(tag, "date-value"),
                    Some("time") => attr(tag, "time-value").map(|t| duration(&t)),
                    _ => None,
                };
            }
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "body" => self.in_body = false,
            "master-styles" => self.in_master = false,
            "header" | "footer" | "header-left" | "footer-left" | "header-first"
            | "footer-first" | "note" | "annotation"
                if !self.sinks.is_empty() =>
            {
                self.sinks.pop();
            }
            _ if !self.writing() => {}
            "creator" => {
                self.sink().push(": ");
            }
            "h" | "p" => {
                self.paragraphs = self.paragraphs.saturating_sub(1);
                if self.table.cells > 0 {
                    // Paragraphs in one cell stay on the row's line.
                    self.table.cell.push(' ');
                } else {
                    self.sink().newline();
                }
            }
            "table-cell" | "covered-table-cell" if self.table.cells > 0 => self.close_cell(),
            "table-row" if self.table.depth > 0 => self.close_row(),
            "table" => {
                self.table.depth = self.table.depth.saturating_sub(1);
                self.sink().newline();
            }
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if !self.writing() || self.paragraphs == 0 {
            return;
        }
        // In ODF, runs of whitespace in a paragraph show as one space.
        let mut collapsed = String::with_capacity(text.len());
        let mut space = false;
        for c in text.chars() {
            if c.is_whitespace() {
                space = true;
            } else {
                if std::mem::take(&mut space) {
                    collapsed.push(' ');
                }
                collapsed.push(c);
            }
        }
        if space {
            collapsed.push(' ');
        }
        if self.table.cells > 0 {
            self.table.cell.push_str(&collapsed);
        } else {
            self.sink().text(&collapsed);
        }
    }

    /// Starts a new line, unless inside a table cell (which keeps to its row).
    fn line_start(&mut self) {
        if std::mem::take(&mut self.item_started) {
            return;
        }
        if self.table.cells > 0 {
            if !self.table.cell.is_empty() && !self.table.cell.ends_with(' ') {
                self.table.cell.push(' ');
            }
        } else {
            self.sink().newline();
        }
    }

    fn open_table(&mut self, tag: &quick_xml::events::BytesStart<'_>) {
        self.table.depth += 1;
        if self.mode == Mode::Spreadsheet && self.table.depth == 1 && self.sinks.is_empty() {
            let mut name = attr(tag, "name").unwrap_or_default();
            if attr(tag, "style-name").is_some_and(|s| self.hidden_styles.contains(&s)) {
                name.push_str(" (hidden)");
            }
            self.out.heading(&name);
        } else {
            self.sink().newline();
        }
    }

    fn close_cell(&mut self) {
        self.table.cells -= 1;
        if self.table.cells > 0 {
            return;
        }
        let value = self.table.cell_value.take();
        let text = value.unwrap_or_else(|| self.table.cell.trim().replace(['\t', '\n'], " "));
        let repeat = self.table.cell_repeat;
        if text.is_empty() {
            // Empty cells are written only when one with text follows them.
            self.table.pending = self.table.pending.saturating_add(repeat);
            return;
        }
        let separator = if self.mode == Mode::Spreadsheet {
            "\t"
        } else {
            " | "
        };
        for _ in 0..repeat.min(MAX_REPEAT) {
            // A row longer than all the text a converter returns is cut there.
            if self.table.row.len() > MAX_OUTPUT {
                break;
            }
            let gap = self.table.pending + usize::from(self.table.cells_in_row > 0);
            if self.mode == Mode::Spreadsheet {
                for _ in 0..gap.min(MAX_REPEAT) {
                    self.table.row.push_str(separator);
                }
            } else if gap > 0 {
                self.table.row.push_str(separator);
            }
            self.table.row.push_str(&text);
            self.table.cells_in_row += 1 + self.table.pending;
            self.table.pending = 0;
        }
    }

    fn close_row(&mut self) {
        if self.table.row.is_empty() {
            return;
        }
        let row = std::mem::take(&mut self.table.row);
        for _ in 0..self.table.row_repeat.min(1 << 20) {
            let out = self.sink();
            out.newline();
            if !(out.text(&row) && out.newline()) {
                break;
            }
        }
    }

    fn finish(mut self) -> Converted {
        // A sheet's or slide's header is page furniture (a page number, a sheet name).
        if self.mode != Mode::Text {
            self.headers.clear();
        }
        let sections: [(&str, Vec<String>); 4] = [
            ("Headers and footers", texts(self.headers.drain(..))),
            (
                "Footnotes",
                labelled(self.notes.iter_mut().filter(|n| !n.0)),
            ),
            ("Endnotes", labelled(self.notes.iter_mut().filter(|n| n.0))),
            ("Comments", texts(self.comments.drain(..))),
        ];
        for (title, entries) in sections {
            if entries.is_empty() {
                continue;
            }
            self.out.heading(title);
            for entry in entries {
                self.out.text(&entry);
                self.out.newline();
            }
        }
        self.out.finish_text(KIND)
    }
}

/// The distinct texts of some outputs, in order.
fn texts(outs: impl Iterator<Item = Out>) -> Vec<String> {
    let mut entries: Vec<String> = Vec::new();
    for out in outs {
        let text = out.finish().trim().replace('\n', " ");
        if !text.is_empty() && !entries.contains(&text) {
            entries.push(text);
        }
    }
    entries
}

fn labelled<'a>(notes: impl Iterator<Item = &'a mut (bool, String, Out)>) -> Vec<String> {
    notes
        .map(|(_, label, out)| {
            let text = std::mem::take(out).finish();
            format!("{label} {}", text.trim().replace('\n', " "))
        })
        .collect()
}

/// A repeat count attribute, 1 when absent.
fn repeat(tag: &quick_xml::events::BytesStart<'_>, name: &str) -> usize {
    attr(tag, name)
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1)
}

/// An ODF time value (`PT14H30M00S`, an ISO 8601 duration) as `14:30:00`.
fn duration(value: &str) -> String {
    let Some(rest) = value.strip_prefix("PT") else {
        return value.to_string();
    };
    let (mut hours, mut minutes, mut seconds) = (0u64, 0u64, 0f64);
    let mut number = String::new();
    for c in rest.chars() {
        match c {
            'H' => hours = number.parse().unwrap_or(0),
            'M' => minutes = number.parse().unwrap_or(0),
            'S' => seconds = number.parse().unwrap_or(0.0),
            c => {
                number.push(c);
                continue;
            }
        }
        number.clear();
    }
    format!("{hours:02}:{minutes:02}:{:02}", seconds.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::{duration, flat};

    #[test]
    fn a_long_cell_repeated_across_a_row_stays_within_the_output_cap() {
        let cell = "x".repeat(1 << 20);
        let sheet = format!(
            "<office:document xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\"><office:body><office:spreadsheet>\
             <table:table table:name=\"S\"><table:table-row table:number-rows-repeated=\"1000000\">\
             <table:table-cell table:number-columns-repeated=\"16384\"><text:p>{cell}</text:p></table:table-cell>\
             </table:table-row></table:table></office:spreadsheet></office:body></office:document>"
        );
        let started = std::time::Instant::now();
        let text = flat(sheet.as_bytes()).unwrap();
        assert!(text.len() <= super::MAX_OUTPUT + 1);
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn reads_time_values() {
        assert_eq!(duration("PT14H30M00S"), "14:30:00");
        assert_eq!(duration("PT09H05M07.4S"), "09:05:07");
        assert_eq!(duration("PT36H00M00S"), "36:00:00");
    }
}
