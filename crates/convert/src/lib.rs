//! Text from documents a model cannot read as they are: PDF, Word, Excel,
//! PowerPoint, OpenDocument, EPUB and HTML, read locally in time linear in the
//! input.
//!
//! Each converter takes the file's bytes and gives its text, or a [`Refusal`]
//! saying why not. Hostile input ends quickly: archives are read through
//! [`archive::Archive`], which caps entries and uncompressed bytes; each
//! conversion draws on one [`budget::Budget`] of text ([`MAX_OUTPUT`]) and
//! work ([`budget::MAX_WORK`]), both counted in what the document holds and
//! never in time, past which the converter stops and returns what it has,
//! ending `[cut: why]`: the same document gives the same text every time.
//!
//! The app never runs them itself: it sends each document to a worker process,
//! this crate's `file_store_convert` executable ([`worker`]), over its pipes
//! ([`wire`]), so what a document costs past the budget is the worker's.
//!
//! ```
//! let html = b"<p>Hello <b>there</b></p><script>alert(1)</script><p>Bye</p>";
//! assert_eq!(file_store_convert::html(html).unwrap(), "Hello there\nBye\n");
//! ```
//!
//! # Layout
//!
//! Uses go one way. This module is the dispatcher ([`Kind`], [`convert_with`],
//! and [`office`], which tells the zipped formats apart); it uses the format
//! modules (`pdf/`, `office/`, `odf/`, `html/`, `epub.rs`), and they use
//! `common/` (the budget, archives, XML, the text being written, dates and
//! [`Refusal`]), which uses none of them; a format that holds another uses
//! that one's module (an EPUB's pages are read by `html`). [`wire`] and
//! [`worker`] sit above the dispatcher; [`supervisor`] starts the workers and
//! the hosts of code runs ([`host`]), which use the sandbox crate, not the
//! converters. What two modules share moves down into a module both
//! use (`office/parts.rs`, `pdf/content.rs`, `common/`), never into one of
//! them; `crates/base/tests/layers.rs` fails on any circle.
//!
//! # Adding a converter
//!
//! 1. Its folder, `crates/convert/src/<format>/`: `mod.rs` with the entry function
//!    (`fn(&mut Archive) -> Converted` for a zipped format, `fn(&[u8]) ->
//!    Converted` otherwise), built on `common/`: one [`budget::Budget`] for
//!    every ceiling, [`archive::Archive`] for a zip, `Out` for the text.
//! 2. One line here: for a zipped format, an arm of `read_office` naming the
//!    part only that format has. A file that is not a zip is a new [`Kind`]
//!    instead (its variant, its name in [`Kind::named`], its arm in
//!    [`Kind::convert`]) with its entry function re-exported here, which the
//!    binding then offers to Ruby.
//! 3. Its tests: units beside the code; in `tests/`, a real file of it (from
//!    `spec/fixtures/documents`) in `convert_formats.rs`, and documents built to
//!    break each of its ceilings in the hostile corpus (`tests/hostile/`, run
//!    by `hostile_documents.rs`) and the linearity properties
//!    (`convert_properties.rs`).

mod common;
mod epub;
pub mod host;
pub mod html;
pub mod modes;
mod odf;
mod office;
pub mod pdf;
pub mod supervisor;
pub mod wire;
pub mod worker;

use std::rc::Rc;

use common::archive::Archive;
use common::budget::Budget;

pub use common::refusal::{Converted, Refusal};
pub use common::{archive, budget};
pub use html::html;
pub use pdf::pdf;

pub use budget::MAX_OUTPUT;

/// One of the built-in converters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`pdf`]: PDF.
    Pdf,
    /// [`office`]: Word, Excel, PowerPoint, OpenDocument and EPUB.
    Office,
    /// [`html`]: HTML.
    Html,
}

impl Kind {
    /// Every built-in converter.
    pub const ALL: [Kind; 3] = [Kind::Pdf, Kind::Office, Kind::Html];

    /// The name the app knows this converter by: `"pdf"`, `"office"`, `"html"`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Pdf => "pdf",
            Kind::Office => "office",
            Kind::Html => "html",
        }
    }

    /// The converter called `name` (see [`Kind::name`]), or `None`.
    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The text this converter reads from `bytes`, or why there is none.
    pub fn convert(self, bytes: &[u8]) -> Converted {
        match self {
            Kind::Pdf => pdf(bytes),
            Kind::Office => office(bytes),
            Kind::Html => html(bytes),
        }
    }
}

/// Tries each converter of `chain` in order and returns the first text; when none
/// reads the file, the last one's refusal.
///
/// ```
/// use file_store_convert::{convert_with, Kind};
/// let text = convert_with(&[Kind::Pdf, Kind::Html], b"<p>Hi</p>").unwrap();
/// assert_eq!(text, "Hi\n");
/// ```
pub fn convert_with(chain: &[Kind], bytes: &[u8]) -> Converted {
    let mut refusal = Refusal::NoText("file");
    for kind in chain {
        match kind.convert(bytes) {
            Ok(text) => return Ok(text),
            Err(why) => refusal = why,
        }
    }
    Err(refusal)
}

/// The text of a .docx, .xlsx or .pptx file, an OpenDocument file (.odt, .ods,
/// .odp, zipped or flat) or an EPUB book.
pub fn office(bytes: &[u8]) -> Converted {
    let budget = Budget::new();
    let converted = read_office(bytes, &budget);
    match (converted, budget.marker()) {
        // A part the budget stopped short is no broken file: say it was cut.
        (Err(Refusal::Unreadable(..) | Refusal::NoText(_)), Some(marker)) => Ok(marker + "\n"),
        (converted, _) => converted,
    }
}

/// Reads `bytes` with the converter of the zipped format it is (or of a flat
/// OpenDocument file), found by the part only that format has.
fn read_office(bytes: &[u8], budget: &Rc<Budget>) -> Converted {
    if odf::is_flat(bytes) {
        return odf::flat(bytes, budget);
    }
    let mut archive = Archive::open(bytes, office::KIND, budget)?;
    if let Some(main) = office::main_word_part(&mut archive)? {
        office::word(&mut archive, &main)
    } else if archive.has("xl/workbook.xml") {
        office::excel(&mut archive)
    } else if archive.has("ppt/presentation.xml") {
        office::slides(&mut archive)
    } else if archive.has("content.xml") {
        odf::odf(&mut archive)
    } else if archive.has("META-INF/container.xml") {
        epub::epub(&mut archive)
    } else {
        Err(Refusal::unreadable(
            office::KIND,
            "no Word, Excel, PowerPoint, OpenDocument or EPUB part",
        ))
    }
}
