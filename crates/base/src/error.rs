//! The one error type of the core. The binding maps each variant to a Ruby class.

use std::io;

/// Everything the core can refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A name that is not a path inside the store (empty, `.` or `..` parts, control characters).
    #[error("{0:?} is not a path inside the chat's files")]
    InvalidPath(String),
    /// A path longer than file systems take (over 4,096 bytes, or a part over 255),
    /// or deeper than a walk looks (over 128 parts).
    #[error("{0} is too long for a path: at most 4096 bytes, 255 for each part and 128 parts")]
    PathTooLong(String),
    /// No file at the path.
    #[error("No file at {0}")]
    NotFound(String),
    /// The path names a folder where a file was expected.
    #[error("{0} is a folder, not a file")]
    IsFolder(String),
    /// The path names a file where a folder was expected.
    #[error("{0} is a file, not a folder")]
    IsFile(String),
    /// A component of the path is a symbolic link, which the store never follows.
    #[error("{0} is a symbolic link, which the store does not follow")]
    SymbolicLink(String),
    /// An argument other than a path is wrong, such as an invalid regex.
    #[error("{0}")]
    InvalidArgument(String),
    /// A write whose folder was deleted while it ran (a race with `delete_folder`):
    /// nothing was written.
    #[error("{path} was not written: {} was deleted while the write ran", folder_words(.folder))]
    FolderGone {
        /// The store path written.
        path: String,
        /// The folder that went.
        folder: String,
    },
    /// A code run could not be started or sandboxed.
    #[error("{0}")]
    Sandbox(String),
    /// No convert worker could convert the document, for a reason that is not the
    /// document's: the worker executable cannot run (the message names its path
    /// and why), the system refused a process, a worker was killed from outside or
    /// did not answer within the wall-clock bound. Nothing of it is kept against
    /// the document.
    #[error("{0}")]
    Converter(String),
    /// The work was interrupted (`Timeout.timeout`, `Thread#kill`, Ctrl-C) and stopped.
    #[error("the operation was interrupted")]
    Cancelled,
    /// The operating system refused or failed.
    #[error("{path}: {source}")]
    Io {
        /// The store path (or folder) the operation was on.
        path: String,
        /// What the operating system said.
        source: io::Error,
    },
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<String>, source: impl Into<io::Error>) -> Self {
        Error::Io {
            path: path.into(),
            source: source.into(),
        }
    }
}

/// A folder as a message names it: the store's own folder is `.`.
fn folder_words(folder: &str) -> String {
    if folder == "." {
        "the store's folder".to_string()
    } else {
        format!("its folder {folder}")
    }
}

/// The core's result type.
pub type Result<T> = std::result::Result<T, Error>;
