//! OpenDocument (.odt, .ods, .odp, and their flat .fodt, .fods, .fodp forms):
//! text documents as Word ones are read (headings, lists, tables, then headers
//! and footers, footnotes, endnotes and comments), spreadsheets as Excel ones
//! (`## Sheet`, `(hidden)` when hidden, tab-separated rows, dates as their ISO
//! value), presentations a `## Slide N` per page. One streaming pass per part.

mod table;

use std::collections::HashSet;
use std::rc::Rc;

use crate::common::archive::Archive;
use crate::common::budget::Budget;
use crate::common::out::{Distinct, Out};
use crate::common::refusal::{Converted, Refusal};
use crate::common::xml::{self, attr, Node};
use table::Table;

const KIND: &str = "OpenDocument file";

/// How deep notes and comments may nest in one another before more are ignored.
const MAX_NESTING: usize = 16;

/// The text of an OpenDocument archive (`content.xml`, with `styles.xml` for
/// headers and footers).
pub(super) fn odf(archive: &mut Archive<'_>) -> Converted {
    let budget = archive.budget().clone();
    let content = archive
        .read("content.xml")?
        .ok_or_else(|| Refusal::unreadable(KIND, "content.xml is missing or broken"))?;
    let mut reader = Reader::new(&budget);
    if let Some(styles) = archive.read("styles.xml")? {
        xml::walk(&styles, &budget, |node| reader.visit(node));
    }
    xml::walk(&content, &budget, |node| reader.visit(node));
    reader.finish()
}

