//! What can go wrong: each error names the file (or folder) it is about.

use std::io;
use std::path::{Path, PathBuf};

/// Why the model could not be loaded, or a batch not embedded.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The model folder is missing or cannot be read.
    #[error("model folder {}: {source}", path.display())]
    ModelDir {
        /// The folder given to [`crate::Model::load`].
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A file of the model could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A file of the model is damaged, or is not the model this crate runs.
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Memory for a result sized by the input could not be had.
    #[error("out of memory for {what}")]
    Memory {
        /// What was being allocated.
        what: &'static str,
    },
}

impl Error {
    pub(crate) fn io(path: &Path, source: io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn invalid(path: &Path, reason: impl Into<String>) -> Self {
        Error::Invalid {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}
