//! What every converter reads and writes with: the [`budget::Budget`] of one
//! conversion, zip archives read within it ([`archive`]), streamed XML
//! ([`xml`]), the text being written ([`out`]), spreadsheet dates
//! ([`dates`]) and why a converter gives no text ([`refusal`]).
//!
//! Nothing here uses a converter or the dispatcher: the format modules use
//! these, the dispatcher uses the format modules, so each depends one way.

pub mod archive;
pub mod budget;
pub mod dates;
pub mod out;
pub mod refusal;
pub mod xml;