/// The text of a flat OpenDocument file: one XML document with it all.
pub fn flat(bytes: &[u8], budget: &Rc<Budget>) -> Converted {
    let mut reader = Reader::new(budget);
    xml::walk(bytes, budget, |node| reader.visit(node));
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

/// What an open header, note or comment is, for where its text goes when it closes.
enum Kind {
    Header,
    /// A footnote or endnote (`true`) and its label.
    Note(bool, String),
    Comment,
}

struct Reader {
    budget: Rc<Budget>,
    mode: Mode,
    in_body: bool,
    in_master: bool,
    out: Out,
    /// The headers, notes and comments open, innermost last: text goes to the
    /// last. Each is written into its section when it closes, so what is kept
    /// is text, paid for in the budget, never an empty output per element.
    open: Vec<(Kind, Out)>,
    headers: Distinct,
    /// Footnotes and endnotes, each `label text`.
    footnotes: Vec<String>,
    endnotes: Vec<String>,
    comments: Distinct,
    /// Depth of `p`/`h` open: text counts only inside one.
    paragraphs: usize,
    /// An element whose text is not shown (tracked deletions, speaker notes,
    /// a note's citation, a comment's date) and how many of it are open.
    skipping: Option<(String, usize)>,
    footnote_count: usize,
    endnote_count: usize,
    slides: usize,
    /// Table styles that hide their sheet.
    hidden_styles: HashSet<String>,
    style: Option<String>,
    table: Table,
    /// A list item's `- ` was written: its first paragraph goes on that line.
    item_started: bool,
}

impl Reader {
    fn new(budget: &Rc<Budget>) -> Self {
        Reader {
            budget: budget.clone(),
            mode: Mode::default(),
            in_body: false,
            in_master: false,
            out: Out::new(budget),
            open: Vec::new(),
            headers: Distinct::default(),
            footnotes: Vec::new(),
            endnotes: Vec::new(),
            comments: Distinct::default(),
            paragraphs: 0,
            skipping: None,
            footnote_count: 0,
            endnote_count: 0,
            slides: 0,
            hidden_styles: HashSet::new(),
            style: None,
            table: Table::default(),
            item_started: false,
        }
    }

    fn sink(&mut self) -> &mut Out {
        match self.open.last_mut() {
            Some((_, out)) => out,
            None => &mut self.out,
        }
    }

    fn writing(&self) -> bool {
        self.skipping.is_none() && (self.in_body || !self.open.is_empty())
    }

    /// Opens a header, note or comment; past [`MAX_NESTING`] its content is skipped.
    fn push_sink(&mut self, kind: Kind, name: &str) {
        if self.open.len() < MAX_NESTING {
            let out = Out::new(&self.budget);
            self.open.push((kind, out));
        } else {
            self.skipping = Some((name.into(), 1));
        }
    }

    /// Closes the innermost header, note or comment, keeping its text.
    fn pop_sink(&mut self) {
        let Some((kind, out)) = self.open.pop() else {
            return;
        };
        // One line each, made in place: a note may hold 64 MB.
        let mut text = out.finish().into_bytes();
        text.iter_mut()
            .filter(|b| **b == b'\n')
            .for_each(|b| *b = b' ');
        let text = String::from_utf8(text).unwrap_or_default();
        let text = text.trim();
        match kind {
            Kind::Header => self.headers.add(text),
            Kind::Comment => self.comments.add(text),
            Kind::Note(endnote, label) => {
                let notes = if endnote {
                    &mut self.endnotes
                } else {
                    &mut self.footnotes
                };
                // The label is written twice: paid for here the second time.
                if self.budget.take_text(label.len() + 1) == label.len() + 1 {
                    notes.push(format!("{label} {text}"));
                }
            }
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
                self.push_sink(Kind::Header, name)
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
                    self.endnote_count += 1;
                    format!("[^e{}]", self.endnote_count)
                } else {
                    self.footnote_count += 1;
                    format!("[^{}]", self.footnote_count)
                };
                self.sink().push(&label);
                self.push_sink(Kind::Note(endnote, label), name);
            }
            "annotation" => self.push_sink(Kind::Comment, name),
            "table" => self.open_table(tag),
            "table-row" => self.table.open_row(tag),
            "table-cell" | "covered-table-cell" => self.table.open_cell(tag),
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "body" => self.in_body = false,
            "master-styles" => self.in_master = false,
            "header" | "footer" | "header-left" | "footer-left" | "header-first"
            | "footer-first" | "note" | "annotation"
                if !self.open.is_empty() =>
            {
                self.pop_sink()
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
            "table-cell" | "covered-table-cell" if self.table.cells > 0 => {
                let spreadsheet = self.mode == Mode::Spreadsheet;
                self.table.close_cell(spreadsheet, &self.budget)
            }
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
        if self.mode == Mode::Spreadsheet && self.table.depth == 1 && self.open.is_empty() {
            let mut name = attr(tag, "name").unwrap_or_default();
            if attr(tag, "style-name").is_some_and(|s| self.hidden_styles.contains(&s)) {
                name.push_str(" (hidden)");
            }
            self.out.heading(&name);
        } else {
            self.sink().newline();
        }
    }

    fn close_row(&mut self) {
        if self.table.row.is_empty() {
            return;
        }
        let row = std::mem::take(&mut self.table.row);
        for _ in 0..self.table.row_repeat.min(1 << 20) {
            if !self.budget.step(1) {
                break;
            }
            let out = self.sink();
            out.newline();
            if !(out.text(&row) && out.newline()) {
                break;
            }
        }
    }

    fn finish(mut self) -> Converted {
        // What a cut left open is kept as far as it got.
        while !self.open.is_empty() {
            self.pop_sink();
        }
        // A sheet's or slide's header is page furniture (a page number, a sheet name).
        if self.mode != Mode::Text {
            self.headers = Distinct::default();
        }
        let sections: [(&str, Vec<&str>); 4] = [
            ("Headers and footers", self.headers.entries().collect()),
            ("Footnotes", self.footnotes.iter().map(|n| &**n).collect()),
            ("Endnotes", self.endnotes.iter().map(|n| &**n).collect()),
            ("Comments", self.comments.entries().collect()),
        ];
        for (title, entries) in sections {
            if entries.is_empty() {
                continue;
            }
            self.out.section(title);
            for entry in entries {
                // Paid for as it was read.
                self.out.copy(entry);
                self.out.copy("\n");
            }
        }
        self.out.finish_text(KIND)
    }
}
