//! Files of a folder as a search reads them: every path below a folder, and a file
//! opened with its content type worked out from the open descriptor.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::fd::AsFd;

use super::entry::{kept_type_of_file, types_kept};
use super::{in_order, Root};
use file_store_base::content_type;
use file_store_base::error::{Error, Result};

impl Root {
    /// The paths of every file inside the folder `prefix` (or all), sorted. Hidden
    /// files and folders and symbolic links are left out; nothing is opened.
    pub fn file_paths(&self, prefix: Option<&str>) -> Result<Vec<String>> {
        let mut paths = Vec::new();
        self.each_file_path(prefix, |path| {
            paths.push(path);
            Ok(())
        })?;
        Ok(paths)
    }

    /// Calls `visit` with each path [`Root::file_paths`] gives, in its order, as
    /// the walk finds them: a caller works on the first files while the walk
    /// goes on. An error of `visit` stops the walk and is returned.
    pub fn each_file_path(
        &self,
        prefix: Option<&str>,
        visit: impl FnMut(String) -> Result<()>,
    ) -> Result<()> {
        let Some((start, base)) = self.start_of(prefix)? else {
            return Ok(());
        };
        let start = start.as_ref().map_or(self.fd.as_fd(), |fd| fd.as_fd());
        in_order::walk_paths_in_order(start, &base, visit)
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
        let (mut file, size) = self.open_sized(path)?;
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
}
