//! Text from documents a model cannot read as they are: PDF, Word, Excel,
//! PowerPoint and HTML, read locally in time linear in the input.
//!
//! Each converter takes the file's bytes and gives its text, or a [`Refusal`]
//! saying why not. Hostile input ends quickly: archives are read through
//! [`archive::Archive`], which caps entries and uncompressed bytes; each
//! conversion draws on one [`budget::Budget`] of text ([`MAX_OUTPUT`]), work
//! ([`budget::MAX_WORK`]) and time ([`budget::MAX_TIME`]), past which the
//! converter stops and returns what it has, ending `[cut: why]`.
//!
//! ```
//! let html = b"<p>Hello <b>there</b></p><script>alert(1)</script><p>Bye</p>";
//! assert_eq!(file_store_core::convert::html(html).unwrap(), "Hello there\nBye\n");
//! ```

pub mod cache;
mod charset;
mod common;
mod dispatch;
mod epub;
mod excel;
pub mod html;
mod odf;
mod office;
pub mod pdf;
mod word;

pub use common::refusal::{Converted, Refusal};
pub use common::{archive, budget};
pub use dispatch::{convert_with, Kind};
pub use html::html;
pub use office::office;
pub use pdf::pdf;

pub use budget::MAX_OUTPUT;
