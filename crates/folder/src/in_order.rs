//! A walk that finds a folder's files in the order sorting their paths gives, so
//! a caller can start on the first files while the walk goes on to the rest.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;

use rustix::fs::FileType;

use super::walk::{below, dup, join, open_dirs, passed_over, read_folder};
use file_store_base::error::Result;

/// A folder being walked: where it is, its descriptor while the walk is in it,
/// and its names not yet walked, each a subfolder's with a `/` after it, in
/// reverse order so the next is popped.
struct Frame {
    relative: String,
    path: String,
    dir: Option<Arc<OwnedFd>>,
    names: Vec<String>,
}

/// Reads the folder `relative` to `start` into a frame; `None` as
/// [`read_folder`] says.
fn frame(start: BorrowedFd<'_>, base: &str, relative: String) -> Result<Option<Frame>> {
    let path = below(base, &relative);
    let Some((dir, listed)) = read_folder(start, &relative, &path)? else {
        return Ok(None);
    };
    let mut names: Vec<String> = listed
        .into_iter()
        .map(|(name, kind)| match kind {
            FileType::Directory => name + "/",
            _ => name,
        })
        .collect();
    // A folder's files sort as its name with a `/` after it, since that is how
    // every path inside it starts: sorted so, the walk meets the paths in order.
    names.sort_unstable_by(|a, b| b.cmp(a));
    Ok(Some(Frame {
        relative,
        path,
        dir: Some(dir),
        names,
    }))
}

/// Calls `visit` with the folder holding each regular file below `start` (whose
/// path is `base`), open, and the file's store path, in the order
/// sorting all the paths gives, leaving out what `walk_files` leaves out, so a
/// file is opened from its folder rather than from the store's root. The walk
/// holds `start` and the descriptor of the folder it is in, whatever the tree's
/// shape (a folder's is let go on the way down and opened again on the way back
/// when files of it are left), and the names of each folder on the way down;
/// `visit` may keep a folder's descriptor as long as it needs it.
pub(super) fn walk_files_in_order(
    start: BorrowedFd<'_>,
    base: &str,
    mut visit: impl FnMut(&Arc<OwnedFd>, String) -> Result<()>,
) -> Result<()> {
    let mut stack: Vec<Frame> = frame(start, base, String::new())?.into_iter().collect();
    while let Some(top) = stack.last_mut() {
        let Some(name) = top.names.pop() else {
            stack.pop();
            continue;
        };
        if let Some(folder) = name.strip_suffix('/') {
            let relative = join(&top.relative, folder);
            top.dir = None;
            if let Some(inner) = frame(start, base, relative)? {
                stack.push(inner);
            }
            continue;
        }
        let dir = match &top.dir {
            Some(dir) => Arc::clone(dir),
            None => match again(start, &top.relative)? {
                Some(dir) => Arc::clone(top.dir.insert(dir)),
                // Gone, or swapped for a link, since it was read: as a folder in
                // that state when its turn came, nothing of it is walked.
                None => {
                    stack.pop();
                    continue;
                }
            },
        };
        visit(&dir, join(&top.path, &name))?;
    }
    Ok(())
}

/// The folder `relative` to `start` opened again, `None` when the walk now passes
/// it over ([`passed_over`]).
fn again(start: BorrowedFd<'_>, relative: &str) -> Result<Option<Arc<OwnedFd>>> {
    let opened = if relative.is_empty() {
        dup(start)
    } else {
        open_dirs(start, relative, false)
    };
    match opened {
        Ok(fd) => Ok(Some(Arc::new(fd))),
        Err(e) if passed_over(&e, relative) => Ok(None),
        Err(e) => Err(e),
    }
}
