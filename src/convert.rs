//! Documents to text. The converters are the `file_store_convert` crate's, and
//! they run in its worker processes ([`pool`]), never in this one; what they
//! made of a file's version is kept ([`cache`]).

pub mod cache;
pub mod pool;
mod spawn;

pub use file_store_convert::{budget, Converted, Kind, Refusal, MAX_OUTPUT};
