//! The core of ruby_llm-file_store: plain Rust, no Ruby types.
//!
//! ```
//! use file_store_core::path::normalize;
//! assert_eq!(normalize("./reports//q3.pdf").unwrap(), "reports/q3.pdf");
//! ```

pub mod cancel;
pub mod content_type;
pub mod convert;
pub mod dir;
pub mod edit;
pub mod error;
pub mod lent;
pub mod path;
pub mod run;
pub mod search;
pub mod snapshot;
pub mod spill;
pub mod text;
pub mod tree;
pub mod version;

pub use error::{Error, Result};
