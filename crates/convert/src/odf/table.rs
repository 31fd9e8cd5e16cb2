//! The tables of an OpenDocument file: rows and cells with their repeat
//! counts, a cell written once per repeat (at most [`MAX_REPEAT`] times)
//! within the conversion's budget.

use crate::common::budget::Budget;
use crate::common::dates;
use crate::common::xml::attr;

/// The most times a repeated row or cell is written (a sheet's last column).
const MAX_REPEAT: usize = 16_384;

/// Where a table has got to.
#[derive(Default)]
pub(super) struct Table {
    /// Open tables (a table in a cell nests).
    pub(super) depth: usize,
    /// In the current row: cells seen, and empty ones not yet written.
    cells_in_row: usize,
    pending: usize,
    /// The row's text so far (written once per repeat when the row ends).
    pub(super) row: String,
    pub(super) row_repeat: usize,
    /// Open cells, and the one being read: its repeat and value.
    pub(super) cells: usize,
    pub(super) cell: String,
    cell_repeat: usize,
    cell_value: Option<String>,
}

impl Table {
    /// Starts a row: its cells so far and its repeat count.
    pub(super) fn open_row(&mut self, tag: &quick_xml::events::BytesStart<'_>) {
        self.cells_in_row = 0;
        self.pending = 0;
        self.row.clear();
        self.row_repeat = repeat(tag, "number-rows-repeated");
    }

    /// Starts a cell: its repeat count and, for a date or time, its value.
    pub(super) fn open_cell(&mut self, tag: &quick_xml::events::BytesStart<'_>) {
        self.cells += 1;
        self.cell.clear();
        self.cell_repeat = repeat(tag, "number-columns-repeated");
        self.cell_value = match attr(tag, "value-type").as_deref() {
            Some("date") => attr(tag, "date-value"),
            Some("time") => attr(tag, "time-value").map(|t| dates::duration(&t)),
            _ => None,
        };
    }

    /// Ends the cell being read (the outermost, when cells nest): writes its
    /// text into the row, once per repeat, after the empty cells before it.
    pub(super) fn close_cell(&mut self, spreadsheet: bool, budget: &Budget) {
        self.cells -= 1;
        if self.cells > 0 {
            return;
        }
        let value = self.cell_value.take();
        let text = value.unwrap_or_else(|| self.cell.trim().replace(['\t', '\n'], " "));
        let repeat = self.cell_repeat;
        if text.is_empty() {
            // Empty cells are written only when one with text follows them.
            self.pending = self.pending.saturating_add(repeat);
            return;
        }
        let separator = if spreadsheet { "\t" } else { " | " };
        for _ in 0..repeat.min(MAX_REPEAT) {
            // A row longer than all the text left to write is cut there.
            if self.row.len() > budget.text_left() || !budget.step(1) {
                break;
            }
            let gap = self.pending + usize::from(self.cells_in_row > 0);
            let gap = if spreadsheet {
                gap.min(MAX_REPEAT)
            } else {
                gap.min(1)
            };
            let more = gap * separator.len() + text.len();
            if self.row.try_reserve(more).is_err() {
                budget.out_of_memory();
                break;
            }
            for _ in 0..gap {
                self.row.push_str(separator);
            }
            self.row.push_str(&text);
            self.cells_in_row += 1 + self.pending;
            self.pending = 0;
        }
    }
}

/// A repeat count attribute, 1 when absent.
fn repeat(tag: &quick_xml::events::BytesStart<'_>, name: &str) -> usize {
    attr(tag, name)
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1)
}
