//! Files of a folder as a search reads them: every file below a folder, each with
//! the folder it was found in, and a file opened with its content type worked out
//! from the open descriptor.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;

use super::entry::{kept_type_of_file, types_kept};
use super::{in_order, open_regular_at, Root};
use file_store_base::content_type;
use file_store_base::error::{Error, Result};

/// A file a walk found: the folder it was found in, still open, and its path in
/// the store. Opened through that folder it costs one step of a path walk, not
/// one a folder on the way from the store's root.
#[derive(Debug, Clone)]
pub struct Found {
    folder: Arc<OwnedFd>,
    path: String,
}

impl Found {
    /// The file's path in the store.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The file's name in its folder.
    fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    /// Opens the file, refusing a link or anything but a regular file put in its
    /// place since the walk, and gives it with its size then.
    pub fn open_sized(&self) -> Result<(File, u64)> {
        open_regular_at(self.folder.as_fd(), self.name(), &self.path)
    }

    /// [`Root::open_typed`] for the file found.
    pub fn open_typed(&self, kept: bool) -> Result<(File, String, u64)> {
        let (file, size) = self.open_sized()?;
        typed(file, size, &self.path, kept)
    }
}

impl Root {
    /// The paths of every file inside the folder `prefix` (or all), sorted. Hidden
    /// files and folders and symbolic links are left out; nothing is opened.
    pub fn file_paths(&self, prefix: Option<&str>) -> Result<Vec<String>> {
        let mut paths = Vec::new();
        self.each_file(prefix, |found| {
            paths.push(found.path);
            Ok(())
        })?;
        Ok(paths)
    }

    /// Calls `visit` with each file of [`Root::file_paths`], in its order, as the
    /// walk finds them: a caller works on the first files while the walk goes on,
    /// and opens each from the folder it was found in. An error of `visit` stops
    /// the walk and is returned.
    pub fn each_file(
        &self,
        prefix: Option<&str>,
        mut visit: impl FnMut(Found) -> Result<()>,
    ) -> Result<()> {
        let Some((start, base)) = self.start_of(prefix)? else {
            return Ok(());
        };
        let start = start.as_ref().map_or(self.fd.as_fd(), |fd| fd.as_fd());
        in_order::walk_files_in_order(start, &base, |folder, path| {
            visit(Found {
                folder: Arc::clone(folder),
                path,
            })
        })
    }

    /// Whether a write ever kept a content type in a file of this folder: when
    /// none did, [`Root::open_typed`] need not look for one in each file.
    pub fn types_kept(&self) -> bool {
        types_kept(self.fd.as_fd())
    }

    /// Opens the file at `path` and gives it with its content type, decided as a
    /// listing decides it: the type its write was given (looked for where `kept`,
    /// as [`Root::types_kept`] says, asked once for many files), else its name,
    /// else its first bytes (read through the same descriptor, which is then
    /// rewound). The size is the file's when it was opened.
    pub fn open_typed(&self, path: &str, kept: bool) -> Result<(File, String, u64)> {
        let (file, size) = self.open_sized(path)?;
        typed(file, size, path, kept)
    }
}

/// The open `file` at `path` with its content type, as [`Root::open_typed`] says.
fn typed(mut file: File, size: u64, path: &str, kept: bool) -> Result<(File, String, u64)> {
    if let Some(kept) = kept.then(|| kept_type_of_file(&file)).flatten() {
        return Ok((file, kept, size));
    }
    if let Some(named) = content_type::from_name(path) {
        return Ok((file, named, size));
    }
    let mut head = [0u8; 512];
    let read = file.read(&mut head).map_err(|e| Error::io(path, e))?;
    file.seek(SeekFrom::Start(0))
        .map_err(|e| Error::io(path, e))?;
    Ok((file, content_type::from_content(&head[..read]), size))
}
