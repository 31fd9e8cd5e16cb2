//! What the other crates of ruby_llm-file_store build on: plain Rust, no Ruby types.
//! Paths inside a store, the one error type, cancellation, text (lines, slices, the
//! shown form, edits), content types and a file's version.
//!
//! ```
//! use file_store_base::path::normalize;
//! assert_eq!(normalize("./reports//q3.pdf").unwrap(), "reports/q3.pdf");
//! ```

pub mod cancel;
pub mod content_type;
pub mod edit;
pub mod error;
pub mod handing_over;
pub mod lent;
pub mod path;
pub mod process_local;
pub mod removing;
pub mod spill;
pub mod text;
pub mod tree;
pub mod version;

pub use error::{Error, Result};
