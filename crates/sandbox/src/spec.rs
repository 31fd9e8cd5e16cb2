//! What one run is given.

use std::path::PathBuf;

use super::limits::Limits;

/// One run: what to execute, where, and how it is confined.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The program and its arguments, such as `["python3", "-c", "print(1)"]`.
    pub argv: Vec<String>,
    /// The run folder: the working directory and the only writable place on disk.
    pub dir: PathBuf,
    /// Folders and files outside the system paths the run may read, such as an
    /// interpreter installed under /opt or the sources of mounts linked into `dir`.
    pub read_only: Vec<PathBuf>,
    /// Whether to run under bubblewrap. Without it the limits and the timeout hold,
    /// but the run sees the machine as the calling process does.
    pub sandbox: bool,
    /// The limits.
    pub limits: Limits,
}
